"""Levels (`greedy:1`..`greedy:3`) and the kinds registry: names, mistakes, pauses."""

from __future__ import annotations

import collections

import pytest
from seat_views import BLUE_2, BLUE_9, DRAW, GREEN_7, RED_2, RED_5, RED_7, RED_8, option, view

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.kinds import DEFAULT_BOT_KIND, UnknownBotKind, bench_kinds, canonical_name, make_bot, public_names
from unonet.bots.levels import LEVELS, Leveled, parse_kind
from unonet.bots.oracle_bot import OracleBot
from unonet.bots.policy import BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2

STATE = BotState(seat=0)


def test_names_and_levels():
    assert parse_kind("greedy") == ("greedy", 3)
    assert parse_kind("greedy:1") == ("greedy", 1)
    for bad in ("greedy:0", "greedy:4", "greedy:x", "greedy:"):
        with pytest.raises(ValueError):
            parse_kind(bad)
    assert canonical_name("greedy") == "greedy:3"
    assert canonical_name("basic:2") == "basic:2"
    assert canonical_name("random") == "random"
    assert DEFAULT_BOT_KIND == "basic:3"
    for bad in ("oracle", "nobody", "random:2", "greedy:9"):
        with pytest.raises(UnknownBotKind):
            canonical_name(bad)
    names = public_names()
    assert "random" in names and "greedy:1" in names and "greedy:3" in names
    assert not any(name.startswith("oracle") for name in names)  # it cheats: never offered by a host


def test_make_bot_builds_each_level_and_the_oracle_only_in_process():
    assert type(make_bot("greedy")) is GreedyBot
    assert type(make_bot("greedy:3")) is GreedyBot
    low = make_bot("greedy:1", seed=1)
    assert isinstance(low, Leveled) and low.kind == "greedy:1"
    assert type(make_bot("oracle")) is OracleBot
    with pytest.raises(UnknownBotKind):
        make_bot("oracle", public_only=True)
    assert bench_kinds()["oracle"] == "oracle"


def test_a_low_level_blunders_forgets_uno_and_pauses():
    # Greedy alone always plays the red 2 here (test_greedy_bot); level 1 sometimes plays the blue 9.
    turn = view([RED_2, RED_7, RED_8, BLUE_9], plays=[option(RED_2), option(BLUE_9)], draw=DRAW)
    low = Leveled(GreedyBot(), LEVELS[1], seed=3)
    chosen = collections.Counter(low.decide(turn, STATE).cards[0].rank for _ in range(400))
    assert 0.05 < chosen[BLUE_9.rank] / 400 < 0.35
    top = Leveled(GreedyBot(), LEVELS[3], seed=3)
    assert all(top.decide(turn, STATE).cards == (RED_2,) for _ in range(100))
    last = view([RED_5, BLUE_2], plays=[option(RED_5)])
    calls = collections.Counter(low.decide(last, STATE).call_uno for _ in range(400))
    assert 0.25 < calls[False] / 400 < 0.9
    catch = actions_pb2.LegalActions(catch_uno_targets=[1])
    caught = collections.Counter(type(low.respond(catch, STATE)) for _ in range(400))
    assert caught[cmd.CatchUno] and caught[type(None)]
    pauses = [low.think_seconds(turn) for _ in range(100)]
    assert 0.5 * LEVELS[1].think_s <= min(pauses) <= max(pauses) <= 1.5 * LEVELS[1].think_s
    assert top.think_seconds(turn) == 0.0
    assert GreedyBot().think_seconds(view([GREEN_7])) == 0.0


async def test_the_runner_pauses_as_the_level_says_but_never_past_half_the_clock(monkeypatch):
    import asyncio

    from unonet.bots import runner as runner_module
    from unonet.bots.runner import BotRunner

    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(runner_module.asyncio, "sleep", fake_sleep)
    low = Leveled(GreedyBot(), LEVELS[1], seed=5)
    turn = view([RED_5, BLUE_2], plays=[option(RED_5)])
    await asyncio.wait_for(BotRunner(low)._think(turn), 5)
    assert 0.5 * LEVELS[1].think_s <= slept[-1] <= 1.5 * LEVELS[1].think_s
    turn.view_time.FromNanoseconds(10**18)
    turn.legal_actions.deadline.FromNanoseconds(10**18 + 400_000_000)  # 0.4 s left on the clock
    await asyncio.wait_for(BotRunner(low)._think(turn), 5)
    assert slept[-1] == pytest.approx(0.2)
    await asyncio.wait_for(BotRunner(GreedyBot())._think(turn), 5)
    assert len(slept) == 2  # the top level does not pause
    await asyncio.wait_for(BotRunner(low, pauses=False)._think(turn), 5)
    assert len(slept) == 2  # a league's runner (no human waits) asks for no pause


def test_a_levels_pause_changes_none_of_its_choices():
    # A BotRunner asks for the pause before each decision, an in-process table never does: the same
    # seed must make the same choices either way, or a league's two paths would play different games.
    turn = view([RED_2, RED_7, RED_8, BLUE_9], plays=[option(RED_2), option(BLUE_9)], draw=DRAW)
    paused, unpaused = make_bot("greedy:1", seed=8), make_bot("greedy:1", seed=8)
    for _ in range(200):
        assert paused.think_seconds(turn) > 0
        assert paused.decide(turn, STATE) == unpaused.decide(turn, STATE)
