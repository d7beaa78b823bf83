"""Finished tables leave memory (archived) and come back whole when a call names them; ListTables pages
newest first across memory and the archive."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest

from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.v1 import (
    errors_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    rules_pb2,
    table_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 60
KEEP_FINISHED_S = 0.05


@dataclass
class Rig:
    host: Host
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub


@pytest.fixture
async def rig(tmp_path) -> AsyncIterator[Rig]:
    store = SqliteStore(tmp_path / "host.db")
    server, port, host = await create_server("127.0.0.1:0", host=Host(store, keep_finished_s=KEEP_FINISHED_S))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Rig(host, lobby_service_pb2_grpc.LobbyServiceStub(channel),
                  watch_service_pb2_grpc.WatchServiceStub(channel))
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        store.close()


async def bots_table(rig: Rig, *, start: bool = True) -> str:
    created = await rig.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="bots", seat_count=3, manual_start=True, overrides=rules_pb2.Ruleset(target_score=1)), timeout=TIMEOUT)
    if start:
        await rig.lobby.StartTable(lobby_service_pb2.StartTableRequest(
            table_id=created.table.table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=TIMEOUT)
    return created.table.table_id


async def events_from_start(rig: Rig, table_id: str) -> list[bytes]:
    """Every event of the table as a spectator sees it, read until the match ended."""
    out = []
    stream = rig.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id))
    try:
        async with asyncio.timeout(TIMEOUT):
            async for response in stream:
                out.append(response.event.SerializeToString())
                if response.event.WhichOneof("payload") == "match_ended":
                    return out
    finally:
        stream.cancel()  # the watcher leaves
    raise AssertionError("the stream ended before the match did")


async def archived(rig: Rig, table_id: str) -> None:
    """Wait for the table's driver to finish: it returns once it has archived its finished table."""
    async with asyncio.timeout(TIMEOUT):
        await rig.host._drivers[table_id]


async def test_a_finished_table_nobody_watches_is_archived_and_comes_back_whole(rig: Rig) -> None:
    table_id = await bots_table(rig)
    table = rig.host.tables[table_id]
    await archived(rig, table_id)
    assert table.status == table_pb2.TABLE_STATUS_FINISHED
    assert table_id not in rig.host.tables

    info = (await rig.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)).table
    assert info == table.info()
    listed = await rig.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
        statuses=[table_pb2.TABLE_STATUS_FINISHED]), timeout=TIMEOUT)
    assert [t.table_id for t in listed.tables] == [table_id]
    assert table_id not in rig.host.tables  # summaries come from the store, with no replay

    # A stream names it: it is loaded back from its journal, every event as it was.
    assert await events_from_start(rig, table_id) == [
        table.render(entry, None).SerializeToString() for entry in table.log]
    assert table_id in rig.host.tables
    await archived(rig, table_id)  # and leaves again once nobody watches
    assert table_id not in rig.host.tables


async def test_open_tables_counts_the_waiting_and_the_playing_not_the_finished_in_memory(rig: Rig) -> None:
    """What `Limits.max_tables` and the LAN announcement count: a finished table kept in memory (watched,
    or loaded back from the archive) is not open."""
    finished = await bots_table(rig)
    stream = rig.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=finished))  # keeps it in memory
    waiting = await bots_table(rig, start=False)
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            if response.event.WhichOneof("payload") == "match_ended":
                break
    assert set(rig.host.tables) == {finished, waiting}
    assert rig.host.open_tables() == 1
    stream.cancel()
    await archived(rig, finished)
    assert rig.host.open_tables() == 1
    await events_from_start(rig, finished)  # loaded back from the archive, finished
    assert finished in rig.host.tables
    assert rig.host.open_tables() == 1
    await bots_table(rig, start=False)
    assert rig.host.open_tables() == 2


async def test_a_watched_finished_table_stays_until_its_last_watcher_leaves(rig: Rig) -> None:
    table_id = await bots_table(rig, start=False)
    table = rig.host.tables[table_id]
    stream = rig.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id))
    owner = rig.host.tables[table_id].owner_token
    await rig.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, fill_with_bots=True), timeout=TIMEOUT)
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            if response.event.WhichOneof("payload") == "match_ended":
                break
        for _ in range(3):  # the retirement timer fires again and again while the stream is open
            wake = table.driver_wake
            assert wake is not None
            await asyncio.shield(wake)
            await asyncio.sleep(0)  # the driver (woken first) has looked and armed a new timer
    assert table_id in rig.host.tables
    stream.cancel()
    await archived(rig, table_id)
    assert table_id not in rig.host.tables


async def test_list_tables_pages_through_memory_and_the_archive_newest_first(rig: Rig) -> None:
    finished = await bots_table(rig)
    await archived(rig, finished)
    waiting = [await bots_table(rig, start=False) for _ in range(4)]
    seen: list[str] = []
    token = ""
    for _ in range(10):
        page = await rig.lobby.ListTables(lobby_service_pb2.ListTablesRequest(page_size=2, page_token=token),
                                          timeout=TIMEOUT)
        assert len(page.tables) <= 2
        seen += [t.table_id for t in page.tables]
        token = page.next_page_token
        if not token:
            break
    assert seen == [*reversed(waiting), finished]
    only_waiting = await rig.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
        statuses=[table_pb2.TABLE_STATUS_WAITING]), timeout=TIMEOUT)
    assert [t.table_id for t in only_waiting.tables] == list(reversed(waiting))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await rig.lobby.ListTables(lobby_service_pb2.ListTablesRequest(page_token="not-a-token"), timeout=TIMEOUT)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    detail = dict(caught.value.trailing_metadata())["unonet-error-bin"]
    assert errors_pb2.ErrorDetail.FromString(detail).reason == "BAD_PAGE_TOKEN"


async def test_a_restart_archives_finished_tables_and_loads_only_live_ones(tmp_path) -> None:
    db = tmp_path / "host.db"
    first = Host(SqliteStore(db), keep_finished_s=3600)  # finished, but still in memory when the host dies
    server, port, _ = await create_server("127.0.0.1:0", host=first)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    rig = Rig(first, lobby_service_pb2_grpc.LobbyServiceStub(channel), watch_service_pb2_grpc.WatchServiceStub(channel))
    try:
        finished = await bots_table(rig)
        log = await events_from_start(rig, finished)
        waiting = await bots_table(rig, start=False)
    finally:
        await channel.close()
        await first.stop()
        await server.stop(grace=None)
        first.store.close()

    second = Host(SqliteStore(db))
    assert second.restore() == 2
    assert list(second.tables) == [waiting]  # the finished one went straight to the archive
    assert second.info(finished).status == table_pb2.TABLE_STATUS_FINISHED
    second.store.close()

    third = Host(SqliteStore(db))
    assert third.restore() == 1  # the archived table is not replayed at all
    table = third.table(finished)  # ...until something names it
    assert [table.render(e, None).SerializeToString() for e in table.log] == log
    third.store.close()
