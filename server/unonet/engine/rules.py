"""Pure rule predicates shared by the engine, bots and verifying clients (T1, T2).

They take plain values rather than a game, so a client can recompute a challenge verdict (B2) from
revealed cards without holding any engine state.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from unonet.engine.cards import CARDS, NUMBER_RANKS, PLAYABLE_COLORS, Card, Color, Rank
from unonet.engine.ruleset import WildDrawFourRule


def matches(card: Card, color: Color | None, top: Card) -> bool:
    """T1: does `card` match the pile by colour, number or symbol? Black cards always do.

    `color` is the colour in force; `None` (after a Sound Wild, H12) lets any card follow.
    """
    return card.color is Color.BLACK or color is None or card.color is color or card.rank is top.rank


# T1 as a table, for the hot paths: `MATCHES[top.index][color_slot(color)]` has bit `card.index` set
# exactly when `matches(card, color, top)`, so a hand's playable cards are one lookup and a bit test each
# (cards.py). Built from `matches` itself: the rule keeps its one place.
MATCHES: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << card.index for card in CARDS if matches(card, color, top)) for color in (*PLAYABLE_COLORS, None))
    for top in CARDS
)


def is_wild_draw_four_fair(hand: Iterable[Card], color: Color | None, top: Card, rule: WildDrawFourRule) -> bool:
    """T2: may a Wild Draw Four be played from `hand` (the other cards held) without bluffing?

    Black cards never count against it, except under `no_other_play`, where any other card that could
    be played (a Wild included, another Wild Draw Four excluded) makes it unfair.
    """
    if rule is WildDrawFourRule.ANY_TIME or color is None:
        return True
    if rule is WildDrawFourRule.NO_MATCHING_COLOUR:
        return all(card.color is not color for card in hand)
    if rule is WildDrawFourRule.NO_MATCH_AT_ALL:
        return all(card.is_black or (card.color is not color and card.rank is not top.rank) for card in hand)
    return all(card.rank is Rank.WILD_DRAW_FOUR or not matches(card, color, top) for card in hand)


def is_run(cards: tuple[Card, ...]) -> bool:
    """H4: two or more number cards of one colour in consecutive ascending or descending order."""
    if len(cards) < 2:
        return False
    color = cards[0].color
    numbers = []
    for card in cards:  # face values by `Card.key`: no enum hashing
        number = _FACE_VALUE.get(card.key)
        if number is None or card.color is not color:
            return False
        numbers.append(number)
    step = numbers[1] - numbers[0]
    if step != 1 and step != -1:
        return False
    return all(b - a == step for a, b in itertools.pairwise(numbers))


# The face value of every coloured number card, by `Card.key`.
_FACE_VALUE: dict[int, int] = {
    Card.of(color, rank).key: value for color in PLAYABLE_COLORS for value, rank in enumerate(NUMBER_RANKS)
}


def is_multi_play(cards: tuple[Card, ...]) -> bool:
    """H5: two or more coloured cards of one number or symbol, with at most one Draw Two."""
    if len(cards) < 2 or any(card.is_black or card.rank is not cards[0].rank for card in cards):
        return False
    return cards[0].rank is not Rank.DRAW_TWO
