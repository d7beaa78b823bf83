"""Four BasicBots play a whole match against the real host over loopback, until `match_ended`."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect

import grpc
import pytest

from unonet.bots.basic_bot import BasicBot
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient
from unonet.host.server import create_server

MATCH_TIMEOUT = 100.0
CALL_TIMEOUT = 10.0


@pytest.fixture
async def address():
    made = create_server("127.0.0.1:0")
    if inspect.isawaitable(made):
        made = await asyncio.wait_for(made, CALL_TIMEOUT)
    server, port, *rest = made
    await asyncio.wait_for(server.start(), CALL_TIMEOUT)
    yield f"127.0.0.1:{port}"
    await asyncio.wait_for(server.stop(None), CALL_TIMEOUT)
    for host in rest:
        stop = getattr(host, "stop", None)
        if stop is not None:
            await asyncio.wait_for(stop(), CALL_TIMEOUT)


@pytest.mark.timeout(MATCH_TIMEOUT + 20)
async def test_four_random_bots_play_a_match_to_the_end(address):
    channel = grpc.aio.insecure_channel(address)
    clients = [TableClient(channel, timeout=CALL_TIMEOUT) for _ in range(4)]
    try:
        created = await asyncio.wait_for(
            clients[0].create_table("standard", {"target_score": 50}, 4, name="bots"), CALL_TIMEOUT
        )
        assert created.table.settings.ruleset.target_score == 50
        seats = [
            await asyncio.wait_for(client.join(created.table_id, f"random-{i}", seat=i), CALL_TIMEOUT)
            for i, client in enumerate(clients)
        ]
        assert [joined.seat for joined in seats] == [0, 1, 2, 3]
        assert len({joined.token for joined in seats}) == 4

        bots = [BotRunner(BasicBot(seed=i), verify=True) for i in range(4)]
        ended = await asyncio.wait_for(
            asyncio.gather(
                *(
                    bot.run(client, created.table_id, i)
                    for i, (bot, client) in enumerate(zip(bots, clients, strict=True))
                )
            ),
            MATCH_TIMEOUT,
        )

        # Every bot saw the same end of the same match.
        assert all(result is not None for result in ended)
        winners = {tuple(result.winner_seats) for result in ended}
        assert len(winners) == 1 and winners.pop()
        totals = {tuple((score.seat, score.total) for score in result.scores) for result in ended}
        assert len(totals) == 1
        assert max(score.total for score in ended[0].scores) >= 50 or ended[0].reason != 1
        assert all(bot.commands_sent > 0 for bot in bots)
        # Each bot checked the host's fairness from its own stream: openings, piles, seeds.
        assert all(bot.verifier is not None and sum(bot.verifier.checks.values()) > 100 for bot in bots)

        # Afterwards, a fresh stream from 0 replays the whole match: numbered 1, 2, 3 ... to match_ended.
        watcher = TableClient(channel, timeout=CALL_TIMEOUT)
        watcher.attach(created.table_id, seats[0].token, 0)
        kinds = collections.Counter()
        numbers = []
        async with contextlib.aclosing(watcher.events(after=0)) as stream, asyncio.timeout(CALL_TIMEOUT):
            async for event in stream:
                numbers.append(event.number)
                kinds[event.WhichOneof("payload")] += 1
                if event.HasField("match_ended"):
                    break
        assert numbers == list(range(1, len(numbers) + 1))
        assert kinds["match_started"] == 1 and kinds["cards_played"] > 0 and kinds["round_ended"] >= 1
        view = await asyncio.wait_for(watcher.get_view(), CALL_TIMEOUT)
        assert list(view.winners) == list(ended[0].winner_seats)
    finally:
        await asyncio.wait_for(channel.close(), CALL_TIMEOUT)


@pytest.mark.timeout(MATCH_TIMEOUT + 20)
async def test_the_command_line_bot_plays_a_heads_up_match(address, capsys):
    from unonet.bots.__main__ import build_parser, play

    channel = grpc.aio.insecure_channel(address)
    try:
        opponent = TableClient(channel, timeout=CALL_TIMEOUT)
        created = await asyncio.wait_for(opponent.create_table("standard", {"target_score": 30}, 2), CALL_TIMEOUT)
        args = build_parser().parse_args(
            [
                "--address",
                address,
                "--table",
                created.table_id,
                "--seat",
                "0",
                "--seed",
                "7",
                "--reaction-delay",
                "0",
                "--ping-interval",
                "0.2",
                "--name",
                "cli",
            ]
        )
        cli = asyncio.create_task(play(args))
        await asyncio.wait_for(opponent.join(created.table_id, "opponent", seat=1), CALL_TIMEOUT)
        opponent_result, status = await asyncio.wait_for(
            asyncio.gather(BotRunner(BasicBot(seed=8)).run(opponent, created.table_id, 1), cli), MATCH_TIMEOUT
        )
        assert status == 0 and opponent_result is not None
        out = capsys.readouterr().out
        assert f"seat 0 at {created.table_id}" in out and "match over; winners:" in out
        info = await asyncio.wait_for(opponent.get_table(), CALL_TIMEOUT)
        assert info.seats[0].name == "cli" and info.seats[0].latency_ms >= 0
    finally:
        await asyncio.wait_for(channel.close(), CALL_TIMEOUT)
