"""A clean shutdown: stop serving, stop what reads the store, then close it; a read after that is refused.

The store is read by event streams (their old events, from the stored renderings), by the drivers'
bots and by resumes (the sent mark). `Host.stop` cancels the drivers and every open stream and waits
for them, so `store.close()` comes after the last read; a call that reaches a closed store anyway gets
UNAVAILABLE with the reason SHUTTING_DOWN, never SQLite's "Cannot operate on a closed database".
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import sqlite3
from pathlib import Path

import grpc
import pytest
from fair_games import TABLE_ID, drive, new_table
from host_stubs import eventually, reason_of

from unonet.host import eventlog, journal
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import JournalEntry, SqliteStore, StoreClosed
from unonet.host.table import TableSettings
from unonet.v1 import watch_service_pb2, watch_service_pb2_grpc

SEED = 11
WINDOW = 16  # far shorter than the match: a stream from event 1 reads the store
TIMEOUT_S = 10.0


@pytest.fixture(scope="module")
def match_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding one whole match of host bots (played once for the module)."""
    db = tmp_path_factory.mktemp("shutdown") / "unonet.db"
    store = SqliteStore(db, group_commit=False)
    host, table, clock = new_table(SEED, store=store)
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    assert table.last_number > 4 * WINDOW
    store.close()
    with sqlite3.connect(db) as connection:  # the record a host writes: window ids numbered per table
        connection.execute("UPDATE tables SET record = json_set(record, '$.window_ids', 'table')")
    return db


@pytest.fixture
def played_db(match_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the match's database; hosts built afterwards keep only WINDOW events in memory."""
    db = tmp_path / "unonet.db"
    shutil.copyfile(match_db, db)
    shutil.copyfile(f"{match_db}.sent", f"{db}.sent")  # its sent mark
    monkeypatch.setattr(eventlog, "WINDOW_EVENTS", WINDOW)
    return db


def test_every_call_on_a_closed_store_is_refused_as_shutting_down(played_db: Path) -> None:
    store = SqliteStore(played_db)
    store.close()
    store.close()  # closing twice is harmless
    calls = {
        "renderings": lambda: store.renderings(TABLE_ID, 1, 5, -1),
        "sent_through": lambda: store.sent_through(TABLE_ID),
        "rendered_through": lambda: store.rendered_through(TABLE_ID),
        "tables": lambda: list(store.tables()),
        "archived": lambda: store.archived(TABLE_ID),
        "append": lambda: store.append(TABLE_ID, JournalEntry(10**6, 0, {}), []),
    }
    for name, call in calls.items():
        with pytest.raises(StoreClosed) as refused:
            call()
        assert refused.value.code == grpc.StatusCode.UNAVAILABLE and refused.value.reason == "SHUTTING_DOWN", name
        assert str(played_db) in str(refused.value), name


async def _serve(db: Path) -> tuple[grpc.aio.Server, int, Host, SqliteStore]:
    store = SqliteStore(db)
    host = Host(store)
    host.restore()
    host.table(TABLE_ID)  # in memory (a finished table is archived on restore): a stream reads the renderings
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    return server, port, host, store


async def _stream_from_event_1_after_the_store_closed(db: Path) -> grpc.aio.AioRpcError:
    server, port, host, store = await _serve(db)
    try:
        store.close()  # out of the shutdown order: the server still serves
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            watch = watch_service_pb2_grpc.WatchServiceStub(channel)
            stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=TABLE_ID), timeout=TIMEOUT_S)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async with asyncio.timeout(TIMEOUT_S):
                    async for _ in stream:
                        pass
            return refused.value
    finally:
        await server.stop(grace=None)
        await host.stop()


def test_a_stream_that_reads_a_closed_store_ends_unavailable_without_a_traceback(
        played_db: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    refused = asyncio.run(_stream_from_event_1_after_the_store_closed(played_db))
    assert refused.code() == grpc.StatusCode.UNAVAILABLE, refused.details()
    assert reason_of(refused) == "SHUTTING_DOWN"
    assert "Traceback" not in caplog.text and "closed database" not in caplog.text


async def _stop_with_a_stream_open(db: Path) -> tuple[bool, int, grpc.StatusCode]:
    """Open a stream that waits for new events, then shut down in order: is it over before the store closes?"""
    server, port, host, store = await _serve(db)
    table = host.table(TABLE_ID)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=TABLE_ID, after_event_number=table.last_number - 1), timeout=TIMEOUT_S)
        await asyncio.wait_for(stream.read(), TIMEOUT_S)  # the last event: the stream now waits on its queue
        await eventually(lambda: bool(table.subscribers), "the stream is subscribed")
        task = table.subscribers[0].task
        assert task is not None
        await host.stop()
        ended = task.done()
        left = len(table.subscribers)
        store.close()
        await server.stop(grace=None)
        with pytest.raises(grpc.aio.AioRpcError) as cut:
            await asyncio.wait_for(stream.read(), TIMEOUT_S)
        return ended, left, cut.value.code()


def test_host_stop_ends_every_open_stream_before_the_store_closes(
        played_db: Path, caplog: pytest.LogCaptureFixture) -> None:
    ended, left, code = asyncio.run(_stop_with_a_stream_open(played_db))
    assert ended and left == 0, "Host.stop returned with a stream still reading the store"
    assert code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)  # the transport's: resume
    assert "Traceback" not in caplog.text


async def _drive_after_the_store_closed(db: Path) -> bool:
    """A table of host bots whose driver starts after its store closed: does the driver end by itself?"""
    store = SqliteStore(db)
    host = Host(store)
    table = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={},
                                            manual_start=True))
    table.record(journal.Start(fill=True))  # host bots on both seats: the driver has work at once
    await store.durable()
    store.close()  # out of the shutdown order: the drivers still run
    host.start_drivers()
    (driver,) = [task for task in asyncio.all_tasks() if task.get_name() == f"table-{table.table_id}"]
    try:
        await asyncio.wait_for(asyncio.shield(driver), TIMEOUT_S)
    finally:
        await host.stop()
    return driver.done()


def test_a_driver_whose_store_closed_ends_with_one_line_not_a_traceback_a_second(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    assert asyncio.run(_drive_after_the_store_closed(tmp_path / "unonet.db"))
    assert "Traceback" not in caplog.text and "failed" not in caplog.text
    assert "its store is closed" in caplog.text
