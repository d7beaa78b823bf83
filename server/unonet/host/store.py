"""Durable tables: an append-only journal of every input, in SQLite (WAL), replayed on start.

The engine is deterministic given its seed, so the journal of inputs (joins, commands, window
closings, timeouts, chat) *is* the state: replaying it through the same table code rebuilds every
event with the same numbers. Each input is committed before its caller hears back, so a host killed
with SIGKILL loses nothing it acknowledged and applies nothing twice (command ids are journalled too).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
import math
import queue
import secrets
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import grpc

from unonet.host import json_text
from unonet.host.commit_pacing import LoadPacing
from unonet.host.errors import HostError
from unonet.host.framing import EVENTS_FIELD, events_blob, read_varint, varint
from unonet.host.loghead import ChainHead, genesis, link
from unonet.v1 import watch_service_pb2

log = logging.getLogger(__name__)

# Group commits are paced by how busy the loop is (commit_pacing.py): none apart while the host is idle, up
# to 15 ms apart while it is busy, unless a store is given a fixed interval (`unonet serve --commit-interval`).
# Before, the interval was a fixed 5 ms at any load: a commit costs ~0.1 ms of SQLite, and the replies and
# stream writes it releases together leave in fewer writes per connection, so a longer interval costs less
# CPU per command, for latency (bench/README.md, issue 33's third round, has both measured). Races are not
# affected: an answer's arrival is timed before it waits for anything, and Ping does not wait for the
# commit at all.

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
    through  INTEGER,  -- with events: the number of the input's last event (they are consecutive)
    -- With its events' renderings (eventlog.py: each event as its streams send it): the seats' own
    -- renderings where they differ from the public one in `public` (_seat_renderings' format; empty if
    -- none). NULL: no renderings here (no events, a row from before, or renderings dropped, which the
    -- `renderings` table below then holds). One row per input, so a group commit touches one page of a
    -- table's rows, not one per event and seat.
    renderings BLOB,
    -- The command records the input made (commandbook.py: each command id's first result; a ruling
    -- makes one per answer), in _command_records' format; NULL if none.
    commands BLOB,
    PRIMARY KEY (table_id, seq)
);
-- Where databases written before `journal.public` keep their public events; read, no longer written.
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    number   INTEGER NOT NULL,
    public   BLOB NOT NULL,
    PRIMARY KEY (table_id, number)
);
-- Each event as its streams send it, one row per event and viewer: viewer -1 is the public rendering
-- (spectators, and any seat with no row of its own), viewer 0, 1, ... a seat's own where it differs (its
-- hidden cards, its legal actions). Where the renderings of a database from before `journal.renderings`
-- are, and those a restore stores again (rendered anew from a replay: `add_renderings`); a row here
-- stands over the journal's for its number.
CREATE TABLE IF NOT EXISTS renderings (
    table_id TEXT NOT NULL,
    number   INTEGER NOT NULL,
    viewer   INTEGER NOT NULL,
    event    BLOB NOT NULL,
    PRIMARY KEY (table_id, number, viewer)
) WITHOUT ROWID;
-- Each command id's first result (commandbook.py), so a retry however late gets it without every
-- record staying in memory. Where a database from before `journal.commands` keeps them, and the ones a
-- restore stores again (rebuilt by a replay: `add_commands`).
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
-- The random id this database shares with its sent marks file (`<database>.sent`, table bound_to):
-- a database opened beside no marks file, or beside another database's, is noticed (SqliteStore).
CREATE TABLE IF NOT EXISTS marks_file (id BLOB NOT NULL);
"""

# The sent marks' file, attached as `marks` (SqliteStore's docstring says why it is a file of its own).
MARKS_SCHEMA = """
-- Each table's sent mark: the highest event number that may have left the host, and its log's head
-- after that event (loghead.py), written in the transaction of the inputs behind those events.
CREATE TABLE IF NOT EXISTS marks.sent (table_id TEXT PRIMARY KEY, last_number INTEGER NOT NULL, head BLOB);
-- The id of the database these marks are of (its marks_file).
CREATE TABLE IF NOT EXISTS marks.bound_to (id BLOB NOT NULL);
-- Tables whose marks were lost (the database was opened without its marks file): quarantined.
CREATE TABLE IF NOT EXISTS marks.lost (table_id TEXT PRIMARY KEY, why TEXT NOT NULL);
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

    def mark_lost(self, table_id: str) -> str | None:
        """Why the table's sent mark is lost (the store was opened without its marks), None if it is
        not: nothing then says which of its events clients saw, so the host quarantines it."""
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

    def mark_lost(self, table_id: str) -> str | None:
        return None

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


class _Group:
    """The rows of one group commit, and who hears when they are durable: one future per `durable`
    caller (cancelling one cancels nobody else's wait) and the `when_durable` callbacks."""

    __slots__ = ("archived", "callbacks", "commands", "error", "journal", "sent", "settled", "tables", "waiters")

    def __init__(self) -> None:
        self.tables: list[tuple[str, str, int]] = []
        # An input's public events, its seats' own renderings and its command records ride in its journal
        # row: one row per input (table id, seq, time, entry, public, through, seats' renderings, records).
        self.journal: list[tuple[str, int, int, str, bytes | None, int | None, bytes | None, bytes | None]] = []
        self.commands: list[tuple[str, int, str, str, bytes]] = []  # the records in `journal`, to read them back
        self.archived: dict[str, tuple[int, bytes]] = {}
        self.sent: dict[str, ChainHead | tuple[int, None]] = {}  # each table's mark after the group
        self.waiters: list[asyncio.Future[None]] = []
        self.callbacks: list[Callable[[bool], None]] = []
        self.error: BaseException | None = None  # why its commit failed, once it did
        self.settled = False  # its waiters and callbacks heard


class SqliteStore:
    """The default store: one SQLite file in WAL mode, and its sent marks in a second one.

    Group commit: inside a running event loop, appends (any number of tables) are held in memory and
    written in one transaction when the first of them opened the group: on the loop's next turn if the
    last commit is at least the pacing's interval old (none on an idle host), else that long after it.
    One helper thread runs the group's statements and its COMMIT, the part that waits for the disk (an
    fsync under FULL), with the GIL released while SQLite works, so the loop serves on meanwhile (run on
    the loop, the statements cost it ~10 us a command at 100 tables). Each row's step gives the GIL up
    and takes it back; uvloop lets it go between callbacks, so that costs the commit microseconds, not a
    switch interval a row (bench/README.md, "Issue 33, seventh round"). Appends that arrive meanwhile
    form the next group, written once that COMMIT is done. If a group's transaction fails, none of its
    inputs is acknowledged. The host awaits `durable()` before it answers any RPC,
    and tables hand events to streams through `when_durable`, so nothing leaves the host before its
    input is committed. Outside an event loop each append commits at once (and always with
    `group_commit=False`), and `close` commits whatever is pending. Reads use a connection of their
    own (WAL readers never wait for the writer), plus the rows held or being committed.

    One row per input: an input's journal row carries its public events, its seats' own renderings and
    the command records it made, so a group commit adds one row to one table's B-tree per input and
    rewrites about one page per table it touches (rows keyed by table, one per event and seat, rewrote
    several: bench/README.md's host section has the figures). Each table's rows are found by event
    number and by command id through small maps in memory (`_rendered`, `_recorded`).

    The sent marks (`<database>.sent`, attached to the same connection as schema `marks`): each table's
    highest event number that may have left the host, with its log's head there (loghead.py), written in
    the group's own transaction, so they cost no commit of their own. They live in a file of their own
    because they must outlive a journal that lost its last commits (a cut or missing WAL): that file's
    WAL is not the journal's. A commit that reached one file and not the other is safe either way: a
    mark without its journal rows makes numbers that never left EventsLost markers, and journal rows
    without their mark were never acknowledged (COMMIT had not returned). The mark's file is written
    without an fsync of its own (synchronous NORMAL): under FULL the journal survives a power loss by
    itself, so a mark a power loss takes back (below the journal's end) hides nothing; what the mark
    guards against is a WAL cut or lost later, which it is long on disk by then. The two files carry
    one random id (`_bind_marks`), so a database opened beside no marks file, or beside another
    database's, is noticed: its tables are quarantined (`mark_lost`) until their marks are restored.
    """

    def __init__(
        self, path: str | Path, *, group_commit: bool = True,
        commit_interval_s: float | LoadPacing | None = None,
        synchronous: str = "NORMAL", accept_lost_marks: bool = False,
    ) -> None:
        """`commit_interval_s`: the least time between two group commits, or a `LoadPacing` that says it
        from how busy the loop is (commit_pacing.py; None, the default: a `LoadPacing` of its own). An input
        that comes once the last commit is that old commits on the loop's next turn; a busy host gathers
        everything that arrives in the interval into one transaction, which costs each input a fraction of
        a commit, for at most that much more latency.
        `synchronous`: SQLite's, NORMAL or FULL (what each means for an acknowledged input: SERVE_SYNCHRONOUS).
        `accept_lost_marks`: serve the tables whose sent marks were lost (`mark_lost`), knowing that their
        next events may take numbers clients already saw with other events (`unonet serve --accept-lost-marks`)."""
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, not {synchronous!r}")
        self._path = str(path)
        memory = self._path == ":memory:"
        marks_path = ":memory:" if memory else f"{path}.sent"
        had_marks_file = memory or Path(marks_path).exists()
        self._db = self._connect(marks_path)  # the writer
        self._db.execute(f"PRAGMA synchronous={synchronous}")  # see SERVE_SYNCHRONOUS
        self._db.execute("PRAGMA marks.synchronous=NORMAL")  # see the class's docstring
        self._db.executescript(SCHEMA)
        self._db.executescript(MARKS_SCHEMA)
        if "head" not in {row[1] for row in self._db.execute("PRAGMA marks.table_info(sent)")}:  # marks from before
            self._db.execute("ALTER TABLE marks.sent ADD COLUMN head BLOB")
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(journal)")}
        for column, kind in (("public", "BLOB"), ("through", "INTEGER"), ("renderings", "BLOB"), ("commands", "BLOB")):
            if column not in columns:  # a database from before the column
                self._db.execute(f"ALTER TABLE journal ADD COLUMN {column} {kind}")
        self._lost_marks = self._bind_marks(had_marks_file=had_marks_file, accept=accept_lost_marks)
        # A file's readers get a connection of their own: WAL lets them read while the writer commits.
        # A database in memory is one connection's alone, and commits on the loop (no thread).
        self._reader = self._db if memory else self._connect(marks_path)
        self._write_lock = threading.Lock()  # the writer connection: held from a group's BEGIN to its COMMIT
        self._read_lock = self._write_lock if memory else threading.Lock()
        self._threaded = not memory
        self._committer: threading.Thread | None = None  # the helper thread, started by the first group
        self._to_commit: queue.SimpleQueue[tuple[_Group, asyncio.AbstractEventLoop] | None] = queue.SimpleQueue()
        self._closed = False  # once `close` ran, every call raises StoreClosed (`_open`)
        self._group_commit = group_commit
        if commit_interval_s is None:
            commit_interval_s = LoadPacing()
        # A fixed interval, or what says it from the loop's load (`_schedule` asks it).
        self._pacing = commit_interval_s if isinstance(commit_interval_s, LoadPacing) else float(commit_interval_s)
        self._last_commit = -math.inf  # loop time of the last group commit's start
        self._group_open = False  # the held rows wait for a commit scheduled on the loop
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None  # that commit, when scheduled
        self._held = _Group()  # rows gathered for the next commit (command records gather even outside a group)
        self._in_flight: _Group | None = None  # the group whose COMMIT the helper thread is running
        self._heads: dict[str, ChainHead] = {}  # each table's log head as far as it is journalled (loghead.py)
        self._last_seq: dict[str, int] = {}  # each table's last journal entry, held or written
        # Each table's journal rows that hold renderings, as (their `through`, their seq) in two arrays:
        # where `renderings` finds an event's row (by bisection) without an index on disk.
        self._rendered: dict[str, tuple[array[int], array[int]]] = {}
        # Command records made by an input being applied, until its journal row takes them (`append`).
        self._unattached: list[tuple[str, int, str, str, bytes]] = []
        # Each table's command records in its journal, by `hash((seat, command id))`: the seq of the row
        # holding it (-1: several keys with that hash, a read looks at every row), so a new command id, the
        # usual lookup, is answered without a read. Built at a table's first lookup (`_recorded_keys`):
        # a table whose command book never let a record go (most) never asks, and holds none.
        self._recorded: dict[str, dict[int, int]] = {}
        self._legacy_commands: dict[str, bool] = {}  # tables with records in the commands table

    def _connect(self, marks_path: str) -> sqlite3.Connection:
        """A connection to the database in WAL mode, with its sent marks' file attached as `marks`."""
        connection = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("ATTACH DATABASE ? AS marks", (marks_path,))
        connection.execute("PRAGMA marks.journal_mode=WAL")
        return connection

    def _bind_marks(self, *, had_marks_file: bool, accept: bool) -> dict[str, str]:
        """Check that the marks file is this database's (the same id in both), binding the two on first
        use; returns the tables whose marks are lost (table id: why), which the host quarantines.

        A database bound to a marks file that is missing (the database copied or restored without it)
        or another database's cannot know which events its clients saw: each of its tables with a
        journal is recorded as lost in a fresh marks file, bound to it, so a restart finds them lost
        again while the tables created from now on are marked as usual. Marks written before the files
        were bound are adopted."""
        db = self._db
        database_id = _one(db.execute("SELECT id FROM marks_file"))
        marks_id = _one(db.execute("SELECT id FROM marks.bound_to"))
        if database_id is None or marks_id != database_id:
            lost = None
            if database_id is not None or marks_id is not None:
                lost = (f"its sent marks file {self._path}.sent is missing (the database was copied or restored "
                        "without it)" if not had_marks_file else
                        f"its sent marks file {self._path}.sent is another database's")
            elif not had_marks_file and _one(db.execute("SELECT COUNT(*) FROM journal")):
                log.warning("%s has tables but no sent marks file (%s.sent): written before sent marks were, or "
                            "copied without them; the marks start now", self._path, self._path)
            new_id = database_id or secrets.token_bytes(16)
            # The marks file first and with an fsync (a power loss must not leave the database bound to
            # a file that is not), then the database: two transactions, as the order matters.
            db.execute("PRAGMA marks.synchronous=FULL")
            with _transaction(db):
                if lost is not None:
                    db.execute("DELETE FROM marks.sent")
                    db.execute("INSERT OR IGNORE INTO marks.lost (table_id, why) SELECT DISTINCT table_id, ?"
                               " FROM journal", (lost,))
                db.execute("DELETE FROM marks.bound_to")
                db.execute("INSERT INTO marks.bound_to (id) VALUES (?)", (new_id,))
            db.execute("PRAGMA marks.synchronous=NORMAL")
            if database_id is None:
                with _transaction(db):
                    db.execute("INSERT INTO marks_file (id) VALUES (?)", (new_id,))
        lost_marks = {str(table_id): str(why) for table_id, why in db.execute("SELECT table_id, why FROM marks.lost")}
        if lost_marks and accept:
            for table_id, why in lost_marks.items():
                log.error("DATA LOSS RISK at table %s: its sent mark is lost (%s) and the host serves it anyway "
                          "(--accept-lost-marks): its next events may take numbers clients saw with other events",
                          table_id, why)
            with _transaction(db):
                db.execute("DELETE FROM marks.lost")
            return {}
        for table_id, why in lost_marks.items():
            log.error("table %s: %s: the host cannot know which of its events clients saw, so it quarantines the "
                      "table; restore the marks file beside the database, or start with --accept-lost-marks",
                      table_id, why)
        return lost_marks

    @contextlib.contextmanager
    def _open(self, lock: threading.Lock) -> Iterator[None]:
        """Hold `lock` (the reader's or the writer's) of a store that is still open.

        Raises:
            StoreClosed: `close` already ran (the host is shutting down).
        """
        with lock:
            if self._closed:
                raise StoreClosed(f"its store {self._path} is closed")
            yield

    @property
    def synchronous(self) -> str:
        """The synchronous mode SQLite runs this store's connection with (NORMAL or FULL), read back."""
        with self._open(self._write_lock):
            mode = self._db.execute("PRAGMA synchronous").fetchone()[0]
        return {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[mode]

    def mark_lost(self, table_id: str) -> str | None:
        """Why the table's sent mark is lost (its marks file was missing or another database's when the
        store was opened), None if it is not: the host quarantines such a table."""
        return self._lost_marks.get(table_id)

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None:
        row = (table_id, json_text.dumps(record), created_ns)
        if self._join_group():
            self._held.tables.append(row)
        else:
            with self._open(self._write_lock), _transaction(self._db):
                self._db.execute("INSERT INTO tables (table_id, record, created_ns) VALUES (?, ?, ?)", row)
        self._heads[table_id] = genesis(table_id)

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]],
               renderings: Sequence[Rendering] = ()) -> None:
        if self._closed:
            raise StoreClosed(f"its store {self._path} is closed")
        last = self._last_seq.get(table_id, 0)
        if entry.seq <= last:  # refused now, as the key's UNIQUE constraint would, not with its group
            raise sqlite3.IntegrityError(f"journal entry {entry.seq} of table {table_id} is not after {last}")
        held = self._held
        records = None
        if self._unattached:
            mine = [record for record in self._unattached if record[0] == table_id]
            if mine:
                self._unattached = [record for record in self._unattached if record[0] != table_id]
                held.commands += mine
                records = _command_records(mine)
                recorded = self._recorded.get(table_id)
                if recorded is not None:
                    for _, seat, command_id, _, _ in mine:
                        key = hash((seat, command_id))
                        recorded[key] = entry.seq if recorded.get(key, entry.seq) == entry.seq else -1
        if events:
            through = events[-1][0]
            held.journal.append((table_id, entry.seq, entry.time_ns, json_text.dumps(entry.entry),
                                 events_blob(blob for _, blob in events), through,
                                 _seat_renderings(through, renderings), records))
            throughs, seqs = self._rendered_rows(table_id)
            throughs.append(through)
            seqs.append(entry.seq)
            held.sent[table_id] = self._link(table_id, events)
        else:
            held.journal.append((table_id, entry.seq, entry.time_ns, json_text.dumps(entry.entry), None, None, None,
                                 records))
        self._last_seq[table_id] = entry.seq
        if not self._join_group():
            self._commit()

    def _link(self, table_id: str, events: list[tuple[int, bytes]]) -> ChainHead | tuple[int, None]:
        """The table's mark after `events`: their last number, with the log's head after them where the
        store follows the table's chain (a table it created or was told the head of: `follow_chain`)."""
        head = self._heads.get(table_id)
        if head is None or events[0][0] != head[0] + 1:  # not followed (or out of step): a mark with no head
            self._heads.pop(table_id, None)
            return events[-1][0], None
        head = self._heads[table_id] = link(head, events)
        return head

    def sent_through(self, table_id: str) -> int:
        with self._open(self._read_lock):
            row = self._reader.execute("SELECT last_number FROM marks.sent WHERE table_id = ?", (table_id,)).fetchone()
        return int(row[0]) if row is not None else 0

    def sent_head(self, table_id: str) -> ChainHead | None:
        with self._open(self._read_lock):
            row = self._reader.execute("SELECT last_number, head FROM marks.sent WHERE table_id = ?",
                                       (table_id,)).fetchone()
        return (int(row[0]), bytes(row[1])) if row is not None and row[1] is not None else None

    def follow_chain(self, table_id: str, head: ChainHead) -> None:
        self._heads[table_id] = head

    def set_mark(self, table_id: str, head: ChainHead) -> None:
        with self._open(self._write_lock), _transaction(self._db):
            self._db.execute("INSERT OR REPLACE INTO marks.sent (table_id, last_number, head) VALUES (?, ?, ?)",
                             (table_id, *head))

    def _groups(self) -> list[_Group]:
        """The groups whose rows are not yet durable: the one being committed, then the one held."""
        return [self._held] if self._in_flight is None else [self._in_flight, self._held]

    def renderings(self, table_id: str, first: int, last: int, viewer: int) -> dict[int, bytes]:
        found = self._journal_renderings(table_id, first, last, viewer)
        with self._open(self._read_lock):
            rows = self._reader.execute(
                "SELECT number, viewer, event FROM renderings WHERE table_id = ? AND number BETWEEN ? AND ?"
                " AND viewer IN (?, ?) ORDER BY number, viewer", (table_id, first, last, PUBLIC_VIEWER, viewer),
            ).fetchall()
        stored: dict[int, bytes] = {}
        for number, row_viewer, wire in rows:
            if row_viewer == viewer or number not in stored:  # the viewer's own row over the public one
                stored[number] = bytes(wire)
        found.update(stored)  # a row of the renderings table stands over the journal's
        return found

    def _journal_renderings(self, table_id: str, first: int, last: int, viewer: int) -> dict[int, bytes]:
        """The events `first` to `last` as `viewer` receives them, from the journal rows that hold their
        renderings (committed, or held in a group)."""
        throughs, seqs = self._rendered_rows(table_id)
        if not throughs or throughs[-1] < first:
            return {}
        low = bisect.bisect_left(throughs, first)  # the row holding `first`, or the first one after it
        high = min(bisect.bisect_left(throughs, last), len(throughs) - 1)  # the row holding `last`
        with self._open(self._read_lock):
            rows = self._reader.execute(
                "SELECT seq, through, public, renderings FROM journal WHERE table_id = ? AND seq BETWEEN ? AND ?"
                " AND renderings IS NOT NULL", (table_id, seqs[low], seqs[high])).fetchall()
        by_seq = {int(seq): (int(through), bytes(public), bytes(seats)) for seq, through, public, seats in rows}
        for group in self._groups():  # not committed yet
            for held_table, seq, _, _, public, through, seats, _ in group.journal:
                if held_table == table_id and seats is not None and seqs[low] <= seq <= seqs[high]:
                    assert public is not None and through is not None  # a row with renderings has events
                    by_seq[seq] = (through, public, seats)
        found: dict[int, bytes] = {}
        for through, public, seats in by_seq.values():
            events = _framed_events(public)
            for number, wire in enumerate(events, start=through - len(events) + 1):
                if first <= number <= last:
                    found[number] = wire
            if viewer != PUBLIC_VIEWER:
                for number, row_viewer, wire in _read_seat_renderings(through, seats):
                    if row_viewer == viewer and first <= number <= last:
                        found[number] = wire
        return found

    def rendered_through(self, table_id: str) -> int:
        with self._open(self._read_lock):
            row = self._reader.execute(
                "SELECT MAX(number) FROM renderings WHERE table_id = ? AND viewer = ?", (table_id, PUBLIC_VIEWER)
            ).fetchone()
        throughs, _ = self._rendered_rows(table_id)
        return max(int(row[0] or 0), throughs[-1] if throughs else 0)

    def _rendered_rows(self, table_id: str) -> tuple[array[int], array[int]]:
        """The table's journal rows that hold renderings (`_rendered`), read from the journal the first
        time they are asked for (a table this store has not loaded)."""
        rows = self._rendered.get(table_id)
        if rows is None:
            with self._open(self._read_lock):
                stored = self._reader.execute("SELECT seq, through FROM journal WHERE table_id = ? AND renderings"
                                              " IS NOT NULL ORDER BY seq", (table_id,)).fetchall()
            rows = self._rendered[table_id] = self._with_held(table_id, [(int(seq), int(through))
                                                                         for seq, through in stored])
        return rows

    def _with_held(self, table_id: str, stored: list[tuple[int, int]]) -> tuple[array[int], array[int]]:
        """`_rendered`'s arrays from the committed rows (seq, through), with those held after them."""
        last = stored[-1][0] if stored else 0
        rows = stored + [(row[1], row[5]) for group in self._groups() for row in group.journal
                         if row[0] == table_id and row[5] is not None and row[6] is not None and row[1] > last]
        return array("q", [through for _, through in rows]), array("q", [seq for seq, _ in rows])

    def add_command(self, table_id: str, seat: int, command_id: str, request: str, result: bytes) -> None:
        self._unattached.append((table_id, seat, command_id, request, result))

    def add_commands(self, table_id: str, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        """Only those the journal does not hold already (by their key's hash: another key with the same
        hash, a chance of one in 2**64 a pair, would leave that record to the journal's)."""
        recorded = self._recorded.get(table_id)
        recorded = self._journal_keys(table_id) if recorded is None else recorded  # not kept: a restore's
        missing = [(table_id, *row) for row in rows if hash((row[0], row[1])) not in recorded]
        if missing:
            with self._open(self._write_lock), _transaction(self._db):
                self._db.executemany("INSERT OR IGNORE INTO commands (table_id, seat, command_id, request, result)"
                                     " VALUES (?, ?, ?, ?, ?)", missing)
            self._legacy_commands[table_id] = True

    def command(self, table_id: str, seat: int, command_id: str) -> tuple[str, bytes] | None:
        for records in (self._unattached, *(group.commands for group in reversed(self._groups()))):
            pending = next((row[3:] for row in reversed(records)
                            if row[0] == table_id and row[1] == seat and row[2] == command_id), None)
            if pending is not None:
                return pending
        seq = self._recorded_keys(table_id).get(hash((seat, command_id)))
        if seq is not None:
            with self._open(self._read_lock):
                rows = self._reader.execute(
                    "SELECT commands FROM journal WHERE table_id = ? AND commands IS NOT NULL" + (
                        " AND seq = ?" if seq >= 0 else ""), (table_id, seq) if seq >= 0 else (table_id,)).fetchall()
            for (blob,) in rows:
                found = next((record[2:] for record in _read_command_records(bytes(blob))
                              if record[0] == seat and record[1] == command_id), None)
                if found is not None:
                    return found
        if not self._has_legacy_commands(table_id):
            return None
        with self._open(self._read_lock):
            row = self._reader.execute("SELECT request, result FROM commands WHERE table_id = ? AND seat = ?"
                                       " AND command_id = ?", (table_id, seat, command_id)).fetchone()
        return (str(row[0]), bytes(row[1])) if row is not None else None

    def command_keys(self, table_id: str) -> Iterator[tuple[int, str]]:
        with self._open(self._read_lock):
            rows = self._reader.execute("SELECT seat, command_id FROM commands WHERE table_id = ?",
                                        (table_id,)).fetchall()
            blobs = self._reader.execute("SELECT commands FROM journal WHERE table_id = ? AND commands IS NOT NULL"
                                         " ORDER BY seq", (table_id,)).fetchall()
        journalled = [record[:2] for (blob,) in blobs for record in _read_command_records(bytes(blob))]
        pending = [(row[1], row[2]) for records in (*(group.commands for group in self._groups()), self._unattached)
                   for row in records if row[0] == table_id]
        yield from dict.fromkeys([*((int(seat), str(cid)) for seat, cid in rows), *journalled, *pending])

    def _recorded_keys(self, table_id: str) -> dict[int, int]:
        """The table's `_recorded`, read from its journal the first time it is asked for."""
        recorded = self._recorded.get(table_id)
        if recorded is None:
            recorded = self._recorded[table_id] = self._journal_keys(table_id)
        return recorded

    def _journal_keys(self, table_id: str) -> dict[int, int]:
        """`_recorded`'s mapping for the table, from its journal rows (committed and held)."""
        with self._open(self._read_lock):
            rows = self._reader.execute("SELECT seq, commands FROM journal WHERE table_id = ? AND commands"
                                        " IS NOT NULL ORDER BY seq", (table_id,)).fetchall()
        held = [(row[1], row[7]) for group in self._groups() for row in group.journal
                if row[0] == table_id and row[7] is not None]
        recorded: dict[int, int] = {}
        for seq, blob in [*((int(seq), bytes(blob)) for seq, blob in rows), *held]:
            for seat, command_id, _, _ in _read_command_records(blob):
                key = hash((seat, command_id))
                recorded[key] = seq if recorded.get(key, seq) == seq else -1
        return recorded

    def _has_legacy_commands(self, table_id: str) -> bool:
        """Whether the commands table holds records of the table (a database from before, or a restore's)."""
        legacy = self._legacy_commands.get(table_id)
        if legacy is None:
            with self._open(self._read_lock):
                legacy = self._reader.execute("SELECT 1 FROM commands WHERE table_id = ? LIMIT 1",
                                              (table_id,)).fetchone() is not None
            self._legacy_commands[table_id] = legacy
        return legacy

    def drop_renderings(self, table_id: str, after: int) -> None:
        """Also the journal rows' renderings of those events: a row that holds events on both sides of
        `after` leaves the renderings table the ones up to it."""
        throughs, seqs = self._rendered_rows(table_id)
        cut = bisect.bisect_right(throughs, after)  # the rows from here on hold later events
        kept = [row for row in self._row_renderings(table_id, seqs[cut]) if row[0] <= after] if cut < len(seqs) else []
        with self._open(self._write_lock), _transaction(self._db):
            self._db.execute("DELETE FROM renderings WHERE table_id = ? AND number > ?", (table_id, after))
            if cut < len(seqs):
                self._db.executemany("INSERT OR IGNORE INTO renderings (table_id, number, viewer, event)"
                                     " VALUES (?, ?, ?, ?)", [(table_id, *row) for row in kept])
                self._db.execute("UPDATE journal SET renderings = NULL WHERE table_id = ? AND seq >= ?",
                                 (table_id, seqs[cut]))
        del throughs[cut:], seqs[cut:]

    def _row_renderings(self, table_id: str, seq: int) -> list[Rendering]:
        """Every rendering a committed journal row holds: its public events and the seats' own."""
        with self._open(self._read_lock):
            row = self._reader.execute("SELECT through, public, renderings FROM journal WHERE table_id = ? AND seq = ?"
                                       " AND renderings IS NOT NULL", (table_id, seq)).fetchone()
        if row is None:
            return []
        through, public, seats = int(row[0]), bytes(row[1]), bytes(row[2])
        events = _framed_events(public)
        rows: list[Rendering] = [(number, PUBLIC_VIEWER, wire)
                                 for number, wire in enumerate(events, start=through - len(events) + 1)]
        return rows + list(_read_seat_renderings(through, seats))

    def add_renderings(self, table_id: str, rows: Sequence[Rendering]) -> None:
        with self._open(self._write_lock), _transaction(self._db):
            self._db.executemany("INSERT OR IGNORE INTO renderings (table_id, number, viewer, event)"
                                 " VALUES (?, ?, ?, ?)", [(table_id, *row) for row in rows])

    # ----------------------------------------------------------------------------- the group commit

    def _join_group(self) -> bool:
        """True if the rows join the group the running loop commits (opening it if none is open)."""
        if self._group_open:
            return True
        if not self._group_commit or self._closed:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._group_open = True
        if self._in_flight is None:  # else the commit in flight schedules this one when it is done
            self._schedule(loop)
        return True

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        pacing = self._pacing
        interval = pacing.interval_s(now) if isinstance(pacing, LoadPacing) else pacing
        due = self._last_commit + interval
        if due <= now:
            self._timer = loop.call_soon(self._start_commit)
        else:
            self._timer = loop.call_at(due, self._start_commit)

    def _take(self) -> _Group:
        """The held group, to be committed; the rows from now on gather in a new one."""
        group, self._held = self._held, _Group()
        self._group_open = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return group

    def _start_commit(self) -> None:
        """On the loop: the held group handed to the helper thread, which writes and commits it (`_finish`
        follows on the loop)."""
        self._timer = None
        if not self._group_open or self._in_flight is not None or self._closed:
            return
        loop = asyncio.get_running_loop()
        self._last_commit = loop.time()
        if not self._threaded:
            self._commit()
            return
        group = self._take()
        self._write_lock.acquire()  # released by the helper thread once the COMMIT is done
        if self._committer is None:
            self._committer = threading.Thread(target=self._committing, name="unonet-store-commit", daemon=True)
            self._committer.start()
        self._in_flight = group
        self._to_commit.put((group, loop))

    def _committing(self) -> None:
        """The helper thread: each group's statements and COMMIT (the GIL is released while SQLite inserts,
        writes and syncs, so the loop runs on), then `_finish` on the loop; until `close` says None. A
        group is not changed once taken (`_take`): the loop only adds waiters and callbacks to it."""
        while (item := self._to_commit.get()) is not None:
            group, loop = item
            try:
                self._write(group)  # rolled back if it fails
                self._db.execute("COMMIT")
            except BaseException as error:  # nothing of the group may be acknowledged
                group.error = error
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            finally:
                self._write_lock.release()  # taken by `_start_commit`: the group's COMMIT is done
            with contextlib.suppress(RuntimeError):  # the loop is gone: close() settles the group
                loop.call_soon_threadsafe(self._finish, group)

    def _finish(self, group: _Group) -> None:
        """On the loop, once the group's COMMIT is done: its waiters hear, and the next group is scheduled."""
        if self._in_flight is group:
            self._in_flight = None
        self._settle(group, group.error)
        if self._group_open and self._timer is None and not self._closed:
            self._schedule(asyncio.get_running_loop())

    def _write(self, group: _Group) -> None:
        """BEGIN and every row of the group, the sent marks last (the caller holds the write lock; a
        COMMIT follows). On an error, the transaction is rolled back and the error raised."""
        db = self._db
        db.execute("BEGIN")
        try:
            if group.tables:
                db.executemany("INSERT INTO tables (table_id, record, created_ns) VALUES (?, ?, ?)", group.tables)
            db.executemany("INSERT INTO journal (table_id, seq, time_ns, entry, public, through, renderings, commands)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", group.journal)
            if group.archived:
                db.executemany("INSERT OR REPLACE INTO archived (table_id, created_ns, info) VALUES (?, ?, ?)",
                               [(table_id, *row) for table_id, row in group.archived.items()])
            if group.sent:  # each table's mark and head in one statement, never below the mark it had
                db.executemany(
                    "INSERT INTO marks.sent (table_id, last_number, head) VALUES (?, ?, ?) ON CONFLICT (table_id)"
                    " DO UPDATE SET last_number = excluded.last_number, head = excluded.head"
                    " WHERE excluded.last_number >= sent.last_number",
                    [(table_id, number, head) for table_id, (number, head) in group.sent.items()])
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    def _commit(self) -> None:
        """Commit what is held now, on this thread, after the commit in flight (if any) is done: each
        append outside a group, `close`, and a test that will not wait for the interval."""
        in_flight = self._in_flight
        if in_flight is not None:
            with self._write_lock:  # the helper thread lets it go once the COMMIT is done
                self._in_flight = None
            self._settle(in_flight, in_flight.error)  # its `_finish`, still queued on the loop, does nothing
        with contextlib.suppress(RuntimeError):  # outside a loop
            self._last_commit = asyncio.get_running_loop().time()
        group = self._take()
        if not (group.journal or group.tables or group.archived or group.waiters or group.callbacks):
            return
        try:
            with self._open(self._write_lock):
                self._write(group)
                try:
                    self._db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                    raise
        except BaseException as error:  # nothing of the group may be acknowledged
            self._settle(group, error)
            raise
        self._settle(group, None)

    @staticmethod
    def _settle(group: _Group, error: BaseException | None) -> None:
        """Tell the group's waiters and callbacks how its commit went, once."""
        if group.settled:
            return
        group.settled = True
        for waiter in group.waiters:
            if not waiter.done():  # a cancelled caller
                if error is None:
                    waiter.set_result(None)
                else:
                    waiter.set_exception(error)
        for callback in group.callbacks:
            callback(error is None)

    @property
    def in_transaction(self) -> bool:
        return self._group_open or self._in_flight is not None

    @property
    def commit_pacing(self) -> float | LoadPacing:
        """The least interval between group commits, or the `LoadPacing` that says it."""
        return self._pacing

    async def durable(self) -> None:
        group = self._held if self._group_open else self._in_flight
        if group is not None:
            waiter = asyncio.get_running_loop().create_future()
            group.waiters.append(waiter)
            await waiter

    def when_durable(self, callback: Callable[[bool], None]) -> None:
        group = self._held if self._group_open else self._in_flight
        if group is not None:
            group.callbacks.append(callback)
        else:
            callback(True)

    # ----------------------------------------------------------------------------- reading tables back

    def tables(self, *, live_only: bool = False) -> Iterator[StoredTable]:
        where = " WHERE table_id NOT IN (SELECT table_id FROM archived)" if live_only else ""
        with self._open(self._read_lock):
            rows = self._reader.execute(
                f"SELECT table_id, record, created_ns FROM tables{where} ORDER BY created_ns"
            ).fetchall()
        for table_id, record, created_ns in rows:
            yield self._stored(table_id, record, created_ns)

    def table(self, table_id: str) -> StoredTable | None:
        with self._open(self._read_lock):
            row = self._reader.execute(
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
            with self._open(self._read_lock):
                journal = self._reader.execute(
                    "SELECT seq, time_ns, entry, through, renderings IS NOT NULL FROM journal WHERE table_id = ?"
                    " ORDER BY seq", (table_id,)
                ).fetchall()
        except sqlite3.DatabaseError as error:
            return StoredTable(table_id, settings, created_ns, [], damage=f"SQLite cannot read its journal: {error}")
        if journal:
            self._last_seq[table_id] = max(self._last_seq.get(table_id, 0), journal[-1][0])
        self._rendered[table_id] = self._with_held(
            table_id, [(int(seq), int(through)) for seq, _, _, through, has_renderings in journal if has_renderings])
        entries = []
        for seq, time_ns, entry, _, _ in journal:
            try:
                entries.append(JournalEntry(seq, time_ns, json.loads(entry)))
            except (ValueError, TypeError) as error:
                return StoredTable(table_id, settings, created_ns, entries,
                                   damage=f"journal entry {seq} is not JSON: {error}")
        return StoredTable(table_id, settings, created_ns, entries)

    def archive(self, table_id: str, created_ns: int, info: bytes) -> None:
        self._heads.pop(table_id, None)  # a table loaded back is followed again from its replay (Host._load)
        # Its maps leave memory with it (a host that plays game after game holds only the games being
        # played); a table loaded back reads them again.
        self._rendered.pop(table_id, None)
        self._recorded.pop(table_id, None)
        self._legacy_commands.pop(table_id, None)
        if self._join_group():
            self._held.archived[table_id] = (created_ns, info)
            return
        with self._open(self._write_lock), _transaction(self._db):
            self._db.execute("INSERT OR REPLACE INTO archived (table_id, created_ns, info) VALUES (?, ?, ?)",
                             (table_id, created_ns, info))

    def archived(self, table_id: str) -> bytes | None:
        for group in reversed(self._groups()):
            if table_id in group.archived:
                return group.archived[table_id][1]
        with self._open(self._read_lock):
            row = self._reader.execute("SELECT info FROM archived WHERE table_id = ?", (table_id,)).fetchone()
        return bytes(row[0]) if row is not None else None

    def archived_page(self, before: tuple[int, str] | None, limit: int) -> list[tuple[int, str, bytes]]:
        where, position = ("WHERE (created_ns, table_id) < (?, ?)", before) if before is not None else ("", ())
        with self._open(self._read_lock):
            rows = self._reader.execute(
                f"SELECT created_ns, table_id, info FROM archived {where}"
                " ORDER BY created_ns DESC, table_id DESC LIMIT ?",
                (*position, limit),
            ).fetchall()
        page = {str(t): (int(c), str(t), bytes(i)) for c, t, i in rows}
        for group in self._groups():  # archived since the last commit
            page.update({table_id: (created_ns, table_id, info) for table_id, (created_ns, info)
                         in group.archived.items() if before is None or (created_ns, table_id) < before})
        return sorted(page.values(), reverse=True)[:limit]

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]:
        with self._open(self._read_lock):
            old = self._reader.execute(  # written before journal.public
                "SELECT number, public FROM events WHERE table_id = ? ORDER BY number", (table_id,)
            ).fetchall()
            blobs = self._reader.execute(
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
        if self._committer is not None:
            self._to_commit.put(None)
            self._committer.join()
        with self._write_lock:
            self._closed = True
            if self._reader is not self._db:
                with self._read_lock:
                    self._reader.close()
            self._db.close()


def _seat_renderings(through: int, renderings: Sequence[Rendering]) -> bytes:
    """The seats' own renderings of an input's events (those of `renderings` whose viewer is a seat), as
    `journal.renderings` keeps them: per rendering, varints `through - number`, `viewer` and the length,
    then the serialized event."""
    return b"".join(varint(through - number) + varint(viewer) + varint(len(wire)) + wire
                    for number, viewer, wire in renderings if viewer != PUBLIC_VIEWER)


def _read_seat_renderings(through: int, blob: bytes) -> Iterator[Rendering]:
    """`_seat_renderings` read back: (number, viewer, event)."""
    position = 0
    while position < len(blob):
        back, position = read_varint(blob, position)
        viewer, position = read_varint(blob, position)
        size, position = read_varint(blob, position)
        yield through - back, viewer, blob[position:position + size]
        position += size


def _command_records(records: Sequence[tuple[str, int, str, str, bytes]]) -> bytes:
    """Command records (table id, seat, command id, request as JSON, serialized result) as
    `journal.commands` keeps them: per record, varint `seat + 1` (a spectator's chat is seat -1), then the
    command id, the request and the result, each as a varint length and its bytes."""
    parts: list[bytes] = []
    for _, seat, command_id, request, result in records:
        cid, text = command_id.encode(), request.encode()
        parts += (varint(seat + 1), varint(len(cid)), cid, varint(len(text)), text, varint(len(result)), result)
    return b"".join(parts)


def _read_command_records(blob: bytes) -> Iterator[tuple[int, str, str, bytes]]:
    """`_command_records` read back: (seat, command id, request, result)."""
    position = 0
    while position < len(blob):
        seat, position = read_varint(blob, position)
        fields = []
        for _ in range(3):
            size, position = read_varint(blob, position)
            fields.append(blob[position:position + size])
            position += size
        yield seat - 1, fields[0].decode(), fields[1].decode(), fields[2]


def _framed_events(blob: bytes) -> list[bytes]:
    """The serialized events of a WatchEventsResponse of `events` fields only (`events_blob`'s)."""
    events = []
    position = 0
    while position < len(blob):
        if blob[position:position + 1] != EVENTS_FIELD:
            raise ValueError(f"not an events field at byte {position} of a journal's public events")
        size, position = read_varint(blob, position + 1)
        events.append(blob[position:position + size])
        position += size
    return events


def _one(cursor: sqlite3.Cursor) -> Any:
    """The first column of the first row, None if there is none."""
    row = cursor.fetchone()
    return row[0] if row is not None else None


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One transaction on an autocommit connection: committed, or rolled back on an error."""
    db.execute("BEGIN")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
