"""The fields suite's bound on a game: a stub client that receives nothing for GAME_TIMEOUT fails the game,
naming where it waits; clients that keep receiving may take longer than GAME_TIMEOUT in all."""

from __future__ import annotations

import asyncio
import re
from types import SimpleNamespace

import pytest

from unonet.client.conformance import fields


def client(seat: int) -> SimpleNamespace:
    return SimpleNamespace(seat=seat, style="careful", last_number=0, over=False, gone=False, legal="")


@pytest.fixture
def short_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fields, "GAME_TIMEOUT", 0.3)
    monkeypatch.setattr(fields, "PROGRESS_CHECK_S", 0.05)


async def receive(state: SimpleNamespace, events: int) -> None:
    for _ in range(events):
        await asyncio.sleep(0.05)
        state.last_number += 1


async def wait_on_stream() -> None:
    await asyncio.Event().wait()  # a stream that never brings anything


async def test_a_client_that_receives_nothing_fails_the_game_and_says_where_it_waits(short_bounds: None) -> None:
    game = fields.GAMES[0]
    moving, stuck = client(0), client(1)
    tasks = [asyncio.ensure_future(receive(moving, 100)), asyncio.ensure_future(wait_on_stream())]
    try:
        with pytest.raises(AssertionError, match=re.escape("1 client(s) received nothing for 0.3 s")) as failed:
            await asyncio.wait_for(fields.play_out(game, [moving, stuck], tasks), 10)
    finally:
        for task in tasks:
            task.cancel()
    assert "wait_on_stream" in str(failed.value) and moving.last_number < 100


async def test_clients_that_keep_receiving_may_take_longer_than_the_bound(short_bounds: None) -> None:
    clients = [client(0), client(1)]
    tasks = [asyncio.ensure_future(receive(c, 12)) for c in clients]  # ~0.6 s each, twice the bound
    await asyncio.wait_for(fields.play_out(fields.GAMES[0], clients, tasks), 10)
    assert [c.last_number for c in clients] == [12, 12]


async def test_a_game_past_its_whole_limit_fails_though_it_moves(short_bounds: None) -> None:
    moving = client(0)
    tasks = [asyncio.ensure_future(receive(moving, 1000))]
    try:
        with pytest.raises(AssertionError, match=re.escape("no match end in 1.2 s")):
            await asyncio.wait_for(fields.play_out(fields.GAMES[0], [moving], tasks), 10)
    finally:
        tasks[0].cancel()


async def test_a_client_that_fails_fails_the_game_saying_which_and_why(short_bounds: None) -> None:
    async def time_out() -> None:
        raise TimeoutError("a call took longer than its bound")

    moving, failing = client(0), client(1)
    tasks = [asyncio.ensure_future(receive(moving, 100)), asyncio.ensure_future(time_out())]
    try:
        with pytest.raises(AssertionError, match=re.escape("the careful client of seat 1 failed at event 0: "
                                                           "TimeoutError('a call took longer")):
            await asyncio.wait_for(fields.play_out(fields.GAMES[0], [moving, failing], tasks), 10)
    finally:
        for task in tasks:
            task.cancel()
