"""Every kind plays a whole match over the network at a real host, each seat a `BotRunner`, and never
has a command refused but for arriving late: the policies follow the legal actions the host sends.
(A catch sent as the next player's turn starts may find its window closed: that is timing, not a
wrong choice.)"""

from __future__ import annotations

import asyncio
import dataclasses

import grpc
import pytest

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.kinds import make_bot
from unonet.bots.levels import LEVELS, Leveled
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient
from unonet.host.host import Host
from unonet.host.server import create_server

TIMEOUT = 10.0
MATCH_TIMEOUT = 120.0


@pytest.fixture
async def address():
    host = Host()
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}"
    await asyncio.wait_for(server.stop(None), TIMEOUT)
    await asyncio.wait_for(host.stop(), TIMEOUT)


@pytest.mark.timeout(MATCH_TIMEOUT + 30)
async def test_random_basic_greedy_and_a_low_level_play_a_match_without_a_refusal(address):
    quick_low = dataclasses.replace(LEVELS[1], think_s=0.0)  # its mistakes, without its human pause
    policies = [make_bot("random", 1), make_bot("basic", 2), make_bot("greedy", 3), Leveled(GreedyBot(4), quick_low, 4)]
    channel = grpc.aio.insecure_channel(address)
    clients = [TableClient(channel, timeout=TIMEOUT) for _ in policies]
    try:
        created = await clients[0].create_table("standard", {"target_score": 60}, len(policies), name="kinds")
        for seat, client in enumerate(clients):
            await client.join(created.table_id, f"bot-{seat}", seat=seat)
        runners = [BotRunner(policy, verify=True) for policy in policies]
        ended = await asyncio.wait_for(
            asyncio.gather(*(runner.run(client, created.table_id, seat)
                             for seat, (runner, client) in enumerate(zip(runners, clients, strict=True)))),
            MATCH_TIMEOUT)
    finally:
        await channel.close()
    assert all(result is not None and result.winner_seats for result in ended)
    late = {"WINDOW_CLOSED", "NOT_YOUR_TURN", "NOT_CATCHABLE", "NOTHING_TO_CALL"}
    assert all(set(runner.refusal_reasons) <= late for runner in runners), [r.refusal_reasons for r in runners]
    assert all(runner.commands_sent > 0 for runner in runners)
