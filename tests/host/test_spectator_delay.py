"""Spectators cannot get ahead of their delay: every read open to a spectator or an anonymous caller
shows the table as of `spectator_delay` ago, the same as the delayed event stream.

Real gRPC on 127.0.0.1:0, timed by the host's injectable clock, which the tests move: GetView (with a
spectator token and with none), WatchEvents' start_with_snapshot, GetTable, ListTables and a
spectator's JoinTable response; a player's own reads stay live.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf import duration_pb2
from host_stubs import PLAYER, SPECTATOR, TIMEOUT

from unonet.host.delayed import DelayedState, PublicState
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import MemoryStore
from unonet.v1 import (
    cards_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    table_pb2,
    views_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

DELAY_S = 10
START_NS = 1_800_000_000 * 10**9


@dataclass
class Delayed:
    host: Host
    clock: list[int]
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub
    table_id: str = ""
    players: tuple[str, ...] = ()
    spectator: str = ""

    def advance(self, seconds: float) -> None:
        self.clock[0] += int(seconds * 1e9)

    def live_last(self) -> int:
        return self.host.tables[self.table_id].last_number

    async def view(self, token: str) -> views_pb2.SeatView:
        response = await self.watch.GetView(watch_service_pb2.GetViewRequest(table_id=self.table_id, token=token),
                                            timeout=TIMEOUT)
        return response.view

    async def info(self) -> table_pb2.TableInfo:
        return (await self.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=self.table_id),
                                          timeout=TIMEOUT)).table

    async def listed(self) -> table_pb2.TableInfo:
        listed = await self.lobby.ListTables(lobby_service_pb2.ListTablesRequest(), timeout=TIMEOUT)
        return next(t for t in listed.tables if t.table_id == self.table_id)

    async def move(self, command_id: str) -> int:
        """One legal move of the seat to act; the number of its last event."""
        live = await self.view(self.players[0])
        token = self.players[live.seat_to_act]
        legal = (await self.view(token)).legal_actions
        common = {"table_id": self.table_id, "token": token, "command_id": command_id}
        if legal.choose_color:
            result = (await self.play.ChooseColor(play_service_pb2.ChooseColorRequest(
                **common, color=cards_pb2.COLOR_RED), timeout=TIMEOUT)).result
        else:
            result = (await self.play.Draw(play_service_pb2.DrawRequest(**common), timeout=TIMEOUT)).result
        return result.last_event_number


@pytest.fixture
async def delayed() -> AsyncIterator[Delayed]:
    clock = [START_NS]
    host = Host(MemoryStore(), clock_ns=lambda: clock[0])
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        d = Delayed(host, clock, lobby_service_pb2_grpc.LobbyServiceStub(channel),
                    play_service_pb2_grpc.PlayServiceStub(channel), watch_service_pb2_grpc.WatchServiceStub(channel))
        created = await d.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name="t", seat_count=2, spectator_delay=duration_pb2.Duration(seconds=DELAY_S)), timeout=TIMEOUT)
        d.table_id = created.table.table_id
        joined = await d.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=d.table_id, name="eve", role=SPECTATOR), timeout=TIMEOUT)
        d.spectator = joined.token
        assert joined.table.last_event_number == 0  # the table as it was created, DELAY_S ago at most
        d.advance(1)
        d.players = tuple([(await d.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=d.table_id, name=name, role=PLAYER), timeout=TIMEOUT)).token for name in ("ann", "bob")])
        assert d.live_last() > 2  # the match started and dealt
        yield d
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)


async def test_a_spectators_and_an_anonymous_get_view_are_as_of_the_delay_ago(delayed: Delayed) -> None:
    for token in (delayed.spectator, ""):
        early = await delayed.view(token)
        assert early.event_number == 0 and early.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS
    dealt = delayed.live_last()
    delayed.advance(DELAY_S)  # the deal is now DELAY_S old
    assert (await delayed.view(delayed.spectator)).event_number == dealt
    moved = await delayed.move("m1")
    delayed.advance(DELAY_S - 1)
    for token in (delayed.spectator, ""):
        assert (await delayed.view(token)).event_number == dealt  # the move is not due yet
    delayed.advance(1)
    assert (await delayed.view(delayed.spectator)).event_number == moved
    assert (await delayed.view("")).event_number == moved


async def test_a_players_own_reads_stay_live(delayed: Delayed) -> None:
    moved = await delayed.move("m1")
    assert (await delayed.view(delayed.players[0])).event_number == moved == delayed.live_last()


async def test_a_spectators_snapshot_is_as_of_the_delay_ago_and_its_events_follow(delayed: Delayed) -> None:
    dealt = delayed.live_last()
    delayed.advance(DELAY_S)
    await delayed.move("m1")  # live now: not due for DELAY_S
    stream = delayed.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=delayed.table_id, token=delayed.spectator, start_with_snapshot=True), timeout=TIMEOUT)
    async with asyncio.timeout(TIMEOUT):
        first = (await stream.read()).event
    assert first.HasField("snapshot")
    assert first.number == first.snapshot.view.event_number == dealt < delayed.live_last()
    stream.cancel()


async def test_get_table_and_list_tables_show_seats_and_last_number_as_of_the_delay_ago(delayed: Delayed) -> None:
    for info in (await delayed.info(), await delayed.listed()):
        assert info.last_event_number == 0
        assert info.status == table_pb2.TABLE_STATUS_WAITING
        assert [seat.occupied for seat in info.seats] == [False, False]
    delayed.advance(DELAY_S)
    dealt = delayed.live_last()
    hands = [seat.hand_size for seat in (await delayed.info()).seats]
    assert hands == [7, 7]
    await delayed.move("m1")  # a draw: the mover now holds 8 (or a colour was chosen)
    for info in (await delayed.info(), await delayed.listed()):
        assert info.last_event_number == dealt and [seat.hand_size for seat in info.seats] == hands
    delayed.advance(DELAY_S)
    assert (await delayed.info()).last_event_number == delayed.live_last()


async def test_a_table_without_a_delay_shows_spectators_the_live_state(delayed: Delayed) -> None:
    created = await delayed.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(name="live", seat_count=2),
                                              timeout=TIMEOUT)
    table_id = created.table.table_id
    await delayed.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(table_id=table_id, name="ann", role=PLAYER),
                                  timeout=TIMEOUT)
    info = (await delayed.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)).table
    assert info.last_event_number == delayed.host.tables[table_id].last_number == 1
    assert delayed.host.tables[table_id].delayed is None


def test_the_delayed_states_keep_only_what_a_reader_can_still_be_shown() -> None:
    states = DelayedState(delay_ns=10)
    for number in range(5):
        states.record(PublicState(number, number * 10, views_pb2.SeatView(), table_pb2.TableInfo()))
    assert states.due(5).number == 0  # nothing is 10 old yet but the first: the table as created
    assert states.due(25).number == 1
    assert len(states) == 4
    assert states.due(1000).number == 4 and len(states) == 1
