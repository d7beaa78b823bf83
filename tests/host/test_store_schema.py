"""A database written before `journal.public` opens, keeps its public events and goes on in the new way."""

from __future__ import annotations

import sqlite3

from unonet.host.store import JournalEntry, SqliteStore
from unonet.v1 import events_pb2

OLD_SCHEMA = """
CREATE TABLE tables (table_id TEXT PRIMARY KEY, record TEXT NOT NULL, created_ns INTEGER NOT NULL);
CREATE TABLE journal (table_id TEXT NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL,
                      entry TEXT NOT NULL, PRIMARY KEY (table_id, seq));
CREATE TABLE events (table_id TEXT NOT NULL, number INTEGER NOT NULL, public BLOB NOT NULL,
                     PRIMARY KEY (table_id, number));
"""


def event(number: int) -> bytes:
    return events_pb2.Event(number=number, turn_started=events_pb2.TurnStarted(seat=number % 2)).SerializeToString()


def test_an_old_database_keeps_its_events_and_takes_new_ones(tmp_path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as old:
        old.executescript(OLD_SCHEMA)
        old.execute("INSERT INTO tables VALUES ('t', '{}', 0)")
        old.execute("""INSERT INTO journal VALUES ('t', 1, 0, '{"k": "x"}')""")
        old.executemany("INSERT INTO events VALUES ('t', ?, ?)", [(1, event(1)), (2, event(2))])
    store = SqliteStore(path, group_commit=False)
    try:
        store.append("t", JournalEntry(2, 0, {"k": "y"}), [(3, event(3)), (4, event(4))])
        store.append("t", JournalEntry(3, 0, {"k": "z"}), [])  # an input with no events
        stored = store.table("t")
        assert stored is not None and [e.seq for e in stored.journal] == [1, 2, 3]
        public = list(store.public_events("t"))
        assert [number for number, _ in public] == [1, 2, 3, 4]
        assert [events_pb2.Event.FromString(blob) for _, blob in public] == [
            events_pb2.Event.FromString(event(n)) for n in (1, 2, 3, 4)]
    finally:
        store.close()
