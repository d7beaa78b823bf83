"""Actions a seat can take, as small frozen values. `Game.apply` is the only thing that consumes them.

Each class writes out the `__init__` that `dataclass` would write, so that the compiled build compiles
it (why: `_frozen`'s docstring; tests/engine/test_frozen.py holds each to its fields).
"""

from __future__ import annotations

from dataclasses import dataclass

from unonet.engine._frozen import fast_init
from unonet.engine.cards import Card, Color


@dataclass(frozen=True, slots=True)
class Play:
    """Play one card, or several at once (H4 runs, H5 multi-play), optionally calling UNO (U1).

    A play by a seat whose turn it is not is a jump-in (H6–H8) or a run cut (H4).
    """

    seat: int
    cards: tuple[Card, ...]
    call_uno: bool = False

    def __init__(self, seat: int, cards: tuple[Card, ...], call_uno: bool = False) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "call_uno", call_uno)

    @property
    def card(self) -> Card:
        return self.cards[0]


@dataclass(frozen=True, slots=True)
class ChooseColor:
    """Name the colour after playing a black card (T9, T10)."""

    seat: int
    color: Color

    def __init__(self, seat: int, color: Color) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "color", color)


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw a card on one's turn (T3, T4), or accept an open draw obligation (T8, T10)."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class Pass:
    """Keep the card just drawn instead of playing it (T3), or decline the card swap after a 5 (H11)."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class CallUno:
    """Call UNO after playing one's second-to-last card (U1)."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class CatchUno:
    """Catch a player who holds one card and has not called UNO (U2, U4)."""

    seat: int
    target: int

    def __init__(self, seat: int, target: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "target", target)


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the Wild Draw Four one must answer (B1)."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class ChooseSwapTarget:
    """Pick whom to swap hands with after playing a 7 (H10)."""

    seat: int
    target: int

    def __init__(self, seat: int, target: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "target", target)


@dataclass(frozen=True, slots=True)
class FiveSwap:
    """After playing a 5, give one card to another player, who then gives one back (H11)."""

    seat: int
    target: int
    card: Card

    def __init__(self, seat: int, target: int, card: Card) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "card", card)


@dataclass(frozen=True, slots=True)
class GiveCard:
    """The five-swap target's card given back (H11)."""

    seat: int
    card: Card

    def __init__(self, seat: int, card: Card) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)


@dataclass(frozen=True, slots=True)
class React:
    """Answer a reaction window that everyone must answer: a UNO slap (U5) or a Sound Wild (H12)."""

    seat: int
    window: int

    def __init__(self, seat: int, window: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "window", window)


@dataclass(frozen=True, slots=True)
class Chat:
    """A message in the table chat; the engine sees only that it was said (H14)."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


fast_init(
    Play, ChooseColor, Draw, Pass, CallUno, CatchUno, Challenge, ChooseSwapTarget, FiveSwap, GiveCard, React, Chat
)


Action = (
    Play
    | ChooseColor
    | Draw
    | Pass
    | CallUno
    | CatchUno
    | Challenge
    | ChooseSwapTarget
    | FiveSwap
    | GiveCard
    | React
    | Chat
)
