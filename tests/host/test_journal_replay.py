"""Journals written by an earlier host replay, with today's code, to the very same event logs.

`data/journals.db` was written by `data/make_journals.py` with the host of the day the journal's
entries became typed (before that change), and covers every kind of entry that host wrote;
`data/journals.json` holds, per table, every event's number and a hash of its rendered bytes as a
spectator and each seat saw them then. A host that reads a journal differently fails here.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import Table

DATA = Path(__file__).parent / "data"
KINDS = {"join", "spectate", "unspectate", "bot", "conn", "chat", "start", "entropy", "entropy_timeout", "cmd",
         "close", "ruling", "late", "timeout", "leave"}


def rendered(table: Table) -> dict[str, Any]:
    """The log as `make_journals.rendered` records it: numbers, and per viewer each event's hash."""
    views: dict[str, list[str]] = {}
    for viewer in [None, *range(len(table.seats))]:
        key = "spectator" if viewer is None else str(viewer)
        views[key] = [hashlib.sha256(table.render_bytes(entry, viewer, cache=False)).hexdigest()[:16]
                      for entry in table.log]
    return {"numbers": [entry.number for entry in table.log], "views": views}


def test_the_recorded_journals_cover_every_entry_kind_and_an_unversioned_ruling(tmp_path: Path) -> None:
    shutil.copy(DATA / "journals.db", tmp_path / "journals.db")
    store = SqliteStore(tmp_path / "journals.db", group_commit=False)
    try:
        entries = [item.entry for stored in store.tables() for item in stored.journal]
    finally:
        store.close()
    assert {entry["k"] for entry in entries} == KINDS
    rulings = [entry for entry in entries if entry["k"] == "ruling"]
    assert any("v" not in entry for entry in rulings) and any(entry.get("v") == 2 for entry in rulings)


def test_journals_written_before_typed_entries_replay_to_the_same_events(tmp_path: Path) -> None:
    shutil.copy(DATA / "journals.db", tmp_path / "journals.db")  # the checked-in file stays as written
    expected = json.loads((DATA / "journals.json").read_text())
    host = Host(SqliteStore(tmp_path / "journals.db", group_commit=False))
    try:
        assert host.restore() == len(expected)
        for table_id, log in expected.items():
            table = host.table(table_id)
            assert table.last_number == len(log["numbers"]) > 100
            assert rendered(table) == log, table_id
    finally:
        host.store.close()
