"""A searching kind plays the same wherever it sits (issue 29): seated by a host's AddBots (played by the
host's worker process), by the SDK runner (`BotRunner`, over the network, as `unonet bot play` plays
it) and in the arena (`unonet.bots.arena`, in-process, where bench/bots.py measures it), on the same
duplicate deals (league-seeded heads-up tables with per-seat draws, against `greedy`).

Each seating's `StrongBot.stats()` says what its decisions were: how many, how many searched, why any
was not (a position it could not rebuild, a view ahead of its events), and each search's playouts,
CPU seconds and why it stopped. A host's worker writes them with `--stats` when its match ends.

- At a fixed budget (`strong:1`, 24 playouts) the same seed and the same events give the same choices,
  so the three seatings must play the same game: the very same decisions and searches.
- At the top level (`strong:3`, 90 ms of CPU time) choices depend on the machine, so each seating's
  searches must each have reached the budget (stopped on time, after at least 90 ms of its thread's
  CPU time) and their CPU times must be alike. CPU time, not wall time: a loaded machine slows a
  search's wall clock, not what it computes.

Before the fix a host's worker, started after the deal, searched nothing in round 1 (every decision
"unsearchable"), which a one-round game shows at once."""

from __future__ import annotations

import asyncio
import functools
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from bot_tables import clock
from polling import poll_until

from unonet.bots.arena import play_round
from unonet.bots.kinds import make_bot
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient
from unonet.engine import find_ruleset
from unonet.engine.draws import SeatDraws
from unonet.host.bot_workers import WorkerSpec, default_command
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.table import Table

TIMEOUT = 10.0
GAME_TIMEOUT = 120.0
OPPONENT = "greedy"
SEEDS = (11, 12)
SAME = ("decisions", "searches", "unsearchable", "ahead", "search_playouts", "search_stops")


_until = functools.partial(poll_until, timeout=GAME_TIMEOUT)


def _seed(table_seed: int, seat: int) -> int:
    """The seed a host gives a bot seat's policy (`bot_seats.bot_seed`): the other seatings use it too."""
    return table_seed * 31 + seat


@pytest.fixture
async def served(tmp_path):
    stats = tmp_path / "stats"
    stats.mkdir()
    host = Host()

    def command(spec: WorkerSpec) -> list[str]:
        # No level's human-like pause (strong:1 thinks about 1.2 s a move): nothing here is timed by it.
        return [*default_command(spec), "--no-pauses", "--stats", str(stats / f"{spec.table_id}-{spec.seat}.json")]

    host.workers.command = command
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}", host, stats
    await asyncio.wait_for(host.stop(), TIMEOUT + 5)
    await asyncio.wait_for(server.stop(None), TIMEOUT)


async def _league_table(client: TableClient, seed: int) -> str:
    """A one-round heads-up table dealt from `seed`, with short reaction windows (an UNO call's catch
    window holds the table until it closes; nobody here is slow to answer one)."""
    created = await client.create_table("standard", {"target_score": 1}, 2, manual_start=True, league_seed=seed,
                                        league_seat_draws=True, clock=clock(30.0, strikes=0))
    return created.table_id


def _finished(host: Host, table_id: str) -> Table:
    table = host.tables[table_id]
    assert table.match is not None and table.match.is_over
    assert not any(table.render(entry, None).HasField("bot_fallback") for entry in table.log)
    return table


async def by_add_bots(served: tuple[str, Host, Path], kind: str, seed: int, seat: int) -> dict[str, Any]:
    """The kind seated by AddBots: the host's worker plays it and writes its stats when the match ends."""
    address, host, stats = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        table_id = await _league_table(client, seed)
        for other in range(2):
            await client.add_bots(1, kind if other == seat else OPPONENT, table_id=table_id)
        await client.start_table(table_id=table_id)
    written = stats / f"{table_id}-{seat}.json"
    await _until(written.exists, f"the worker's stats in {written}")
    _finished(host, table_id)
    data: dict[str, Any] = json.loads(written.read_text())["bot"]
    return data


async def by_sdk_runner(served: tuple[str, Host, Path], kind: str, seed: int, seat: int) -> dict[str, Any]:
    """The kind played by a `BotRunner` in this process, as `unonet bot play` plays it; AddBots seats greedy."""
    address, host, _ = served
    bot = make_bot(kind, _seed(seed, seat))
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        table_id = await _league_table(client, seed)
        await client.join(table_id, "sdk", seat=seat)
        await client.add_bots(1, OPPONENT, table_id=table_id)
        runner = BotRunner(bot, reaction_delay=0.0, verify=True, pauses=False)
        playing = asyncio.create_task(runner.run(client, table_id, seat))
        try:
            await _until(lambda: runner.state.last_event_number > 0 or playing.done(), "the runner's first view")
            await client.start_table(table_id=table_id)
            assert await asyncio.wait_for(playing, GAME_TIMEOUT) is not None
        finally:
            playing.cancel()
    _finished(host, table_id)
    return bot.stats()


def in_arena(kind: str, seed: int, seat: int) -> dict[str, Any]:
    """The kind in the arena, on the deal a league-seeded host table deals from `seed`."""
    bots = [make_bot(kind if other == seat else OPPONENT, _seed(seed, other)) for other in range(2)]
    play_round(find_ruleset("standard", target_score=1), bots, seed, dealer=None, draws=SeatDraws(seed))
    return bots[seat].stats()


def _all_searched(stats: dict[str, Any]) -> None:
    """Every decision with a choice was searched: none from a position it could not rebuild, none from a
    view ahead of its events (greedy's rules answer those), and some searched at all."""
    assert stats["searches"] > 0, stats
    assert stats["unsearchable"] == 0 and stats["ahead"] == 0, stats
    assert "deals" not in stats["search_stops"], stats  # no search cut short by a belief out of deals


@pytest.mark.timeout(6 * GAME_TIMEOUT)
async def test_a_fixed_budget_makes_the_same_choices_wherever_the_kind_sits(served):
    budget = 24  # strong:1's
    for seed in SEEDS:
        for seat in range(2):
            seatings = {
                "AddBots": await by_add_bots(served, "strong:1", seed, seat),
                "SDK runner": await by_sdk_runner(served, "strong:1", seed, seat),
                "arena": in_arena("strong:1", seed, seat),
            }
            for name, stats in seatings.items():
                _all_searched(stats)
                assert stats["budget_playouts"] == budget and set(stats["search_stops"]) == {"playouts"}, name
                assert min(stats["search_playouts"]) >= budget * 0.9, (name, stats["search_playouts"])
            chosen = {name: {key: stats[key] for key in SAME} for name, stats in seatings.items()}
            assert chosen["AddBots"] == chosen["SDK runner"] == chosen["arena"], (seed, seat, chosen)


@pytest.mark.timeout(4 * GAME_TIMEOUT)
async def test_the_top_level_reaches_its_time_budget_wherever_the_kind_sits(served):
    seed, seat = SEEDS[0], 0
    seatings = {
        "AddBots": await by_add_bots(served, "strong:3", seed, seat),
        "SDK runner": await by_sdk_runner(served, "strong:3", seed, seat),
        "arena": in_arena("strong:3", seed, seat),
    }
    medians = {}
    for name, stats in seatings.items():
        _all_searched(stats)
        budget = stats["budget_seconds"]
        assert budget == pytest.approx(0.09)
        assert set(stats["search_stops"]) <= {"time", "playouts"}, (name, stats["search_stops"])
        assert all(seconds >= budget for seconds in stats["search_seconds"]), (name, stats["search_seconds"])
        medians[name] = statistics.median(stats["search_seconds"])
    assert max(medians.values()) - min(medians.values()) < 0.02, medians  # CPU seconds: one playout's worth
