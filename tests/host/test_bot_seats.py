"""The host's bot seats play every public kind and level: AddBots names it, ListBotKinds lists it, and
the seat plays whole rounds at a real host; a table of bots only plays without a pause (test_pace.py
times bots at a table with a person)."""

from __future__ import annotations

import asyncio
import statistics

import grpc
import pytest
from fair_games import drive, new_table

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.kinds import DEFAULT_BOT_KIND, public_names
from unonet.bots.runner import BotRunner
from unonet.client.errors import InvalidArgument
from unonet.client.table_client import TableClient
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.pace import Pace
from unonet.host.server import create_server
from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc

TIMEOUT = 10.0
ROUND_TIMEOUT = 60.0


@pytest.fixture
async def served():
    host = Host(fair_shuffle=False)
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}", host
    await asyncio.wait_for(server.stop(None), TIMEOUT)
    await asyncio.wait_for(host.stop(), TIMEOUT)


async def test_list_bot_kinds_lists_every_public_kind_and_level_the_default_first(served):
    address, _ = served
    async with grpc.aio.insecure_channel(address) as channel:
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        listed = await lobby.ListBotKinds(lobby_service_pb2.ListBotKindsRequest(), timeout=TIMEOUT)
    names = [kind.name for kind in listed.bot_kinds]
    assert names[0] == DEFAULT_BOT_KIND and listed.bot_kinds[0].is_default
    assert sorted(names) == sorted(public_names())
    assert {"random", "basic:1", "greedy:1", "greedy:2", "greedy:3"} <= set(names)
    assert not any(name.startswith("oracle") for name in names)
    assert all(kind.description for kind in listed.bot_kinds)


@pytest.mark.parametrize("kind", ["random", "basic", "greedy", "greedy:3"])  # no pause: real time
@pytest.mark.timeout(ROUND_TIMEOUT + 20)
async def test_add_bots_of_each_kind_plays_a_whole_round_at_a_real_host(served, kind):
    address, _ = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {"target_score": 1}, 3, name="bots", manual_start=True)
        joined = await client.join(created.table_id, "me", seat=0)
        assert await client.add_bots(2, kind) == [1, 2]
        await client.start_table()
        ended = await asyncio.wait_for(BotRunner(GreedyBot(seed=1)).run(client, created.table_id, joined.seat),
                                       ROUND_TIMEOUT)
        info = await client.get_table()
    assert ended is not None and ended.winner_seats
    expected = {"greedy": "greedy:3", "basic": "basic:3"}.get(kind, kind)
    assert [seat.bot_kind for seat in info.seats[1:]] == [expected, expected]


async def test_add_bots_refuses_an_unknown_kind_a_bad_level_and_the_oracle(served):
    address, _ = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {}, 3, name="bots", manual_start=True)
        for bad in ("nobody", "greedy:7", "random:2", "oracle"):
            with pytest.raises(InvalidArgument) as refused:
                await client.add_bots(1, bad, table_id=created.table_id)
            assert refused.value.reason == "UNKNOWN_BOT_KIND"


@pytest.mark.parametrize("kind", ["random", "basic:1", "greedy:1", "greedy:2", "greedy:3"])
def test_each_kind_plays_whole_matches_from_a_fill_and_a_table_of_bots_never_waits(kind):
    host, table, clock = new_table(11, seats=3, target_score=100)
    host.pace = Pace.from_bot_delay(1.0)  # a paced host: bots only, so nothing waits (test_pace.py: a person)
    table.record(journal.Start(fill=True, bot_kind=kind, version=2))
    drive(host, table, clock)
    assert table.match is not None and table.match.is_over
    assert {seat.bot_kind for seat in table.seats} == {kind}
    # The gaps between a bot's turn starting and its play: none, whatever the level's pause.
    gaps = [(after.time_ns - before.time_ns) / 1e9 for before, after in zip(table.log, table.log[1:], strict=False)
            if before.event.__class__.__name__ == "TurnStarted"]
    assert statistics.median(gaps) == 0


def test_a_seat_taken_over_after_its_strikes_is_played_by_the_takeover_kind_and_level():
    host, table, clock = new_table(5, seats=3, target_score=60)
    table.settings.turn_time_s = 5.0
    table.settings.strikes_before_takeover = 1
    table.settings.takeover_bot_kind = "greedy:2"
    table.record(journal.Join(0, "ann", "tok-0"))  # ann never plays: her clock runs out
    table.record(journal.Start(fill=True, bot_kind="basic", version=2))
    drive(host, table, clock)
    seat = table.seats[0]
    assert seat.taken_over and seat.is_bot and seat.bot_kind == "greedy:2"
    assert table.match is not None and table.match.is_over
    # The takeover kind played: seat 0 sent commands after its one timeout, as the host's bot.
    assert any(key[0] == 0 and key[1].startswith("bot-") for key in table.commands)
