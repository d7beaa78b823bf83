"""What happened, as data. The engine appends events; the host numbers, stores and streams them.

Some events carry hidden cards. `visible_to(seat)` is the one place that decides what another seat (or
a spectator, `None`) may learn from an event: it returns the event itself, a copy with the hidden
faces removed, or `None` when the event is not theirs to see at all.

Each class writes out the `__init__` that `dataclass` would write, so that the compiled build compiles
it (why: `_frozen`'s docstring; tests/engine/test_frozen.py holds each to its fields).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar, cast

from unonet.engine._frozen import fast_init
from unonet.engine.cards import Card, Color, Rank
from unonet.engine.ruleset import BluffPenalty


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


class MatchEndReason(Enum):
    """Why a match ended: a seat reached the target score, or one seat is left (elimination, forfeits)."""

    TARGET_SCORE = "target_score"
    LAST_SEAT_STANDING = "last_seat_standing"


class WindowKind(Enum):
    """The races of RULES.md, each resolved from an ordered list of reactions."""

    UNO_CATCH = "uno_catch"
    JUMP_IN = "jump_in"
    RUN_CUT = "run_cut"
    UNO_SLAP = "uno_slap"
    SOUND_WILD = "sound_wild"
    SKIP_ESCAPE = "skip_escape"


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
    card: Card | None = None  # the card it is about: to jump in on, the run's, the Sound Wild, the Skip

    def __init__(
        self,
        id: int,
        kind: WindowKind,
        eligible: tuple[int, ...],
        opened_by: int,
        is_blocking: bool,
        target: int | None = None,
        card: Card | None = None,
    ) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "eligible", eligible)
        object.__setattr__(self, "opened_by", opened_by)
        object.__setattr__(self, "is_blocking", is_blocking)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "card", card)

    def __reduce__(self) -> tuple[type[Window], tuple[object, ...]]:
        return _reduce(self)


_T = TypeVar("_T")


def _reduce(value: _T) -> tuple[type[_T], tuple[object, ...]]:
    """Pickle a frozen dataclass as its class and its field values, rebuilt through `__init__`.

    The compiled build's own unpickling of a native frozen class sets the fields one by one after
    building it, which the frozen `__setattr__` refuses; the class's `__init__` takes them all at once.
    """
    return type(value), tuple(getattr(value, f.name) for f in dataclasses.fields(cast(Any, value)))


class Event:
    """Base of every event. Public unless a subclass says otherwise."""

    __slots__ = ()

    def visible_to(self, seat: int | None) -> Event | None:
        return self

    def __reduce__(self) -> tuple[type[Event], tuple[object, ...]]:
        return _reduce(self)


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    """S2: each draw made to choose the dealer, in order, and who deals."""

    draws: tuple[tuple[int, Card], ...]
    dealer: int

    def __init__(self, draws: tuple[tuple[int, Card], ...], dealer: int) -> None:
        object.__setattr__(self, "draws", draws)
        object.__setattr__(self, "dealer", dealer)


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round_no: int
    dealer: int
    seats: tuple[int, ...]

    def __init__(self, round_no: int, dealer: int, seats: tuple[int, ...]) -> None:
        object.__setattr__(self, "round_no", round_no)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "seats", seats)


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """S3: a seat's hand. Others learn only how many cards it holds. `dealer` dealt it; `draw_pile` is
    how many cards the draw pile holds once every hand is dealt (before the first card is turned)."""

    seat: int
    count: int
    cards: tuple[Card, ...] = ()
    dealer: int = 0
    draw_pile: int = 0

    def __init__(
        self, seat: int, count: int, cards: tuple[Card, ...] = (), dealer: int = 0, draw_pile: int = 0
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "draw_pile", draw_pile)

    def visible_to(self, seat: int | None) -> Event | None:
        if seat == self.seat:
            return self
        return Dealt(self.seat, self.count, (), self.dealer, self.draw_pile)  # not replace(): per seat, per render


@dataclass(frozen=True, slots=True)
class FirstCardTurned(Event):
    card: Card

    def __init__(self, card: Card) -> None:
        object.__setattr__(self, "card", card)


@dataclass(frozen=True, slots=True)
class FirstCardReturned(Event):
    """S4: a first card that cannot start the pile went back into the draw pile."""

    card: Card

    def __init__(self, card: Card) -> None:
        object.__setattr__(self, "card", card)


@dataclass(frozen=True, slots=True)
class Played(Event):
    """Cards that landed on the pile. `hand_size` is the player's hand afterwards; `called_uno` says the
    play carried the UNO call that follows it; `window` is the reaction window a jump-in or run cut won."""

    seat: int
    cards: tuple[Card, ...]
    jump_in: bool = False
    run_cut: bool = False
    hand_size: int = 0
    called_uno: bool = False
    window: int = 0

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        jump_in: bool = False,
        run_cut: bool = False,
        hand_size: int = 0,
        called_uno: bool = False,
        window: int = 0,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "jump_in", jump_in)
        object.__setattr__(self, "run_cut", run_cut)
        object.__setattr__(self, "hand_size", hand_size)
        object.__setattr__(self, "called_uno", called_uno)
        object.__setattr__(self, "window", window)


@dataclass(frozen=True, slots=True)
class ColorChosen(Event):
    seat: int
    color: Color

    def __init__(self, seat: int, color: Color) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "color", color)


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """Cards taken from the draw pile. Only the drawer sees their faces. `hand_size` is the drawer's hand
    afterwards; `forgiven` the cards owed that even a rebuilt pile could not supply (T5)."""

    seat: int
    count: int
    reason: DrawReason
    cards: tuple[Card, ...] = ()
    hand_size: int = 0
    forgiven: int = 0

    def __init__(
        self,
        seat: int,
        count: int,
        reason: DrawReason,
        cards: tuple[Card, ...] = (),
        hand_size: int = 0,
        forgiven: int = 0,
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "hand_size", hand_size)
        object.__setattr__(self, "forgiven", forgiven)

    def visible_to(self, seat: int | None) -> Event | None:
        if seat == self.seat:
            return self
        return Drew(self.seat, self.count, self.reason, (), self.hand_size, self.forgiven)  # as Dealt's


@dataclass(frozen=True, slots=True)
class DrawnCardKept(Event):
    """T3: the player kept the card it drew (Pass) and its turn ends."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    """T5: the discards under the top card became the new draw pile."""

    count: int

    def __init__(self, count: int) -> None:
        object.__setattr__(self, "count", count)


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class DirectionChanged(Event):
    direction: int

    def __init__(self, direction: int) -> None:
        object.__setattr__(self, "direction", direction)


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class DrawObligation(Event):
    """An open draw obligation: `target` must draw `amount` (or answer it, where the rules allow).

    `kind` is the rank of the card that set or last raised it (a deflection keeps it); `challengeable`
    says the target may challenge the Wild Draw Four behind it (B1, B5)."""

    target: int
    amount: int
    setter: int
    kind: Rank = Rank.DRAW_TWO
    challengeable: bool = False

    def __init__(
        self, target: int, amount: int, setter: int, kind: Rank = Rank.DRAW_TWO, challengeable: bool = False
    ) -> None:
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "setter", setter)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "challengeable", challengeable)


@dataclass(frozen=True, slots=True)
class UnoCalled(Event):
    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class UnoCaught(Event):
    catcher: int
    target: int
    penalty: int

    def __init__(self, catcher: int, target: int, penalty: int) -> None:
        object.__setattr__(self, "catcher", catcher)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "penalty", penalty)


@dataclass(frozen=True, slots=True)
class FalseCatch(Event):
    """U4: a catch of someone who was not catchable."""

    catcher: int
    target: int
    penalty: int

    def __init__(self, catcher: int, target: int, penalty: int) -> None:
        object.__setattr__(self, "catcher", catcher)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "penalty", penalty)


@dataclass(frozen=True, slots=True)
class Challenged(Event):
    """B3/B4: the verdict, which everyone sees: who pays `penalty` cards, under the table's rule."""

    challenger: int
    accused: int
    guilty: bool
    penalty: int = 0
    bluff_penalty: BluffPenalty = BluffPenalty.DRAW_FOUR

    def __init__(
        self,
        challenger: int,
        accused: int,
        guilty: bool,
        penalty: int = 0,
        bluff_penalty: BluffPenalty = BluffPenalty.DRAW_FOUR,
    ) -> None:
        object.__setattr__(self, "challenger", challenger)
        object.__setattr__(self, "accused", accused)
        object.__setattr__(self, "guilty", guilty)
        object.__setattr__(self, "penalty", penalty)
        object.__setattr__(self, "bluff_penalty", bluff_penalty)


@dataclass(frozen=True, slots=True)
class HandRevealed(Event):
    """B2: the accused hand as it was when the Wild Draw Four was played, for the challenger only."""

    to_seat: int
    seat: int
    cards: tuple[Card, ...]

    def __init__(self, to_seat: int, seat: int, cards: tuple[Card, ...]) -> None:
        object.__setattr__(self, "to_seat", to_seat)
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "cards", cards)

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat == self.to_seat else None


@dataclass(frozen=True, slots=True)
class CardTakenBack(Event):
    """B3 `take_back`: the bluffed Wild Draw Four went back to its player; `top` and `color` are in
    force again."""

    seat: int
    card: Card
    top: Card | None = None
    color: Color | None = None

    def __init__(self, seat: int, card: Card, top: Card | None = None, color: Color | None = None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "top", top)
        object.__setattr__(self, "color", color)


@dataclass(frozen=True, slots=True)
class HandsRotated(Event):
    """H10 zero: every hand moved one seat in the direction of play. Each seat sees its own new hand."""

    direction: int
    hands: tuple[tuple[Card, ...], ...]

    def __init__(self, direction: int, hands: tuple[tuple[Card, ...], ...]) -> None:
        object.__setattr__(self, "direction", direction)
        object.__setattr__(self, "hands", hands)

    def visible_to(self, seat: int | None) -> Event | None:
        hidden = tuple(hand if i == seat else () for i, hand in enumerate(self.hands))
        return self if hidden == self.hands else dataclasses.replace(self, hands=hidden)


@dataclass(frozen=True, slots=True)
class HandsSwapped(Event):
    """H10 seven: two seats swapped hands; each sees the hand it received."""

    seat: int
    target: int
    seat_hand: tuple[Card, ...] = ()
    target_hand: tuple[Card, ...] = ()

    def __init__(
        self, seat: int, target: int, seat_hand: tuple[Card, ...] = (), target_hand: tuple[Card, ...] = ()
    ) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "seat_hand", seat_hand)
        object.__setattr__(self, "target_hand", target_hand)

    def visible_to(self, seat: int | None) -> Event | None:
        return dataclasses.replace(
            self,
            seat_hand=self.seat_hand if seat == self.seat else (),
            target_hand=self.target_hand if seat == self.target else (),
        )


@dataclass(frozen=True, slots=True)
class SwapOffered(Event):
    """H11: the player of a 5 gave a card; only the two seats see it."""

    seat: int
    target: int
    card: Card | None

    def __init__(self, seat: int, target: int, card: Card | None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "card", card)

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat in (self.seat, self.target) else dataclasses.replace(self, card=None)


@dataclass(frozen=True, slots=True)
class CardsExchanged(Event):
    """H11: the five-swap completed; only the two seats see the cards."""

    seat: int
    target: int
    given: Card | None
    received: Card | None

    def __init__(self, seat: int, target: int, given: Card | None, received: Card | None) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "given", given)
        object.__setattr__(self, "received", received)

    def visible_to(self, seat: int | None) -> Event | None:
        if seat in (self.seat, self.target):
            return self
        return dataclasses.replace(self, given=None, received=None)


@dataclass(frozen=True, slots=True)
class WindowOpened(Event):
    window: Window

    def __init__(self, window: Window) -> None:
        object.__setattr__(self, "window", window)


@dataclass(frozen=True, slots=True)
class WindowClosed(Event):
    """A window closed; `order` is the ruling (reactions in the order they were applied)."""

    window: int
    order: tuple[int, ...] = ()
    penalised: tuple[int, ...] = ()
    kind: WindowKind | None = None

    def __init__(
        self, window: int, order: tuple[int, ...] = (), penalised: tuple[int, ...] = (), kind: WindowKind | None = None
    ) -> None:
        object.__setattr__(self, "window", window)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "penalised", penalised)
        object.__setattr__(self, "kind", kind)


@dataclass(frozen=True, slots=True)
class RaceLost(Event):
    """A reaction that arrived after its window had been decided: no effect, no penalty."""

    seat: int
    window: int

    def __init__(self, seat: int, window: int) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "window", window)


@dataclass(frozen=True, slots=True)
class WrongJumpIn(Event):
    """H6: a jump-in the rules do not allow; the card stays in hand and the jumper pays cards or points."""

    seat: int
    card: Card
    penalty_cards: int = 0
    penalty_points: int = 0

    def __init__(self, seat: int, card: Card, penalty_cards: int = 0, penalty_points: int = 0) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "penalty_cards", penalty_cards)
        object.__setattr__(self, "penalty_points", penalty_points)


@dataclass(frozen=True, slots=True)
class IllegalPlay(Event):
    """H15: a card that did not match went back to the hand."""

    seat: int
    card: Card

    def __init__(self, seat: int, card: Card) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "card", card)


@dataclass(frozen=True, slots=True)
class PenaltyPoints(Event):
    """H6: points charged outside the round's scoring; `total` is the match total counting them (the
    match fills it: the round does not know the totals)."""

    seat: int
    points: int
    total: int = 0

    def __init__(self, seat: int, points: int, total: int = 0) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "total", total)


@dataclass(frozen=True, slots=True)
class SilenceStarted(Event):
    """H14: a 2 was played; nobody may chat until its player plays again."""

    seat: int

    def __init__(self, seat: int) -> None:
        object.__setattr__(self, "seat", seat)


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """P1–P3: the round's winner, each seat's points this round and the match totals after it."""

    round_no: int
    winner: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    eliminated: tuple[int, ...] = ()  # the seats out of the match once this round is scored

    def __init__(
        self,
        round_no: int,
        winner: int,
        points: tuple[int, ...],
        totals: tuple[int, ...],
        hands: tuple[tuple[Card, ...], ...],
        eliminated: tuple[int, ...] = (),
    ) -> None:
        object.__setattr__(self, "round_no", round_no)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "eliminated", eliminated)


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    """A seat out of the match; `total` is its final total (the match fills it).

    `returned` is what a forfeit mid-round did with the seat's hand: those cards, in the order they now
    lie under the draw pile, the bottom card first (`Game.forfeit` puts the hand under the pile as it
    was held). The host's commitment record follows them by face (`unonet.host.shuffles`); only the seat
    itself sees the faces. Empty for an elimination by score, or a seat out between rounds.
    """

    seat: int
    total: int = 0
    returned: tuple[Card, ...] = ()

    def __init__(self, seat: int, total: int = 0, returned: tuple[Card, ...] = ()) -> None:
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "returned", returned)

    def visible_to(self, seat: int | None) -> Event | None:
        return self if seat == self.seat or not self.returned else dataclasses.replace(self, returned=())


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    reason: MatchEndReason = MatchEndReason.TARGET_SCORE
    eliminated: tuple[int, ...] = ()  # the seats out of the match (elimination, forfeits)

    def __init__(
        self,
        winners: tuple[int, ...],
        totals: tuple[int, ...],
        reason: MatchEndReason = MatchEndReason.TARGET_SCORE,
        eliminated: tuple[int, ...] = (),
    ) -> None:
        object.__setattr__(self, "winners", winners)
        object.__setattr__(self, "totals", totals)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "eliminated", eliminated)


fast_init(
    Window,
    DealerChosen,
    RoundStarted,
    Dealt,
    FirstCardTurned,
    FirstCardReturned,
    Played,
    ColorChosen,
    Drew,
    DrawnCardKept,
    Reshuffled,
    Skipped,
    DirectionChanged,
    TurnStarted,
    DrawObligation,
    UnoCalled,
    UnoCaught,
    FalseCatch,
    Challenged,
    HandRevealed,
    CardTakenBack,
    HandsRotated,
    HandsSwapped,
    SwapOffered,
    CardsExchanged,
    WindowOpened,
    WindowClosed,
    RaceLost,
    WrongJumpIn,
    IllegalPlay,
    PenaltyPoints,
    SilenceStarted,
    RoundEnded,
    PlayerEliminated,
    MatchEnded,
)
