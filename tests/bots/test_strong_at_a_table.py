"""`strong` at a real host: played over the network by a `BotRunner` it rebuilds every position from the
events the host sent and never has a command refused for a wrong choice; seated by the host
(`AddBots`), it is played by a worker process the host supervises, never on the host's event loop."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.runner import BotRunner
from unonet.bots.strong import Budget, StrongBot
from unonet.client.table_client import TableClient
from unonet.host.host import Host
from unonet.host.server import create_server

TIMEOUT = 10.0
MATCH_TIMEOUT = 120.0
LATE = {"WINDOW_CLOSED", "NOT_YOUR_TURN", "NOT_CATCHABLE", "NOTHING_TO_CALL"}


async def _until(predicate) -> None:
    while not predicate():
        await asyncio.sleep(0.01)


@pytest.fixture
async def served():
    host = Host(fair_shuffle=False)
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}", host
    await asyncio.wait_for(host.stop(), TIMEOUT + 5)
    await asyncio.wait_for(server.stop(None), TIMEOUT)


@pytest.mark.timeout(MATCH_TIMEOUT + 30)
async def test_strong_searches_every_decision_of_a_match_over_the_network(served):
    address, _ = served
    strong = StrongBot(3, budget=Budget(playouts=24))
    policies = [strong, GreedyBot(4)]
    channel = grpc.aio.insecure_channel(address)
    clients = [TableClient(channel, timeout=TIMEOUT) for _ in policies]
    try:
        created = await clients[0].create_table("standard", {"target_score": 40}, 2, name="strong", manual_start=True)
        for seat, client in enumerate(clients):
            await client.join(created.table_id, f"bot-{seat}", seat=seat)
        runners = [BotRunner(policy, verify=True) for policy in policies]
        playing = asyncio.gather(*(runner.run(client, created.table_id, seat)
                                   for seat, (runner, client) in enumerate(zip(runners, clients, strict=True))))
        # The match starts once both runners have read their first view, so every event reaches the
        # bots as it happens (the next test starts one after the deal).
        await asyncio.wait_for(_until(lambda: all(r.state.last_event_number for r in runners)), TIMEOUT)
        await clients[0].start_table()
        ended = await asyncio.wait_for(playing, MATCH_TIMEOUT)
    finally:
        await channel.close()
    assert all(result is not None and result.winner_seats for result in ended)
    assert set(runners[0].refusal_reasons) <= LATE, runners[0].refusal_reasons
    assert strong.searches > 0
    assert strong.ahead == 0  # the runner waited for the events before asking it to decide
    assert strong.unsearchable == 0, strong.last_refusal  # the events rebuild every position


@pytest.mark.timeout(MATCH_TIMEOUT + 30)
async def test_strong_started_after_the_deal_searches_from_its_first_decision(served):
    """As a host's bot worker is: started once the round is dealt (issue 29: its whole first round was
    then played by greedy's rules, the events of the deal never having reached it). The runner passes
    on the events its first view covers before the first decision, so the position rebuilds. The match
    is played to 1 point, one round as a rule; a loser holding only zeros scores 0 and a second round
    follows, which changes nothing checked: no decision of any round was answered unsearched."""
    address, host = served
    strong = StrongBot(3, budget=Budget(playouts=24))
    channel = grpc.aio.insecure_channel(address)
    clients = [TableClient(channel, timeout=TIMEOUT) for _ in range(2)]
    try:
        created = await clients[0].create_table("standard", {"target_score": 1}, 2, name="late", manual_start=True)
        for seat, client in enumerate(clients):
            await client.join(created.table_id, f"bot-{seat}", seat=seat)
        greedy = asyncio.create_task(BotRunner(GreedyBot(4)).run(clients[1], created.table_id, 1))
        await clients[0].start_table()
        table = host.tables[created.table_id]
        await asyncio.wait_for(_until(lambda: table.match is not None and table.match.round_no == 1), TIMEOUT)
        runner = BotRunner(strong)
        ended = await asyncio.wait_for(runner.run(clients[0], created.table_id, 0), MATCH_TIMEOUT)
        await asyncio.wait_for(greedy, TIMEOUT)
    finally:
        await channel.close()
    assert ended is not None and ended.winner_seats
    assert runner.view_reads >= 1 and strong.belief is not None and strong.belief.tracker.last_event_number > 0
    assert strong.searches > 0
    assert strong.ahead == 0 and strong.unsearchable == 0, strong.last_refusal


@pytest.mark.timeout(MATCH_TIMEOUT + 30)
async def test_a_host_seats_strong_in_a_worker_process(served):
    address, host = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {"target_score": 20}, 2, name="w", manual_start=True)
        joined = await client.join(created.table_id, "me", seat=0)
        assert await client.add_bots(1, "strong") == [1]
        await client.start_table()
        table = host.tables[created.table_id]
        try:
            ended = await asyncio.wait_for(BotRunner(GreedyBot(seed=2)).run(client, created.table_id, joined.seat),
                                           MATCH_TIMEOUT)
        except TimeoutError:
            game = table.match.game if table.match is not None else None
            raise AssertionError(
                f"the match did not end: event {table.last_number}, phase {game and game.phase}, to act "
                f"{game and game.to_act}, worker starts {host.workers.starts(created.table_id, 1)}, running "
                f"{sorted(host.workers.processes(created.table_id))}") from None
    assert ended is not None and ended.winner_seats
    assert table.seats[1].bot_kind == "strong:3"
    assert host.workers.starts(created.table_id, 1) >= 1
    assert any(key[0] == 1 and not key[1].startswith("bot-") for key in table.commands), "the worker played"
    assert not any(key[0] == 1 and key[1].startswith("bot-") for key in table.commands), "never in-process"
    assert not table.fallback_kinds and not any(table.render(entry, None).HasField("bot_fallback")
                                                for entry in table.log), "the worker watch never stepped in"


@pytest.mark.timeout(MATCH_TIMEOUT + 30)
@pytest.mark.parametrize(("league_seed", "kinds"), [(15163757760292373763, ("strong:3", "random")),
                                                    (743854155366363580, ("random", "strong:3"))])
async def test_the_two_tables_that_froze_are_played_to_their_end(served, league_seed, kinds):
    """Issue 29's two tables, seated as its report seated them (AddBots, then StartTable): they froze
    at events 127 and 234, where strong got the turn straight back after a Reverse with its twin in
    hand and was sent no legal actions (tests/host/test_turn_legal_actions.py replays those journals).
    strong:3 searches on CPU time, so the games need not repeat the old ones move for move: what is
    checked is that each is played to its end by the worker, with the watch never stepping in."""
    address, host = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {"target_score": 1}, 2, manual_start=True,
                                            league_seed=league_seed, league_seat_draws=True)
        for kind in kinds:
            await client.add_bots(1, kind, table_id=created.table_id)
        await client.start_table(table_id=created.table_id)
    table = host.tables[created.table_id]
    try:
        await asyncio.wait_for(_until(lambda: table.match is not None and table.match.is_over), MATCH_TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"the table stalled at event {table.last_number}") from None
    worker = kinds.index("strong:3")
    assert any(key[0] == worker and not key[1].startswith("bot-") for key in table.commands), "the worker played"
    assert not any(table.render(entry, None).HasField("bot_fallback") for entry in table.log)
