"""What happened, as data. The engine appends events; the host numbers, stores and streams them.

Some events carry hidden cards. `visible_to(seat)` is the one place that decides what another seat (or
a spectator, `None`) may learn from an event: it returns the event itself, a copy with the hidden
faces removed, or `None` when the event is not theirs to see at all.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from unonet.engine._frozen import fast_init
from unonet.engine.cards import Card, Color


class DrawReason(Enum):
    """Why cards were drawn: clients show it, scenario files check it."""

    TURN = "turn"
    OBLIGATION = "obligation"
    UNO_PENALTY = "uno_penalty"
    FALSE_CATCH = "false_catch"
    CHALLENGE_LOST = "challenge_lost"
    BLUFF_CAUGHT = "bluff_caught"
    SLOWEST = "slowest"
    WRONG_JUMP_IN = "wrong_jump_in"
    ILLEGAL_PLAY = "illegal_play"
    BROKE_SILENCE = "broke_silence"
    H2O = "h2o"


class WindowKind(Enum):
    """The races of RULES.md, each resolved from an ordered list of reactions."""

    UNO_CATCH = "uno_catch"
    JUMP_IN = "jump_in"
    RUN_CUT = "run_cut"
    UNO_SLAP = "uno_slap"
    SOUND_WILD = "sound_wild"
    SKIP_ESCAPE = "skip_escape"


@fast_init
@dataclass(frozen=True, slots=True)
class Window:
    """An open reaction window: who may answer, and whether play waits for it to close.

    Blocking windows (slap, sound wild, run cut) hold the turn until the host closes them; the others
    close by themselves when the next player to act begins their turn.
    """

    id: int
    kind: WindowKind
    eligible: tuple[int, ...]
    opened_by: int
    is_blocking: bool
    target: int | None = None


class Event:
    """Base of every event. Public unless a subclass says otherwise."""

    __slots__ = ()

    def visible_to(self, seat: int | None) -> Event | None:
        return self


@fast_init
@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """S2: each draw made to choose the dealer, in order, and who deals."""

    draws: tuple[tuple[int, Card], ...]
    dealer: int


@fast_init
@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round_no: int
    dealer: int
    seats: tuple[int, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """S3: a seat's hand. Others learn only how many cards it holds."""

    seat: int
    count: int
    cards: tuple[Card, ...] = ()

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat == self.seat else Dealt(self.seat, self.count)  # not replace(): per seat, per render


@fast_init
@dataclass(frozen=True, slots=True)
class FirstCardTurned(Event):
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class FirstCardReturned(Event):
    """S4: a first card that cannot start the pile went back into the draw pile."""

    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class Played(Event):
    seat: int
    cards: tuple[Card, ...]
    jump_in: bool = False
    run_cut: bool = False


@fast_init
@dataclass(frozen=True, slots=True)
class ColorChosen(Event):
    seat: int
    color: Color


@fast_init
@dataclass(frozen=True, slots=True)
class Drew(Event):
    """Cards taken from the draw pile. Only the drawer sees their faces."""

    seat: int
    count: int
    reason: DrawReason
    cards: tuple[Card, ...] = ()

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat == self.seat else Drew(self.seat, self.count, self.reason)  # as Dealt's


@fast_init
@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    """T5: the discards under the top card became the new draw pile."""

    count: int


@fast_init
@dataclass(frozen=True, slots=True)
class Skipped(Event):
    seat: int


@fast_init
@dataclass(frozen=True, slots=True)
class DirectionChanged(Event):
    direction: int


@fast_init
@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int


@fast_init
@dataclass(frozen=True, slots=True)
class DrawObligation(Event):
    """An open draw obligation: `target` must draw `amount` (or answer it, where the rules allow)."""

    target: int
    amount: int
    setter: int


@fast_init
@dataclass(frozen=True, slots=True)
class UnoCalled(Event):
    seat: int


@fast_init
@dataclass(frozen=True, slots=True)
class UnoCaught(Event):
    catcher: int
    target: int
    penalty: int


@fast_init
@dataclass(frozen=True, slots=True)
class FalseCatch(Event):
    """U4: a catch of someone who was not catchable."""

    catcher: int
    target: int
    penalty: int


@fast_init
@dataclass(frozen=True, slots=True)
class Challenged(Event):
    """B3/B4: the verdict, which everyone sees."""

    challenger: int
    accused: int
    guilty: bool


@fast_init
@dataclass(frozen=True, slots=True)
class HandRevealed(Event):
    """B2: the accused hand as it was when the Wild Draw Four was played, for the challenger only."""

    to_seat: int
    seat: int
    cards: tuple[Card, ...]

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat == self.to_seat else None


@fast_init
@dataclass(frozen=True, slots=True)
class CardTakenBack(Event):
    """B3 `take_back`: the bluffed Wild Draw Four went back to its player."""

    seat: int
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class HandsRotated(Event):
    """H10 zero: every hand moved one seat in the direction of play. Each seat sees its own new hand."""

    direction: int
    hands: tuple[tuple[Card, ...], ...]

    def visible_to(self, seat: int | None) -> Event | None:
        hidden = tuple(hand if i == seat else () for i, hand in enumerate(self.hands))
        return self if hidden == self.hands else dataclasses.replace(self, hands=hidden)


@fast_init
@dataclass(frozen=True, slots=True)
class HandsSwapped(Event):
    """H10 seven: two seats swapped hands; each sees the hand it received."""

    seat: int
    target: int
    seat_hand: tuple[Card, ...] = ()
    target_hand: tuple[Card, ...] = ()

    def visible_to(self, seat: int | None) -> Event | None:
        return dataclasses.replace(
            self,
            seat_hand=self.seat_hand if seat == self.seat else (),
            target_hand=self.target_hand if seat == self.target else (),
        )


@fast_init
@dataclass(frozen=True, slots=True)
class SwapOffered(Event):
    """H11: the player of a 5 gave a card; only the two seats see it."""

    seat: int
    target: int
    card: Card | None

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat in (self.seat, self.target) else dataclasses.replace(self, card=None)


@fast_init
@dataclass(frozen=True, slots=True)
class CardsExchanged(Event):
    """H11: the five-swap completed; only the two seats see the cards."""

    seat: int
    target: int
    given: Card | None
    received: Card | None

    def visible_to(self, seat: int | None) -> Event | None:
        if seat in (self.seat, self.target):
            return self
        return dataclasses.replace(self, given=None, received=None)


@fast_init
@dataclass(frozen=True, slots=True)
class WindowOpened(Event):
    window: Window


@fast_init
@dataclass(frozen=True, slots=True)
class WindowClosed(Event):
    """A window closed; `order` is the ruling (reactions in the order they were applied)."""

    window: int
    order: tuple[int, ...] = ()
    penalised: tuple[int, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True)
class RaceLost(Event):
    """A reaction that arrived after its window had been decided: no effect, no penalty."""

    seat: int
    window: int


@fast_init
@dataclass(frozen=True, slots=True)
class WrongJumpIn(Event):
    """H6: a jump-in the rules do not allow; the card stays in hand and the jumper pays."""

    seat: int
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class IllegalPlay(Event):
    """H15: a card that did not match went back to the hand."""

    seat: int
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class PenaltyPoints(Event):
    seat: int
    points: int


@fast_init
@dataclass(frozen=True, slots=True)
class SilenceStarted(Event):
    """H14: a 2 was played; nobody may chat until its player plays again."""

    seat: int


@fast_init
@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """P1–P3: the round's winner, each seat's points this round and the match totals after it."""

    round_no: int
    winner: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]


@fast_init
@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    seat: int


@fast_init
@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    winners: tuple[int, ...]
    totals: tuple[int, ...]
