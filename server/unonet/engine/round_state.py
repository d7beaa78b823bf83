"""The state of one round of UNO, and what every rule reads or keeps in it.

`Game` (game.py) is this state with the rules that change it, layered one rule family a module, each a
class on the one below: `RoundState` here (what a position is: hands, piles, the turn, the open
windows and draw obligation, the checks every handler starts with), then `turns.Turns` (T: turns,
drawing, what may be played, the end of a round), `races.Races` (windows and races: UNO calls and
catches, slaps, runs, jump-ins and escapes), `obligations.DrawObligations` (H1-H3, B: stacking,
deflecting, challenges), `swaps.Swaps` (H10-H11) and `game.Game` (set-up, `apply` and the handlers,
a card landing and its effects). Only `Game` is made; the layers are where a newcomer finds a rule.
A layer calls only what is defined at or below it, except the two hooks `races.Races` declares for
the play path above it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final, TypeVar

from unonet.engine import events as ev
from unonet.engine._frozen import fast_init
from unonet.engine._members import (
    AFTER_DRAW,
    BLANK,
    CHOOSE_COLOR,
    DRAW_TWO,
    GIVE_CARD,
    JUMP_IN_WINDOW,
    ROUND_OVER,
    RUN_CUT_WINDOW,
    SKIP_ESCAPE_WINDOW,
    TURN,
    UNO_CATCH_WINDOW,
    UNO_SLAP_WINDOW,
    WILD,
    WILD_DRAW_FOUR,
)
from unonet.engine.cards import Card, Color, Rank
from unonet.engine.draws import SeatDraws
from unonet.engine.errors import IllegalAction, MalformedAction, NotYourTurn, Refusal
from unonet.engine.events import Event, Window, WindowKind
from unonet.engine.phase import DUTIES, Phase
from unonet.engine.rules import is_wild_draw_four_fair
from unonet.engine.ruleset import Ruleset
from unonet.engine.shared_events import draw_obligation, window_closed

Shuffle = Callable[[list[Card], str], None]


T = TypeVar("T")


_BIT_LENGTHS: Final = tuple(n.bit_length() for n in range(256))  # `n.bit_length()` for piles up to 255 cards


_RANDOM: Final = random.Random


def shuffle_like_random(rng: random.Random, cards: list[T]) -> None:
    """`rng.shuffle(cards)`, draw for draw and swap for swap, at twice the speed for a plain `Random`.

    CPython's `Random.shuffle` swaps each position from the last down with one
    below it, picked by `_randbelow`: `getrandbits(n.bit_length())` until the result is below n.
    Inlined here without its two method calls a position; a `Random` subclass gets its own shuffle.
    tests/engine/test_shuffle.py checks it against `Random.shuffle` on every length a round uses.
    """
    if type(rng) is not _RANDOM:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    bit_lengths = _BIT_LENGTHS
    i = len(cards) - 1
    # A counted loop over native ints (no zip, no range object): the compiled build's deal is mostly this.
    while i > 0:
        k = bit_lengths[i + 1] if i < 255 else (i + 1).bit_length()  # the bits drawn for position i
        j: int = getrandbits(k)
        while j > i:  # `j >= i + 1`: not below the count of positions left
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1


@dataclass(frozen=True, slots=True)
class BluffRecord:
    """What a Wild Draw Four challenge needs (B2–B5), captured when the card was played."""

    accused: int
    hand: tuple[Card, ...]
    is_fair: bool
    card: Card
    previous_color: Color | None

    def __init__(
        self, accused: int, hand: tuple[Card, ...], is_fair: bool, card: Card, previous_color: Color | None
    ) -> None:
        # Written out so that mypyc compiles it (why: `_frozen`'s docstring); the pure build's is `fast_init`'s.
        object.__setattr__(self, "accused", accused)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "is_fair", is_fair)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "previous_color", previous_color)


fast_init(BluffRecord)


@dataclass(frozen=True, slots=True)
class MidPlay:
    """What a round remembers between turns, for `Game.from_position` to set up a position mid-play.

    `phase` is what `current` is about to do: after a draw (`drawn`, a card it holds), naming the
    colour of the black card on top, choosing a 7-0 or 5-swap target, or (as the 5-swap's target,
    `pending_swap` = giver, target, the card held aside; `current` is then the giver) giving a card
    back. `windows` are the open non-blocking windows (UNO catches, jump-ins, skip escapes): a
    blocking one cannot be set up. `next_window_id` is above every window id the round has used.
    With a MidPlay, the position's draw obligation may be back at its own setter (H3: a Reverse sent
    it back).
    """

    phase: Phase = Phase.TURN
    drawn: Card | None = None
    pending_swap: tuple[int, int, Card] | None = None
    windows: tuple[Window, ...] = ()
    next_window_id: int = 1
    silence: int | None = None
    skip_next: tuple[int, ...] = ()
    went_out: int | None = None
    penalty_points: tuple[int, ...] = ()
    first_card_on_top: bool = False


@dataclass(slots=True)
class Obligation:
    """An open draw obligation: `target` draws `amount` unless they answer it (H1, H3, B1)."""

    amount: int
    kind: Rank
    target: int
    setter: int
    skips: bool
    bluff: BluffRecord | None = None

    def __init__(  # written out so that mypyc compiles it (why: `_frozen`'s docstring)
        self, amount: int, kind: Rank, target: int, setter: int, skips: bool, bluff: BluffRecord | None = None
    ) -> None:
        self.amount = amount
        self.kind = kind
        self.target = target
        self.setter = setter
        self.skips = skips
        self.bluff = bluff


class ColorFor(Enum):
    """What a black card waiting for its colour does once the colour is named."""

    PLAY = "play"  # the card's own effect (T9, T10, C2)
    FIRST_CARD = "first_card"  # S4: the first turned card, so the seat left of the dealer starts
    DEFLECT = "deflect"  # H3: a Wild passing an obligation on


@dataclass(slots=True)
class PendingBlack:
    """A black card waiting for its colour, and what to do once it is named."""

    seat: int
    card: Card
    context: ColorFor

    def __init__(self, seat: int, card: Card, context: ColorFor) -> None:
        # Written out so that mypyc compiles it (why: `_frozen`'s docstring): black cards and draw
        # obligations are a tenth of a playout's plays.
        self.seat = seat
        self.card = card
        self.context = context


@dataclass(slots=True)
class PendingRun:
    """H4: the rest of a run, still in its player's hand until the cut window closes."""

    seat: int
    rest: tuple[Card, ...]
    call_uno: bool

    def __init__(self, seat: int, rest: tuple[Card, ...], call_uno: bool) -> None:
        self.seat = seat
        self.rest = rest
        self.call_uno = call_uno


@dataclass(slots=True)
class ReactionLog:
    """Who has answered a slap or sound-wild window so far, in order."""

    order: list[int] = field(default_factory=list)


class RoundState:
    """The state of one round (see the module docstring): no rule that changes it lives here but the
    bookkeeping every rule shares (seat order, opening windows, setting an obligation, emitting).
    """

    shuffle: Shuffle

    # --------------------------------------------------------------------------------------- set-up

    def _check_position_obligation(self, obligation: Obligation, *, back_at_setter: bool) -> None:
        """`from_position`: an open obligation falls on the seat to act and was set by another seat, or
        (`back_at_setter`, a position mid-play) by that seat itself, a Reverse having sent it back (H3)."""
        if obligation.target != self.current:
            raise MalformedAction(
                f"the obligation's target {obligation.target} must be the seat to act ({self.current})",
                reason="BAD_POSITION",
            )
        setter = obligation.setter
        if not (0 <= setter < self.num_players) or (setter == obligation.target and not back_at_setter):
            raise MalformedAction(f"the obligation's setter {setter} is not another seat", reason="BAD_POSITION")
        if obligation.amount < 1 or obligation.kind not in (DRAW_TWO, WILD_DRAW_FOUR, BLANK):
            raise MalformedAction(
                f"an obligation is a positive amount of a Draw Two, Wild Draw Four or Blank, "
                f"not {obligation.amount} of {obligation.kind.value}",
                reason="BAD_POSITION",
            )
        bluff = obligation.bluff
        if bluff is not None and (obligation.kind is not WILD_DRAW_FOUR or bluff.accused != setter):
            raise MalformedAction("only the setter of a Wild Draw Four can be challenged", reason="BAD_POSITION")

    def _init_state(
        self,
        ruleset: Ruleset,
        num_players: int,
        rng: random.Random,
        *,
        dealer: int,
        round_no: int,
        seats_in_play: Iterable[int] | None,
        draws: SeatDraws | None,
    ) -> None:
        if not 2 <= num_players <= 10:
            raise MalformedAction(f"UNO is played by 2 to 10 players, not {num_players}", reason="BAD_PLAYER_COUNT")
        self.ruleset = ruleset
        self.num_players = num_players
        self.rng = rng
        self.shuffle = self._shuffle_with_rng
        self.round_no = round_no
        self.dealer = dealer
        if seats_in_play is None:
            self.in_play = (True,) * num_players
        else:
            playing = set(seats_in_play)
            self.in_play = tuple(i in playing for i in range(num_players))
        if sum(self.in_play) < 2 or not self.in_play[dealer]:
            raise MalformedAction("a round needs two seats in play, the dealer among them", reason="BAD_SEATS")
        self.hands: list[list[Card]] = [[] for _ in range(num_players)]
        self.discard: list[Card] = []
        self.color: Color | None = None
        self.direction = 1
        self.current = dealer
        self.phase = TURN
        self.obligation: Obligation | None = None
        self.catchable: set[int] = set()
        self.windows: dict[int, Window] = {}
        self._blocking = 0  # how many of `windows` are blocking
        self.penalty_points = [0] * num_players
        self.silence: int | None = None
        self.skip_next: set[int] = set()
        self.drawn: Card | None = None
        self.winner: int | None = None
        self.went_out: int | None = None
        self.first_card_on_top = True
        self._next_window = 1
        self._jump_window: int | None = None
        self._reactions: dict[int, ReactionLog] = {}
        self._pending_black: PendingBlack | None = None
        self._pending_run: PendingRun | None = None
        self._swap: tuple[int, int, Card] | None = None
        # The hand, fairness and colour in force when the last Wild Draw Four landed (B2).
        self._bluff_snapshot: tuple[tuple[Card, ...], bool, Color | None] = ((), True, None)
        self.draw_pile: list[Card] = []  # the top of the pile is the end of the list
        self.draws = draws  # which card each draw takes (`Game`'s `draws`)
        self._out: list[Event] = []
        # True while `step` runs (the search path): the hot handlers then build no events at all, and the
        # rarer ones add theirs to a scratch list that is never handed out. Every event-returning entry
        # point (`apply`, `close_window`, `forfeit`) sets it back.
        self._quiet = False

    def _shuffle_with_rng(self, cards: list[Card], purpose: str) -> None:
        shuffle_like_random(self.rng, cards)

    def _set_mid_play(self, mid: MidPlay) -> None:
        """`from_position`: the phase, the open non-blocking windows and the round's other memories."""
        n, current, top = self.num_players, self.current, self.discard[-1]

        def bad(message: str) -> MalformedAction:
            return MalformedAction(message, reason="BAD_POSITION")

        phase = mid.phase
        if phase is ROUND_OVER:
            raise bad("a position is a round in play")
        if (phase is AFTER_DRAW) != (mid.drawn is not None) or (
            mid.drawn is not None and mid.drawn not in self.hands[current]
        ):
            raise bad("after a draw (and only then) the drawn card is one the seat to act holds")
        if (phase is GIVE_CARD) != (mid.pending_swap is not None):
            raise bad("a 5-swap's card is held aside while (and only while) its target gives one back")
        if phase is CHOOSE_COLOR and not top.is_black:
            raise bad(f"a colour is chosen for a black card, not {top}")
        self.phase = phase
        self.drawn = mid.drawn
        if phase is CHOOSE_COLOR:
            obligation = self.obligation
            if mid.first_card_on_top:
                context = ColorFor.FIRST_CARD
            elif obligation is not None and top.rank is WILD:
                context = ColorFor.DEFLECT
            else:
                context = ColorFor.PLAY
            self._pending_black = PendingBlack(current, top, context)
            if top.rank is WILD_DRAW_FOUR:
                rest = tuple(self.hands[current])
                rule = self.ruleset.wild_draw_four
                under = self.discard[-2] if len(self.discard) > 1 else top
                self._bluff_snapshot = (rest, is_wild_draw_four_fair(rest, self.color, under, rule), self.color)
        if mid.pending_swap is not None:
            giver, target, card = mid.pending_swap
            if giver == target or not all(0 <= s < n and self.in_play[s] for s in (giver, target)):
                raise bad(f"a 5-swap is between two seats in play, not {giver} and {target}")
            self._swap = (giver, target, card)
            self.current = giver
        for seat in (mid.silence, mid.went_out, *mid.skip_next):
            if seat is not None and not (0 <= seat < n and self.in_play[seat]):
                raise bad(f"seat {seat} is not in play")
        if mid.went_out is not None and self.hands[mid.went_out]:
            raise bad(f"seat {mid.went_out} went out but holds cards")
        self.silence, self.went_out = mid.silence, mid.went_out
        self.skip_next = set(mid.skip_next)
        if mid.penalty_points:
            if len(mid.penalty_points) != n:
                raise bad(f"{len(mid.penalty_points)} penalty totals for {n} seats")
            self.penalty_points = list(mid.penalty_points)
        self.first_card_on_top = mid.first_card_on_top
        for window in mid.windows:
            if window.is_blocking or window.kind is RUN_CUT_WINDOW:
                raise bad(f"window {window.id} blocks play: a position starts with none open")
            if window.id in self.windows or not 1 <= window.id < mid.next_window_id:
                raise bad(f"window ids are unique and below {mid.next_window_id}, not {window.id}")
            self.windows[window.id] = window
            if window.kind is UNO_CATCH_WINDOW and window.target is not None:
                self.catchable.add(window.target)  # U2: a catch window is open on each catchable seat
            elif window.kind is JUMP_IN_WINDOW:
                self._jump_window = window.id
        self._next_window = max(self._next_window, mid.next_window_id)

    # -------------------------------------------------------------------------------------- queries

    @property
    def in_play(self) -> tuple[bool, ...]:
        """Which seats play this round (a forfeit takes one out)."""
        return self._in_play

    @in_play.setter
    def in_play(self, in_play: tuple[bool, ...]) -> None:
        self._in_play = in_play
        self._seats = tuple([seat for seat, playing in enumerate(in_play) if playing])

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def is_over(self) -> bool:
        return self.phase is ROUND_OVER

    @property
    def to_act(self) -> int | None:
        """The seat the game waits for, or None while a blocking window is open or the round is over."""
        phase = self.phase
        if phase is ROUND_OVER or self._blocking:
            return None
        if phase is GIVE_CARD and self._swap is not None:
            return self._swap[1]
        return self.current

    @property
    def has_blocking_window(self) -> bool:
        return self._blocking > 0

    @property
    def pending_run(self) -> tuple[int, tuple[Card, ...]] | None:
        """H4: the runner and the cards of their run still waiting for the cut window to close."""
        run = self._pending_run
        return None if run is None else (run.seat, run.rest)

    @property
    def run_cutter(self) -> int | None:
        """H4: the one seat that may cut the run waiting for its cut window, if one is."""
        run = self._pending_run
        return None if run is None else self._next(run.seat)

    @property
    def pending_swap(self) -> tuple[int, int, Card] | None:
        """H11: (giver, target, card given) while the target chooses the card to give back."""
        return self._swap

    @property
    def next_window_id(self) -> int:
        """The id the next reaction window will get: every id below it was opened at some point."""
        return self._next_window

    @property
    def jump_window(self) -> int | None:
        """H6: the id of the open jump-in window on the top card, if any."""
        return self._jump_window

    def reacted(self, window_id: int) -> tuple[int, ...]:
        """The seats that have answered a slap or sound-wild window, in order."""
        log = self._reactions.get(window_id)
        return () if log is None else tuple(log.order)

    def cards_in_play(self) -> list[Card]:
        """Every card of the round, wherever it is: hands, piles and a card held aside by a swap."""
        cards = [card for hand in self.hands for card in hand] + self.draw_pile + self.discard
        if self._swap is not None:
            cards.append(self._swap[2])
        return cards

    def seats(self) -> list[int]:
        """Seats in play this round, in seat order."""
        return list(self._seats)

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything that defines the state, as one comparable value (tests check refusals change nothing).

        Every attribute but the derived ones (`_seats` from `in_play`, `_blocking` from `windows`), the
        shuffle function and the events of the last call (`_out`); the random stream by its state.
        tests/engine/test_legality.py checks that it reads every other attribute. The per-seat draw
        streams' state comes last and only when the round has them, so a round without them keeps the
        fingerprint it had before they existed (the replay digest of bench/replay_digest.py with it).
        """
        state = (
            tuple(tuple(hand) for hand in self.hands),
            tuple(self.draw_pile),
            tuple(self.discard),
            self.color,
            self.direction,
            self.current,
            self.phase,
            None
            if self.obligation is None
            else (
                self.obligation.amount,
                self.obligation.kind,
                self.obligation.target,
                self.obligation.setter,
                self.obligation.bluff,
            ),
            frozenset(self.catchable),
            tuple(sorted(self.windows.items())),
            tuple(self.penalty_points),
            self.silence,
            frozenset(self.skip_next),
            self.drawn,
            self._swap,
            self._pending_run,
            self._pending_black,
            self.winner,
            self.went_out,
            self.rng.getstate(),
            # Added after the rest, so that a fingerprint from before is a prefix of one from now.
            self.ruleset,
            self.num_players,
            self.round_no,
            self.dealer,
            self.in_play,
            None if self.obligation is None else self.obligation.skips,
            self.first_card_on_top,
            self._next_window,
            self._jump_window,
            tuple(sorted((window_id, tuple(log.order)) for window_id, log in self._reactions.items())),
            self._bluff_snapshot,
        )
        return state if self.draws is None else (*state, self.draws.state())

    # ----------------------------------------------------------------------------------- seat order

    def _next(self, seat: int, direction: int | None = None) -> int:
        step = self.direction if direction is None else direction
        nxt = (seat + step) % (n := self.num_players)
        # A seat with no card has gone out (P1: it waits for an obligation to be drawn, H1/H3).
        while not self._in_play[nxt] or nxt == self.went_out or not self.hands[nxt]:
            nxt = (nxt + step) % n
        return nxt

    def _seats_from(self, seat: int) -> list[int]:
        """Seats in play starting left of `seat`, clockwise, ending with `seat`."""
        n = self.num_players
        in_play = self._in_play
        return [s for i in range(1, n + 1) if in_play[s := (seat + i) % n]]

    # ------------------------ bookkeeping the rules share: an obligation, windows, hands passing on

    def _set_obligation(self, obligation: Obligation) -> None:
        self.obligation = obligation
        if self._quiet:
            return
        challengeable = obligation.bluff is not None and self.ruleset.can_challenge
        self._out.append(
            draw_obligation(obligation.target, obligation.amount, obligation.setter, obligation.kind, challengeable)
        )

    def _open_window(
        self,
        kind: WindowKind,
        eligible: tuple[int, ...],
        opener: int,
        *,
        blocking: bool,
        target: int | None = None,
        card: Card | None = None,
    ) -> Window:
        window = Window(self._next_window, kind, eligible, opener, blocking, target, card)
        self._next_window += 1
        self.windows[window.id] = window
        if blocking:
            self._blocking += 1
        if blocking and kind is not RUN_CUT_WINDOW:
            self._reactions[window.id] = ReactionLog()
        if not self._quiet:
            self._out.append(ev.WindowOpened(window))
        return window

    def _open_jump_window(self, seat: int, card: Card) -> None:
        if self.ruleset.jump_in and card.rank is not WILD_DRAW_FOUR:
            # `_open_window(JUMP_IN_WINDOW, self._seats, seat, blocking=False)`, inlined: under H6 it runs
            # on nearly every play.
            window_id = self._next_window
            self._next_window = window_id + 1
            window = self.windows[window_id] = Window(window_id, JUMP_IN_WINDOW, self._seats, seat, False, None, card)
            self._jump_window = window_id
            if not self._quiet:
                self._out.append(ev.WindowOpened(window))

    def _open_escape_window(self, seat: int, skip: Card) -> None:
        """H8: the skipped player may escape with the identical Skip until the next player acts."""
        skipped = self._next(seat)
        if skipped != seat:
            self._open_window(SKIP_ESCAPE_WINDOW, (skipped,), seat, blocking=False, target=skipped, card=skip)

    def _open_slap_window(self, seat: int) -> None:
        if self.ruleset.uno_slap:  # U5
            # A player who went out and only waits for an obligation to be drawn (P1) is out of the race.
            others = tuple(s for s in self._seats if s not in (seat, self.went_out))
            self._open_window(UNO_SLAP_WINDOW, others, seat, blocking=True)

    def _close_catch_window(self, target: int) -> None:
        for window in list(self.windows.values()):
            if window.kind is UNO_CATCH_WINDOW and window.target == target:
                del self.windows[window.id]  # never blocking
                if not self._quiet:
                    self._out.append(window_closed(window))

    def _rotate_hands(self) -> None:
        """H10 zero: every hand passes to the next player in the direction of play."""
        seats = self.seats()  # not `_next`: at the end of a round (P3) the winner's hand is empty
        old = [self.hands[seat] for seat in seats]
        for i, hand in enumerate(old):
            self.hands[seats[(i + self.direction) % len(seats)]] = hand
        self._out.append(ev.HandsRotated(self.direction, tuple(tuple(hand) for hand in self.hands)))

    # --------------------------------------------------------------------------- checks and helpers

    def _require_held(self, seat: int, cards: Sequence[Card]) -> None:
        if len(cards) == 1:
            if cards[0] not in self.hands[seat]:
                raise MalformedAction(f"seat {seat} does not hold {cards[0]}", reason="CARD_NOT_IN_HAND")
            return
        hand = self.hands[seat]
        for index, card in enumerate(cards):  # cards are interned, so counting by identity is exact
            if card in cards[:index]:
                continue  # checked at its first occurrence
            count = cards.count(card)
            if hand.count(card) < count:
                raise MalformedAction(
                    f"seat {seat} does not hold {card}" + (f" x{count}" if count > 1 else ""),
                    reason="CARD_NOT_IN_HAND",
                )

    def _turn_facts(self) -> dict[str, str]:
        """A NOT_YOUR_TURN refusal's metadata: the `seat` the game waits for, when one is."""
        return {"seat": str(self.to_act)} if self.to_act is not None else {}

    def _turn_refusal(self, seat: int, phase: Phase) -> Refusal | None:
        """The refusal of an action of `seat`'s own turn in `phase`, or None when the game waits for it."""
        if self._blocking:
            return lambda: IllegalAction("a reaction window is open; play waits for it", reason="WINDOW_OPEN")
        if seat != self.current:
            message = f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            return lambda: NotYourTurn(message, metadata=self._turn_facts())
        if self.phase is not phase:
            message = f"seat {seat} must {DUTIES[self.phase]} now, not {DUTIES[phase]}"
            return lambda: IllegalAction(message, reason="WRONG_PHASE")
        return None

    def _require_turn(self, seat: int, phase: Phase) -> None:
        refusal = self._turn_refusal(seat, phase)
        if refusal is not None:
            raise refusal()

    def _require_other_seat(self, seat: int, target: int) -> None:
        if not (isinstance(target, int) and 0 <= target < self.num_players) or not self.in_play[target]:
            raise MalformedAction(f"seat {target!r} is not playing this round", reason="BAD_SEAT")
        if target == seat or target == self.went_out:
            raise IllegalAction(f"seat {seat} cannot swap with seat {target}", reason="BAD_TARGET")

    def _emit(self, event: Event) -> None:
        self._out.append(event)
