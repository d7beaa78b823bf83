"""Driving a real host through its generated stubs (the `stubs` fixture of tests/host): tables, seats,
views, streams, and refusals checked for their status code and machine reason.

Shared by the host's test modules, so none imports another's helpers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from unonet.v1 import (
    cards_pb2,
    errors_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    watch_service_pb2,
)
from unonet.v1.trailers import ERROR_DETAIL_KEY

TIMEOUT = 10
PLAYER = lobby_service_pb2.JOIN_ROLE_PLAYER
SPECTATOR = lobby_service_pb2.JOIN_ROLE_SPECTATOR


def reason_of(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == ERROR_DETAIL_KEY:
            return errors_pb2.ErrorDetail.FromString(value).reason
    return ""


async def expect_error(call, code: grpc.StatusCode, reason: str) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason, caught.value.details()
    return caught.value


async def eventually(predicate: Callable[[], bool], what: str) -> None:
    """Wait (bounded) for a condition the host reaches on its own, e.g. after a peer went away."""
    try:
        async with asyncio.timeout(TIMEOUT):
            while not predicate():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


async def create(stubs, *, seat_count: int = 2, manual_start: bool = False, clock=None, **overrides):
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=seat_count, manual_start=manual_start, clock=clock,
        overrides=rules_pb2.Ruleset(**overrides)), timeout=TIMEOUT)
    return created.table.table_id, created.owner_token


async def join(stubs, table_id: str, name: str, role=PLAYER) -> str:
    joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=role), timeout=TIMEOUT)
    return joined.token


async def two_player_table(stubs, **kwargs) -> tuple[str, list[str]]:
    """A started two-seat table whose seat to act is in an ordinary turn (a Wild turned up: colour chosen)."""
    table_id, _ = await create(stubs, **kwargs)
    tokens = [await join(stubs, table_id, name) for name in ("ann", "bob")]
    v = await view(stubs, table_id, tokens[0])
    token = tokens[v.seat_to_act]
    if (await view(stubs, table_id, token)).legal_actions.choose_color:
        await stubs.play.ChooseColor(play_service_pb2.ChooseColorRequest(
            table_id=table_id, token=token, command_id="first-colour", color=cards_pb2.COLOR_RED), timeout=TIMEOUT)
    return table_id, tokens


async def view(stubs, table_id: str, token: str):
    response = await stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=token),
                                         timeout=TIMEOUT)
    return response.view


async def state(stubs, table_id: str, tokens: list[str]):
    """What a refusal must not change: the last event number and every seat's hand."""
    views = [await view(stubs, table_id, token) for token in tokens]
    return views[0].event_number, [[ref.SerializeToString() for ref in v.hand] for v in views]


async def read_until(stream, last: int) -> list:
    events = []
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            events.append(response.event)
            if response.event.number >= last:
                return events
    raise AssertionError(f"the stream ended before event {last}")


def contiguous(events, first: int) -> bool:
    return [e.number for e in events] == list(range(first, first + len(events)))


async def table_info(stubs: Any, table_id: str) -> tuple[Any, ...]:
    """The lobby's picture of a table (status, last event number, who sits where, hand sizes, strikes),
    without what moves by itself while nobody acts (the running clock, the time bank)."""
    reply = await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
    info = reply.table
    seats = tuple((s.seat, s.occupied, s.name, s.is_bot, s.hand_size, s.strikes, s.taken_over, s.eliminated)
                  for s in info.seats)
    return info.status, info.last_event_number, info.spectator_count, seats


async def first_message(stream: Any) -> Any:
    """The next message of a stream (bounded): a refused WatchEvents raises here, with its status."""
    return await asyncio.wait_for(stream.read(), TIMEOUT)
