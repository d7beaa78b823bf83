"""No event number a client may have seen is ever given to a different event without a marker.

The store keeps each table's sent mark (the highest event number that may have left the host) in a
file of its own. A journal that lost its last commit comes back shorter than the mark: the numbers in
between become EventsLost markers, journalled, so the numbers stay consecutive, the next events come
after the mark, a resume after a lost number is DATA_LOSS / EVENTS_LOST, and a restart replays the
same markers.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import grpc
import pytest
from host_stubs import reason_of
from written_tables import write_table

from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
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
