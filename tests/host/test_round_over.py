"""A command whose round has ended while the match goes on is refused with ROUND_OVER, never GAME_OVER:
GAME_OVER means the match is over, and a bot that reads it so leaves its seat for good (a host's bot
worker once did, mid-match, at a table with no clock). Between two rounds of a fair-shuffled table the
next deal waits for every seat's entropy, so a seat that has not committed yet can still send a
command for the round just ended."""

from __future__ import annotations

import asyncio

import pytest

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.runner import BotRunner
from unonet.client import commands as cmd
from unonet.client.errors import FailedPrecondition
from unonet.client.table_client import TableClient
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import views_pb2

TIMEOUT = 10.0


class _RoundEnded(Exception):
    """Raised from the round-end hook: the runner stops before it sees the next round's legal actions."""


class StopsAtRoundEnd(GreedyBot):
    def on_round_end(self, ended, state) -> None:
        raise _RoundEnded


@pytest.fixture
async def served():
    host = Host()  # fair shuffle: the next round waits for the seats' entropy
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}"
    await asyncio.wait_for(host.stop(), TIMEOUT + 5)
    await asyncio.wait_for(server.stop(None), TIMEOUT)


@pytest.mark.timeout(90)
async def test_a_command_after_its_round_ended_is_round_over_and_the_match_goes_on(served):
    async with await TableClient.connect(served, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {}, 2, name="r", manual_start=True)  # a match to 500
        await client.join(created.table_id, "ann", seat=0)
        await client.add_bots(1, "greedy")
        await client.start_table()
        with pytest.raises(_RoundEnded):
            await asyncio.wait_for(BotRunner(StopsAtRoundEnd(seed=5)).run(client, created.table_id, 0), 60)
        between = await client.get_view()
        assert between.phase != views_pb2.PHASE_MATCH_OVER and between.legal_actions.commit_entropy
        with pytest.raises(FailedPrecondition) as refused:
            await client.send(cmd.Draw())
        assert refused.value.reason == "ROUND_OVER"
        after = await client.get_view()
        assert after.event_number == between.event_number and list(after.hand) == list(between.hand)
