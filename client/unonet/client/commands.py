"""The commands a seat can send, as small frozen values: what a bot's `decide` returns and
what a person's key press becomes.

One class per PlayService RPC. `TableClient.send(command)` turns one into the
matching request, with the table id, token and a fresh command id filled in.
"""

from __future__ import annotations

from dataclasses import dataclass

from unonet.v1 import cards_pb2

__all__ = [
    "CallUno",
    "CatchUno",
    "Challenge",
    "ChooseColor",
    "ChooseSwapTarget",
    "Command",
    "CommitEntropy",
    "Draw",
    "FiveSwap",
    "GiveCard",
    "Pass",
    "Play",
    "React",
    "RevealEntropy",
]


@dataclass(frozen=True, slots=True)
class Play:
    """PlayCards: `cards` in order; `color` for a last card that names one; `call_uno` to call with it."""

    cards: tuple[cards_pb2.Card, ...]
    color: cards_pb2.Color.ValueType | None = None
    call_uno: bool = False
    reaction_window_id: int = 0


@dataclass(frozen=True, slots=True)
class ChooseColor:
    """ChooseColor: name the colour in force."""

    color: cards_pb2.Color.ValueType


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw: draw for the turn, or accept the open draw obligation."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: keep the card just drawn and end the turn."""


@dataclass(frozen=True, slots=True)
class CallUno:
    """CallUno: call UNO for one's last card."""


@dataclass(frozen=True, slots=True)
class CatchUno:
    """CatchUno: catch `target_seat`; a zero window lets the host pick the seat's open window."""

    target_seat: int
    reaction_window_id: int = 0


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge: challenge the Wild Draw Four one must answer."""


@dataclass(frozen=True, slots=True)
class React:
    """React: answer a UNO slap or Sound Wild window."""

    reaction_window_id: int


@dataclass(frozen=True, slots=True)
class ChooseSwapTarget:
    """ChooseSwapTarget: whom to swap hands with after a 7."""

    target_seat: int


@dataclass(frozen=True, slots=True)
class FiveSwap:
    """FiveSwap: whom to swap a card with after a 5, and which card to give."""

    target_seat: int
    card: cards_pb2.Card


@dataclass(frozen=True, slots=True)
class GiveCard:
    """GiveCard: the card to give back as the target of a five swap."""

    card: cards_pb2.Card


@dataclass(frozen=True, slots=True)
class CommitEntropy:
    """CommitEntropy: the seat's commitment to its contribution to the next shuffle (docs/fairness.md 6.1)."""

    commitment: bytes


@dataclass(frozen=True, slots=True)
class RevealEntropy:
    """RevealEntropy: the contribution committed to, once every seat's commitment is in."""

    entropy: bytes


Command = (
    Play
    | ChooseColor
    | Draw
    | Pass
    | CallUno
    | CatchUno
    | Challenge
    | React
    | ChooseSwapTarget
    | FiveSwap
    | GiveCard
    | CommitEntropy
    | RevealEntropy
)
