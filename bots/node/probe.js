#!/usr/bin/env node
// probe.js: hand-written bad requests, each checked against the refusal its proto comment promises.
//
//   node bots/node/probe.js --address 127.0.0.1:PORT
//
// Every probe states the status code and reason the contract gives (with the field for `metadata`
// where the comment names one), then checks the answer: code, reason, the ErrorDetail in both
// trailers, and that the table's last event number did not move (a refused command changes
// nothing). It prints one line per probe and a summary; the exit code is the number that failed.
"use strict";

const c = require("./contract");

const S = c.grpc.status;
const address = process.argv[process.argv.indexOf("--address") + 1] || "127.0.0.1:50051";
const clients = c.connect(address);
const failures = [];
let passed = 0;

async function lastEvent(tableId) {
  const { response } = await c.call(clients.lobby, "GetTable", { table_id: tableId });
  return response ? Number(response.table.last_event_number || 0) : -1;
}

/** Sends one request and compares the refusal with what the contract says. */
async function probe(name, client, method, request, expected, tableId) {
  const before = tableId ? await lastEvent(tableId) : 0;
  const { error, response } = await c.call(clients[client], method, request, 5000);
  const after = tableId ? await lastEvent(tableId) : 0;
  const problems = [];
  let got = { applied: response };
  if (!error) {
    problems.push("not refused");
  } else {
    const r = c.readRefusal(error);
    got = { code: r.codeName, reason: r.reason, metadata: r.metadata, message: r.message };
    if (r.code !== S[expected.code]) problems.push(`code ${r.codeName}, expected ${expected.code}`);
    const reasons = [].concat(expected.reason);
    if (!reasons.includes(r.reason)) problems.push(`reason ${r.reason || "(none)"}, expected ${reasons.join("|")}`);
    if (expected.field && r.metadata.field !== expected.field) {
      problems.push(`metadata.field ${r.metadata.field}, expected ${expected.field}`);
    }
    problems.push(...r.problems);
  }
  if (tableId && before !== after) problems.push(`the refusal wrote events ${before} -> ${after}`);
  if (problems.length) {
    failures.push({ name, method, request: shown(request), expected, got, problems });
    console.log(`FAIL ${name}: ${problems.join("; ")}\n     ${JSON.stringify({ request: shown(request), got })}`);
  } else {
    passed += 1;
    console.log(`ok   ${name}`);
  }
}

/** Opens WatchEvents and resolves the first error (or null when an event arrives first). */
function streamRefusal(request) {
  return new Promise((resolve) => {
    const stream = clients.watch.WatchEvents(request);
    const timer = setTimeout(() => { stream.cancel(); resolve({ timeout: true }); }, 3000);
    stream.on("data", () => { clearTimeout(timer); stream.cancel(); resolve({ data: true }); });
    stream.on("error", (error) => { clearTimeout(timer); resolve({ error }); });
  });
}

async function probeStream(name, request, expected) {
  const result = await streamRefusal(request);
  const problems = [];
  let got = result;
  if (!result.error || result.error.code === S.CANCELLED) {
    problems.push("stream not refused");
  } else {
    const r = c.readRefusal(result.error);
    got = { code: r.codeName, reason: r.reason, metadata: r.metadata };
    if (r.code !== S[expected.code]) problems.push(`code ${r.codeName}, expected ${expected.code}`);
    if (r.reason !== expected.reason) problems.push(`reason ${r.reason}, expected ${expected.reason}`);
    problems.push(...r.problems);
  }
  if (problems.length) {
    failures.push({ name, request: shown(request), expected, got, problems });
    console.log(`FAIL ${name}: ${problems.join("; ")}`);
  } else {
    passed += 1;
    console.log(`ok   ${name}`);
  }
}

function shown(request) {
  const out = { ...request };
  if (out.token) out.token = "<token>";
  if (out.owner_token) out.owner_token = "<owner>";
  return out;
}

const INVALID = (reason, field) => ({ code: "INVALID_ARGUMENT", reason, field });
const PRECONDITION = (reason) => ({ code: "FAILED_PRECONDITION", reason });

async function lobbyProbes() {
  await probe("ListTables UNSPECIFIED status", "lobby", "ListTables", { statuses: ["TABLE_STATUS_UNSPECIFIED"] },
    INVALID("UNSPECIFIED_ENUM", "statuses"));
  await probe("ListTables undefined status number", "lobby", "ListTables", { statuses: [42] },
    INVALID("UNSPECIFIED_ENUM", "statuses"));
  await probe("ListTables bad page token", "lobby", "ListTables", { page_token: "garbage" }, INVALID("BAD_PAGE_TOKEN"));
  const create = (extra) => ({ name: "probe", preset: "standard", seat_count: 2, ...extra });
  await probe("CreateTable 1 seat", "lobby", "CreateTable", create({ seat_count: 1 }), INVALID("BAD_SEAT_COUNT"));
  await probe("CreateTable 11 seats", "lobby", "CreateTable", create({ seat_count: 11 }), INVALID("BAD_SEAT_COUNT"));
  await probe("CreateTable unknown preset", "lobby", "CreateTable", create({ preset: "nope" }), INVALID("UNKNOWN_PRESET"));
  await probe("CreateTable uno_penalty 11", "lobby", "CreateTable", create({ overrides: { uno_penalty: 11 } }),
    INVALID("BAD_RULESET", "overrides.uno_penalty"));
  await probe("CreateTable blank_draw 0", "lobby", "CreateTable", create({ overrides: { blank_draw: 0 } }),
    INVALID("BAD_RULESET", "overrides.blank_draw"));
  await probe("CreateTable blank_draw 21", "lobby", "CreateTable", create({ overrides: { blank_draw: 21 } }),
    INVALID("BAD_RULESET", "overrides.blank_draw"));
  await probe("CreateTable target_score 0", "lobby", "CreateTable", create({ overrides: { target_score: 0 } }),
    INVALID("BAD_RULESET", "overrides.target_score"));
  await probe("CreateTable target_score 100001", "lobby", "CreateTable", create({ overrides: { target_score: 100001 } }),
    INVALID("BAD_RULESET", "overrides.target_score"));
  await probe("CreateTable scoring UNSPECIFIED", "lobby", "CreateTable",
    create({ overrides: { scoring: "SCORING_RULE_UNSPECIFIED" } }), INVALID("UNSPECIFIED_ENUM", "overrides.scoring"));
  await probe("CreateTable scoring undefined number", "lobby", "CreateTable", create({ overrides: { scoring: 42 } }),
    INVALID("UNSPECIFIED_ENUM", "overrides.scoring"));
  await probe("CreateTable jump_in_penalty undefined number", "lobby", "CreateTable",
    create({ overrides: { jump_in_penalty: 9 } }), INVALID("UNSPECIFIED_ENUM", "overrides.jump_in_penalty"));
  await probe("CreateTable turn_time over a day", "lobby", "CreateTable",
    create({ clock: { turn_time: { seconds: "86401" } } }), INVALID("BAD_CLOCK", "clock.turn_time"));
  await probe("CreateTable negative time_bank", "lobby", "CreateTable",
    create({ clock: { time_bank: { seconds: "-1" } } }), INVALID("BAD_CLOCK", "clock.time_bank"));
  await probe("CreateTable negative reaction_time", "lobby", "CreateTable",
    create({ clock: { reaction_time: { seconds: "-1" } } }), INVALID("BAD_CLOCK", "clock.reaction_time"));
  await probe("CreateTable takeover_policy undefined number", "lobby", "CreateTable",
    create({ clock: { takeover_policy: 7 } }), INVALID("UNSPECIFIED_ENUM", "clock.takeover_policy"));
  await probe("CreateTable unknown takeover_bot_kind", "lobby", "CreateTable",
    create({ clock: { takeover_bot_kind: "nope" } }), INVALID("UNKNOWN_BOT_KIND"));
  await probe("CreateTable spectator_delay over an hour", "lobby", "CreateTable",
    create({ spectator_delay: { seconds: "3601" } }), INVALID("INVALID_FIELD", "spectator_delay"));
  await probe("CreateTable negative spectator_delay", "lobby", "CreateTable",
    create({ spectator_delay: { seconds: "-5" } }), INVALID("INVALID_FIELD", "spectator_delay"));
  await probe("CreateTable name 65 chars", "lobby", "CreateTable", create({ name: "n".repeat(65) }), INVALID("NAME_TOO_LONG"));
  await probe("CreateTable name with a line break", "lobby", "CreateTable", create({ name: "a\nb" }), INVALID("INVALID_FIELD"));
  await probe("CreateTable name of spaces", "lobby", "CreateTable", create({ name: "   " }), INVALID("MISSING_FIELD"));
  await probe("GetTable empty id", "lobby", "GetTable", { table_id: "" }, { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
  await probe("GetTable unknown id", "lobby", "GetTable", { table_id: "nope" }, { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
}

async function tableProbes() {
  const { response: created } = await c.call(clients.lobby, "CreateTable",
    { name: "probe", preset: "house", seat_count: 3, manual_start: true });
  const T = created.table.table_id;
  const OWNER = created.owner_token;
  const join = (extra) => ({ table_id: T, name: "p", role: "JOIN_ROLE_PLAYER", ...extra });
  await probe("JoinTable role UNSPECIFIED", "lobby", "JoinTable", join({ role: "JOIN_ROLE_UNSPECIFIED" }),
    INVALID("UNSPECIFIED_ENUM", "role"), T);
  await probe("JoinTable role undefined number", "lobby", "JoinTable", join({ role: 9 }), INVALID("UNSPECIFIED_ENUM", "role"), T);
  await probe("JoinTable empty name", "lobby", "JoinTable", join({ name: "" }), INVALID("MISSING_FIELD"), T);
  await probe("JoinTable name 33 chars", "lobby", "JoinTable", join({ name: "n".repeat(33) }), INVALID("NAME_TOO_LONG"), T);
  await probe("JoinTable unprintable name", "lobby", "JoinTable", join({ name: "a\u0007b" }), INVALID("INVALID_FIELD"), T);
  await probe("JoinTable seat 3 of 3", "lobby", "JoinTable", join({ seat: 3 }), INVALID("BAD_SEAT"), T);
  await probe("JoinTable spectator with seat", "lobby", "JoinTable", join({ role: "JOIN_ROLE_SPECTATOR", seat: 0 }),
    INVALID("INVALID_FIELD", "seat"), T);
  await probe("JoinTable empty table id", "lobby", "JoinTable", join({ table_id: "" }),
    { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
  const { response: me } = await c.call(clients.lobby, "JoinTable", join({ name: "me", seat: 0 }));
  const { response: spectator } = await c.call(clients.lobby, "JoinTable", join({ name: "eye", role: "JOIN_ROLE_SPECTATOR" }));
  await probe("JoinTable seat taken", "lobby", "JoinTable", join({ seat: 0 }), { code: "ALREADY_EXISTS", reason: "SEAT_TAKEN" }, T);
  await probe("AddBots with a seat token", "lobby", "AddBots", { table_id: T, owner_token: me.token },
    { code: "PERMISSION_DENIED", reason: "NOT_OWNER" }, T);
  await probe("AddBots unknown kind", "lobby", "AddBots", { table_id: T, owner_token: OWNER, bot_kind: "nope" },
    INVALID("UNKNOWN_BOT_KIND"), T);
  await probe("AddBots more than empty seats", "lobby", "AddBots", { table_id: T, owner_token: OWNER, count: 3 },
    { code: "ALREADY_EXISTS", reason: "TABLE_FULL" }, T);
  await probe("StartTable with empty seats", "lobby", "StartTable", { table_id: T, owner_token: OWNER },
    PRECONDITION("SEATS_EMPTY"), T);
  await probe("StartTable unknown kind without fill", "lobby", "StartTable",
    { table_id: T, owner_token: OWNER, bot_kind: "nope" }, INVALID("UNKNOWN_BOT_KIND"), T);
  const base = { table_id: T, token: me.token };
  await probe("Draw before the start", "play", "Draw", { ...base, command_id: "b1" }, PRECONDITION("NOT_STARTED"), T);
  await c.call(clients.lobby, "StartTable", { table_id: T, owner_token: OWNER, fill_with_bots: true });
  await new Promise((r) => setTimeout(r, 3500));   // past the shuffle (no stream is open for `me`)
  await playProbes(T, base, spectator.token, OWNER);
  await probe("StartTable twice", "lobby", "StartTable", { table_id: T, owner_token: OWNER, fill_with_bots: true },
    PRECONDITION("ALREADY_STARTED"), T);
  await probe("JoinTable after the start (every seat is taken)", "lobby", "JoinTable", join({ name: "late" }),
    { code: "ALREADY_EXISTS", reason: "TABLE_FULL" }, T);
  await streamProbes(T, me.token);
  await pingProbes(T, me.token, spectator.token);
  await leaveProbes(T, me.token, spectator.token);
}

/** A spectator's view, a request over 64 KiB, then leaving mid-match (takeover) and what follows. */
async function leaveProbes(T, token, spectatorToken) {
  const { response: sv, error: se } = await c.call(clients.watch, "GetView", { table_id: T, token: spectatorToken });
  const spectatorOk = !se && sv.view.is_spectator === true && !(sv.view.hand || []).length && !sv.view.legal_actions;
  report("GetView as a spectator: is_spectator, no hand, no legal actions", spectatorOk, se ? c.readRefusal(se) : sv.view.legal_actions);
  await probe("SendChat over 64 KiB", "chat", "SendChat", { table_id: T, token, command_id: "big", text: "x".repeat(70000) },
    { code: "RESOURCE_EXHAUSTED", reason: "MESSAGE_TOO_LARGE" }, T);
  const before = await lastEvent(T);
  const { response: left, error } = await c.call(clients.lobby, "LeaveTable", { table_id: T, token });
  report("LeaveTable mid-match applied", !error, error ? c.readRefusal(error) : left);
  const events = await readEvents(T, before);
  const kinds = events.map((e) => e.payload);
  const taken = events.find((e) => e.payload === "seat_taken_over");
  report("LeaveTable mid-match: player_left then seat_taken_over {policy BOT, reason LEFT, bot_kind}",
    kinds[0] === "player_left" && !!taken && taken.seat_taken_over.policy === "TAKEOVER_POLICY_BOT" &&
    taken.seat_taken_over.reason === "TAKEOVER_REASON_LEFT" && !!taken.seat_taken_over.bot_kind, { left, kinds, taken });
  await probe("Draw with a taken-over seat's token", "play", "Draw", { table_id: T, token, command_id: "after-leave" },
    PRECONDITION("SEAT_TAKEN_OVER"), T);
  await probe("LeaveTable twice", "lobby", "LeaveTable", { table_id: T, token }, PRECONDITION("SEAT_TAKEN_OVER"), T);
  const { response: sl, error: sle } = await c.call(clients.lobby, "LeaveTable", { table_id: T, token: spectatorToken });
  report("LeaveTable as a spectator answers event_number 0", !sle && !Number(sl.event_number || 0), sle ? c.readRefusal(sle) : sl);
  await probe("GetView with a spectator token after leaving", "watch", "GetView", { table_id: T, token: spectatorToken },
    { code: "PERMISSION_DENIED", reason: "BAD_TOKEN" }, T);
}

function report(name, ok, got) {
  if (ok) { passed += 1; console.log(`ok   ${name}`); return; }
  failures.push({ name, got });
  console.log(`FAIL ${name}: ${JSON.stringify(got).slice(0, 1500)}`);
}

/** The public events after `after`, read from a spectator stream for a moment. */
function readEvents(T, after) {
  return new Promise((resolve) => {
    const events = [];
    const stream = clients.watch.WatchEvents({ table_id: T, after_event_number: String(after) });
    stream.on("data", (m) => events.push(m.event));
    stream.on("error", () => {});
    setTimeout(() => { stream.cancel(); resolve(events); }, 1500);
  });
}

async function playProbes(T, base, spectatorToken, ownerToken) {
  const { response } = await c.call(clients.watch, "GetView", base);
  const held = new Set((response.view.hand || []).map((r) => `${r.card.color}/${r.card.rank}`));
  const colors = ["COLOR_RED", "COLOR_YELLOW", "COLOR_GREEN", "COLOR_BLUE"];
  const ranks = ["RANK_ONE", "RANK_TWO", "RANK_THREE", "RANK_FOUR", "RANK_SIX", "RANK_EIGHT", "RANK_NINE"];
  let missing = null;
  for (const color of colors) for (const rank of ranks) if (!missing && !held.has(`${color}/${rank}`)) missing = { color, rank };
  const id = (() => { let k = 0; return () => `p-${(k += 1)}`; })();
  const play = (extra) => ({ ...base, command_id: id(), cards: [{ color: "COLOR_RED", rank: "RANK_ONE" }], ...extra });
  await probe("PlayCards no cards", "play", "PlayCards", play({ cards: [] }), INVALID("NO_CARDS"), T);
  await probe("PlayCards black five", "play", "PlayCards", play({ cards: [{ color: "COLOR_BLACK", rank: "RANK_FIVE" }] }),
    INVALID("NO_SUCH_CARD"), T);
  await probe("PlayCards red wild", "play", "PlayCards", play({ cards: [{ color: "COLOR_RED", rank: "RANK_WILD" }] }),
    INVALID("NO_SUCH_CARD"), T);
  await probe("PlayCards rank UNSPECIFIED", "play", "PlayCards", play({ cards: [{ color: "COLOR_RED", rank: "RANK_UNSPECIFIED" }] }),
    INVALID("UNSPECIFIED_ENUM"), T);
  await probe("PlayCards rank undefined number", "play", "PlayCards", play({ cards: [{ color: "COLOR_RED", rank: 77 }] }),
    INVALID("UNSPECIFIED_ENUM"), T);
  await probe("PlayCards colour undefined number in card", "play", "PlayCards", play({ cards: [{ color: 77, rank: "RANK_ONE" }] }),
    INVALID("UNSPECIFIED_ENUM"), T);
  await probe("PlayCards card not in hand", "play", "PlayCards", play({ cards: [missing] }), INVALID("CARD_NOT_IN_HAND"), T);
  await probe("PlayCards color UNSPECIFIED", "play", "PlayCards", play({ color: "COLOR_UNSPECIFIED" }),
    INVALID("UNSPECIFIED_ENUM"), T);
  await probe("PlayCards color BLACK", "play", "PlayCards", play({ color: "COLOR_BLACK" }), INVALID("BAD_COLOR"), T);
  await probe("PlayCards color undefined number", "play", "PlayCards", play({ color: 42 }), INVALID("BAD_COLOR"), T);
  await probe("PlayCards window never opened", "play", "PlayCards", play({ cards: [missing], reaction_window_id: "999999" }),
    [INVALID(["UNKNOWN_WINDOW", "CARD_NOT_IN_HAND"])][0], T);
  await probe("PlayCards no command id", "play", "PlayCards", play({ command_id: "" }), INVALID("COMMAND_ID_MISSING"), T);
  await probe("PlayCards command id 65 chars", "play", "PlayCards", play({ command_id: "x".repeat(65) }),
    INVALID("COMMAND_ID_TOO_LONG"), T);
  await probe("PlayCards command id non-ASCII", "play", "PlayCards", play({ command_id: "caf\u00e9" }),
    INVALID("INVALID_FIELD", "command_id"), T);
  await probe("PlayCards command id with a tab", "play", "PlayCards", play({ command_id: "a\tb" }),
    INVALID("INVALID_FIELD", "command_id"), T);
  await probe("PlayCards no token", "play", "PlayCards", play({ token: "" }), INVALID("TOKEN_MISSING"), T);
  await probe("PlayCards forged token", "play", "PlayCards", play({ token: "forged" }),
    { code: "PERMISSION_DENIED", reason: "BAD_TOKEN" }, T);
  await probe("PlayCards spectator token", "play", "PlayCards", play({ token: spectatorToken }),
    { code: "PERMISSION_DENIED", reason: "SPECTATOR" }, T);
  await probe("PlayCards owner token", "play", "PlayCards", play({ token: ownerToken }),
    { code: "PERMISSION_DENIED", reason: "BAD_TOKEN" }, T);
  await probe("PlayCards unknown table", "play", "PlayCards", play({ table_id: "nope" }),
    { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
  await probe("Draw spectator token", "play", "Draw", { table_id: T, token: spectatorToken, command_id: id() },
    { code: "PERMISSION_DENIED", reason: "SPECTATOR" }, T);
  await probe("ChooseColor UNSPECIFIED", "play", "ChooseColor", { ...base, command_id: id() }, INVALID("UNSPECIFIED_ENUM"), T);
  await probe("ChooseColor BLACK", "play", "ChooseColor", { ...base, command_id: id(), color: "COLOR_BLACK" }, INVALID("BAD_COLOR"), T);
  await probe("ChooseColor undefined number", "play", "ChooseColor", { ...base, command_id: id(), color: 42 }, INVALID("BAD_COLOR"), T);
  await probe("CatchUno seat outside", "play", "CatchUno", { ...base, command_id: id(), target_seat: 7 }, INVALID("BAD_SEAT"), T);
  await probe("CatchUno self", "play", "CatchUno", { ...base, command_id: id(), target_seat: 0 }, INVALID("CATCH_SELF"), T);
  await probe("CatchUno window never opened", "play", "CatchUno",
    { ...base, command_id: id(), target_seat: 1, reaction_window_id: "999999" }, INVALID("UNKNOWN_WINDOW"), T);
  await probe("ChooseSwapTarget seat outside", "play", "ChooseSwapTarget", { ...base, command_id: id(), target_seat: 9 },
    INVALID("BAD_SEAT"), T);
  await probe("FiveSwap seat outside", "play", "FiveSwap",
    { ...base, command_id: id(), target_seat: 9, card: { color: "COLOR_RED", rank: "RANK_ONE" } }, INVALID("BAD_SEAT"), T);
  await probe("FiveSwap no card", "play", "FiveSwap", { ...base, command_id: id(), target_seat: 1 }, INVALID("MISSING_FIELD"), T);
  await probe("GiveCard no card", "play", "GiveCard", { ...base, command_id: id() }, INVALID("MISSING_FIELD"), T);
  await probe("React window 0", "play", "React", { ...base, command_id: id() }, INVALID("MISSING_FIELD"), T);
  await probe("React window never opened", "play", "React", { ...base, command_id: id(), reaction_window_id: "999999" },
    INVALID("UNKNOWN_WINDOW"), T);
  await probe("Challenge with nothing to challenge", "play", "Challenge", { ...base, command_id: id() },
    PRECONDITION(["NOTHING_TO_CHALLENGE", "NOT_YOUR_TURN"]), T);
  await probe("CommitEntropy out of the shuffle", "play", "CommitEntropy",
    { ...base, command_id: id(), commitment: Buffer.alloc(32) }, PRECONDITION("NO_SHUFFLE_PENDING"), T);
  await probe("RevealEntropy out of the shuffle", "play", "RevealEntropy",
    { ...base, command_id: id(), entropy: Buffer.alloc(32) }, PRECONDITION("NO_SHUFFLE_PENDING"), T);
  await probe("SendChat 281 chars", "chat", "SendChat", { ...base, command_id: id(), text: "t".repeat(281) },
    INVALID("TEXT_TOO_LONG"), T);
  await probe("SendChat empty", "chat", "SendChat", { ...base, command_id: id(), text: "" }, INVALID("MISSING_FIELD"), T);
  await reuseProbe(T, base);
}

/** Applies one command, then reuses its id for another request (COMMAND_ID_REUSED). */
async function reuseProbe(T, base) {
  const first = await c.call(clients.chat, "SendChat", { ...base, command_id: "reuse-1", text: "hello" });
  if (first.error) {
    console.log(`skip command id reuse: the first chat was refused ${JSON.stringify(c.readRefusal(first.error))}`);
    return;
  }
  const again = await c.call(clients.chat, "SendChat", { ...base, command_id: "reuse-1", text: "hello" });
  const same = !again.error && JSON.stringify(again.response) === JSON.stringify(first.response);
  if (same) { passed += 1; console.log("ok   SendChat retry with the same id returns the first response"); } else {
    failures.push({ name: "SendChat retry", first: first.response, again: again.response || c.readRefusal(again.error) });
    console.log(`FAIL SendChat retry: ${JSON.stringify({ first: first.response, again: again.response })}`);
  }
  await probe("SendChat id reused for another text", "chat", "SendChat", { ...base, command_id: "reuse-1", text: "bye" },
    { code: "ALREADY_EXISTS", reason: "COMMAND_ID_REUSED" }, T);
}

async function streamProbes(T, token) {
  const last = await lastEvent(T);
  await probeStream("WatchEvents beyond the last event", { table_id: T, token, after_event_number: String(last + 1000) },
    INVALID("BAD_EVENT_NUMBER"));
  await probeStream("WatchEvents forged token", { table_id: T, token: "forged" }, { code: "PERMISSION_DENIED", reason: "BAD_TOKEN" });
  await probeStream("WatchEvents unknown table", { table_id: "nope" }, { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
  await probeStream("WatchEvents empty table id", { table_id: "" }, { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
  await probe("GetView forged token", "watch", "GetView", { table_id: T, token: "forged" },
    { code: "PERMISSION_DENIED", reason: "BAD_TOKEN" }, T);
  await probe("GetView unknown table", "watch", "GetView", { table_id: "nope" }, { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
}

async function pingProbes(T, token, spectatorToken) {
  const now = () => c.timestamp(Date.now());
  await probe("Ping without send time", "time", "Ping", { sequence: "1" }, INVALID("MISSING_FIELD"));
  await probe("Ping with table, no token", "time", "Ping", { table_id: T, sequence: "1", client_send_time: now() },
    INVALID("TOKEN_MISSING"));
  await probe("Ping forged token", "time", "Ping", { table_id: T, token: "forged", sequence: "1", client_send_time: now() },
    { code: "PERMISSION_DENIED", reason: "BAD_TOKEN" });
  await probe("Ping unknown table", "time", "Ping", { table_id: "nope", token, sequence: "1", client_send_time: now() },
    { code: "NOT_FOUND", reason: "TABLE_NOT_FOUND" });
  await probe("Ping report of a ping never sent", "time", "Ping",
    { table_id: T, token, sequence: "2", client_send_time: now(), previous: { sequence: "12345", client_receive_time: now() } },
    INVALID("BAD_PING_REPORT", "previous.sequence"));
  const sent = Date.now();
  await c.call(clients.time, "Ping", { table_id: T, token, sequence: "10", client_send_time: c.timestamp(sent) });
  await probe("Ping report without arrival time", "time", "Ping",
    { table_id: T, token, sequence: "11", client_send_time: now(), previous: { sequence: "10" } }, INVALID("MISSING_FIELD"));
  await probe("Ping report arriving before it was sent", "time", "Ping",
    { table_id: T, token, sequence: "12", client_send_time: now(),
      previous: { sequence: "10", client_receive_time: c.timestamp(sent - 5000) } },
    INVALID("BAD_PING_REPORT", "previous.client_receive_time"));
  const spectatorPing = await c.call(clients.time, "Ping", { table_id: T, token: spectatorToken, sequence: "1",
    client_send_time: now(), previous: { sequence: "999", client_receive_time: now() } });
  if (spectatorPing.error) {
    failures.push({ name: "Ping spectator report ignored", got: c.readRefusal(spectatorPing.error) });
    console.log(`FAIL Ping with a spectator token and a report: ${JSON.stringify(c.readRefusal(spectatorPing.error))}`);
  } else { passed += 1; console.log("ok   Ping spectator report is ignored"); }
}

async function main() {
  await lobbyProbes();
  await tableProbes();
  console.log(JSON.stringify({ passed, failed: failures.length }));
  process.exit(Math.min(failures.length, 100));
}

main().catch((error) => { console.error(error); process.exit(101); });
