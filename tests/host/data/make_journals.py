"""Write `journals.db` and `journals.json`: tables journalled by the host, and the event logs they replay to.

Run once with the host's code of the day the journal format changes (`.venv/bin/python
tests/host/data/make_journals.py`), and the output checked in: `tests/host/test_journal_replay.py` then
proves that every later host replays those journals, written by the code before the change, to the
very same events (numbers and rendered bytes, for a spectator and every seat). It plays through every
kind of journal entry the host writes: joins, spectators coming and going, host bots, connections,
chat (from a seat and from a spectator), the start, the seats' shuffle entropy and its timeout, seat
commands, closed windows, race rulings (and a copy of the table whose rulings carry no "v", as
rulings journalled before version 2 did), late answers, turn timeouts and a seat leaving mid-match.

Randomness comes from `secrets` (tokens, the host's shuffle seeds), so each run writes different data;
what is checked is that the replay of the data that was written matches what was recorded with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import random
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from unonet.engine import legal_actions
from unonet.fairness import commit_seat_entropy
from unonet.host import journal
from unonet.host.bots import choose_action
from unonet.host.errors import HostError
from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import Table, TableSettings

HERE = Path(__file__).parent
DB = HERE / "journals.db"
EXPECTED = HERE / "journals.json"
SEATS = 4
KINDS = {"join", "spectate", "unspectate", "bot", "conn", "chat", "start", "entropy", "entropy_timeout", "cmd",
         "close", "ruling", "late", "timeout", "leave"}
OVERRIDES = {"jump_in": True, "uno_slap": True, "skip_escape": True, "target_score": 60}


class Clock:
    """The host's clock, moved by hand: every time in the journal is one this script chose."""

    def __init__(self) -> None:
        self.now = 1_700_000_000_000_000_000

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1e9)


def rendered(table: Table) -> dict[str, Any]:
    """What the log looks like: per viewer (a spectator, each seat), each event's number and a hash of
    its rendered bytes; a replay must give every one of them again."""
    views: dict[str, list[str]] = {}
    for viewer in [None, *range(len(table.seats))]:
        key = "spectator" if viewer is None else str(viewer)
        views[key] = [hashlib.sha256(table.render_bytes(entry, viewer, cache=False)).hexdigest()[:16]
                      for entry in table.log]
    return {"numbers": [entry.number for entry in table.log], "views": views}


def kinds(store: SqliteStore, table_id: str) -> list[str]:
    stored = store.table(table_id)
    assert stored is not None
    return sorted({item.entry["k"] for item in stored.journal})


def answer_races(table: Table, clock: Clock, state: dict[str, Any]) -> None:
    """Seat 0 answers the first race it can; once that race is ruled, it answers it again, too late."""
    match = table.match
    if match is None or match.is_over or not match.round_no or table.seats[0].taken_over:
        return
    game = match.game
    late = state["late"]
    if late and late[1] not in game.windows and late[1] not in table.races.races:
        cid, window, action = late
        state["late"] = ()  # once is enough
        with contextlib.suppress(HostError):  # WINDOW_CLOSED when it closed unruled: nothing changes
            table.races.submit(table, 0, cid + "-late", (action,), arrived_ns=clock(), window_hint=window)
        return
    for action in legal_actions(game, 0):
        race = table.races.race_for(game, 0, action)
        if race is None or race.has_answered(0):
            continue
        cid = f"ann-{table.last_number}-w{race.window_id}"
        table.races.submit(table, 0, cid, (action,), arrived_ns=clock(), claimed_s=0.2,
                           window_hint=race.window_id)
        if late is None:
            state["late"] = (cid, race.window_id, action)
        return


def step(host: Host, table: Table, clock: Clock, rng: random.Random, state: dict[str, Any]) -> None:
    """One turn of the driver, with seat 0 (ann) playing and answering races, seat 1 (bob) silent."""
    match = table.match
    assert match is not None
    wait = host._step(table)  # the driver's own step: bots, rulings, closings, timeouts, shuffle deadlines
    if table.shuffle is not None and 0 in table.shuffle.asked:
        shuffle = table.shuffle
        value = hashlib.sha256(f"ann-{shuffle.round_no}".encode()).digest()
        if shuffle.phase == "commit" and 0 not in shuffle.commitments:
            commitment = commit_seat_entropy(0, value, table_id=table.table_id, round_no=shuffle.round_no)
            table.entropy(0, f"c{shuffle.round_no}", commitment=commitment)
        elif shuffle.phase == "reveal" and 0 not in shuffle.values:
            table.entropy(0, f"r{shuffle.round_no}", value=value)
    if match.is_over or table.shuffle is not None or not match.round_no:
        clock.advance(wait if wait else 0.05)
        return
    game = match.game
    answer_races(table, clock, state)
    if game.to_act == 0 and not table.seats[0].taken_over and table.races.holding() is None:
        options = legal_actions(game, 0)
        action = choose_action(game, 0, options, rng)
        if table.last_number % 7 == 0 and state["chats"] < 3:
            state["chats"] += 1
            table.chat(table.seats[0].token, f"chat-{table.last_number}", "my turn")
        table.command(0, f"ann-{table.last_number}", (action,))
    clock.advance(wait if wait else 0.3)


async def play(host: Host, clock: Clock, settings: TableSettings, *, leave_at: int | None) -> Table:
    table = host.create_table(settings, seed=20261201)
    ann, _ = table.join("ann", 0, spectator=False)
    spectator, _ = table.join("sam", None, spectator=True)
    table.chat(spectator, "hello", "hello from the rail")
    table.leave_spectator(spectator)
    table.join("bob", 1, spectator=False)
    table.record(journal.SeatBot(2, "random", "random-bot-2"))  # what AddBots records
    watching = [table.subscribe(0), table.subscribe(1)]
    table.chat(ann, "", "good luck")
    table.record(journal.Start(fill=True, bot_kind="random"))  # what StartTable records
    rng = random.Random(5)
    state: dict[str, Any] = {"late": None, "chats": 0, "closed": False}
    steps = 0
    while table.match is not None and not table.match.is_over and steps < 4000:
        step(host, table, clock, rng, state)
        steps += 1
        if leave_at is not None and steps == leave_at and not table.seats[1].taken_over:
            table.unsubscribe(watching[1])
            table.sync_connections()
            table.record(journal.Leave(1))  # what LeaveTable records
        if not state["closed"] and table.window_deadlines and min(table.window_deadlines.values()) <= clock():
            # What hosts before the race book journalled for a window at its deadline (tests do it too).
            state["closed"] = True
            table.record(journal.Close(min(table.window_deadlines, key=table.window_deadlines.get)))
    for subscriber in watching:
        table.unsubscribe(subscriber)
    return table


def strip_ruling_versions(db: sqlite3.Connection, table_id: str) -> None:
    """Take the "v" out of the table's rulings: a journal written before rulings had versions (they
    replay the old way; the seats' commitments name the table, so it keeps its id)."""
    for seq, entry in db.execute("SELECT seq, entry FROM journal WHERE table_id = ? AND entry LIKE '%\"ruling\"%'",
                                 (table_id,)).fetchall():
        data = json.loads(entry)
        if data["k"] == "ruling":
            data.pop("v", None)
            db.execute("UPDATE journal SET entry = ? WHERE table_id = ? AND seq = ?", (json.dumps(data), table_id, seq))


async def main() -> None:
    DB.unlink(missing_ok=True)
    clock = Clock()
    store = SqliteStore(DB, group_commit=False)
    host = Host(store, clock_ns=clock)
    settings = TableSettings(
        name="every entry", seat_count=SEATS, preset="house", overrides=OVERRIDES,
        turn_time_s=5.0, time_bank_s=2.0, strikes_before_takeover=2, reaction_time_s=1.0, manual_start=True,
    )
    tables = [await play(host, clock, settings, leave_at=None)]
    leaves = TableSettings(**{**dataclasses.asdict(settings), "name": "bob leaves"})
    tables.append(await play(host, clock, leaves, leave_at=3))
    await host.stop()
    for table in tables:
        print(table.table_id, table.last_number, kinds(store, table.table_id), file=sys.stderr)
    written = set(kinds(store, tables[0].table_id)) | set(kinds(store, tables[1].table_id))
    assert written >= KINDS, f"no {sorted(KINDS - written)} entry: run again"
    assert all("ruling" in kinds(store, t.table_id) for t in tables), "a table without rulings: run again"
    store.close()
    db = sqlite3.connect(DB)
    with db:
        strip_ruling_versions(db, tables[1].table_id)
    db.execute("VACUUM")
    db.close()
    with tempfile.TemporaryDirectory() as scratch:  # the replay archives finished tables: not in DB
        copy = Path(scratch) / DB.name
        shutil.copy(DB, copy)
        expected = await replayed(copy, clock, [table.table_id for table in tables])
    EXPECTED.write_text(json.dumps(expected, indent=0, sort_keys=True) + "\n")


async def replayed(path: Path, clock: Clock, table_ids: list[str]) -> dict[str, Any]:
    """What the host of the day replays (a live log can differ in what it showed of the seats'
    connections when the match started: live state, not journalled)."""
    store = SqliteStore(path, group_commit=False)
    restored = Host(store, clock_ns=clock)
    restored.restore()
    expected = {table_id: rendered(restored.table(table_id)) for table_id in table_ids}
    await restored.stop()
    store.close()
    return expected


if __name__ == "__main__":
    asyncio.run(main())
