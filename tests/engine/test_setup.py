"""Set-up rules that a scenario file cannot state, because the game they describe cannot be built."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from unonet.engine import Card, Game, MalformedAction, Match, RulesetError, find_ruleset
from unonet.engine.cards import BLACK_RANKS, Color, Rank, standard_deck

STANDARD = find_ruleset("standard")


def test_C1_standard_deck_composition() -> None:
    deck = standard_deck()
    assert len(deck) == 108
    counts = Counter(deck)
    for color in (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE):
        assert counts[Card.of(color, Rank.ZERO)] == 1
        for rank in (*[Rank(str(n)) for n in range(1, 10)], Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO):
            assert counts[Card.of(color, rank)] == 2
    assert counts[Card.of(Color.BLACK, Rank.WILD)] == 4
    assert counts[Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)] == 4
    assert not any(card.rank in BLACK_RANKS - {Rank.WILD, Rank.WILD_DRAW_FOUR} for card in deck)


def test_C2_extra_cards_are_black_and_off_by_default() -> None:
    deck = standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)
    extra = Counter(deck) - Counter(standard_deck())
    assert extra == Counter(
        {
            Card.of(Color.BLACK, Rank.BLANK): 4,
            Card.of(Color.BLACK, Rank.SOUND_WILD): 8,
            Card.of(Color.BLACK, Rank.PLUS_ONE): 2,
            Card.of(Color.BLACK, Rank.PLUS_TWO): 2,
        }
    )
    assert not (STANDARD.blank_cards or STANDARD.sound_wilds or STANDARD.h2o_wilds)


@pytest.mark.parametrize("players", [0, 1, 11, 12])
def test_S1_game_refuses_fewer_than_2_or_more_than_10_players(players: int) -> None:
    with pytest.raises(MalformedAction) as refused:
        Game(STANDARD, players, random.Random(0))
    assert refused.value.reason == "BAD_PLAYER_COUNT"


@pytest.mark.parametrize("players", [1, 11])
def test_S1_match_refuses_fewer_than_2_or_more_than_10_players(players: int) -> None:
    with pytest.raises(MalformedAction) as refused:
        Match(STANDARD, players, random.Random(0))
    assert refused.value.reason == "BAD_PLAYER_COUNT"


@pytest.mark.parametrize("players", [2, 10])
def test_S1_2_and_10_players_are_dealt(players: int) -> None:
    match = Match(STANDARD, players, random.Random(players))
    match.start()
    assert [len(hand) for hand in match.game.hands] == [7] * players
    assert len(match.game.draw_pile) == 108 - 7 * players - 1


def test_S4_a_deck_whose_only_cards_left_are_returned_is_refused() -> None:
    """A Wild Draw Four turned first is returned and another card turned; with none left, that never ends."""
    deck = [Card.parse("red 1")] * 14 + [Card.parse("wild_draw_four")]
    with pytest.raises(MalformedAction) as refused:
        Game(STANDARD, 2, random.Random(0), deck=deck)
    assert refused.value.reason == "DECK_TOO_SMALL"


def test_P3_russian_scoring_needs_own_hand_scoring() -> None:
    with pytest.raises(RulesetError):
        find_ruleset("standard", russian_scoring=True)
    assert find_ruleset("standard", russian_scoring=True, scoring="lowest_wins").russian_scoring
    assert find_ruleset("standard", russian_scoring=True, scoring="elimination").russian_scoring
