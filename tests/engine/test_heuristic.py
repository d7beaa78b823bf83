"""`unonet.engine.heuristic`: greedy's playout policy as engine code, on both builds.

`play_out` is `search.playout` with the player's choices made without a callback, so the two finish
every round alike; the player picks among the options it is given, follows greedy's fixed rules where
they apply (going out, never a bluff, the colour held most) and keeps what the table showed of the
seats' lacks. That it picks greedy's own action at greedy's decisions is tests/bots/test_rollout.py's.
"""

from __future__ import annotations

import random

import pytest

from unonet.engine import (
    PRESETS,
    Card,
    ChooseColor,
    Color,
    Draw,
    Game,
    MidPlay,
    Phase,
    Play,
    Rank,
    find_ruleset,
    is_bluff,
    legal_actions,
    playout,
    settle_blocking,
    standard_deck,
)
from unonet.engine.heuristic import GreedyPlayer, play_out

STANDARD = find_ruleset("standard")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_play_out_finishes_each_round_as_search_playout_with_the_same_player(preset):
    ruleset = find_ruleset(preset)
    for seed in range(12):
        players = 2 + seed % 3
        game = Game(ruleset, players, random.Random(seed))
        lacks = {1: frozenset({Color.RED}), 0: frozenset({Color.BLUE, Color.GREEN})}
        ours = play_out(game.copy(), random.Random(seed), GreedyPlayer(random.Random(seed), 0.2, lacks, {1: 0.9}))
        theirs = playout(game.copy(), random.Random(seed), GreedyPlayer(random.Random(seed), 0.2, lacks, {1: 0.9}))
        assert ours == theirs


def test_every_choice_is_one_of_the_options_and_never_a_bluff_while_an_honest_play_is_allowed():
    checked = 0
    for seed in range(40):
        game = Game(STANDARD, 2 + seed % 3, random.Random(seed))
        player = GreedyPlayer(random.Random(seed))
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_act
            if seat is None:
                settle_blocking(game, rng)
                continue
            options = legal_actions(game, seat)
            choice = player.choose(game, options)
            assert choice in options
            if isinstance(choice, Play) and choice.cards[-1].rank is Rank.WILD_DRAW_FOUR and is_bluff(game, seat):
                assert len(choice.cards) == len(game.hands[seat])  # a bluff only to go out
            checked += 1
            game.step(choice)
    assert checked > 500


def _position(hands: list[list[Card]], top: Card, *, phase: Phase = Phase.TURN) -> Game:
    """Seat 0 to act on `top`, the other cards in the draw pile."""
    pile = standard_deck()
    for card in [*(card for hand in hands for card in hand), top]:
        pile.remove(card)
    return Game.from_position(
        STANDARD, random.Random(1), hands=hands, draw_pile=pile, discard=[top],
        color=None if top.color is Color.BLACK else top.color, current=0, mid_play=MidPlay(phase=phase),
    )


RED5, RED9, BLUE9, BLUE2 = (Card.of(Color.RED, Rank.FIVE), Card.of(Color.RED, Rank.NINE),
                            Card.of(Color.BLUE, Rank.NINE), Card.of(Color.BLUE, Rank.TWO))
GREEN3, YELLOW4 = Card.of(Color.GREEN, Rank.THREE), Card.of(Color.YELLOW, Rank.FOUR)
YELLOWS = [Card.of(Color.YELLOW, rank) for rank in (Rank.ONE, Rank.TWO, Rank.THREE, Rank.SIX, Rank.SEVEN)]
REDS = [Card.of(Color.RED, rank) for rank in (Rank.ONE, Rank.TWO, Rank.THREE, Rank.SIX, Rank.SEVEN)]


def test_it_goes_out_when_it_can_and_otherwise_keeps_the_colour_it_holds_most_in_force():
    game = _position([[RED9, BLUE9, BLUE2], YELLOWS], RED9)  # either 9 plays
    choice = GreedyPlayer(random.Random(0)).choose(game, legal_actions(game, 0))
    assert isinstance(choice, Play) and choice.cards == (BLUE9,)  # blue stays in force with a blue left
    last = _position([[RED9], YELLOWS], RED5)
    going = GreedyPlayer(random.Random(0)).choose(last, legal_actions(last, 0))
    assert isinstance(going, Play) and going.cards == (RED9,)


def test_with_no_play_it_draws_and_steers_the_colour_towards_one_the_next_seat_drew_on():
    game = _position([[BLUE2, GREEN3], YELLOWS], RED5)
    player = GreedyPlayer(random.Random(0), lacks={1: frozenset({Color.GREEN})})
    assert isinstance(player.choose(game, legal_actions(game, 0)), Draw)
    wild = Card.of(Color.BLACK, Rank.WILD)
    naming = _position([[BLUE2, GREEN3, YELLOW4], REDS], wild, phase=Phase.CHOOSE_COLOR)
    options = legal_actions(naming, 0)
    assert all(isinstance(option, ChooseColor) for option in options)
    plain = GreedyPlayer(random.Random(0)).choose(naming, options)
    steered = GreedyPlayer(random.Random(0), lacks={1: frozenset({Color.GREEN})}).choose(naming, options)
    assert plain == ChooseColor(0, Color.YELLOW)  # one of each: the most points, a yellow 4
    assert steered == ChooseColor(0, Color.GREEN)  # the next seat drew on green
