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
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

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
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    number   INTEGER NOT NULL,
    public   BLOB NOT NULL,
    PRIMARY KEY (table_id, number)
);
"""


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


class Store(Protocol):
    """Where tables live. The host calls it under each table's lock, so calls for one table are ordered."""

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None: ...

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]]) -> None: ...

    def tables(self) -> Iterator[StoredTable]: ...

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]: ...

    @property
    def in_transaction(self) -> bool:
        """True while some input already appended is not durable yet (see `durable`)."""
        ...

    async def durable(self) -> None:
        """Return once every input appended so far is durable. Nothing may leave the host before it
        is: a reply to the command, an event on a stream, a view that includes it."""
        ...

    def close(self) -> None: ...


class MemoryStore:
    """A store that forgets on exit: for tests and throwaway demos."""

    def __init__(self) -> None:
        self._tables: dict[str, StoredTable] = {}
        self._events: dict[str, list[tuple[int, bytes]]] = {}

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None:
        self._tables[table_id] = StoredTable(table_id, record, created_ns, [])
        self._events[table_id] = []

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]]) -> None:
        self._tables[table_id].journal.append(entry)

    def tables(self) -> Iterator[StoredTable]:
        yield from self._tables.values()

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]:
        yield from self._events.get(table_id, [])

    in_transaction = False

    async def durable(self) -> None:
        return

    def close(self) -> None:
        pass


class SqliteStore:
    """The default store: one SQLite file in WAL mode.

    Group commit: inside a running event loop, the appends made in one turn of the loop (any number of
    tables) share one transaction, committed by a callback scheduled when the first of them opened it,
    so before the loop runs anything that was waiting, such as a stream's writer. The host awaits
    `durable()` before it answers any RPC, and a stream checks `in_transaction` before it writes, so
    nothing leaves the host before its input is committed. Outside an event loop each append commits
    at once (and always with `group_commit=False`), and `close` commits whatever is pending.
    """

    def __init__(self, path: str | Path, *, group_commit: bool = True) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._group_commit = group_commit
        self._committed: asyncio.Future[None] | None = None  # the open transaction's; None: none open
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable across a process kill; WAL keeps it fast
        self._db.executescript(SCHEMA)

    def create_table(self, table_id: str, record: dict[str, Any], created_ns: int) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO tables (table_id, record, created_ns) VALUES (?, ?, ?)",
                (table_id, json.dumps(record), created_ns),
            )

    def append(self, table_id: str, entry: JournalEntry, events: list[tuple[int, bytes]]) -> None:
        with self._lock:
            grouped = self._open()
            self._db.execute("SAVEPOINT input")
            try:
                self._db.execute(
                    "INSERT INTO journal (table_id, seq, time_ns, entry) VALUES (?, ?, ?, ?)",
                    (table_id, entry.seq, entry.time_ns, json.dumps(entry.entry)),
                )
                self._db.executemany(
                    "INSERT INTO events (table_id, number, public) VALUES (?, ?, ?)",
                    [(table_id, number, blob) for number, blob in events],
                )
            except BaseException:
                self._db.execute("ROLLBACK TO input")  # the other inputs of the group stay
                self._db.execute("RELEASE input")
                if not grouped:
                    self._db.execute("COMMIT")
                raise
            self._db.execute("RELEASE input")
            if not grouped:
                self._db.execute("COMMIT")

    def _open(self) -> bool:
        """Begin a transaction unless one is open; True if it is a group's (committed by the loop)."""
        if self._committed is not None:
            return True
        self._db.execute("BEGIN")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        if not self._group_commit:
            return False
        self._committed = loop.create_future()
        loop.call_soon(self._commit)
        return True

    def _commit(self) -> None:
        with self._lock:
            committed, self._committed = self._committed, None
            if committed is None:
                return
            try:
                self._db.execute("COMMIT")
            except BaseException as error:  # nothing of the group may be acknowledged
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                committed.set_exception(error)
                committed.exception()  # retrieved here too: a group nobody awaited must not warn
                raise
            committed.set_result(None)

    @property
    def in_transaction(self) -> bool:
        return self._committed is not None

    async def durable(self) -> None:
        committed = self._committed
        if committed is not None:
            await asyncio.shield(committed)

    def tables(self) -> Iterator[StoredTable]:
        with self._lock:
            rows = self._db.execute("SELECT table_id, record, created_ns FROM tables ORDER BY created_ns").fetchall()
        for table_id, record, created_ns in rows:
            with self._lock:
                journal = self._db.execute(
                    "SELECT seq, time_ns, entry FROM journal WHERE table_id = ? ORDER BY seq", (table_id,)
                ).fetchall()
            yield StoredTable(
                table_id,
                json.loads(record),
                created_ns,
                [JournalEntry(seq, time_ns, json.loads(entry)) for seq, time_ns, entry in journal],
            )

    def public_events(self, table_id: str) -> Iterator[tuple[int, bytes]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT number, public FROM events WHERE table_id = ? ORDER BY number", (table_id,)
            ).fetchall()
        yield from ((int(number), bytes(blob)) for number, blob in rows)

    def close(self) -> None:
        self._commit()
        with self._lock:
            self._db.close()
