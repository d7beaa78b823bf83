// One seat of the audit bot: its event stream (with resume), its pings, its one command in
// flight, its own picture of the table, and the contract checks on everything it receives.
"use strict";

const crypto = require("crypto");
const c = require("./contract");
const { checkEvent } = require("./checks");

// A command copied from the latest LegalActions may only be refused for these reasons
// (docs/protocol.md, "Following your legal actions is safe").
const RACE_REFUSALS = new Set(["NOT_YOUR_TURN", "WINDOW_CLOSED"]);
const RETRYABLE = new Set([c.grpc.status.UNAVAILABLE, c.grpc.status.DEADLINE_EXCEEDED]);

const cardKey = (card) => `${card.color}/${card.rank}`;

class Seat {
  constructor({ clients, table, auditor, token, seat, resumeEvery }) {
    Object.assign(this, { clients, table, auditor, token, seat, resumeEvery });
    this.last = 0;                 // number of the last event processed
    this.legal = null;             // the newest LegalActions
    this.legalUsed = true;         // whether a command was already sent from `legal`
    this.inFlight = null;
    this.hand = new Map();         // own hand, as reconstructed from events: card key -> count
    this.counts = new Map();       // every seat's hand size, from events
    this.history = new Map();      // event number -> {hand, counts, legal} for GetView checks
    this.recent = [];              // recent events (for the log of a refusal)
    this.windows = new Map();      // window id -> ReactionWindow (open ones)
    this.openedWindows = new Map();
    this.entropy = null;           // {round, value}
    this.round = 0;
    this.matchOver = false;
    this.stream = null;
    this.commandCount = 0;
    this.counter = 0;
    this.outcomes = new Map();
    this.refusalCounts = new Map();
    this.kindCounts = new Map();
    this.ping = { sequence: 0, previous: null, timer: null, afterRestart: false };
    this.expectConnected = null;   // after reopening: our own seat_connection_changed is due
    this.checkState = {};          // state the event checks keep between events
  }

  // ---- the event stream ----------------------------------------------------------------

  openStream(after, { batch = 0, snapshot = false } = {}) {
    const request = { table_id: this.table.id, token: this.token, after_event_number: String(after) };
    if (batch) request.batch = batch;
    if (snapshot) request.start_with_snapshot = true;
    const stream = this.clients.watch.WatchEvents(request);
    this.stream = stream;
    this.streamOpenedAt = this.last;
    this.replayUntil = this.table.lastNumber;
    this.expectConnected = this.matchOver ? null : { since: this.last };
    stream.on("data", (message) => {
      if (stream !== this.stream) return;
      const events = message.event ? [message.event] : (message.events || []);
      this.auditor.check("stream.batch_shape", batch > 1 ? !message.event : !(message.events || []).length,
        { batch, message_keys: Object.keys(message) });
      for (const event of events) this.onEvent(event);
    });
    stream.on("error", (error) => {
      if (stream !== this.stream) return;
      if (error.code === c.grpc.status.CANCELLED) return;
      if (!this.table.restarting && error.code !== c.grpc.status.UNAVAILABLE) {
        this.auditor.violation("stream.error", { seat: this.seat, refusal: c.readRefusal(error) });
      }
      setTimeout(() => { if (stream === this.stream) this.openStream(this.last); }, 300);
    });
    stream.on("end", () => {});
  }

  /** Closes the stream and opens a new one from the last number: the resume check. */
  reopen() {
    const old = this.stream;
    this.stream = null;
    old.cancel();
    const roll = this.table.random();
    setTimeout(() => this.openStream(this.last, { batch: roll < 0.3 ? 5 : 0, snapshot: roll > 0.9 }), 150);
  }

  close() {
    if (this.ping.timer) clearInterval(this.ping.timer);
    const old = this.stream;
    this.stream = null;
    if (old) old.cancel();
  }

  onEvent(event) {
    const number = Number(event.number);
    const kind = event.payload;
    this.kindCounts.set(kind, (this.kindCounts.get(kind) || 0) + 1);
    if (kind === "snapshot") {
      this.auditor.check("stream.snapshot_number", number >= this.last, { seat: this.seat, number, last: this.last });
      this.applySnapshot(event.snapshot.view, number);
    } else {
      const ok = this.auditor.check("stream.no_gap_no_duplicate", number === this.last + 1,
        { seat: this.seat, expected: this.last + 1, got: number, kind });
      if (!ok && number <= this.last) return;   // a duplicate: skip it
      try {
        this.applyEvent(event);
      } catch (error) {
        this.auditor.violation("bot.exception", { seat: this.seat, number, kind, error: String(error.stack) });
      }
    }
    this.last = number;
    this.table.lastNumber = Math.max(this.table.lastNumber, number);
    this.recent.push({ number, kind, event });
    if (this.recent.length > 40) this.recent.shift();
    if (event.your_legal_actions !== undefined) {
      const unchanged = this.legal !== null && JSON.stringify(this.legal) === JSON.stringify(event.your_legal_actions);
      this.auditor.check("legal.set_only_when_changed", !unchanged || kind === "snapshot" || number <= this.replayUntil,
        { seat: this.seat, number, kind, legal: event.your_legal_actions });
      if (!unchanged) {
        this.legal = event.your_legal_actions;
        this.legalUsed = false;
        this.legalArrived = Date.now();
      }
    }
    this.history.set(number, { hand: this.handKey(), counts: JSON.stringify([...this.counts].sort()),
      legal: this.legal });
    if (this.history.size > 300) this.history.delete(this.history.keys().next().value);
    this.table.maybeRestart();
    if (!this.matchOver && this.resumeEvery > 0 && this.table.random() < 1 / this.resumeEvery &&
        number > this.streamOpenedAt + 3 && !this.table.restarting) {
      this.reopen();
      return;
    }
    this.act();
  }

  applySnapshot(view, number) {
    this.hand = new Map();
    for (const ref of view.hand || []) this.addCard(ref.card);
    this.counts = new Map((view.seats || []).map((s) => [s.seat || 0, s.hand_size || 0]));
    this.windows = new Map((view.open_windows || []).map((w) => [Number(w.id), w]));
    this.round = view.round_number || 0;
    if (view.legal_actions !== undefined) {
      this.legal = view.legal_actions;
      this.legalUsed = false;
    }
    this.auditor.check("snapshot.event_number", Number(view.event_number || 0) === number,
      { seat: this.seat, number, view_event_number: view.event_number });
  }

  addCard(card) {
    const key = cardKey(card);
    this.hand.set(key, (this.hand.get(key) || 0) + 1);
  }

  removeCard(card) {
    const key = cardKey(card);
    const n = this.hand.get(key) || 0;
    this.auditor.check("hand.played_card_was_held", n > 0, { seat: this.seat, card: key, hand: this.handKey() });
    if (n <= 1) this.hand.delete(key); else this.hand.set(key, n - 1);
  }

  setHand(seatHand) {
    this.hand = new Map();
    for (const ref of seatHand.cards || []) {
      if (this.auditor.check("hand.own_faces_shown", ref.card !== undefined, { seat: this.seat, seatHand })) {
        this.addCard(ref.card);
      }
    }
  }

  handKey() {
    return JSON.stringify([...this.hand].sort());
  }

  /** Keeps the own hand and every seat's count, and runs the per-event contract checks. */
  applyEvent(event) {
    const p = event[event.payload];
    const me = this.seat;
    const seatOf = (x) => x || 0;
    switch (event.payload) {
      case "round_started":
        this.round = p.round_number;
        this.hand = new Map();
        break;
      case "cards_dealt":
        for (const h of p.hands || []) {
          this.counts.set(seatOf(h.seat), h.count || 0);
          if (seatOf(h.seat) === me) this.setHand(h);
        }
        break;
      case "cards_drawn": {
        const s = seatOf(p.seat);
        const before = this.counts.get(s) || 0;
        this.auditor.check("cards_drawn.hand_size", (p.hand_size || 0) === before + (p.count || 0),
          { seat: me, event, before });
        this.counts.set(s, p.hand_size || 0);
        if (s === me) {
          this.auditor.check("cards_drawn.own_faces", (p.cards || []).length === (p.count || 0) &&
            (p.cards || []).every((r) => r.card), { seat: me, event });
          for (const r of p.cards || []) if (r.card) this.addCard(r.card);
        }
        break;
      }
      case "cards_played": {
        const s = seatOf(p.seat);
        const before = this.counts.get(s) || 0;
        this.auditor.check("cards_played.hand_size", (p.hand_size || 0) === before - (p.cards || []).length,
          { seat: me, event, before });
        this.counts.set(s, p.hand_size || 0);
        if (s === me) for (const r of p.cards || []) this.removeCard(r.card);
        break;
      }
      case "card_taken_back": {
        const s = seatOf(p.seat);
        this.counts.set(s, (this.counts.get(s) || 0) + 1);
        if (s === me) this.addCard(p.card.card);
        break;
      }
      case "hands_rotated":
        for (const h of p.hands || []) {
          this.counts.set(seatOf(h.seat), h.count || 0);
          if (seatOf(h.seat) === me) this.setHand(h);
        }
        break;
      case "hands_swapped":
        for (const h of [p.seat_hand, p.target_hand]) {
          if (!h) continue;
          this.counts.set(seatOf(h.seat), h.count || 0);
          if (seatOf(h.seat) === me) this.setHand(h);
        }
        break;
      case "cards_exchanged": {
        const [giver, taker] = [seatOf(p.seat), seatOf(p.target_seat)];
        if (giver === me) { this.removeCard(p.given.card); this.addCard(p.received.card); }
        if (taker === me) { this.removeCard(p.received.card); this.addCard(p.given.card); }
        break;
      }
      case "reaction_window_opened":
        this.windows.set(Number(p.window.id), p.window);
        this.openedWindows.set(Number(p.window.id), { window: p.window, number: Number(event.number) });
        break;
      case "reaction_window_closed":
        this.windows.delete(Number(p.window_id));
        break;
      case "round_ended":
        for (const h of p.hands || []) {
          if (seatOf(h.seat) !== me) continue;
          const shown = new Map();
          for (const r of h.cards || []) if (r.card) shown.set(cardKey(r.card), (shown.get(cardKey(r.card)) || 0) + 1);
          this.auditor.check("hand.round_end_matches_events", JSON.stringify([...shown].sort()) === this.handKey(),
            { seat: me, shown: [...shown].sort(), tracked: this.handKey(), event: event.number });
        }
        break;
      case "match_ended":
        this.matchOver = true;
        break;
      case "shuffle_committed":
        this.round = p.round_number;
        break;
      default:
        break;
    }
    checkEvent(this, event);
  }

  // ---- choosing and sending commands ---------------------------------------------------

  act() {
    if (this.inFlight || this.legalUsed || !this.legal || this.table.restarting) return;
    const command = this.choose(this.legal);
    if (!command) return;
    this.legalUsed = true;
    this.send(command, this.legal);
  }

  /** Picks one command from `legal`, the way a player who races for everything would. */
  choose(legal) {
    const rnd = this.table.random;
    const plays = legal.plays || [];
    const base = { table_id: this.table.id, token: this.token };
    const handSize = this.counts.get(this.seat) || 0;
    if (legal.commit_entropy && !(this.entropy && this.entropy.round === this.round)) {
      const value = crypto.randomBytes(32);
      this.entropy = { round: this.round, value };
      return { rpc: "CommitEntropy", req: { ...base,
        commitment: c.entropyCommitment(this.table.id, this.round, this.seat, value) } };
    }
    if (legal.commit_entropy) return null;
    if (legal.reveal_entropy && this.entropy && !this.entropy.revealSent) {
      this.entropy.revealSent = true;
      return { rpc: "RevealEntropy", req: { ...base, entropy: this.entropy.value } };
    }
    if ((legal.react_window_ids || []).length) {
      return { rpc: "React", req: { ...base, reaction_window_id: legal.react_window_ids[0],
        reaction_time: rnd() < 0.5 ? c.duration(Date.now() - this.legalArrived) : undefined } };
    }
    if ((legal.catch_uno_targets || []).length && rnd() < 0.85) {
      const target = legal.catch_uno_targets[0] || 0;
      const win = [...this.windows.values()].find((w) => w.kind === "REACTION_WINDOW_KIND_UNO_CATCH" &&
        (w.subject_seat || 0) === target);
      return { rpc: "CatchUno", req: { ...base, target_seat: target,
        reaction_window_id: win && rnd() < 0.7 ? win.id : "0" } };
    }
    const racePlays = plays.filter((o) => o.reaction_window_id && o.reaction_window_id !== "0");
    if (racePlays.length && rnd() < 0.8) return this.playCommand(base, pick(racePlays, rnd), handSize);
    if (legal.choose_color) return { rpc: "ChooseColor", req: { ...base, color: this.bestColor() } };
    if ((legal.swap_target_seats || []).length) {
      return { rpc: "ChooseSwapTarget", req: { ...base, target_seat: pick(legal.swap_target_seats, rnd) } };
    }
    if (legal.five_swap) {
      return { rpc: "FiveSwap", req: { ...base, target_seat: pick(legal.five_swap.target_seats, rnd),
        card: pick(legal.five_swap.cards, rnd) } };
    }
    if ((legal.give_cards || []).length) return { rpc: "GiveCard", req: { ...base, card: pick(legal.give_cards, rnd) } };
    if (legal.challenge && rnd() < 0.4) return { rpc: "Challenge", req: base };
    const turnPlays = plays.filter((o) => !o.reaction_window_id || o.reaction_window_id === "0");
    if (legal.call_uno && !legal.required && rnd() < 0.6) {
      return { rpc: "CallUno", req: { ...base, reaction_time: rnd() < 0.5 ? c.duration(Date.now() - this.legalArrived) : undefined } };
    }
    if (turnPlays.length && (legal.required || rnd() < 0.5)) return this.playCommand(base, pick(turnPlays, rnd), handSize);
    if (legal.draw && legal.required) return { rpc: "Draw", req: base };
    if (legal.pass_turn && legal.required) return { rpc: "Pass", req: base };
    if (legal.call_uno && legal.required) return { rpc: "CallUno", req: base };
    if (legal.required) {
      this.auditor.violation("legal.required_without_command", { seat: this.seat, legal });
    }
    return null;
  }

  playCommand(base, option, handSize) {
    const rnd = this.table.random;
    let cards = option.cards;
    if (cards.length > 1 && rnd() < 0.3) cards = cards.slice(0, 1 + Math.floor(rnd() * cards.length));
    const req = { ...base, cards };
    const last = cards[cards.length - 1];
    const namesColor = last.color === "COLOR_BLACK" && option.needs_color;
    if (namesColor && rnd() < 0.8) req.color = this.bestColor();
    if (handSize - cards.length === 1 && rnd() < 0.6) req.call_uno = true;
    if (option.reaction_window_id && option.reaction_window_id !== "0") {
      req.reaction_window_id = option.reaction_window_id;
      if (rnd() < 0.5) req.reaction_time = c.duration(Date.now() - this.legalArrived);
    }
    return { rpc: "PlayCards", req };
  }

  bestColor() {
    const tally = { COLOR_RED: 0, COLOR_YELLOW: 0, COLOR_GREEN: 0, COLOR_BLUE: 0 };
    for (const [key, n] of this.hand) {
      const color = key.split("/")[0];
      if (color in tally) tally[color] += n;
    }
    return Object.entries(tally).sort((a, b) => b[1] - a[1])[0][0];
  }

  async send(command, legal) {
    this.counter += 1;
    const commandId = `s${this.seat}-${this.counter}`;
    const request = { ...command.req, command_id: commandId };
    const sentAt = this.last;
    this.inFlight = command.rpc;
    this.commandCount += 1;
    let result;
    for (let attempt = 0; ; attempt += 1) {
      result = await c.call(this.clients.play, command.rpc, request, 20000);
      if (!result.error || !RETRYABLE.has(result.error.code) || attempt > 40) break;
      await new Promise((r) => setTimeout(r, 300));   // transport trouble: the same id again
    }
    this.inFlight = null;
    if (result.error) this.onRefusal(command, request, legal, sentAt, result.error);
    else this.onResult(command, request, legal, sentAt, result.response);
    if (command.rpc === "CommitEntropy" && result.error) this.entropy = null;
    this.act();
  }

  onResult(command, request, legal, sentAt, response) {
    const result = response.result || {};
    const outcome = result.outcome || "UNSET";
    this.outcomes.set(`${command.rpc}:${outcome}`, (this.outcomes.get(`${command.rpc}:${outcome}`) || 0) + 1);
    this.auditor.check("command.outcome_set", outcome !== "UNSET" && outcome !== "COMMAND_OUTCOME_UNSPECIFIED",
      { seat: this.seat, rpc: command.rpc, request: printable(request), response });
    this.auditor.check("command.never_penalized", outcome !== "COMMAND_OUTCOME_PENALIZED",
      () => ({ seat: this.seat, rpc: command.rpc, request: printable(request), response, legal,
        events: this.eventsSince(sentAt) }));
    const first = Number(result.event_number || 0);
    const last = Number(result.last_event_number || 0);
    this.auditor.check("command.event_numbers", first > 0 && last >= first,
      { seat: this.seat, rpc: command.rpc, request: printable(request), response });
  }

  onRefusal(command, request, legal, sentAt, error) {
    const refusal = c.readRefusal(error);
    const key = `${command.rpc}:${refusal.reason || refusal.codeName}`;
    this.refusalCounts.set(key, (this.refusalCounts.get(key) || 0) + 1);
    this.auditor.check("refusal.detail_in_both_trailers", refusal.problems.length === 0,
      { seat: this.seat, rpc: command.rpc, refusal, request: printable(request) });
    const allowed = RACE_REFUSALS.has(refusal.reason) ||
      (this.table.restarting && RETRYABLE.has(refusal.code));
    this.auditor.check("command.copied_from_legal_not_refused", allowed,
      () => ({ seat: this.seat, rpc: command.rpc, request: printable(request), refusal, legal,
        events: this.eventsSince(sentAt) }));
  }

  eventsSince(number) {
    return this.recent.filter((e) => e.number > number - 2).map((e) => ({ number: e.number, kind: e.kind,
      payload: e.event[e.kind], legal: e.event.your_legal_actions }));
  }

  // ---- pings ---------------------------------------------------------------------------

  startPinging() {
    this.ping.timer = setInterval(() => this.sendPing(), 1000);
  }

  async sendPing() {
    if (this.table.restarting || this.ping.inFlight) return;   // one ping at a time: each reports the last
    this.ping.inFlight = true;
    this.ping.sequence += 1;
    const request = { table_id: this.table.id, token: this.token, sequence: String(this.ping.sequence),
      client_send_time: c.timestamp(Date.now()) };
    if (this.ping.previous) request.previous = this.ping.previous;
    const t0 = Date.now();
    const { response, error } = await c.call(this.clients.time, "Ping", request, 5000);
    const t3 = Date.now();
    this.ping.inFlight = false;
    if (error) {
      const refusal = c.readRefusal(error);
      const expected = this.ping.afterRestart && refusal.reason === "BAD_PING_REPORT";
      this.ping.afterRestart = false;
      if (!expected && !this.table.restarting && error.code !== c.grpc.status.UNAVAILABLE) {
        this.auditor.violation("ping.refused", { seat: this.seat, request, refusal });
      }
      this.ping.previous = null;
      return;
    }
    this.ping.afterRestart = false;
    const [t1, t2] = [c.millis(response.receive_time), c.millis(response.send_time)];
    this.auditor.check("ping.fields", response.sequence === String(this.ping.sequence) && t1 !== undefined &&
      t2 !== undefined && t2 >= t1 && c.millis(response.client_send_time) === c.millis(request.client_send_time),
    { seat: this.seat, request, response });
    if (this.ping.sequence > 3) {
      this.auditor.check("ping.smoothed_round_trip_after_reports", response.smoothed_round_trip !== undefined,
        { seat: this.seat, request, response });
    }
    this.ping.rtt = (t3 - t0) - (t2 - t1);
    this.ping.previous = { sequence: String(this.ping.sequence), client_receive_time: c.timestamp(t3) };
  }

  afterHostRestart() {
    this.ping.afterRestart = this.ping.previous !== null;
  }

  // ---- checks against GetView ----------------------------------------------------------

  /** Compares GetView with the picture built from events, at the view's own event number. */
  async compareView(reason) {
    const { response, error } = await c.call(this.clients.watch, "GetView",
      { table_id: this.table.id, token: this.token }, 5000);
    if (error) {
      if (!this.table.restarting) this.auditor.violation("getview.refused", { seat: this.seat, refusal: c.readRefusal(error) });
      return;
    }
    const view = response.view;
    const at = Number(view.event_number || 0);
    const then = this.history.get(at);
    if (!then) return;
    const viewHand = new Map();
    for (const ref of view.hand || []) {
      if (this.auditor.check("getview.hand_faces", ref.card !== undefined, { seat: this.seat, ref })) {
        viewHand.set(cardKey(ref.card), (viewHand.get(cardKey(ref.card)) || 0) + 1);
      }
    }
    this.auditor.check("getview.hand_equals_events", JSON.stringify([...viewHand].sort()) === then.hand,
      { seat: this.seat, reason, at, view_hand: [...viewHand].sort(), events_hand: then.hand });
    const viewCounts = JSON.stringify((view.seats || []).map((s) => [s.seat || 0, s.hand_size || 0]).sort());
    if (this.counts.size) {
      this.auditor.check("getview.hand_sizes_equal_events", viewCounts === then.counts,
        { seat: this.seat, reason, at, view: viewCounts, events: then.counts });
    }
    this.auditor.check("getview.legal_equals_events", sameLegal(view.legal_actions, then.legal),
      () => ({ seat: this.seat, reason, at, view: view.legal_actions, events: then.legal,
        around: this.recent.filter((e) => Math.abs(e.number - at) < 6).map((e) => ({ number: e.number, kind: e.kind,
          legal: e.event.your_legal_actions })) }));
    return view;
  }

  async finalChecks() {
    await this.compareView("final");
  }
}

/** Legal actions compared without their deadline (GetView recomputes nothing else). */
function sameLegal(a, b) {
  const norm = (x) => JSON.stringify(x && Object.keys(x).length ? x : {});
  return norm(a) === norm(b);
}

function pick(list, rnd) {
  return list[Math.floor(rnd() * list.length)];
}

function printable(request) {
  const out = { ...request };
  delete out.token;
  for (const k of ["commitment", "entropy"]) if (out[k]) out[k] = out[k].toString("hex");
  return out;
}

module.exports = { Seat, cardKey };
