"""Command records are bounded in memory and kept whole in the store: the retry contract has no window.

A table keeps only its latest command records in memory (commandbook.py); a command id resent however
late still gets its first result without being applied again, and one reused for another request is
still refused, from memory, from the store, after a restart, and from a database written before the
store kept records (the restore stores what the replay rebuilt).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from unonet.host import commandbook
from unonet.host.errors import HostError
from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import Table, TableSettings

RECENT = 4
LINES = 20


async def _chatted(db: Path) -> tuple[str, str, list[tuple[int, int]]]:
    """A table with LINES chat lines from one seat, each with its own command id; (table id, token, the
    (event_number, last_event_number) each line got)."""
    host = Host(SqliteStore(db))
    table = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={},
                                            manual_start=True))
    token, _ = table.join("ann", None, False)
    results = []
    for number in range(LINES):
        async with table.lock:
            result = table.chat(token, f"c{number}", f"line {number}")
        results.append((result.event_number, result.last_event_number))
    assert table.commands.in_memory == RECENT
    await host.stop()
    host.store.close()
    return table.table_id, token, results


@pytest.fixture
def chatted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str, list[tuple[int, int]]]:
    monkeypatch.setattr(commandbook, "RECENT_COMMANDS", RECENT)
    db = tmp_path / "host.db"
    return db, *asyncio.run(_chatted(db))


def _retries_get_their_first_results(table: Table, token: str, results: list[tuple[int, int]]) -> None:
    last = table.last_number
    for number in (0, 1, LINES // 2, LINES - 1):  # long gone from memory, and recent
        again = table.chat(token, f"c{number}", f"line {number}")
        assert (again.event_number, again.last_event_number) == results[number]
    assert table.last_number == last, "a retry is applied once"
    with pytest.raises(HostError) as refused:
        table.chat(token, "c0", "another line")
    assert refused.value.reason == "COMMAND_ID_REUSED"
    assert table.commands.in_memory <= RECENT


def test_old_command_ids_are_read_back_from_the_store(chatted) -> None:
    db, table_id, token, results = chatted
    host = Host(SqliteStore(db))
    host.restore()
    table = host.tables[table_id]
    assert table.commands.in_memory == RECENT  # the replay kept every record; the release only the recent
    _retries_get_their_first_results(table, token, results)
    assert len(list(table.commands)) == LINES  # every key, stored
    host.store.close()
    with sqlite3.connect(db) as connection:  # in the journal rows of the inputs that made them, nowhere else
        assert connection.execute("SELECT COUNT(*) FROM commands").fetchone() == (0,)
        assert connection.execute("SELECT COUNT(*) FROM journal WHERE commands IS NOT NULL").fetchone() == (LINES,)


def test_a_database_from_before_command_records_gets_them_on_restore(chatted) -> None:
    db, table_id, token, results = chatted
    with sqlite3.connect(db) as connection:  # as a host before the store kept records wrote it
        connection.execute("UPDATE journal SET commands = NULL")
    host = Host(SqliteStore(db))
    host.restore()
    _retries_get_their_first_results(host.tables[table_id], token, results)
    host.store.close()
    with sqlite3.connect(db) as connection:
        (count,) = connection.execute("SELECT COUNT(*) FROM commands").fetchone()
    assert count == LINES


def test_a_command_record_is_written_with_its_input_or_not_at_all(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "host.db")
    store.add_command("t", 0, "c", "{}", b"")
    assert store.command("t", 0, "c") == ("{}", b""), "pending, it is read back as it will be written"
    store.close()  # its input never came: nothing is stored
    again = SqliteStore(tmp_path / "host.db")
    assert again.command("t", 0, "c") is None
    again.close()


def test_records_ride_in_their_inputs_journal_rows_and_a_shared_hash_reads_every_row(tmp_path: Path) -> None:
    """The store finds a record by its key's hash in memory (a new command id costs no read); two keys
    sharing a hash (one chance in 2**64 a pair) mark it -1, and a lookup then reads every row."""
    from unonet.host.store import JournalEntry

    store = SqliteStore(tmp_path / "host.db", group_commit=False)
    try:
        for seq, (seat, command_id) in enumerate([(0, "a"), (1, "a"), (-1, "chat:spectator:a")], start=1):
            store.add_command("t", seat, command_id, f'{{"n": {seq}}}', bytes([seq]))
            store.append("t", JournalEntry(seq, 0, {"k": "x"}), [])
        assert store.command("t", 1, "a") == ('{"n": 2}', b"\x02")
        assert store.command("t", -1, "chat:spectator:a") == ('{"n": 3}', b"\x03")
        assert store.command("t", 2, "a") is None
        store._recorded["t"][hash((0, "a"))] = -1  # as if another key had the same hash
        assert store.command("t", 0, "a") == ('{"n": 1}', b"\x01")
    finally:
        store.close()
    again = SqliteStore(tmp_path / "host.db")  # read back from the journal by a store that never held them
    try:
        assert sorted(again.command_keys("t")) == [(-1, "chat:spectator:a"), (0, "a"), (1, "a")]
        assert again.command("t", 0, "a") == ('{"n": 1}', b"\x01")
        assert again.command("t", 0, "b") is None
    finally:
        again.close()
