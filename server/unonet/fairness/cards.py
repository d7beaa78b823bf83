"""The canonical two-byte card encoding (docs/fairness.md, "Cards").

Fairness hashes cards, so every implementation must agree on one byte string per card, independent of
how any engine spells its cards. A card is `colour byte || rank byte`. This module deliberately does
not import `unonet.engine`: the verifier must stay a small, self-contained specification that another
language can copy, and an adapter maps engine cards here by enum member name
(`ColorCode[card.color.name]`, `RankCode[card.rank.name]`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from operator import attrgetter

from unonet.fairness.base_errors import InvalidInput


class ColorCode(IntEnum):
    """A card's colour byte. 0x00 is never a colour, so a zeroed buffer never decodes as a card."""

    RED = 0x01
    YELLOW = 0x02
    GREEN = 0x03
    BLUE = 0x04
    BLACK = 0x05


class RankCode(IntEnum):
    """A card's rank byte: number cards are their face value, the rest follow in a fixed order."""

    ZERO = 0x00
    ONE = 0x01
    TWO = 0x02
    THREE = 0x03
    FOUR = 0x04
    FIVE = 0x05
    SIX = 0x06
    SEVEN = 0x07
    EIGHT = 0x08
    NINE = 0x09
    SKIP = 0x0A
    REVERSE = 0x0B
    DRAW_TWO = 0x0C
    WILD = 0x0D
    WILD_DRAW_FOUR = 0x0E
    BLANK = 0x0F
    SOUND_WILD = 0x10
    PLUS_ONE = 0x11
    PLUS_TWO = 0x12


PLAYABLE_COLORS: tuple[ColorCode, ...] = (ColorCode.RED, ColorCode.YELLOW, ColorCode.GREEN, ColorCode.BLUE)
BLACK_RANKS: frozenset[RankCode] = frozenset(
    {
        RankCode.WILD,
        RankCode.WILD_DRAW_FOUR,
        RankCode.BLANK,
        RankCode.SOUND_WILD,
        RankCode.PLUS_ONE,
        RankCode.PLUS_TWO,
    }
)


@dataclass(frozen=True, slots=True, order=True)
class CardCode:
    """One card as the fairness layer hashes it. Ordering is byte order, which `canonical_order` uses.

    Black cards are exactly the wild family, as in the rules (C1, C2); any other pairing is refused
    with InvalidInput so that a commitment can never be made to a card that does not exist.
    """

    color: ColorCode
    rank: RankCode

    def __post_init__(self) -> None:
        if not isinstance(self.color, ColorCode) or not isinstance(self.rank, RankCode):
            raise InvalidInput(f"a card needs a ColorCode and a RankCode, got {self.color!r}, {self.rank!r}")
        if (self.color is ColorCode.BLACK) != (self.rank in BLACK_RANKS):
            raise InvalidInput(f"no such card: {self.color.name} {self.rank.name}")

    @property
    def is_black(self) -> bool:
        return self.color is ColorCode.BLACK

    def to_bytes(self) -> bytes:
        """The two bytes that every hash in the scheme uses for this card."""
        return bytes((self.color, self.rank))

    @classmethod
    def from_bytes(cls, data: bytes) -> CardCode:
        """Decode two bytes. Raises InvalidInput for any other length or a byte pair that is no card."""
        if len(data) != 2:
            raise InvalidInput(f"a card is 2 bytes, got {len(data)}: {data.hex()}")
        try:
            return cls(ColorCode(data[0]), RankCode(data[1]))
        except ValueError:
            raise InvalidInput(f"no such card: bytes {data.hex()}") from None

    def __str__(self) -> str:
        name = self.rank.name.lower()
        return name if self.is_black else f"{self.color.name.lower()} {name}"


ALL_CARDS: tuple[CardCode, ...] = tuple(
    sorted(
        [CardCode(c, r) for c in PLAYABLE_COLORS for r in RankCode if r not in BLACK_RANKS]
        + [CardCode(ColorCode.BLACK, r) for r in BLACK_RANKS]
    )
)
"""Every distinct card that exists, in byte order (4 x 13 coloured + 6 black = 58)."""


def canonical_order(cards: Iterable[CardCode]) -> list[CardCode]:
    """The unshuffled deck: the cards sorted by their two-byte encoding.

    The shuffle starts from this order, so a verifier needs only the deck's contents (from the ruleset)
    and never the order in which some engine happened to build it.
    """
    cards = list(cards)
    if set(map(type, cards)) <= {CardCode}:  # the same order, by a C key instead of dataclass `<`
        cards.sort(key=_BYTE_ORDER)
        return cards
    return sorted(cards)


_BYTE_ORDER = attrgetter("color", "rank")


def standard_card_codes(
    *, blank_cards: bool = False, sound_wilds: bool = False, h2o_wilds: bool = False
) -> list[CardCode]:
    """The deck of rule C1 (108 cards), plus the optional black cards of C2, in canonical order, as the
    codes the commitments bind (the engine's `standard_deck` is the same deck as engine cards)."""
    deck: list[CardCode] = []
    for color in PLAYABLE_COLORS:
        deck.append(CardCode(color, RankCode.ZERO))
        for rank in RankCode:
            if RankCode.ONE <= rank <= RankCode.DRAW_TWO:
                deck += [CardCode(color, rank)] * 2
    extras = [(RankCode.WILD, 4), (RankCode.WILD_DRAW_FOUR, 4)]
    if blank_cards:
        extras.append((RankCode.BLANK, 4))
    if sound_wilds:
        extras.append((RankCode.SOUND_WILD, 8))
    if h2o_wilds:
        extras += [(RankCode.PLUS_ONE, 2), (RankCode.PLUS_TWO, 2)]
    for rank, count in extras:
        deck += [CardCode(ColorCode.BLACK, rank)] * count
    return canonical_order(deck)
