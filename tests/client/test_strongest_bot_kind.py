"""Which bot kind a client seats against a person: the strongest the host lists, by family then level."""

from __future__ import annotations

import asyncio

from unonet.client.bot_kinds import best_bot_kind, by_strength, strength
from unonet.client.table_client import TableClient
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import table_pb2

TIMEOUT = 20.0


def kinds(*names: str) -> list[table_pb2.BotKind]:
    return [table_pb2.BotKind(name=name, is_default=i == 0) for i, name in enumerate(names)]


def test_the_family_ranks_first_then_the_level() -> None:
    offered = kinds("random", "greedy:1", "basic", "greedy:3", "strong:1", "greedy:2", "newfangled")
    assert [k.name for k in by_strength(offered)] == [
        "strong:1", "greedy:3", "greedy:2", "greedy:1", "basic", "newfangled", "random"]
    assert best_bot_kind(offered) == "strong:1"
    assert best_bot_kind(kinds("random", "greedy")) == "greedy"
    assert strength("greedy") == strength("greedy:0") < strength("greedy:1")


def test_nothing_offered_leaves_the_choice_to_the_host() -> None:
    assert best_bot_kind([]) == ""


def test_make_play_seats_the_strongest_family_below_its_top_level_when_offered() -> None:
    from unonet.local import LOCAL_BOT_LEVEL, local_bot_kind

    assert local_bot_kind(kinds("random", "greedy:1", "greedy:2", "greedy:3")) == "greedy:2"
    assert local_bot_kind(kinds("greedy:2", "strong:3")) == "strong:3"  # the family first: no strong:2 offered
    offered = kinds("random", "greedy:1", "strong:1", "strong:2", "strong:3")
    assert local_bot_kind(offered) == f"strong:{LOCAL_BOT_LEVEL}"
    assert local_bot_kind(kinds("random", "greedy")) == "greedy"  # no levels listed: the best there is


async def test_make_plays_table_gets_the_best_kind_the_real_host_lists_at_its_level() -> None:
    from unonet.local import LOCAL_BOT_LEVEL, seat_against_bots

    server, port, host = await asyncio.wait_for(create_server("127.0.0.1:0", host=Host()), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    try:
        async with await asyncio.wait_for(TableClient.connect(f"127.0.0.1:{port}"), TIMEOUT) as client:
            listed = await asyncio.wait_for(client.list_bot_kinds(), TIMEOUT)
            chosen = await asyncio.wait_for(seat_against_bots(client, name="ann", players=3, preset="standard",
                                                              target_score=50, turn_time=None), TIMEOUT)
            family = best_bot_kind(listed).partition(":")[0]
            assert chosen == f"{family}:{LOCAL_BOT_LEVEL}" and chosen in {k.name for k in listed}
            info = await asyncio.wait_for(client.get_table(), TIMEOUT)
            assert info.settings.ruleset.target_score == 50 and info.seats[0].name == "ann"
    finally:
        await asyncio.wait_for(host.stop(), TIMEOUT)
        await asyncio.wait_for(server.stop(grace=None), TIMEOUT)
