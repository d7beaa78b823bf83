"""Small facts about protobuf cards and hands that several policies need: points, colours, what is left.

Policies read cards as the protocol sends them (`unonet.v1.cards_pb2.Card`), so these work on those,
not on engine cards: a bot in this package plays from exactly what a networked seat receives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from unonet.v1 import cards_pb2

__all__ = [
    "ACTION_RANKS",
    "DRAW_RANKS",
    "NAMEABLE",
    "NUMBER_RANKS",
    "color_counts",
    "is_black",
    "points",
    "without",
]

C = cards_pb2

#: The four colours a black card may name, in the protocol's order.
NAMEABLE: tuple[cards_pb2.Color.ValueType, ...] = (C.COLOR_RED, C.COLOR_YELLOW, C.COLOR_GREEN, C.COLOR_BLUE)
NUMBER_RANKS = frozenset(range(C.RANK_ZERO, C.RANK_NINE + 1))
#: The coloured cards with an effect (C1): they score 20 and stop or hurt the next player.
ACTION_RANKS = frozenset({C.RANK_SKIP, C.RANK_REVERSE, C.RANK_DRAW_TWO})
#: The cards that make someone draw (T6, T10, C2's H2O cards).
DRAW_RANKS = frozenset({C.RANK_DRAW_TWO, C.RANK_WILD_DRAW_FOUR, C.RANK_PLUS_ONE, C.RANK_PLUS_TWO})


def is_black(card: cards_pb2.Card) -> bool:
    """A card that names no colour of its own (Wilds, Wild Draw Four, the optional black cards)."""
    return card.color == C.COLOR_BLACK


def points(card: cards_pb2.Card) -> int:
    """What the card scores in a loser's hand (P2): its number, 20 for an action or blank card, 50 black."""
    if card.rank in NUMBER_RANKS:
        return card.rank - C.RANK_ZERO
    if is_black(card):
        return 50
    return 20


def color_counts(hand: Iterable[cards_pb2.Card]) -> Counter[cards_pb2.Color.ValueType]:
    """How many coloured cards of each colour the hand holds (black cards do not count)."""
    return Counter(card.color for card in hand if card.color in NAMEABLE)


def without(hand: Sequence[cards_pb2.Card], played: Iterable[cards_pb2.Card]) -> list[cards_pb2.Card]:
    """The hand after playing `played` (identical cards are interchangeable)."""
    rest = list(hand)
    for card in played:
        for index, held in enumerate(rest):
            if held.color == card.color and held.rank == card.rank:
                del rest[index]
                break
    return rest
