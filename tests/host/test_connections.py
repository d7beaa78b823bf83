"""SeatConnectionChanged: a player's seat is announced when its first stream opens and when its last
closes, never for a bot, and always as a numbered, public event like any other."""

from __future__ import annotations

import asyncio
from typing import Any

from unonet.v1 import lobby_service_pb2, watch_service_pb2

TIMEOUT = 10


def stream(stubs: Any, table_id: str, token: str = "") -> Any:
    return stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=token))


async def connection_changes(watcher: Any, until: tuple[int, bool]) -> list[tuple[int, bool]]:
    """The (seat, connected) pairs a watcher reads, up to and including `until`."""
    seen: list[tuple[int, bool]] = []
    async with asyncio.timeout(TIMEOUT):
        async for response in watcher:
            if response.event.WhichOneof("payload") == "seat_connection_changed":
                change = response.event.seat_connection_changed
                seen.append((change.seat, change.connected))
                if seen[-1] == until:
                    return seen
    raise AssertionError(f"the stream ended before {until}: {seen}")


async def test_a_seat_is_announced_on_its_first_stream_and_after_its_last_one_closes(stubs: Any) -> None:
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=2, manual_start=True), timeout=TIMEOUT)
    table_id = created.table.table_id
    ann = (await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="ann", role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)).token
    await stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(
        table_id=table_id, owner_token=created.owner_token), timeout=TIMEOUT)  # seat 1: a bot, never announced
    watcher = stream(stubs, table_id)  # no seat: watching changes nothing
    first, second = stream(stubs, table_id, ann), stream(stubs, table_id, ann)
    opened = await asyncio.wait_for(first.read(), TIMEOUT)
    assert opened.event.number == 1
    await asyncio.wait_for(second.read(), TIMEOUT)
    first.cancel()  # one of two streams: the seat is still connected
    table = stubs.host.tables[table_id]
    info = await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
    assert info.table.seats[0].connected
    second.cancel()
    try:
        assert await connection_changes(watcher, until=(0, False)) == [(0, True), (0, False)]
    finally:
        watcher.cancel()
    info = await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
    assert not info.table.seats[0].connected and info.table.seats[1].connected  # the bot always is
    kinds = [entry.event.WhichOneof("payload") for entry in table.log]
    assert kinds == ["player_joined", "bot_seated", "seat_connection_changed", "seat_connection_changed"]


async def test_a_connection_change_during_the_match_carries_no_legal_actions(stubs: Any) -> None:
    """Nobody's options change when a stream opens: a seat must not read it as a new LegalActions to
    answer (it would send its last command again)."""
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=2), timeout=TIMEOUT)
    table_id = created.table.table_id
    tokens = [(await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)).token
        for name in ("ann", "bob")]
    table = stubs.host.tables[table_id]
    before = table.last_number
    ann = stream(stubs, table_id, tokens[0])
    try:
        async with asyncio.timeout(TIMEOUT):
            async for response in ann:
                if response.event.number > before:
                    assert response.event.WhichOneof("payload") == "seat_connection_changed"
                    assert not response.event.HasField("your_legal_actions")
                    break
    finally:
        ann.cancel()
