"""The in-process arena: every kind plays whole rounds on exactly what a networked seat receives, and
never sends a command the rules refuse (so each follows its legal actions), under the standard rules
and with every house rule on."""

from __future__ import annotations

import random

import pytest

from unonet.bots.arena import play_round
from unonet.bots.kinds import make_bot
from unonet.bots.oracle_bot import OracleBot, card_pb
from unonet.engine import Game, find_ruleset

KINDS = ("random", "basic", "basic:1", "greedy", "greedy:1", "greedy:2", "oracle")
HOUSE = find_ruleset(
    "standard", stacking=True, deflecting=True, runs=True, multi_play=True, jump_in=True, skip_escape=True,
    seven_o=True, five_swap=True, uno_slap=True, sound_wilds=True, blank_cards=True, h2o_wilds=True,
).replace(name="house_for_bots")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", [2, 4])
def test_each_kind_plays_whole_rounds_legally(kind, players):
    for seed in range(3):
        bots = [make_bot(kind if seat == 0 else "basic", seed=seed * 10 + seat) for seat in range(players)]
        result = play_round(find_ruleset("standard"), bots, seed, dealer=seed % players)
        assert 0 <= result.winner < players
        assert result.refused == 0
        assert result.points[result.winner] == sum(result.points) and result.points[result.winner] >= 0
        assert len(result.decision_ns[0]) > 0


@pytest.mark.parametrize("kind", ["random", "basic", "greedy", "oracle"])
def test_each_kind_handles_every_house_rule_decision(kind):
    for seed in range(4):
        bots = [make_bot(kind, seed=seed * 10 + seat) for seat in range(4)]
        result = play_round(HOUSE, bots, seed)
        assert 0 <= result.winner < 4
        assert result.refused == 0


def test_the_same_seeds_play_the_same_round_and_the_deal_repeats_across_rotations():
    def once(seed):
        return play_round(find_ruleset("standard"), [make_bot("greedy", 1), make_bot("basic", 2)], seed)

    first, again = once(5), once(5)
    assert (first.winner, first.points, first.commands) == (again.winner, again.points, again.commands)


def test_the_oracle_is_shown_the_true_hands():
    game = Game(find_ruleset("standard"), 3, random.Random(4))
    oracle = OracleBot()
    oracle.reveal(game)
    for seat in range(3):
        assert oracle.opponent_hand(seat) == [card_pb(card) for card in game.hands[seat]]
    assert oracle.known_bluff(1) is False  # no Wild Draw Four to answer
