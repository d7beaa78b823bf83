"""Durable tables: an append-only journal of every input, in SQLite (WAL), replayed on start.

The engine is deterministic given its seed, so the journal of inputs (joins, commands, window
closings, timeouts, chat) *is* the state: replaying it through the same table code rebuilds every
event with the same numbers. Each input is committed before its caller hears back, so a host killed
with SIGKILL loses nothing it acknowledged and applies nothing twice (command ids are journalled too).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import grpc

from unonet.host.errors import HostError
from unonet.host.framing import events_blob
from unonet.host.loghead import ChainHead, genesis, link
from unonet.v1 import watch_service_pb2

# Under load, at most one commit per 5 ms; an idle host does not wait at all. A commit costs ~0.1 ms of
# SQLite, and the replies and stream writes it releases together leave in fewer writes per connection,
# so a longer interval costs less CPU per command, for latency. Measured on bench/host.py, 100 tables
# flat out (ratio to the relay; p50 / p99 at 100 active tables): 3 ms 0.56 (2.6 / 7.0 ms), 4 ms 0.58
# (3.5 / 7.4), 5 ms 0.65 (4.3 / 9.2), 6 ms 0.65 (5.2 / 10.2). Past 5 ms latency grows and the gain
# stops; the bound is p99 < 20 ms. Races are not affected: an answer's arrival is timed
# before it waits for anything, and Ping does not wait for the commit at all.
DEFAULT_COMMIT_INTERVAL_S = 0.005

# What an acknowledged input survives. NORMAL (WAL, no fsync per commit) survives a kill of the host
# process, not a power loss or an OS crash, which may take the last commits (the WAL frames not yet on
# the disk). FULL fsyncs the WAL at every commit, so an acknowledged input survives those too; with the
# group commit that is one fsync per 5 ms group, not one per command. bench/durability.py measures it:
# under load no throughput lost (ratio 1.07 and 1.14 to NORMAL, within the machine's noise) for about
# 1.1 to 1.6 ms more per commit at p50. `unonet serve` promises FULL (SERVE_SYNCHRONOUS); a store opened
# in passing (tests, `unonet replay`, tools that read a database) is NORMAL unless told otherwise.
SYNCHRONOUS_MODES = ("NORMAL", "FULL")
SERVE_SYNCHRONOUS = "FULL"

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    table_id   TEXT PRIMARY KEY,
    record     TEXT NOT NULL,
    created_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    table_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    time_ns  INTEGER NOT NULL,
    entry    TEXT NOT NULL,
    public   BLOB,  -- the input's events as spectators see them: a serialized WatchEventsResponse
    PRIMARY KEY (table_id, seq)
);
-- Where databases written before `journal.public` keep their public events; read, no longer written.
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    number   INTEGER NOT NULL,
    public   BLOB NOT NULL,
    PRIMARY KEY (table_id, number)
);
-- Each event as its streams send it, so that only a window of recent events stays in memory
-- (eventlog.py): viewer -1 is the public rendering (spectators, and any seat with no row of its own),
-- viewer 0, 1, ... a seat's own where it differs (its hidden cards, its legal actions). Written in the
-- group commit of the input that produced the event.
CREATE TABLE IF NOT EXISTS renderings (
    table_id TEXT NOT NULL,
    number   INTEGER NOT NULL,
    viewer   INTEGER NOT NULL,
    event    BLOB NOT NULL,
    PRIMARY KEY (table_id, number, viewer)
) WITHOUT ROWID;
-- Each command id's first result (commandbook.py), so a retry however late gets it without every
-- record staying in memory: written in the group commit of the input that made it.
CREATE TABLE IF NOT EXISTS commands (
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    command_id TEXT NOT NULL,
    request    TEXT NOT NULL,  -- what the id was used for, as JSON (a reuse for another request is refused)
    result     BLOB NOT NULL,  -- the serialized CommandResult
    PRIMARY KEY (table_id, seat, command_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS archived (
    table_id   TEXT PRIMARY KEY,
    created_ns INTEGER NOT NULL,
    info       BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS archived_by_creation ON archived (created_ns, table_id);
"""


# One event as one viewer's stream sends it: (number, viewer, serialized Event); viewer -1 is public.
Rendering = tuple[int, int, bytes]
PUBLIC_VIEWER = -1


SHUTTING_DOWN_MESSAGE = "the host is shutting down; reconnect and resume from your last event number"


class StoreClosed(HostError):
    """A read or write of a store that was closed: the host is shutting down. The host stops serving
    and cancels its streams and drivers before it closes the store (`Host.stop`, `server.serve`), so
    this reaches a caller only past that order; it is a refusal (UNAVAILABLE, `SHUTTING_DOWN`: retry
    elsewhere or later, resume from the last event number), never SQLite's ProgrammingError."""

    def __init__(self, what: str) -> None:
        super().__init__(grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN", f"{SHUTTING_DOWN_MESSAGE} ({what})")


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One input to a table, as plain JSON data, with the host time it was applied at."""

    seq: int
    time_ns: int
    entry: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredTable:
    table_id: str
    record: dict[str, Any]
    created_ns: int
    journal: list[JournalEntry]
    # Why the stored rows cannot be read as a table (the record or an entry is not JSON, SQLite cannot
    # read them), naming the entry; None when they can. The host quarantines such a table (integrity.py).
    damage: str | None = None


class Store(Protocol):
    """Where tables live. The host calls it under each table's lock, so calls for one table are ordered."""

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None: ...

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]],
               renderings: Sequence[Rendering] = ()) -> None:
        """Journal one input with its events' public renderings (`events`, for audits) and every
        rendering its events' streams send (`renderings`, read back by `renderings`), durable together."""
        ...

    def renderings(self, table_id: str, first: int, last: int, viewer: int) -> dict[int, bytes]:
        """The events `first` to `last` as `viewer` (-1: a spectator) receives them, by number: its own
        row where it has one, else the public one. Inputs not yet durable are included."""
        ...

    def sent_through(self, table_id: str) -> int:
        """The highest event number of the table that may have left the host (its sent mark, kept apart
        from the journal, so a journal that lost its last commits still knows what clients saw)."""
        ...

    def sent_head(self, table_id: str) -> ChainHead | None:
        """The sent mark with the table's log head at it (loghead.py), written with it; None if the mark
        has no head (a store written before heads, or a table that has sent nothing)."""
        ...

    def follow_chain(self, table_id: str, head: ChainHead) -> None:
        """The table's log ends at `head` (a restored table, replayed): link its next events from there."""
        ...

    def set_mark(self, table_id: str, head: ChainHead) -> None:
        """Write the table's sent mark and head as `head`, now, even below the mark it had: after a
        restore found the log's head at the mark was not the journal's, the mark says the journal's log."""
        ...

    def rendered_through(self, table_id: str) -> int:
        """The last event number whose renderings are stored (0 if none: a table stored before them)."""
        ...

    def add_command(self, table_id: str, seat: int, command_id: str, request: str, result: bytes) -> None:
        """Keep a command id's first result; it is written with the next input appended (the one that
        made it: the table records it while applying that input), durable together."""
        ...

    def add_commands(self, table_id: str, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        """Store command records an earlier host did not (rebuilt by a replay), now, once each."""
        ...

    def command(self, table_id: str, seat: int, command_id: str) -> tuple[str, bytes] | None:
        """A command id's record (its request as JSON, its serialized result), None if never used."""
        ...

    def command_keys(self, table_id: str) -> Iterator[tuple[int, str]]:
        """Every (seat, command id) with a record."""
        ...

    def add_renderings(self, table_id: str, rows: Sequence[Rendering]) -> None:
        """Store renderings an earlier host did not (its events rebuilt by a replay), now, once."""
        ...

    def drop_renderings(self, table_id: str, after: int) -> None:
        """Forget the renderings of the table's events after number `after`: their inputs were lost."""
        ...

    def tables(self, *, live_only: bool = False) -> Iterator[StoredTable]:
        """Every stored table with its journal, oldest first; with `live_only`, not the archived ones."""
        ...

    def table(self, table_id: str) -> StoredTable | None:
        """One stored table with its journal (archived or not), None if there is no such table."""
        ...

    def archive(self, table_id: str, created_ns: int, info: bytes) -> None:
        """Keep a finished table's final summary (a serialized TableInfo), so it can leave memory."""
        ...

    def archived(self, table_id: str) -> bytes | None: ...

    def archived_page(self, before: tuple[int, str] | None, limit: int) -> list[tuple[int, str, bytes]]:
        """Archived tables as (created_ns, table_id, info), newest first, strictly before `before`."""
        ...

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]: ...

    @property
    def in_transaction(self) -> bool:
        """True while some input already appended is not durable yet (see `durable`)."""
        ...

    async def durable(self) -> None:
        """Return once every input appended so far is durable. Nothing may leave the host before it
        is: a reply to the command, an event on a stream, a view that includes it."""
        ...

    def when_durable(self, callback: Callable[[bool], None]) -> None:
        """Call `callback(True)` once every input appended so far is durable (at once if it is), or
        `callback(False)` if writing them failed: how a table hands its events to the streams only
        once they may leave, without a task per stream waiting on `durable`."""
        ...

    def close(self) -> None: ...


class MemoryStore:
    """A store that forgets on exit: for tests and throwaway demos."""

    def __init__(self) -> None:
        self._tables: dict[str, StoredTable] = {}
        self._archived: dict[str, tuple[int, str, bytes]] = {}
        self._renderings: dict[str, dict[tuple[int, int], bytes]] = {}
        self._sent: dict[str, int] = {}
        self._commands: dict[tuple[str, int, str], tuple[str, bytes]] = {}

    def add_command(self, table_id: str, seat: int, command_id: str, request: str, result: bytes) -> None:
        self._commands[(table_id, seat, command_id)] = (request, result)

    def add_commands(self, table_id: str, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        for seat, command_id, request, result in rows:
            self._commands.setdefault((table_id, seat, command_id), (request, result))

    def command(self, table_id: str, seat: int, command_id: str) -> tuple[str, bytes] | None:
        return self._commands.get((table_id, seat, command_id))

    def command_keys(self, table_id: str) -> Iterator[tuple[int, str]]:
        yield from [(seat, command_id) for (table, seat, command_id) in self._commands if table == table_id]

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None:
        self._tables[table_id] = StoredTable(table_id, record, created_ns, [])

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]],
               renderings: Sequence[Rendering] = ()) -> None:
        self._tables[table_id].journal.append(entry)
        self.add_renderings(table_id, renderings)
        if events:
            self._sent[table_id] = max(self._sent.get(table_id, 0), events[-1][0])

    def sent_through(self, table_id: str) -> int:
        return self._sent.get(table_id, 0)

    def sent_head(self, table_id: str) -> ChainHead | None:
        """None: a throwaway store outlives no host, so there is no head to check."""
        return None

    def follow_chain(self, table_id: str, head: ChainHead) -> None:
        pass

    def set_mark(self, table_id: str, head: ChainHead) -> None:
        self._sent[table_id] = head[0]

    def renderings(self, table_id: str, first: int, last: int, viewer: int) -> dict[int, bytes]:
        rows = self._renderings.get(table_id, {})
        found = {}
        for number in range(first, last + 1):
            wire = rows.get((number, viewer)) if viewer != PUBLIC_VIEWER else None
            wire = wire if wire is not None else rows.get((number, PUBLIC_VIEWER))
            if wire is not None:
                found[number] = wire
        return found

    def rendered_through(self, table_id: str) -> int:
        return max((number for number, viewer in self._renderings.get(table_id, {})), default=0)

    def drop_renderings(self, table_id: str, after: int) -> None:
        stored = self._renderings.get(table_id, {})
        for key in [key for key in stored if key[0] > after]:
            del stored[key]

    def add_renderings(self, table_id: str, rows: Sequence[Rendering]) -> None:
        stored = self._renderings.setdefault(table_id, {})
        for number, viewer, wire in rows:
            stored.setdefault((number, viewer), wire)

    def tables(self, *, live_only: bool = False) -> Iterator[StoredTable]:
        yield from (t for t in self._tables.values() if not live_only or t.table_id not in self._archived)

    def table(self, table_id: str) -> StoredTable | None:
        return self._tables.get(table_id)

    def archive(self, table_id: str, created_ns: int, info: bytes) -> None:
        self._archived[table_id] = (created_ns, table_id, info)

    def archived(self, table_id: str) -> bytes | None:
        row = self._archived.get(table_id)
        return row[2] if row is not None else None

    def archived_page(self, before: tuple[int, str] | None, limit: int) -> list[tuple[int, str, bytes]]:
        rows = sorted(self._archived.values(), reverse=True)
        return [row for row in rows if before is None or row[:2] < before][:limit]

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]:
        """None: a throwaway store keeps no public log to audit (`append` ignores the events)."""
        yield from ()

    in_transaction = False

    async def durable(self) -> None:
        return

    def when_durable(self, callback: Callable[[bool], None]) -> None:
        callback(True)

    def close(self) -> None:
        pass


class SqliteStore:
    """The default store: one SQLite file in WAL mode.

    Group commit: inside a running event loop, appends (any number of tables) are held in memory and
    written in one transaction by a callback scheduled when the first of them opened the group: on the
    loop's next turn if the last commit is at least `commit_interval_s` old, else that long after it.
    If that transaction fails, no input of the group is acknowledged. The host awaits
    `durable()` before it answers any RPC, and tables hand events to streams through `when_durable`,
    so nothing leaves the host before its input is committed. Outside an event loop each append commits
    at once (and always with `group_commit=False`), and `close` commits whatever is pending.
    """

    def __init__(
        self, path: str | Path, *, group_commit: bool = True, commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S,
        synchronous: str = "NORMAL",
    ) -> None:
        """`commit_interval_s`: the least time between two group commits. An idle host commits an input
        on the loop's next turn; a busy one gathers everything that arrives in the interval into one
        transaction, which costs each input a fraction of a commit, for at most that much more latency.
        `synchronous`: SQLite's, NORMAL or FULL (what each means for an acknowledged input: SERVE_SYNCHRONOUS)."""
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._closed = False  # once `close` ran, every call raises StoreClosed (`_open`)
        self._path = str(path)
        self._group_commit = group_commit
        self._commit_interval_s = commit_interval_s
        self._last_commit = -math.inf  # loop time of the last group commit
        self._group_open = False
        # Who hears when the open group is written: one future per `durable` caller (cancelling one
        # cancels nobody else's wait) and the `when_durable` callbacks.
        self._waiters: list[asyncio.Future[None]] = []
        self._callbacks: list[Callable[[bool], None]] = []
        # The open group's rows, written in one transaction by `_commit` (one executemany), so an input
        # costs the loop a list append rather than SQLite statements of its own. An input's public
        # events ride in its journal row: one row per input, one B-tree touched per commit.
        self._journal_rows: list[tuple[Any, ...]] = []
        self._rendering_rows: list[tuple[str, int, int, bytes]] = []  # the open group's renderings
        self._command_rows: list[tuple[str, int, str, str, bytes]] = []  # written with the next input's rows
        self._sent_rows: dict[str, ChainHead | tuple[int, None]] = {}  # the open group's mark of each table
        self._heads: dict[str, ChainHead] = {}  # each table's log head as far as it is journalled (loghead.py)
        self._last_seq: dict[str, int] = {}  # each table's last journal entry, held or written
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, not {synchronous!r}")
        self._db.execute(f"PRAGMA synchronous={synchronous}")  # see SERVE_SYNCHRONOUS
        self._db.executescript(SCHEMA)
        # The sent marks live in a file of their own (`<database>.sent`), written after the journal's
        # commit and before any of its events leave: a journal that loses its last commits (a cut or
        # missing WAL) does not take with it the knowledge of which numbers clients may have seen.
        memory = str(path) == ":memory:"
        self._marks = sqlite3.connect(":memory:" if memory else f"{path}.sent", check_same_thread=False,
                                      isolation_level=None)
        self._marks.execute("PRAGMA journal_mode=WAL")
        self._marks.execute(f"PRAGMA synchronous={synchronous}")
        self._marks.execute("CREATE TABLE IF NOT EXISTS sent (table_id TEXT PRIMARY KEY, last_number INTEGER NOT NULL,"
                            " head BLOB)")  # head: the log's head after event last_number (loghead.py)
        if "head" not in {row[1] for row in self._marks.execute("PRAGMA table_info(sent)")}:  # marks from before
            self._marks.execute("ALTER TABLE sent ADD COLUMN head BLOB")
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(journal)")}
        if "public" not in columns:  # a database from before journal.public
            self._db.execute("ALTER TABLE journal ADD COLUMN public BLOB")

    @contextlib.contextmanager
    def _open(self) -> Iterator[None]:
        """Hold the lock of a store that is still open.

        Raises:
            StoreClosed: `close` already ran (the host is shutting down).
        """
        with self._lock:
            if self._closed:
                raise StoreClosed(f"its store {self._path} is closed")
            yield

    @property
    def synchronous(self) -> str:
        """The synchronous mode SQLite runs this store's connection with (NORMAL or FULL), read back."""
        with self._open():
            mode = self._db.execute("PRAGMA synchronous").fetchone()[0]
        return {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[mode]

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None:
        with self._open():
            self._db.execute(
                "INSERT INTO tables (table_id, record, created_ns) VALUES (?, ?, ?)",
                (table_id, json.dumps(record), created_ns),
            )
            self._heads[table_id] = genesis(table_id)

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]],
               renderings: Sequence[Rendering] = ()) -> None:
        public = events_blob(blob for _, blob in events) if events else None
        journal_row = (table_id, entry.seq, entry.time_ns, json.dumps(entry.entry), public)
        rendering_rows = [(table_id, number, viewer, wire) for number, viewer, wire in renderings]
        with self._open():
            last = self._last_seq.get(table_id, 0)
            if entry.seq <= last:  # refused now, as the key's UNIQUE constraint would, not with its group
                raise sqlite3.IntegrityError(f"journal entry {entry.seq} of table {table_id} is not after {last}")
            sent = {table_id: self._link(table_id, events)} if events else {}
            if self._join_group():
                self._journal_rows.append(journal_row)
                self._rendering_rows += rendering_rows
                self._sent_rows.update(sent)
            else:
                command_rows, self._command_rows = self._command_rows, []
                self._write([journal_row], rendering_rows, command_rows)
                self._mark_sent(sent)
            self._last_seq[table_id] = entry.seq

    def _link(self, table_id: str, events: list[tuple[int, bytes]]) -> ChainHead | tuple[int, None]:
        """The table's mark after `events`: their last number, with the log's head after them where the
        store follows the table's chain (a table it created or was told the head of: `follow_chain`)."""
        head = self._heads.get(table_id)
        if head is None or events[0][0] != head[0] + 1:  # not followed (or out of step): a mark with no head
            self._heads.pop(table_id, None)
            return events[-1][0], None
        head = self._heads[table_id] = link(head, events)
        return head

    def _mark_sent(self, sent: dict[str, ChainHead | tuple[int, None]]) -> None:
        """Raise each table's sent mark to its last event journalled, with the log's head there, both in
        one statement (the caller holds the lock)."""
        if sent:
            self._marks.executemany(
                "INSERT INTO sent (table_id, last_number, head) VALUES (?, ?, ?) ON CONFLICT (table_id)"
                " DO UPDATE SET last_number = excluded.last_number, head = excluded.head"
                " WHERE excluded.last_number >= sent.last_number",
                [(table_id, number, head) for table_id, (number, head) in sent.items()])

    def sent_through(self, table_id: str) -> int:
        with self._open():
            row = self._marks.execute("SELECT last_number FROM sent WHERE table_id = ?", (table_id,)).fetchone()
        return int(row[0]) if row is not None else 0

    def sent_head(self, table_id: str) -> ChainHead | None:
        with self._open():
            row = self._marks.execute("SELECT last_number, head FROM sent WHERE table_id = ?", (table_id,)).fetchone()
        return (int(row[0]), bytes(row[1])) if row is not None and row[1] is not None else None

    def follow_chain(self, table_id: str, head: ChainHead) -> None:
        with self._open():
            self._heads[table_id] = head

    def set_mark(self, table_id: str, head: ChainHead) -> None:
        with self._open():
            self._marks.execute("INSERT OR REPLACE INTO sent (table_id, last_number, head) VALUES (?, ?, ?)",
                                (table_id, *head))

    def renderings(self, table_id: str, first: int, last: int, viewer: int) -> dict[int, bytes]:
        with self._open():
            rows = self._db.execute(
                "SELECT number, viewer, event FROM renderings WHERE table_id = ? AND number BETWEEN ? AND ?"
                " AND viewer IN (?, ?) ORDER BY number, viewer", (table_id, first, last, PUBLIC_VIEWER, viewer),
            ).fetchall()
            pending = [row[1:] for row in self._rendering_rows
                       if row[0] == table_id and first <= row[1] <= last and row[2] in (PUBLIC_VIEWER, viewer)]
        found: dict[int, bytes] = {}
        for number, row_viewer, wire in [*rows, *pending]:
            if row_viewer == viewer or number not in found:  # the viewer's own row over the public one
                found[number] = bytes(wire)
        return found

    def rendered_through(self, table_id: str) -> int:
        with self._open():
            row = self._db.execute(
                "SELECT MAX(number) FROM renderings WHERE table_id = ? AND viewer = ?", (table_id, PUBLIC_VIEWER)
            ).fetchone()
            pending = [row[1] for row in self._rendering_rows if row[0] == table_id]
        return max([int(row[0] or 0), *pending])

    def add_command(self, table_id: str, seat: int, command_id: str, request: str, result: bytes) -> None:
        with self._open():
            self._command_rows.append((table_id, seat, command_id, request, result))

    def add_commands(self, table_id: str, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        with self._open():
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR IGNORE INTO commands (table_id, seat, command_id, request, result)"
                                     " VALUES (?, ?, ?, ?, ?)", [(table_id, *row) for row in rows])
                self._db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise

    def command(self, table_id: str, seat: int, command_id: str) -> tuple[str, bytes] | None:
        with self._open():
            pending = next((row[3:] for row in reversed(self._command_rows)
                            if row[0] == table_id and row[1] == seat and row[2] == command_id), None)
            if pending is not None:
                return pending
            row = self._db.execute("SELECT request, result FROM commands WHERE table_id = ? AND seat = ?"
                                   " AND command_id = ?", (table_id, seat, command_id)).fetchone()
        return (str(row[0]), bytes(row[1])) if row is not None else None

    def command_keys(self, table_id: str) -> Iterator[tuple[int, str]]:
        with self._open():
            rows = self._db.execute("SELECT seat, command_id FROM commands WHERE table_id = ?", (table_id,)).fetchall()
            pending = [(row[1], row[2]) for row in self._command_rows if row[0] == table_id]
        yield from dict.fromkeys([*((int(seat), str(cid)) for seat, cid in rows), *pending])

    def drop_renderings(self, table_id: str, after: int) -> None:
        with self._open():
            self._db.execute("DELETE FROM renderings WHERE table_id = ? AND number > ?", (table_id, after))

    def add_renderings(self, table_id: str, rows: Sequence[Rendering]) -> None:
        with self._open():
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR IGNORE INTO renderings (table_id, number, viewer, event)"
                                     " VALUES (?, ?, ?, ?)", [(table_id, *row) for row in rows])
                self._db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise

    def _join_group(self) -> bool:
        """True if the append joins the group the running loop commits (opening it if none is open)."""
        if self._group_open:
            return True
        if not self._group_commit:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._group_open = True
        due = self._last_commit + self._commit_interval_s
        if due <= loop.time():
            loop.call_soon(self._commit)
        else:
            loop.call_at(due, self._commit)
        return True

    def _write(self, journal_rows: list[tuple[Any, ...]], rendering_rows: list[tuple[str, int, int, bytes]],
               command_rows: list[tuple[str, int, str, str, bytes]]) -> None:
        """One transaction: every row or none (the caller holds the lock)."""
        self._db.execute("BEGIN")
        try:
            self._db.executemany(
                "INSERT INTO journal (table_id, seq, time_ns, entry, public) VALUES (?, ?, ?, ?, ?)", journal_rows
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO renderings (table_id, number, viewer, event) VALUES (?, ?, ?, ?)",
                rendering_rows,
            )
            if command_rows:
                self._db.executemany(
                    "INSERT OR IGNORE INTO commands (table_id, seat, command_id, request, result)"
                    " VALUES (?, ?, ?, ?, ?)", command_rows,
                )
            self._db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise

    def _commit(self) -> None:
        with contextlib.suppress(RuntimeError):  # close() outside a loop
            self._last_commit = asyncio.get_running_loop().time()
        with self._lock:
            if not self._group_open:
                return
            self._group_open = False
            journal_rows, self._journal_rows = self._journal_rows, []
            rendering_rows, self._rendering_rows = self._rendering_rows, []
            command_rows, self._command_rows = self._command_rows, []
            sent, self._sent_rows = self._sent_rows, {}
            waiters, self._waiters = self._waiters, []
            callbacks, self._callbacks = self._callbacks, []
            try:
                self._write(journal_rows, rendering_rows, command_rows)
                self._mark_sent(sent)  # durable before any waiter or stream hears of the group
            except BaseException as error:  # nothing of the group may be acknowledged
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_exception(error)
                for callback in callbacks:
                    callback(False)
                raise
        for waiter in waiters:
            if not waiter.done():  # a cancelled caller
                waiter.set_result(None)
        for callback in callbacks:
            callback(True)

    @property
    def in_transaction(self) -> bool:
        return self._group_open

    async def durable(self) -> None:
        if self._group_open:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

    def when_durable(self, callback: Callable[[bool], None]) -> None:
        if self._group_open:
            self._callbacks.append(callback)
        else:
            callback(True)

    def tables(self, *, live_only: bool = False) -> Iterator[StoredTable]:
        where = " WHERE table_id NOT IN (SELECT table_id FROM archived)" if live_only else ""
        with self._open():
            rows = self._db.execute(
                f"SELECT table_id, record, created_ns FROM tables{where} ORDER BY created_ns"
            ).fetchall()
        for table_id, record, created_ns in rows:
            yield self._stored(table_id, record, created_ns)

    def table(self, table_id: str) -> StoredTable | None:
        with self._open():
            row = self._db.execute(
                "SELECT table_id, record, created_ns FROM tables WHERE table_id = ?", (table_id,)
            ).fetchone()
        return self._stored(*row) if row is not None else None

    def _stored(self, table_id: str, record: str, created_ns: int) -> StoredTable:
        """The table's rows, or as many as can be read, with what stopped the reading (`damage`)."""
        try:
            settings = json.loads(record)
        except (ValueError, TypeError) as error:
            return StoredTable(table_id, {}, created_ns, [], damage=f"its record is not JSON: {error}")
        try:
            with self._open():
                journal = self._db.execute(
                    "SELECT seq, time_ns, entry FROM journal WHERE table_id = ? ORDER BY seq", (table_id,)
                ).fetchall()
        except sqlite3.DatabaseError as error:
            return StoredTable(table_id, settings, created_ns, [], damage=f"SQLite cannot read its journal: {error}")
        if journal:
            self._last_seq[table_id] = max(self._last_seq.get(table_id, 0), journal[-1][0])
        entries = []
        for seq, time_ns, entry in journal:
            try:
                entries.append(JournalEntry(seq, time_ns, json.loads(entry)))
            except (ValueError, TypeError) as error:
                return StoredTable(table_id, settings, created_ns, entries,
                                   damage=f"journal entry {seq} is not JSON: {error}")
        return StoredTable(table_id, settings, created_ns, entries)

    def archive(self, table_id: str, created_ns: int, info: bytes) -> None:
        with self._open():
            self._heads.pop(table_id, None)  # a table loaded back is followed again from its replay (Host._load)
            self._db.execute(
                "INSERT OR REPLACE INTO archived (table_id, created_ns, info) VALUES (?, ?, ?)",
                (table_id, created_ns, info),
            )

    def archived(self, table_id: str) -> bytes | None:
        with self._open():
            row = self._db.execute("SELECT info FROM archived WHERE table_id = ?", (table_id,)).fetchone()
        return bytes(row[0]) if row is not None else None

    def archived_page(self, before: tuple[int, str] | None, limit: int) -> list[tuple[int, str, bytes]]:
        where, position = ("WHERE (created_ns, table_id) < (?, ?)", before) if before is not None else ("", ())
        with self._open():
            rows = self._db.execute(
                f"SELECT created_ns, table_id, info FROM archived {where}"
                " ORDER BY created_ns DESC, table_id DESC LIMIT ?",
                (*position, limit),
            ).fetchall()
        return [(int(c), str(t), bytes(i)) for c, t, i in rows]

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]:
        with self._open():
            old = self._db.execute(  # written before journal.public
                "SELECT number, public FROM events WHERE table_id = ? ORDER BY number", (table_id,)
            ).fetchall()
            blobs = self._db.execute(
                "SELECT public FROM journal WHERE table_id = ? AND public IS NOT NULL ORDER BY seq", (table_id,)
            ).fetchall()
        yield from ((int(number), bytes(blob)) for number, blob in old)
        for (blob,) in blobs:
            for event in watch_service_pb2.WatchEventsResponse.FromString(blob).events:
                yield event.number, event.SerializeToString()

    def close(self) -> None:
        """Commit what is pending and close; any later call raises StoreClosed. Closing twice is fine."""
        if self._closed:
            return
        self._commit()
        with self._lock:
            self._closed = True
            self._db.close()
            self._marks.close()
