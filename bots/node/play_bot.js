// A playing unonet bot for Node.js: @grpc/grpc-js and @grpc/proto-loader loading the .proto files at
// run time (contract.js), no generated code. It follows the launch convention (docs/bots.md):
//
//   node bots/node/play_bot.js --address HOST:PORT --table ID --seat N      (token in UNONET_TOKEN)
//
// (or UNONET_ADDRESS, UNONET_TABLE, UNONET_SEAT; --token for use by hand). It attaches to the seat it
// holds, reads its view once and streams the events after it (resuming from the last number after a
// broken stream), keeps the newest legal actions, sends one command at a time, contributes to the fair
// shuffle, and exits 0 when the match ends (1 when its seat was taken over or the stream stayed down).
//
// The policy is a function `choose(legal, me)` returning {rpc, req} or null; the default plays the
// first play on its turn (calling UNO when it leaves one card), names the colour it holds most, draws,
// passes, answers slaps, catches whoever it may. `--policy FILE.js` replaces it with the module's
// `choose` (sync or async). Like the Python runner, whatever a policy returns is checked before it
// is sent: a throw, a late or hung answer (past the deadline, less a margin), or a command the legal
// actions do not list is logged and nothing is sent, and the table's clock decides the turn.
"use strict";

const crypto = require("crypto");
const path = require("path");
const c = require("./contract");

const NAMEABLE = ["COLOR_RED", "COLOR_YELLOW", "COLOR_GREEN", "COLOR_BLUE"];
const MARGIN_MS = 150;
const LATE = Symbol("late");   // what the deadline's timer answers in place of the policy

function parseArgs(argv) {
  const env = process.env;
  const args = { address: env.UNONET_ADDRESS, table: env.UNONET_TABLE, seat: env.UNONET_SEAT,
    token: env.UNONET_TOKEN, policy: null };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in args)) throw new Error(`unknown argument ${argv[i]}`);
    args[key] = argv[i + 1];
  }
  for (const key of ["address", "table", "seat", "token"]) {
    if (!args[key]) throw new Error(`missing --${key} (or UNONET_${key.toUpperCase()})`);
  }
  args.seat = Number(args.seat);
  return args;
}

const cardKey = (card) => `${card.color || ""}/${card.rank || ""}`;

/** The default policy: see the file's comment. `me` is {seat, handSize, hand: [Card]}. */
function defaultChoose(legal, me) {
  if ((legal.react_window_ids || []).length) return { rpc: "React", req: { reaction_window_id: legal.react_window_ids[0] } };
  const catches = legal.catch_uno || [];
  if (catches.length) {
    return { rpc: "CatchUno", req: { target_seat: catches[0].target_seat || 0, reaction_window_id: catches[0].reaction_window_id } };
  }
  if (legal.choose_color) return { rpc: "ChooseColor", req: { color: favourite(me.hand) } };
  if ((legal.swap_target_seats || []).length) return { rpc: "ChooseSwapTarget", req: { target_seat: legal.swap_target_seats[0] || 0 } };
  if (legal.five_swap) {
    return { rpc: "FiveSwap", req: { target_seat: legal.five_swap.target_seats[0] || 0, card: legal.five_swap.cards[0] } };
  }
  if ((legal.give_cards || []).length) return { rpc: "GiveCard", req: { card: legal.give_cards[0] } };
  if (!legal.required) return null;   // no jump-ins, no early calls: optional chances go by
  const plays = (legal.plays || []).filter((p) => p.kind === "PLAY_KIND_TURN");
  if (plays.length) {
    const cards = [plays[0].cards[0]];
    const req = { cards, call_uno: me.handSize - 1 === 1 };
    if (plays[0].needs_color) req.color = favourite(me.hand.filter((card) => cardKey(card) !== cardKey(cards[0])));
    return { rpc: "PlayCards", req };
  }
  if (legal.draw) return { rpc: "Draw", req: {} };
  if (legal.pass_turn) return { rpc: "Pass", req: {} };
  if (legal.challenge) return { rpc: "Challenge", req: {} };
  return null;
}

function favourite(hand) {
  const tally = new Map(NAMEABLE.map((colour) => [colour, 0]));
  for (const card of hand) if (tally.has(card.color)) tally.set(card.color, tally.get(card.color) + 1);
  return [...tally].sort((a, b) => b[1] - a[1])[0][0];
}

/** Whether `legal` lists `command` (the checks the Python runner's actions.is_listed makes). */
function isListed(command, legal) {
  if (!command || typeof command !== "object" || typeof command.rpc !== "string") return false;
  const req = command.req || {};
  const has = (list, value) => (list || []).some((x) => String(x || 0) === String(value || 0));
  const sameCard = (a, b) => a && b && cardKey(a) === cardKey(b);
  switch (command.rpc) {
    case "PlayCards": {
      const sent = req.cards || [];
      return sent.length > 0 && (legal.plays || []).some((o) => String(o.reaction_window_id || 0) === String(req.reaction_window_id || 0) &&
        sameCard(o.cards[0], sent[0]) && sent.length <= o.cards.length);
    }
    case "ChooseColor": return !!legal.choose_color && NAMEABLE.includes(req.color);
    case "Draw": return !!legal.draw;
    case "Pass": return !!legal.pass_turn;
    case "CallUno": return !!legal.call_uno;
    case "Challenge": return !!legal.challenge;
    case "React": return has(legal.react_window_ids, req.reaction_window_id);
    case "CatchUno": return has(legal.catch_uno_targets, req.target_seat);
    case "ChooseSwapTarget": return has(legal.swap_target_seats, req.target_seat);
    case "FiveSwap": return !!legal.five_swap && has(legal.five_swap.target_seats, req.target_seat) &&
      legal.five_swap.cards.some((card) => sameCard(card, req.card));
    case "GiveCard": return (legal.give_cards || []).some((card) => sameCard(card, req.card));
    default: return false;
  }
}

class PlayingSeat {
  constructor(args, choose) {
    Object.assign(this, { args, choose });
    this.clients = c.connect(args.address);
    this.base = { table_id: args.table, token: args.token };
    this.last = 0;
    this.legal = null;
    this.legalNumber = 0;
    this.actedOn = -1;
    this.inFlight = false;
    this.hand = new Map();        // card key -> [Card, count]
    this.handSize = 0;
    this.entropy = new Map();     // round -> {value, revealed}
    this.round = 0;
    this.counter = 0;
    this.faults = [];
    this.failures = 0;
    this.done = null;
  }

  log(...parts) { console.error(`node bot seat ${this.args.seat}:`, ...parts); }

  /** Reads the view once (a bot started again takes its seat back where the table is), then streams
   *  the events after it. */
  async run() {
    const { response, error } = await c.call(this.clients.watch, "GetView", this.base, 10000);
    if (error) { this.log("GetView refused:", c.readRefusal(error).reason || error.message); return 2; }
    const view = response.view;
    this.last = Number(view.event_number || 0);
    this.hand = new Map();
    this.addCards(view.hand);
    this.handSize = (view.hand || []).length;
    this.round = view.round_number || 0;
    this.legal = view.legal_actions || {};
    this.legalNumber = this.last;
    if (view.phase === "PHASE_MATCH_OVER") return 0;
    return new Promise((resolve) => { this.done = resolve; this.openStream(); this.act(); });
  }

  finish(code) {
    if (this.stream) { const s = this.stream; this.stream = null; s.cancel(); }
    this.done(code);
  }

  openStream() {
    const stream = this.clients.watch.WatchEvents({ ...this.base, after_event_number: String(this.last) });
    this.stream = stream;
    stream.on("data", (message) => {
      for (const event of message.event ? [message.event] : (message.events || [])) this.onEvent(event);
    });
    stream.on("error", (error) => {
      if (stream !== this.stream) return;
      if (++this.failures > 20) { this.log("the stream stayed down:", error.message); this.finish(1); return; }
      setTimeout(() => { if (stream === this.stream) this.openStream(); }, Math.min(2000, 50 * 2 ** this.failures));
    });
  }

  addCards(refs) {
    for (const ref of refs || []) {
      if (!ref.card) continue;
      const key = cardKey(ref.card);
      const held = this.hand.get(key) || [ref.card, 0];
      held[1] += 1;
      this.hand.set(key, held);
    }
  }

  removeCards(refs) {
    for (const ref of refs || []) {
      if (!ref.card) continue;
      const held = this.hand.get(cardKey(ref.card));
      if (held && --held[1] <= 0) this.hand.delete(cardKey(ref.card));
    }
  }

  setHand(seatHand) {
    if ((seatHand.seat || 0) !== this.args.seat) return;
    this.hand = new Map();
    this.addCards(seatHand.cards);
    this.handSize = seatHand.count || 0;
  }

  onEvent(event) {
    const number = Number(event.number);
    if (event.payload !== "snapshot" && number <= this.last) return;   // a duplicate after a resume
    this.last = number;
    this.failures = 0;
    const p = event[event.payload];
    const me = this.args.seat;
    const mine = (seat) => (seat || 0) === me;
    switch (event.payload) {
      case "cards_dealt": for (const h of p.hands || []) this.setHand(h); break;
      case "cards_drawn": if (mine(p.seat)) { this.addCards(p.cards); this.handSize = p.hand_size || 0; } break;
      case "cards_played": if (mine(p.seat)) { this.removeCards(p.cards); this.handSize = p.hand_size || 0; } break;
      case "card_taken_back": if (mine(p.seat)) { this.addCards([p.card]); this.handSize += 1; } break;
      case "hands_rotated": for (const h of p.hands || []) this.setHand(h); break;
      case "hands_swapped": this.setHand(p.seat_hand); this.setHand(p.target_hand); break;
      case "five_swap_offered": if (mine(p.seat)) { this.removeCards([p.card]); this.handSize -= 1; } break;
      case "cards_exchanged":
        if (mine(p.seat)) { this.addCards([p.received]); this.handSize += 1; }
        else if (mine(p.target_seat)) { this.removeCards([p.received]); this.addCards([p.given]); }
        break;
      case "shuffle_committed": this.round = p.round_number || 0; break;
      case "seat_taken_over": if (mine(p.seat)) { this.log("taken over"); this.finish(1); return; } break;
      case "round_ended": this.closeScores(p.round_number || 0); break;
      case "match_ended": this.log(`match over; winners ${(p.winner_seats || []).join(",")}`); this.finish(0); return;
      case "snapshot": this.legal = p.view.legal_actions || {}; this.legalNumber = number; break;
      default: break;
    }
    if (event.your_legal_actions !== undefined) { this.legal = event.your_legal_actions; this.legalNumber = number; }
    this.act();
  }

  /** A bot reads the scores at once: the host need not hold the next round's first turn for it
   * (ClockSettings.round_start_hold). A refusal, or a host without the call, changes nothing. */
  closeScores(round) {
    this.counter += 1;
    const request = { ...this.base, command_id: `node-${this.args.seat}-${process.pid}-${this.counter}`, round_number: round };
    c.call(this.clients.play, "CloseScores", request, 10000).then(() => {}, () => {});
  }

  act() {
    if (this.inFlight || !this.legal || this.actedOn >= this.legalNumber) return;
    this.actedOn = this.legalNumber;
    const legal = this.legal;
    const entropy = this.entropyCommand(legal);
    if (entropy) { this.send(entropy); return; }
    if (legal.commit_entropy || legal.reveal_entropy) return;
    this.inFlight = true;
    this.decide(legal).then((command) => {
      this.inFlight = false;
      if (command && this.legalNumber === this.actedOn) this.send(command);
      else this.act();
    });
  }

  entropyCommand(legal) {
    if (legal.commit_entropy && !this.entropy.has(this.round)) {
      const value = crypto.randomBytes(32);
      this.entropy.set(this.round, { value, revealed: false });
      return { rpc: "CommitEntropy", req: { commitment: c.entropyCommitment(this.args.table, this.round, this.args.seat, value) } };
    }
    const mine = this.entropy.get(this.round);
    if (legal.reveal_entropy && mine && !mine.revealed) {
      mine.revealed = true;
      return { rpc: "RevealEntropy", req: { entropy: mine.value } };
    }
    return null;
  }

  /** The policy's answer, checked: null (and a logged fault) when it throws, is late or is not listed. */
  async decide(legal) {
    const deadline = c.millis(legal.deadline);
    const budget = deadline === undefined ? (legal.required ? 60000 : 1000) : Math.max(0, deadline - Date.now() - MARGIN_MS);
    const me = { seat: this.args.seat, handSize: this.handSize, hand: [...this.hand.values()].flatMap(([card, n]) => Array(n).fill(card)) };
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve(LATE), budget); });
    let answer;
    try {
      answer = await Promise.race([Promise.resolve().then(() => this.choose(legal, me)), late]);
    } catch (error) {
      return this.fault("crashed", `the policy threw: ${error && error.message}`, legal);
    } finally {
      clearTimeout(timer);
    }
    if (answer === LATE) return this.fault("late", `no answer within ${budget} ms`, legal);
    if (answer === null || answer === undefined) return null;
    if (!isListed(answer, legal)) return this.fault(typeof answer === "object" ? "illegal" : "garbage",
      `${JSON.stringify(answer).slice(0, 200)} is not in the legal actions`, legal);
    return answer;
  }

  fault(kind, detail, legal) {
    this.faults.push({ kind, detail, event: this.actedOn });
    this.log(`${kind} answer at event ${this.actedOn}: ${detail}; ${legal.required ? "the table's clock decides" : "no reaction sent"}`);
    return null;
  }

  async send(command) {
    this.inFlight = true;
    this.counter += 1;
    const request = { ...command.req, ...this.base, command_id: `node-${this.args.seat}-${process.pid}-${this.counter}` };
    let result;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      result = await c.call(this.clients.play, command.rpc, request, 10000);
      if (!result.error || ![c.grpc.status.UNAVAILABLE, c.grpc.status.DEADLINE_EXCEEDED].includes(result.error.code)) break;
      await new Promise((r) => setTimeout(r, 200));   // transport trouble: the same command id again
    }
    this.inFlight = false;
    if (result.error) {
      const refusal = c.readRefusal(result.error);
      this.log(`${command.rpc} refused: ${refusal.codeName} ${refusal.reason}: ${refusal.message}`);
      if (refusal.reason === "SEAT_TAKEN_OVER" || refusal.reason === "GAME_OVER") { this.finish(1); return; }
    }
    this.act();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const choose = args.policy ? require(path.resolve(args.policy)).choose : defaultChoose;
  const seat = new PlayingSeat(args, choose);
  process.exitCode = await seat.run();
  process.exit(process.exitCode);
}

// Exported before main() runs: a --policy module may require this file for defaultChoose.
module.exports = { PlayingSeat, defaultChoose, isListed };

if (require.main === module) {
  main().catch((error) => { console.error(error.stack || String(error)); process.exit(2); });
}
