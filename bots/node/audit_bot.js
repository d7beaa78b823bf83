#!/usr/bin/env node
// audit_bot.js: a unonet bot written from protos/unonet/v1/*.proto and docs/protocol.md alone,
// which plays whole matches and checks, as it plays, that the host does what that contract says.
//
// Run it against a host you started yourself on loopback:
//
//   .venv/bin/unonet serve --listen 127.0.0.1:50071 --db /tmp/audit-1.db &
//   node bots/node/audit_bot.js --address 127.0.0.1:50071 --preset house --seats 3 --seat-count 4 \
//        --overrides '{"target_score": 60}' --log /tmp/audit-1.jsonl
//
// or let it start (and once SIGKILL and restart) the host itself:
//
//   node bots/node/audit_bot.js --serve ".venv/bin/unonet serve --listen 127.0.0.1:50071 --db /tmp/a.db" \
//        --address 127.0.0.1:50071 --restart-at 150 ...
//
// Options: --preset NAME, --overrides JSON (Ruleset fields, snake_case), --seats K (seats this
// process plays, the rest are host bots), --seat-count N, --resume-every E (reopen a stream about
// every E events), --restart-at E (SIGKILL and restart the --serve host once the table reaches
// event E), --timeout S, --log FILE (one JSON line per violation), --seed N.
//
// The bot keeps one command in flight per seat, always copied from the newest LegalActions, and
// joins every race it is offered. Every violation of the contract is printed and logged with the
// event or response that shows it; the exit code is the number of violations (capped at 100).
"use strict";

const fs = require("fs");
const { spawn } = require("child_process");
const c = require("./contract");
const { Seat } = require("./seat");

function parseArgs(argv) {
  const args = {
    address: "127.0.0.1:50051", preset: "standard", overrides: {}, seats: 2, seatCount: 4,
    resumeEvery: 60, restartAt: 0, serve: "", timeout: 600, log: "", seed: Date.now() % 100000,
  };
  for (let i = 2; i < argv.length; i += 2) {
    const [key, value] = [argv[i].replace(/^--/, ""), argv[i + 1]];
    const name = key.replace(/-([a-z])/g, (_, ch) => ch.toUpperCase());
    if (!(name in args)) throw new Error(`unknown option --${key}`);
    args[name] = typeof args[name] === "number" ? Number(value)
      : name === "overrides" ? JSON.parse(value) : value;
  }
  return args;
}

/** Collects violations: prints each one, appends it to the log, counts them by kind. */
class Auditor {
  constructor(logFile) {
    this.logFile = logFile;
    this.counts = new Map();
    this.checks = new Map();
  }

  violation(kind, details) {
    this.counts.set(kind, (this.counts.get(kind) || 0) + 1);
    const line = JSON.stringify({ ...details, violation: kind });
    if ((this.counts.get(kind) || 0) <= 3) console.log(`VIOLATION ${line.slice(0, 1500)}`);
    if (this.logFile) fs.appendFileSync(this.logFile, line + "\n");
  }

  /** Records that a check ran (so the summary shows coverage) and reports it when it failed. */
  check(kind, ok, details) {
    this.checks.set(kind, (this.checks.get(kind) || 0) + 1);
    if (!ok) this.violation(kind, typeof details === "function" ? details() : details);
    return ok;
  }

  total() {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  summary() {
    return {
      violations: Object.fromEntries(this.counts),
      checks: Object.fromEntries([...this.checks].sort()),
    };
  }
}

/** Starts `unonet serve` (for --serve) and restarts it after a SIGKILL. */
class Host {
  constructor(command) {
    this.command = command;
    this.child = null;
  }

  static children = new Set();

  start() {
    if (!this.command) return;
    const [program, ...rest] = this.command.split(/\s+/);
    const log = fs.openSync(`${process.env.TMPDIR || "/tmp"}/audit-host-${process.pid}.log`, "a");
    this.child = spawn(program, rest, { stdio: ["ignore", log, log] });
    Host.children.add(this.child);
  }

  async kill() {
    if (!this.child) return;
    const child = this.child;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
}

async function waitForHost(clients, seconds) {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const { error } = await c.call(clients.lobby, "ListPresets", {}, 1000);
    if (!error) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the host did not answer");
}

async function createTable(clients, args, auditor) {
  const request = {
    name: `audit ${args.preset}`, preset: args.preset, overrides: args.overrides,
    seat_count: args.seatCount, manual_start: true,
    clock: { turn_time: c.duration(30000), time_bank: c.duration(20000), strikes_before_takeover: 3,
      takeover_policy: "TAKEOVER_POLICY_BOT" },
  };
  const { response, error } = await c.call(clients.lobby, "CreateTable", request);
  if (error) throw new Error(`CreateTable refused: ${JSON.stringify(c.readRefusal(error))}`);
  const ruleset = response.table.settings.ruleset;
  for (const [key, value] of Object.entries(args.overrides)) {
    auditor.check("create.override_applied", JSON.stringify(ruleset[key]) === JSON.stringify(value),
      { key, asked: value, got: ruleset[key] });
  }
  return response;
}

async function main() {
  const args = parseArgs(process.argv);
  const auditor = new Auditor(args.log);
  const host = new Host(args.serve);
  host.start();
  const clients = c.connect(args.address);
  await waitForHost(clients, 20);
  const created = await createTable(clients, args, auditor);
  const tableId = created.table.table_id;
  console.log(`table ${tableId} preset=${args.preset} overrides=${JSON.stringify(args.overrides)}`);
  const table = { id: tableId, seatCount: args.seatCount, lastNumber: 0, restarting: false,
    restartDone: false, random: mulberry(args.seed), maybeRestart: () => {}, restart: null };
  const seats = [];
  for (let k = 0; k < args.seats; k += 1) {
    const { response, error } = await c.call(clients.lobby, "JoinTable",
      { table_id: tableId, name: `node${k}`, role: "JOIN_ROLE_PLAYER" });
    if (error) throw new Error(`JoinTable refused: ${JSON.stringify(c.readRefusal(error))}`);
    const seat = new Seat({ clients, table, auditor, token: response.token, seat: response.seat || 0,
      resumeEvery: args.resumeEvery });
    seats.push(seat);
  }
  for (const seat of seats) seat.openStream(0);
  await new Promise((r) => setTimeout(r, 300));
  const start = await c.call(clients.lobby, "StartTable",
    { table_id: tableId, owner_token: created.owner_token, fill_with_bots: true });
  if (start.error) throw new Error(`StartTable refused: ${JSON.stringify(c.readRefusal(start.error))}`);
  for (const seat of seats) seat.startPinging();

  table.restart = async () => {
    table.restarting = true;
    console.log(`restarting the host at event ${table.lastNumber}`);
    await host.kill();
    host.start();
    await waitForHost(clients, 30);
    table.restarting = false;
    table.restartDone = true;
    for (const seat of seats) seat.afterHostRestart();
  };
  table.maybeRestart = () => {
    if (args.restartAt > 0 && args.serve && !table.restartDone && !table.restarting &&
        table.lastNumber >= args.restartAt) {
      table.restart().catch((e) => auditor.violation("restart.failed", { error: String(e) }));
    }
  };

  const deadline = Date.now() + args.timeout * 1000;
  while (!seats.every((s) => s.matchOver) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
  }
  auditor.check("match.finished_in_time", seats.every((s) => s.matchOver),
    { last_event: table.lastNumber });
  await new Promise((r) => setTimeout(r, 500));
  for (const seat of seats) await seat.finalChecks();
  for (const seat of seats) seat.close();
  const summary = auditor.summary();
  summary.table_id = tableId;
  summary.events = table.lastNumber;
  summary.commands = seats.reduce((n, s) => n + s.commandCount, 0);
  summary.outcomes = mergeCounts(seats.map((s) => s.outcomes));
  summary.refusals = mergeCounts(seats.map((s) => s.refusalCounts));
  summary.event_kinds = mergeCounts(seats.map((s) => s.kindCounts));
  console.log(JSON.stringify(summary, null, 1));
  await host.kill();
  process.exit(Math.min(auditor.total(), 100));
}

function mergeCounts(maps) {
  const out = {};
  for (const m of maps) for (const [k, v] of m) out[k] = (out[k] || 0) + v;
  return out;
}

/** A small seeded random source, so a run can be repeated with --seed. */
function mulberry(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    for (const child of Host.children) child.kill("SIGKILL");
    process.exit(101);
  });
}
