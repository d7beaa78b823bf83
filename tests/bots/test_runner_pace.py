"""A bot runner paced as a host paces its own bots (`human_pace`, what the host's worker processes get):
a person's pace at a table with a person, none at a table of bots. Sleeps are recorded, never slept."""

from __future__ import annotations

import asyncio

import pytest
from seat_views import BLUE_2, RED_5, option, view

from unonet.bots import runner as runner_module
from unonet.bots.cli import build_parser
from unonet.bots.kinds import make_bot
from unonet.bots.levels import LEVELS, REACTION_BOUNDS
from unonet.bots.runner import BotRunner
from unonet.client import commands as cmd

NOW = 100.0


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every sleep the runner asks for, on a monotonic clock that stands still at NOW."""
    asked: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr(runner_module.asyncio, "sleep", fake_sleep)
    monkeypatch.setattr(runner_module.time, "monotonic", lambda: NOW)
    return asked


def paced(kind: str, pace: float = 1.0) -> BotRunner:
    runner = BotRunner(make_bot(kind, seed=5), human_pace=pace)
    runner._options_at = NOW  # the options arrived just now
    return runner


async def test_a_turn_waits_the_pace_and_the_levels_pause_with_a_person_at_the_table(slept: list[float]) -> None:
    turn = view([RED_5, BLUE_2], plays=[option(RED_5)])  # seat 1: a player, not a bot
    await asyncio.wait_for(paced("greedy:1")._paced(turn, cmd.Draw()), 5)
    think = LEVELS[1].think_s
    assert 1.0 + 0.5 * think <= slept[-1] <= 1.0 + 1.5 * think
    await asyncio.wait_for(paced("greedy:3")._paced(turn, cmd.Draw()), 5)
    assert slept[-1] == 1.0  # the top level: the pace alone


async def test_a_race_answer_waits_the_levels_reaction_drawn_once_per_race(slept: list[float]) -> None:
    turn = view([RED_5, BLUE_2], plays=[option(RED_5)])
    runner = paced("greedy:2")
    await asyncio.wait_for(runner._paced(turn, cmd.CatchUno(1, reaction_window_id=4)), 5)
    first = slept[-1]
    await asyncio.wait_for(runner._paced(turn, cmd.React(4)), 5)
    assert slept[-1] == first  # the same race: the same reaction
    low, high = REACTION_BOUNDS
    assert low * LEVELS[2].reaction_s <= first <= high * LEVELS[2].reaction_s
    await asyncio.wait_for(runner._paced(turn, cmd.CatchUno(1, reaction_window_id=5)), 5)
    assert len(slept) == 3


async def test_a_table_of_bots_only_gets_no_wait_at_all(slept: list[float]) -> None:
    turn = view([RED_5, BLUE_2], plays=[option(RED_5)])
    turn.seats[1].is_bot = True
    runner = paced("greedy:1")
    await asyncio.wait_for(runner._paced(turn, cmd.Draw()), 5)
    await asyncio.wait_for(runner._paced(turn, cmd.CatchUno(1, reaction_window_id=4)), 5)
    assert slept == []


async def test_paced_the_seat_to_play_next_catches_a_person_before_it_plays(slept: list[float]) -> None:
    turn = view([RED_5, BLUE_2], plays=[option(RED_5)], catch_uno_targets=[1])
    turn.legal_actions.catch_uno.add(target_seat=1, reaction_window_id=9)
    assert await asyncio.wait_for(paced("greedy:3")._catch_first(turn), 5) == cmd.CatchUno(1, reaction_window_id=9)
    unpaced = BotRunner(make_bot("greedy:3", seed=5))
    assert await asyncio.wait_for(unpaced._catch_first(turn), 5) is None  # as before: it plays its turn
    turn.seats[1].is_bot = True
    assert await asyncio.wait_for(paced("greedy:3")._catch_first(turn), 5) is None  # no person to catch fairly


def test_the_command_line_takes_the_hosts_pace() -> None:
    args = build_parser().parse_args(["greedy:2", "--table", "t", "--human-pace", "1.5"])
    assert args.human_pace == 1.5
    assert build_parser().parse_args(["greedy:2", "--table", "t"]).human_pace is None
