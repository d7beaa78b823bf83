"""Cards and decks (rules C1–C3).

Cards are small frozen values compared by colour and rank. There is one instance per colour and rank:
`Card(color, rank)` returns it from an interned table, so equal cards are the same object, compare by
identity (no Python-level `__eq__` on the hot paths) and never allocate.

Each card also carries `key`, a small int fixed by its colour and rank (the same in every process):
cards hash by it, so sets and dicts of cards cost no enum hashing, and their order never depends on
`PYTHONHASHSEED`. And `index`, its place in `CARDS`, the table of the 58 distinct cards (0-57): the hot
core's int card. A set of cards is then one int with a bit per index (`1 << card.index`), small enough
for a machine word, which is how the match table (`rules.MATCHES`) says which cards fit the pile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Color(Enum):
    """A card's colour. Black is only ever a card's colour, never the colour in force."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    BLACK = "black"


PLAYABLE_COLORS: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)


class Rank(Enum):
    """What a card is, apart from its colour."""

    ZERO = "0"
    ONE = "1"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    SKIP = "skip"
    REVERSE = "reverse"
    DRAW_TWO = "draw_two"
    WILD = "wild"
    WILD_DRAW_FOUR = "wild_draw_four"
    BLANK = "blank"
    SOUND_WILD = "sound_wild"
    PLUS_ONE = "plus_one"
    PLUS_TWO = "plus_two"

    @property
    def is_number(self) -> bool:
        return self in _NUMBER_VALUE

    @property
    def number(self) -> int:
        """The face value of a number card; raises KeyError for any other rank."""
        return _NUMBER_VALUE[self]


NUMBER_RANKS: tuple[Rank, ...] = tuple(Rank)[:10]
_COLOR_INDEX: dict[Color, int] = {color: index for index, color in enumerate(Color)}
_RANK_INDEX: dict[Rank, int] = {rank: index for index, rank in enumerate(Rank)}
_NUMBER_VALUE: dict[Rank, int] = {rank: value for value, rank in enumerate(NUMBER_RANKS)}
ACTION_RANKS: tuple[Rank, ...] = (Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO)
BLACK_RANKS: frozenset[Rank] = frozenset(
    {Rank.WILD, Rank.WILD_DRAW_FOUR, Rank.BLANK, Rank.SOUND_WILD, Rank.PLUS_ONE, Rank.PLUS_TWO}
)
# `Card.index`: the 13 coloured ranks of each playable colour in turn (0-51), then the black cards (52-57).
_COLORED_RANKS: tuple[Rank, ...] = (*NUMBER_RANKS, *ACTION_RANKS)
_BLACK_ORDER: tuple[Rank, ...] = tuple(rank for rank in Rank if rank in BLACK_RANKS)
_CARD_INDEX: dict[tuple[Color, Rank], int] = {
    **{(color, rank): c * len(_COLORED_RANKS) + r for c, color in enumerate(Color) if color is not Color.BLACK
       for r, rank in enumerate(_COLORED_RANKS)},
    **{(Color.BLACK, rank): 4 * len(_COLORED_RANKS) + r for r, rank in enumerate(_BLACK_ORDER)},
}  # fmt: skip


@dataclass(frozen=True, slots=True, eq=False)  # interned: identity is equality
class Card:
    """One card: a colour and a rank. Black cards are exactly the wild family.

    `Card(color, rank)` returns the one interned card of that colour and rank (raises ValueError for a
    card that does not exist), so `==` is identity and `hash` is `key`.
    """

    color: Color
    rank: Rank
    key: int = field(init=False, repr=False)
    """A small int naming the colour and rank, the same in every process; cards hash by it."""
    index: int = field(init=False, repr=False)
    """This card's place in `CARDS` (0-57), the same in every process: the hot core's int card."""

    def __new__(cls, color: Color, rank: Rank) -> Card:
        try:
            return _INTERNED[(color, rank)]
        except (KeyError, TypeError):
            if not _INTERNING:  # every card exists by now
                raise ValueError(
                    f"no such card: {getattr(color, 'value', color)} {getattr(rank, 'value', rank)}"
                ) from None
        # Only while this module builds `_INTERNED`. Inside `__new__` mypyc turns this call into its own
        # allocation (anywhere else a native class refuses `object.__new__`); not `super()`, which a
        # slotted dataclass's rebuilt class breaks.
        return object.__new__(cls)

    def __post_init__(self) -> None:
        if (self.color is Color.BLACK) != (self.rank in BLACK_RANKS):
            raise ValueError(f"no such card: {self.color.value} {self.rank.value}")
        object.__setattr__(self, "key", _COLOR_INDEX[self.color] * len(_RANK_INDEX) + _RANK_INDEX[self.rank])
        object.__setattr__(self, "index", _CARD_INDEX[(self.color, self.rank)])

    def __hash__(self) -> int:
        return self.key

    def __reduce__(self) -> tuple[type[Card], tuple[Color, Rank]]:
        return Card, (self.color, self.rank)

    @property
    def is_black(self) -> bool:
        return self.color is Color.BLACK

    @property
    def points(self) -> int:
        """Rule C3: number cards their face value, coloured actions 20, black cards 50."""
        return _POINTS_BY_INDEX[self.index]

    @classmethod
    def of(cls, color: Color, rank: Rank) -> Card:
        """The interned card for a colour and rank (raises ValueError for a card that does not exist)."""
        try:
            return _INTERNED[(color, rank)]
        except KeyError:
            raise ValueError(f"no such card: {color.value} {rank.value}") from None

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card written as `red 5`, `blue skip`, `black wild_draw_four` or `wild`.

        Used by scenario files and command lines, never by the hot path. Raises ValueError.
        """
        words = text.strip().lower().replace("-", "_").split()
        if len(words) == 1:
            words = ["black", words[0]]
        if len(words) != 2:
            raise ValueError(f"cannot read card {text!r}: expected '<colour> <rank>'")
        try:
            return cls.of(Color(words[0]), Rank(words[1]))
        except ValueError:
            raise ValueError(f"cannot read card {text!r}: unknown colour or rank") from None

    def __str__(self) -> str:
        return self.rank.value if self.is_black else f"{self.color.value} {self.rank.value}"

    def __repr__(self) -> str:
        return f"Card({self})"

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_POINTS: dict[Rank, int] = {
    **{rank: value for rank, value in _NUMBER_VALUE.items()},
    **{rank: 20 for rank in ACTION_RANKS},
    **{rank: 50 for rank in BLACK_RANKS},
}


_INTERNING = True
_INTERNED: dict[tuple[Color, Rank], Card] = {}
_INTERNED.update({(c, r): Card(c, r) for c in PLAYABLE_COLORS for r in (*NUMBER_RANKS, *ACTION_RANKS)})
_INTERNED.update({(Color.BLACK, r): Card(Color.BLACK, r) for r in BLACK_RANKS})
_INTERNING = False

CARDS: tuple[Card, ...] = tuple(sorted(_INTERNED.values(), key=lambda card: card.index))
"""Every distinct card, each at its `index`: the card table the hot core's int cards index."""
_POINTS_BY_INDEX: tuple[int, ...] = tuple(_POINTS[card.rank] for card in CARDS)


def color_slot(color: Color | None) -> int:
    """The colour in force as a small int for the hot core's tables: its place in `PLAYABLE_COLORS`, or
    4 for none (after a Sound Wild, H12). Black is never the colour in force."""
    if color is Color.RED:
        return 0
    if color is Color.YELLOW:
        return 1
    if color is Color.GREEN:
        return 2
    if color is Color.BLUE:
        return 3
    return 4


def standard_deck(*, blank_cards: bool = False, sound_wilds: bool = False, h2o_wilds: bool = False) -> list[Card]:
    """The 108-card deck of rule C1 in a fixed order, plus the optional black cards of C2 (a new list)."""
    flags = (blank_cards, sound_wilds, h2o_wilds)
    deck = _DECKS.get(flags)
    if deck is None:
        deck = _DECKS[flags] = tuple(_build_deck(blank_cards, sound_wilds, h2o_wilds))
    return list(deck)


_DECKS: dict[tuple[bool, bool, bool], tuple[Card, ...]] = {}


def _build_deck(blank_cards: bool, sound_wilds: bool, h2o_wilds: bool) -> list[Card]:
    deck: list[Card] = []
    for color in PLAYABLE_COLORS:
        deck.append(Card.of(color, Rank.ZERO))
        for rank in (*NUMBER_RANKS[1:], *ACTION_RANKS):
            deck += [Card.of(color, rank)] * 2
    deck += [Card.of(Color.BLACK, Rank.WILD)] * 4
    deck += [Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)] * 4
    if blank_cards:
        deck += [Card.of(Color.BLACK, Rank.BLANK)] * 4
    if sound_wilds:
        deck += [Card.of(Color.BLACK, Rank.SOUND_WILD)] * 8
    if h2o_wilds:
        deck += [Card.of(Color.BLACK, Rank.PLUS_ONE)] * 2 + [Card.of(Color.BLACK, Rank.PLUS_TWO)] * 2
    return deck
