"""No event number a client may have seen is ever given to a different event without a marker.

The store keeps each table's sent mark (the highest event number that may have left the host) in a
file of its own. A journal that lost its last commit comes back shorter than the mark: the numbers in
between become EventsLost markers, journalled, so the numbers stay consecutive, the next events come
after the mark, a resume after a lost number is DATA_LOSS / EVENTS_LOST, and a restart replays the
same markers.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
from pathlib import Path

import grpc
import pytest
from host_stubs import reason_of
from written_tables import write_table

from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.host.table import TableSettings
from unonet.v1 import events_pb2, watch_service_pb2, watch_service_pb2_grpc

TIMEOUT = 10.0


def _lose_last_commit(db: Path, table_id: str) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM journal WHERE table_id = ? AND seq = (SELECT MAX(seq) FROM journal "
                           "WHERE table_id = ?)", (table_id, table_id))


async def _read(stream, count: int) -> list[events_pb2.Event]:
    events: list[events_pb2.Event] = []
    async with asyncio.timeout(TIMEOUT):
        while len(events) < count:
            events.append((await stream.read()).event)
    return events


async def _restarted(db: Path, table_id: str, token: str, sent: int, end: int) -> None:
    host = Host(SqliteStore(db))
    host.restore()
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    try:
        table = host.tables[table_id]
        assert table.last_number == sent and table.lost == [(end + 1, sent)]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            watch = watch_service_pb2_grpc.WatchServiceStub(channel)
            stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=token, after_event_number=end), timeout=TIMEOUT)
            markers = await _read(stream, sent - end)
            stream.cancel()
            assert [e.number for e in markers] == list(range(end + 1, sent + 1))
            assert {(e.events_lost.first_number, e.events_lost.last_number) for e in markers} == {(end + 1, sent)}
            resumed = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=token, after_event_number=sent), timeout=TIMEOUT)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                async with asyncio.timeout(TIMEOUT):
                    await resumed.read()
            assert caught.value.code() == grpc.StatusCode.DATA_LOSS
            assert reason_of(caught.value) == "EVENTS_LOST"
            assert f"or from event {end}" in (caught.value.details() or "")
        async with table.lock:  # the next event comes after every number a client may have seen
            table.chat(token, "after-the-loss", "hello")
        after = [entry.event for entry in table.log if entry.number > sent]
        assert after and not any(event.HasField("events_lost") for event in after)
        assert after[-1].HasField("chat_message")
    finally:
        await host.stop()
        await server.stop(grace=None)
        host.store.close()


def test_numbers_the_store_lost_after_sending_them_become_markers(tmp_path, caplog) -> None:
    db = tmp_path / "host.db"
    table_id, token, sent = asyncio.run(write_table(db))
    _lose_last_commit(db, table_id)
    checked = Host(SqliteStore(db))  # `unonet serve --check-db` reports the loss, and writes nothing
    (report,) = checked.check_tables()
    checked.store.close()
    assert report.line().endswith(f"events {report.events + 1} to {sent} were sent and then lost by the store")
    host = Host(SqliteStore(db))
    host.restore()
    restored = host.tables[table_id]
    end = restored.lost[0][0] - 1
    host.store.close()
    assert 0 < end < sent
    assert f"DATA LOSS at table {table_id}: the host had sent events up to {sent}" in caplog.text
    asyncio.run(_restarted(db, table_id, token, sent, end))  # the markers came back from the journal


def test_a_sound_restart_adds_no_marker(tmp_path) -> None:
    db = tmp_path / "host.db"
    table_id, _, sent = asyncio.run(write_table(db))
    host = Host(SqliteStore(db))
    host.restore()
    assert host.tables[table_id].last_number == sent and host.tables[table_id].lost == []
    host.store.close()


def _backup(source: Path, target: Path) -> None:
    """SQLite's online backup of one file, as `sqlite3 SOURCE ".backup TARGET"` takes it."""
    with contextlib.closing(sqlite3.connect(source)) as live, contextlib.closing(sqlite3.connect(target)) as copy:
        live.backup(copy)


async def _backed_up_while_serving(tmp_path: Path) -> tuple[Path, Path, str, int, int]:
    """A host that keeps chatting while its database is backed up as docs/protocol.md says (the
    database, more chat, then its marks), and chats on after: (the live database, the backup, the
    table id, the backup's last journalled event, the last event the host sent)."""
    db, backup = tmp_path / "live" / "host.db", tmp_path / "backup" / "host.db"
    db.parent.mkdir()
    backup.parent.mkdir()
    store = SqliteStore(db)
    host = Host(store)
    try:
        table = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={},
                                                manual_start=True))
        token, _ = table.join("ann", None, False)
        for number in range(3):
            table.chat(token, f"before-{number}", "hello")
        await store.durable()
        _backup(db, backup)
        in_backup = table.last_number
        table.chat(token, "between", "sent after the database's copy, before the marks'")
        await store.durable()
        _backup(Path(f"{db}.sent"), Path(f"{backup}.sent"))
        table.chat(token, "after", "sent after the whole backup")
        await store.durable()
        return db, backup, table.table_id, in_backup, table.last_number
    finally:
        await host.stop()
        store.close()


def test_a_backup_taken_while_the_host_serves_restores_and_its_later_numbers_become_markers(tmp_path) -> None:
    db, backup, table_id, in_backup, sent = asyncio.run(_backed_up_while_serving(tmp_path))
    restored = Host(SqliteStore(backup))
    restored.restore()
    try:  # the backup's marks were taken after its journal: the chat between them is a marker
        table = restored.tables[table_id]
        assert table.lost == [(in_backup + 1, in_backup + 1)]
        assert in_backup + 1 < sent
    finally:
        restored.store.close()
    # With the live host's own marks file kept, every number it sent after the backup is a marker.
    shutil.copyfile(f"{db}.sent", f"{backup}.sent")
    Path(f"{backup}.sent-wal").unlink(missing_ok=True)
    Path(f"{backup}.sent-shm").unlink(missing_ok=True)
    restored = Host(SqliteStore(backup))
    restored.restore()
    try:
        assert restored.tables[table_id].lost == [(in_backup + 1, in_backup + 1), (in_backup + 2, sent)]
    finally:
        restored.store.close()
