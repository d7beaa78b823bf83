"""RandomBot (kind `random`): uniform over the plays, as RLCard's random agent, else over the rest."""

from __future__ import annotations

import collections

from seat_views import BLUE_2, DRAW, GREEN_7, RED_5, WILD, C, option, view

from unonet.bots.policy import BotState
from unonet.bots.random_bot import RandomBot
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2

STATE = BotState(seat=0)


def test_it_plays_when_it_can_each_play_and_each_colour_of_a_wild_as_likely():
    bot = RandomBot(seed=1)
    turn = view([RED_5, WILD, GREEN_7], plays=[option(RED_5), option(WILD, needs_color=True)], draw=DRAW)
    chosen = collections.Counter()
    for _ in range(1000):
        play = bot.decide(turn, STATE)
        assert isinstance(play, cmd.Play)
        chosen[(play.cards[0].rank, play.color)] += 1
    # Five choices (the red 5, the wild with each colour): about 200 each.
    assert len(chosen) == 5
    assert all(140 < count < 260 for count in chosen.values()), chosen


def test_without_plays_it_picks_among_the_other_commands():
    bot = RandomBot(seed=2)
    seen = collections.Counter(type(bot.decide(view([RED_5], draw=DRAW, challenge=True), STATE)) for _ in range(200))
    assert set(seen) == {cmd.Draw, cmd.Challenge} and min(seen.values()) > 60
    assert bot.decide(view([RED_5]), STATE) is None


def test_it_calls_uno_by_chance_as_the_engine_lists_both_plays():
    bot = RandomBot(seed=3)
    calls = collections.Counter(bot.decide(view([RED_5, BLUE_2], plays=[option(RED_5)]), STATE).call_uno
                                for _ in range(400))
    assert 140 < calls[True] < 260


def test_it_never_catches_or_jumps_in_and_answers_a_slap_half_the_time():
    bot = RandomBot(seed=4)
    state = BotState(seat=0)
    legal = actions_pb2.LegalActions(catch_uno_targets=[1], call_uno=True,
                                     plays=[option(RED_5, kind=actions_pb2.PLAY_KIND_JUMP_IN, window=3)])
    assert all(bot.respond(legal, state) is None for _ in range(50))
    slaps = collections.Counter(bot.respond(actions_pb2.LegalActions(react_window_ids=[9]), state) for _ in range(400))
    assert 140 < slaps[cmd.React(9)] < 260


def test_the_same_seed_makes_the_same_choices():
    turn = view([RED_5, BLUE_2, GREEN_7], plays=[option(RED_5), option(BLUE_2), option(GREEN_7)])
    first, second, other = RandomBot(7), RandomBot(7), RandomBot(8)
    a = [first.decide(turn, STATE) for _ in range(30)]
    assert a == [second.decide(turn, STATE) for _ in range(30)]
    assert a != [other.decide(turn, STATE) for _ in range(30)]
    assert C.COLOR_RED  # the helpers' colours are the protocol's
