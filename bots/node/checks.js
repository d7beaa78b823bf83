// The per-event contract checks of the audit bot: each one quotes the comment it holds the host to
// (protos/unonet/v1/*.proto, docs/protocol.md). `checkEvent(seat, event)` runs after the seat
// applied the event to its own picture of the table.
"use strict";

const c = require("./contract");

const TIMED_KINDS = new Set(["REACTION_WINDOW_KIND_UNO_CATCH", "REACTION_WINDOW_KIND_UNO_SLAP",
  "REACTION_WINDOW_KIND_SOUND_WILD", "REACTION_WINDOW_KIND_RUN_CUT"]);
const UNTIMED_KINDS = new Set(["REACTION_WINDOW_KIND_JUMP_IN", "REACTION_WINDOW_KIND_SKIP_ESCAPE"]);
const BLOCKING_KINDS = new Set(["REACTION_WINDOW_KIND_UNO_SLAP", "REACTION_WINDOW_KIND_SOUND_WILD",
  "REACTION_WINDOW_KIND_RUN_CUT"]);
const CARD_KINDS = new Set(["REACTION_WINDOW_KIND_JUMP_IN", "REACTION_WINDOW_KIND_RUN_CUT",
  "REACTION_WINDOW_KIND_SOUND_WILD", "REACTION_WINDOW_KIND_SKIP_ESCAPE"]);
const PLAY_WINDOWS = new Set(["REACTION_WINDOW_KIND_JUMP_IN", "REACTION_WINDOW_KIND_SKIP_ESCAPE",
  "REACTION_WINDOW_KIND_RUN_CUT"]);

const seatOf = (x) => x || 0;

/** An event as a violation quotes it: number, kind, payload without card lists, legal actions. */
function compact(e) {
  const payload = { ...e.event[e.kind] };
  for (const key of ["cards", "hands", "settings", "seats", "view", "card_commitments"]) if (key in payload) payload[key] = "...";
  return { number: e.number, kind: e.kind, payload, legal: e.event.your_legal_actions };
}
const size = (bytes) => (bytes ? bytes.length : 0);

/** Runs every check that applies to `event`; `s` is the Seat (its auditor, state and picture). */
function checkEvent(s, event) {
  const a = s.auditor;
  const st = s.checkState;
  const p = event[event.payload];
  const n = Number(event.number);
  const at = (extra) => ({ observer: s.seat, number: n, kind: event.payload, payload: p, ...extra,
    before: s.recent.slice(-8).map(compact) });

  a.check("event.time_set", event.time !== undefined, at({}));
  a.check("event.one_payload", typeof event.payload === "string" && p !== undefined, at({}));
  checkConsequence(s, event, at);
  checkLegal(s, event, at);

  switch (event.payload) {
    case "player_joined":
      a.check("player_joined.name", !!p.name, at({}));
      break;
    case "bot_seated":
      a.check("bot_seated.name_and_kind", !!p.name && !!p.bot_kind, at({}));
      (st.botSeats = st.botSeats || new Set()).add(seatOf(p.seat));
      break;
    case "match_started":
      a.check("match_started.settings_and_seats", !!p.settings && !!p.settings.ruleset &&
        (p.seats || []).length === s.table.seatCount, at({}));
      st.ruleset = p.settings && p.settings.ruleset;
      st.botSeats = st.botSeats || new Set();
      for (const x of p.seats || []) {
        if (x.is_bot && !st.botSeats.has(seatOf(x.seat))) {
          st.botSeats.add(seatOf(x.seat));
          a.check("bot_seated.before_match_started", false, at({ payload: undefined, seat: x,
            note: "a bot seat in MatchStarted.seats with no BotSeated event before it" }));
        }
      }
      break;
    case "dealer_chosen":
      a.check("dealer_chosen.draws", (p.draws || []).length >= s.table.seatCount &&
        p.draws.every((d) => d.card && d.card.card), at({}));
      break;
    case "shuffle_committed":
      a.check("shuffle_committed.fields", size(p.seed_commitment) === 32 && !!p.scheme && p.round_number > 0, at({}));
      a.check("shuffle_committed.asks_open_seat", (p.entropy_seats || []).map(seatOf).includes(s.seat) ||
        s.table.restarting, at({ note: "my stream is open, so my seat should be asked" }));
      st.askedRound = p.round_number;
      st.shuffleCommittedAt = n;
      break;
    case "seat_entropy_committed":
      if (seatOf(p.seat) === s.seat && s.entropy) {
        const expected = c.entropyCommitment(s.table.id, s.entropy.round, s.seat, s.entropy.value);
        a.check("seat_entropy_committed.echoes_commitment", Buffer.compare(expected, p.commitment) === 0, at({}));
      }
      break;
    case "shuffle_timed_out":
      a.check("shuffle_timed_out.not_me", !(p.seats || []).map(seatOf).includes(s.seat),
        at({ note: "this seat commits and reveals at once" }));
      break;
    case "deck_committed":
      a.check("deck_committed.fields", size(p.merkle_root) === 32 && p.deck_size > 0 &&
        (p.card_commitments || []).length === p.deck_size, at({ payload: undefined, deck_size: p.deck_size }));
      if (!p.deck_number && s.entropy && s.entropy.revealed) {
        a.check("deck_committed.contributing_includes_me", (p.contributing_seats || []).map(seatOf).includes(s.seat),
          at({ payload: { contributing_seats: p.contributing_seats } }));
      }
      break;
    case "seat_entropy_revealed":
      if (seatOf(p.seat) === s.seat && s.entropy) s.entropy.revealed = true;
      break;
    case "cards_dealt":
      a.check("cards_dealt.draw_pile_size", p.draw_pile_size > 0, at({ payload: { draw_pile_size: p.draw_pile_size } }));
      for (const h of p.hands || []) {
        a.check("seat_hand.cards_length_equals_count", (h.cards || []).length === (h.count || 0),
          at({ payload: { seat: h.seat, count: h.count, listed: (h.cards || []).length } }));
        checkRefs(s, h.cards, seatOf(h.seat) === s.seat, at);
      }
      break;
    case "first_card_turned":
      a.check("first_card_turned.face", !!(p.card && p.card.card), at({}));
      break;
    case "turn_started": {
      const human = !(st.botSeats && st.botSeats.has(seatOf(p.seat))) && !(st.takenOver || new Set()).has(seatOf(p.seat));
      if (human) {
        a.check("turn_started.clock_fields_for_player", p.deadline !== undefined && p.turn_time !== undefined &&
          p.time_bank_remaining !== undefined, at({ note: "clock on: turn_time 30s, time_bank 20s" }));
      } else {
        a.check("turn_started.no_deadline_for_bot", p.deadline === undefined, at({}));
      }
      if (seatOf(p.seat) === s.seat && s.table.random() < 0.25) {
        setTimeout(() => s.compareView("turn_started"), 0);
      }
      break;
    }
    case "cards_played": {
      a.check("cards_played.kind", !!p.kind && p.kind !== "PLAY_KIND_UNSPECIFIED", at({}));
      const windowed = p.kind === "PLAY_KIND_JUMP_IN" || p.kind === "PLAY_KIND_RUN_CUT";
      a.check("cards_played.window_id_iff_jump_in_or_cut", windowed === (!!p.reaction_window_id && p.reaction_window_id !== "0"), at({}));
      a.check("cards_played.called_uno_only_at_one_card", !p.called_uno || p.hand_size === 1, at({}));
      a.check("cards_played.faces", (p.cards || []).length > 0 && p.cards.every((r) => r.card), at({}));
      checkRefs(s, p.cards, true, at);
      st.lastPlay = { seat: seatOf(p.seat), handSize: p.hand_size || 0, calledUno: !!p.called_uno, number: n };
      break;
    }
    case "color_chosen":
      a.check("color_chosen.color", !!p.color && p.color !== "COLOR_BLACK" && p.color !== "COLOR_UNSPECIFIED", at({}));
      break;
    case "cards_drawn":
      a.check("cards_drawn.reason", !!p.reason && p.reason !== "DRAW_REASON_UNSPECIFIED", at({}));
      checkRefs(s, p.cards, seatOf(p.seat) === s.seat, at);
      break;
    case "direction_reversed":
      a.check("direction_reversed.direction", !!p.direction, at({}));
      break;
    case "draw_obligation_changed":
      if (p.obligation) {
        a.check("draw_obligation.fields", p.obligation.amount > 0 && !!p.obligation.kind &&
          p.obligation.kind !== "DRAW_OBLIGATION_KIND_UNSPECIFIED", at({}));
      }
      break;
    case "reaction_window_opened":
      checkWindowOpened(s, p.window, at);
      break;
    case "reaction_window_closed":
      checkWindowClosed(s, p, at);
      break;
    case "uno_caught":
      a.check("uno_caught.penalty_cards", p.penalty_cards > 0 || (st.ruleset && st.ruleset.uno_penalty === 0), at({}));
      expectNext(s, "uno_caught is followed by the penalty cards_drawn", (e) => e.payload === "cards_drawn" &&
        e.cards_drawn.reason === "DRAW_REASON_UNO_PENALTY" && seatOf(e.cards_drawn.seat) === seatOf(p.target_seat) &&
        (e.cards_drawn.count || 0) + (e.cards_drawn.forgiven || 0) === p.penalty_cards, n);
      break;
    case "false_catch":
      if (p.penalty_cards) {
        expectNext(s, "false_catch is followed by the catcher's cards_drawn", (e) => e.payload === "cards_drawn" &&
          e.cards_drawn.reason === "DRAW_REASON_FALSE_CATCH" && seatOf(e.cards_drawn.seat) === seatOf(p.catcher_seat), n);
      }
      break;
    case "challenge_resolved":
      a.check("challenge_resolved.fields", !!p.bluff_penalty && p.penalty_cards > 0 &&
        seatOf(p.penalized_seat) === (p.guilty ? seatOf(p.accused_seat) : seatOf(p.challenger_seat)), at({}));
      expectNext(s, "challenge_resolved is followed by the penalty cards_drawn (card_taken_back first under take_back)",
        (e) => e.payload === "card_taken_back" || (e.payload === "cards_drawn" &&
          seatOf(e.cards_drawn.seat) === seatOf(p.penalized_seat) &&
          e.cards_drawn.reason === (p.guilty ? "DRAW_REASON_BLUFF_CAUGHT" : "DRAW_REASON_CHALLENGE_LOST")), n);
      break;
    case "wrong_jump_in":
      if (p.penalty_cards) {
        expectNext(s, "wrong_jump_in is followed by its cards_drawn", (e) => e.payload === "cards_drawn" &&
          e.cards_drawn.reason === "DRAW_REASON_WRONG_JUMP_IN", n);
      } else {
        expectNext(s, "wrong_jump_in is followed by its penalty_points", (e) => e.payload === "penalty_points", n);
      }
      break;
    case "illegal_play":
      expectNext(s, "illegal_play is followed by its cards_drawn", (e) => e.payload === "cards_drawn" &&
        e.cards_drawn.reason === "DRAW_REASON_ILLEGAL_PLAY", n);
      break;
    case "chat_penalty":
      expectNext(s, "chat_penalty is followed by its cards_drawn", (e) => e.payload === "cards_drawn" &&
        e.cards_drawn.reason === "DRAW_REASON_BROKE_SILENCE", n);
      break;
    case "seat_connection_changed":
      checkConnection(s, p, at);
      break;
    case "seat_taken_over":
      (st.takenOver = st.takenOver || new Set()).add(seatOf(p.seat));
      a.check("seat_taken_over.fields", !!p.policy && !!p.reason && (p.policy !== "TAKEOVER_POLICY_BOT" || !!p.bot_kind), at({}));
      break;
    case "round_ended":
      a.check("round_ended.scores", (p.scores || []).length === s.table.seatCount &&
        p.scores.every((x, i) => seatOf(x.seat) === i), at({}));
      a.check("round_ended.winner_hand_empty", (p.hands || []).every((h) => seatOf(h.seat) !== seatOf(p.winner_seat) ||
        !(h.count || 0)), at({}));
      a.check("round_ended.hands_faces", (p.hands || []).every((h) => (h.cards || []).length === (h.count || 0) &&
        (h.cards || []).every((r) => r.card)), at({}));
      setTimeout(() => s.compareView("round_ended"), 0);
      break;
    case "match_ended":
      a.check("match_ended.fields", !!p.reason && p.reason !== "MATCH_END_REASON_UNSPECIFIED" &&
        p.reason !== "MATCH_END_REASON_ABANDONED" && (p.winner_seats || []).length > 0 &&
        (p.scores || []).length === s.table.seatCount, at({}));
      break;
    case "turn_timed_out":
      a.check("turn_timed_out.not_my_seat", seatOf(p.seat) !== s.seat, at({ note: "this bot always answers at once" }));
      break;
    default:
      break;
  }
  checkWindowOptions(s, event, at);
}

/** Every CardRef carries a 32-byte commitment (fairness on), and faces + salt where visible. */
function checkRefs(s, refs, visible, at) {
  for (const r of refs || []) {
    s.auditor.check("card_ref.commitment", size(r.commitment) === 32, at({ ref: r }));
    if (visible) s.auditor.check("card_ref.face_and_salt", !!r.card && size(r.salt) > 0, at({ ref: r }));
    else s.auditor.check("card_ref.no_face_for_others", !r.card && !size(r.salt), at({ ref: r }));
  }
}

/** ReactionWindow's comments: which fields each kind fills. */
function checkWindowOpened(s, w, at) {
  const a = s.auditor;
  a.check("window.id_kind_eligible", !!w && Number(w.id) > 0 && !!w.kind && (w.eligible_seats || []).length > 0,
    at({}));
  a.check("window.open_time_and_allowance", w.open_time !== undefined && w.latency_allowance !== undefined, at({}));
  a.check("window.subject_seat_set", w.subject_seat !== undefined, at({}));
  if (TIMED_KINDS.has(w.kind)) a.check("window.deadline_for_timed_kind", w.deadline !== undefined, at({}));
  if (UNTIMED_KINDS.has(w.kind)) a.check("window.no_deadline_for_jump_in", w.deadline === undefined, at({}));
  a.check("window.blocks_play_by_kind", !!w.blocks_play === BLOCKING_KINDS.has(w.kind), at({}));
  a.check("window.card_by_kind", !!(w.card && w.card.card) === CARD_KINDS.has(w.kind), at({}));
  const st = s.checkState;
  if (w.kind === "REACTION_WINDOW_KIND_UNO_CATCH" && st.lastPlay) {
    a.check("window.uno_catch_after_uncalled_one_card", st.lastPlay.handSize === 1 &&
      seatOf(w.subject_seat) === st.lastPlay.seat, at({ last_play: st.lastPlay }));
  }
  const eligible = (w.eligible_seats || []).map(seatOf).includes(s.seat);
  if (eligible && (w.kind === "REACTION_WINDOW_KIND_UNO_CATCH" || w.kind === "REACTION_WINDOW_KIND_UNO_SLAP" ||
      w.kind === "REACTION_WINDOW_KIND_SOUND_WILD") && seatOf(w.subject_seat) !== s.seat) {
    (st.owedOptions = st.owedOptions || new Map()).set(Number(w.id), w);
  }
  (st.kinds = st.kinds || new Map()).set(Number(w.id), w.kind);
}

/** The ruling: fields, and the consequence that must come right after it. */
function checkWindowClosed(s, p, at) {
  const a = s.auditor;
  const st = s.checkState;
  const opened = (st.kinds || new Map()).get(Number(p.window_id));
  if (opened) a.check("window_closed.kind_matches_opened", p.kind === opened, at({ opened }));
  const reactions = p.reactions || [];
  if (reactions.length) {
    a.check("window_closed.tie_seed_32_bytes", size(p.tie_seed) === 32, at({}));
    a.check("window_closed.reaction_fields", reactions.every((r) => r.receive_time !== undefined &&
      r.reaction_time !== undefined && r.latency_forgiven !== undefined), at({}));
  }
  if (p.winner_seat !== undefined) {
    a.check("window_closed.winner_answered", reactions.some((r) => seatOf(r.seat) === p.winner_seat), at({}));
    if (PLAY_WINDOWS.has(p.kind)) {
      expectNext(s, "the ruling is followed by the winner's cards_played naming the window", (e) =>
        e.payload === "cards_played" && seatOf(e.cards_played.seat) === p.winner_seat &&
        e.cards_played.reaction_window_id === p.window_id, Number(at({}).number));
    }
    if (p.kind === "REACTION_WINDOW_KIND_UNO_CATCH") {
      expectNext(s, "a catch ruling's winner gives uno_caught or uno_called next", (e) =>
        (e.payload === "uno_caught" && seatOf(e.uno_caught.catcher_seat) === p.winner_seat) ||
        (e.payload === "uno_called" && seatOf(e.uno_called.seat) === p.winner_seat), Number(at({}).number));
    }
  }
  if ((p.penalized_seats || []).length) {
    expectNext(s, "penalized seats draw (DRAW_REASON_SLOWEST) right after the ruling", (e) =>
      e.payload === "cards_drawn" && e.cards_drawn.reason === "DRAW_REASON_SLOWEST" &&
      p.penalized_seats.map(seatOf).includes(seatOf(e.cards_drawn.seat)), Number(at({}).number));
  }
  if (st.owedOptions && st.owedOptions.has(Number(p.window_id))) {
    const w = st.owedOptions.get(Number(p.window_id));
    st.owedOptions.delete(Number(p.window_id));
    a.check("window.options_arrived_before_close", false, at({ window: w,
      note: "an eligible seat's legal actions never listed this window while it was open" }));
  }
}

/** An eligible seat's next legal actions list the catch target, or the window to react to. */
function checkWindowOptions(s, event, at) {
  const st = s.checkState;
  const legal = event.your_legal_actions;
  if (!legal || !st.owedOptions || !st.owedOptions.size) return;
  for (const [id, w] of st.owedOptions) {
    let ok;
    if (w.kind === "REACTION_WINDOW_KIND_UNO_CATCH") ok = (legal.catch_uno_targets || []).map(seatOf).includes(seatOf(w.subject_seat));
    else ok = (legal.react_window_ids || []).map(Number).includes(id) && legal.required === true;
    if (ok) {
      st.owedOptions.delete(id);
      s.auditor.check("window.options_arrived", true, {});
    } else if (event.payload !== "reaction_window_opened" || Number(event.reaction_window_opened.window.id) === id) {
      // Options ride on the last event of the change; an event carrying legal actions that do not
      // list the window, while it is open, is a miss unless a later event of the change fixes it.
      s.auditor.check("window.options_on_first_legal_after_open", false,
        at({ window_id: id, window_kind: w.kind, legal, payload: undefined }));
      st.owedOptions.delete(id);
    }
  }
}

/** LegalActions' comments: `required` has a deadline while a clock runs; a turn has options. */
function checkLegal(s, event, at) {
  const legal = event.your_legal_actions;
  if (!legal) return;
  if (legal.required) {
    s.auditor.check("legal.required_has_deadline", legal.deadline !== undefined, at({ legal, payload: undefined }));
  }
  if (event.payload === "turn_started" && seatOf(event.turn_started.seat) === s.seat) {
    s.auditor.check("legal.own_turn_required", legal.required === true, at({ legal }));
  }
}

function expectNext(s, description, predicate, number) {
  s.checkState.expect = { description, predicate, number };
}

function checkConsequence(s, event, at) {
  const st = s.checkState;
  if (!st.expect || st.expect.number === Number(event.number)) return;
  const { description, predicate, number } = st.expect;
  st.expect = null;
  s.auditor.check(`order.${description}`, predicate(event), at({ after_event: number }));
}

/** SeatConnectionChanged: never for a bot seat, and alternating true/false for each seat. */
function checkConnection(s, p, at) {
  const st = s.checkState;
  const seat = seatOf(p.seat);
  s.auditor.check("connection.never_for_bot", !(st.botSeats && st.botSeats.has(seat)), at({}));
  st.connection = st.connection || new Map();
  const before = st.connection.get(seat);
  s.auditor.check("connection.alternates", before === undefined || before !== !!p.connected, at({ before }));
  st.connection.set(seat, !!p.connected);
  s.auditor.check("connection.not_after_match", !s.matchOver, at({}));
}

module.exports = { checkEvent };
