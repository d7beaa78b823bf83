"""The engine's commonest events, each built once and shared: values of a seat and at most one card.

Events are frozen, so sharing one cannot be seen, while building one costs a Python-level `__init__`
(on the compiled build too: the `dataclasses` module writes it). `Game`'s modules ask these functions
for them instead of building their own. Seats are 0-9 (S1); the one-card tables are lists indexed by hand
size and by `seat * 58 + card.index` (the hot core's int card), and the other caches are keyed by ints,
never by an enum member: an `Enum` hashes in Python (its `__hash__` is Python code), which the compiled
build then runs interpreted. A member's place in its enum (`tuple.index`, compared by identity in C)
is the int.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from unonet.engine import events as ev
from unonet.engine.cards import CARDS, PLAYABLE_COLORS, Card, Color, Rank
from unonet.engine.events import DrawReason, Window, WindowKind

_TURN_STARTED: Final = tuple(ev.TurnStarted(seat) for seat in range(10))
_SKIPPED: Final = tuple(ev.Skipped(seat) for seat in range(10))
_UNO_CALLED: Final = tuple(ev.UnoCalled(seat) for seat in range(10))
_COLOR_CHOSEN: Final = tuple(tuple(ev.ColorChosen(seat, color) for color in PLAYABLE_COLORS) for seat in range(10))
# Played(seat, (card,), hand_size=n) at `_PLAYED_ONE[n][_one_card(seat, card)]`, built on first use (hands
# hold under 128 cards but for the rare longer one, whose event is built afresh); Drew(seat, 1,
# DrawReason.TURN, (card,), hand_size=n) in `_DREW_ONE` the same way; the shared Played with `called_uno`
# set (U1: the play that brings a hand to one card carries the call) in `_PLAYED_ONE_CALLED`.
_CACHED_HAND_SIZES: Final = 128
_ONE_CARD_SLOTS: Final = 10 * len(CARDS)
_PLAYED_ONE: Final[list[list[ev.Played | None]]] = [[None] * _ONE_CARD_SLOTS for _ in range(_CACHED_HAND_SIZES)]
_DREW_ONE: Final[list[list[ev.Drew | None]]] = [[None] * _ONE_CARD_SLOTS for _ in range(_CACHED_HAND_SIZES)]
_PLAYED_ONE_CALLED: Final[list[list[ev.Played | None]]] = [[None] * _ONE_CARD_SLOTS for _ in range(2)]
_DRAW_OBLIGATION: dict[tuple[int, int, int, int, bool], ev.DrawObligation] = {}
_WINDOW_CLOSED: dict[int, ev.WindowClosed] = {}  # closed with nobody answering: id * 8 + the kind's place
_RANKS: Final = tuple(Rank)
_WINDOW_KINDS: Final = tuple(WindowKind)


def turn_started(seat: int) -> ev.TurnStarted:
    return _TURN_STARTED[seat]


def skipped(seat: int) -> ev.Skipped:
    return _SKIPPED[seat]


def uno_called(seat: int) -> ev.UnoCalled:
    return _UNO_CALLED[seat]


def color_chosen(seat: int, color: Color) -> ev.ColorChosen:
    """`ColorChosen(seat, color)` for a playable colour."""
    return _COLOR_CHOSEN[seat][PLAYABLE_COLORS.index(color)]


def played_one(seat: int, cards: tuple[Card, ...], hand_size: int) -> ev.Played:
    """`Played(seat, cards, hand_size=hand_size)` for one card."""
    if hand_size >= _CACHED_HAND_SIZES:
        return ev.Played(seat, cards, hand_size=hand_size)
    row = _PLAYED_ONE[hand_size]
    at = _one_card(seat, cards[0])
    played = row[at]
    if played is None:
        played = row[at] = ev.Played(seat, cards, hand_size=hand_size)
    return played


def drew_one(seat: int, card: Card, hand_size: int) -> ev.Drew:
    """`Drew(seat, 1, DrawReason.TURN, (card,), hand_size)`: one card drawn on one's turn."""
    if hand_size >= _CACHED_HAND_SIZES:
        return ev.Drew(seat, 1, DrawReason.TURN, (card,), hand_size)
    row = _DREW_ONE[hand_size]
    at = _one_card(seat, card)
    drew = row[at]
    if drew is None:
        drew = row[at] = ev.Drew(seat, 1, DrawReason.TURN, (card,), hand_size)
    return drew


def called_uno(played: ev.Played) -> ev.Played:
    """`played` with `called_uno` set; shared when `played` is the shared one-card event (hand size 1)."""
    size = played.hand_size
    if len(played.cards) != 1 or size >= len(_PLAYED_ONE_CALLED):
        return dataclasses.replace(played, called_uno=True)
    at = _one_card(played.seat, played.cards[0])
    if _PLAYED_ONE[size][at] is not played:  # a jump-in or a run cut's
        return dataclasses.replace(played, called_uno=True)
    row = _PLAYED_ONE_CALLED[size]
    called = row[at]
    if called is None:
        called = row[at] = dataclasses.replace(played, called_uno=True)
    return called


def window_closed(window: Window) -> ev.WindowClosed:
    """`WindowClosed(window.id, kind=window.kind)`: house rules open and close a window on nearly every play."""
    key = window.id * 8 + _WINDOW_KINDS.index(window.kind)
    event = _WINDOW_CLOSED.get(key)
    if event is None:
        event = ev.WindowClosed(window.id, kind=window.kind)
        if window.id < 4096:  # ids count up within a round; the table stays small however long one runs
            _WINDOW_CLOSED[key] = event
    return event


def draw_obligation(target: int, amount: int, setter: int, kind: Rank, challengeable: bool) -> ev.DrawObligation:
    """`DrawObligation(target, amount, setter, kind, challengeable)`."""
    key = (target, amount, setter, _RANKS.index(kind), challengeable)
    event = _DRAW_OBLIGATION.get(key)
    if event is None:
        event = ev.DrawObligation(target, amount, setter, kind, challengeable)
        if amount < 64:  # keeps the table small however long a stacked chain runs
            _DRAW_OBLIGATION[key] = event
    return event


def _one_card(seat: int, card: Card) -> int:
    """A one-card event's place in its row of `_PLAYED_ONE` or `_DREW_ONE`."""
    return seat * len(CARDS) + card.index
