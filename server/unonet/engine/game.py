"""One round of UNO: the mutable state and the only code that changes it (`Game.apply`).

The state machine follows RULES.md rule by rule; each rule ID appears next to the code that plays it.
Every handler checks everything first and mutates after, so a refused action leaves the state exactly
as it was. All chance comes from the injected `random.Random`, and shuffling is the only chance event.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final, TypeVar, cast

from unonet.engine import events as ev
from unonet.engine._frozen import fast_init
from unonet.engine._members import (
    AFTER_DRAW,
    BLACK,
    BLANK,
    CHOOSE_COLOR,
    CHOOSE_SWAP_TARGET,
    DRAW_TWO,
    FIVE,
    FIVE_SWAP,
    GIVE_CARD,
    JUMP_IN_WINDOW,
    PLUS_ONE,
    PLUS_TWO,
    REVERSE,
    ROUND_OVER,
    RUN_CUT_WINDOW,
    SEVEN,
    SKIP,
    SKIP_ESCAPE_WINDOW,
    SOUND_WILD,
    SOUND_WILD_WINDOW,
    TURN,
    TURN_DRAW,
    TWO,
    UNO_CATCH_WINDOW,
    UNO_SLAP_WINDOW,
    WILD,
    WILD_DRAW_FOUR,
    ZERO,
)
from unonet.engine.actions import (
    Action,
    CallUno,
    CatchUno,
    Challenge,
    Chat,
    ChooseColor,
    ChooseSwapTarget,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.engine.cards import CARDS, PLAYABLE_COLORS, Card, Color, Rank, standard_deck
from unonet.engine.draws import SeatDraws
from unonet.engine.errors import IllegalAction, MalformedAction, NotYourTurn, Refusal, RoundOver
from unonet.engine.events import DrawReason, Event, Window, WindowKind
from unonet.engine.phase import Phase as Phase  # re-exported: `from unonet.engine.game import Phase` predates phase.py
from unonet.engine.rules import is_multi_play, is_run, is_wild_draw_four_fair, matches
from unonet.engine.ruleset import BlankEffect, BluffPenalty, FirstWild, JumpInPenalty, Ruleset
from unonet.engine.shared_events import (
    called_uno,
    color_chosen,
    draw_obligation,
    drew_one,
    played_one,
    skipped,
    turn_started,
    uno_called,
    window_closed,
)

HAND_SIZE = 7
SLOWEST_PENALTY = 2
FALSE_CATCH_PENALTY = 2
WRONG_JUMP_IN_CARDS = 2
WRONG_JUMP_IN_POINTS = 3
ILLEGAL_PLAY_PENALTY = 2
SILENCE_PENALTY = 2
BLUFF_EXTRA = 2
DRAW_AMOUNT = {Rank.DRAW_TWO: 2, Rank.WILD_DRAW_FOUR: 4}
H2O_AMOUNT = {Rank.PLUS_ONE: 1, Rank.PLUS_TWO: 2}
_WILD_DRAW_FOUR_AMOUNT: Final = DRAW_AMOUNT[Rank.WILD_DRAW_FOUR]  # read once: a dict keyed by Rank hashes in Python
FIRST_CARD_RETURNED = frozenset({Rank.WILD_DRAW_FOUR, Rank.BLANK, Rank.SOUND_WILD, Rank.PLUS_ONE, Rank.PLUS_TWO})
_FIRST_CARD_RETURNED_MASK: Final = sum(1 << card.index for card in CARDS if card.rank in FIRST_CARD_RETURNED)
SEVEN_O_RANKS = (Rank.ZERO, Rank.SEVEN)


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
class RefusedReaction:
    """A reaction `Game.resolve_window_outcome` did not apply: the action and the `UnoError` reason and
    message the rules refused it with (the state is as if it had never been sent)."""

    action: Action
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class WindowOutcome:
    """What resolving a reaction window did: its events, and the reactions the rules refused, in order."""

    events: list[Event]
    refused: tuple[RefusedReaction, ...] = ()


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


class _Answer(Enum):
    """H1, H3: how a card answers an open draw obligation."""

    STACK = "stack"  # H1: it adds to the obligation and passes it on
    DEFLECT = "deflect"  # H3: it passes the obligation on (or back) as it is


class _ColorFor(Enum):
    """What a black card waiting for its colour does once the colour is named."""

    PLAY = "play"  # the card's own effect (T9, T10, C2)
    FIRST_CARD = "first_card"  # S4: the first turned card, so the seat left of the dealer starts
    DEFLECT = "deflect"  # H3: a Wild passing an obligation on


@dataclass(slots=True)
class _PendingBlack:
    """A black card waiting for its colour, and what to do once it is named."""

    seat: int
    card: Card
    context: _ColorFor

    def __init__(self, seat: int, card: Card, context: _ColorFor) -> None:
        # Written out so that mypyc compiles it (why: `_frozen`'s docstring): black cards and draw
        # obligations are a tenth of a playout's plays.
        self.seat = seat
        self.card = card
        self.context = context


@dataclass(slots=True)
class _PendingRun:
    """H4: the rest of a run, still in its player's hand until the cut window closes."""

    seat: int
    rest: tuple[Card, ...]
    call_uno: bool

    def __init__(self, seat: int, rest: tuple[Card, ...], call_uno: bool) -> None:
        self.seat = seat
        self.rest = rest
        self.call_uno = call_uno


@dataclass(slots=True)
class _ReactionLog:
    """Who has answered a slap or sound-wild window so far, in order."""

    order: list[int] = field(default_factory=list)


class Game:
    """The state of one round and the rules that change it.

    Only the actions change it: `apply` and `apply_command`, the window calls (`close_window`,
    `resolve_window`, `resolve_window_outcome`) and `forfeit` (a host's forfeit policy). Every other
    method and property only reads, the refusal checks (`answer_refusal`, ...) included.
    """

    shuffle: Shuffle

    def __init__(
        self,
        ruleset: Ruleset,
        num_players: int,
        rng: random.Random,
        *,
        dealer: int = 0,
        round_no: int = 1,
        seats_in_play: Iterable[int] | None = None,
        deck: Sequence[Card] | None = None,
        shuffle: Shuffle | None = None,
        first_window_id: int = 1,
        draws: SeatDraws | None = None,
        _blank: bool = False,
    ) -> None:
        """Deal a new round (S3–S5). `deck` stacks the deck, first card dealt first; else it is shuffled.

        `first_window_id` numbers the round's first reaction window: a match passes on where the last
        round stopped, so window ids are unique within a table, as the protocol promises.

        `shuffle(cards, purpose)` reorders a pile in place whenever the round shuffles (`"deal"`,
        `"first_card_returned"`, `"rebuild"`); the default uses `rng`. A host proving its shuffles fair
        passes its own, derived from the committed seed.

        `draws` picks each card a seat draws (`draws.SeatDraws`, a league's per-seat draw streams);
        None, the default, takes the top of the pile.

        Raises MalformedAction for a player count outside 2–10 (S1) or a deck too small to deal.

        `_blank` (for `from_position` and `copy`, which fill the state in themselves) deals nothing and
        leaves the piles empty: a compiled `Game` is made only through its `__init__`, never
        `object.__new__`.
        """
        self._init_state(ruleset, num_players, rng, dealer=dealer, round_no=round_no, seats_in_play=seats_in_play)
        self.draw_pile: list[Card] = []  # the top of the pile is the end of the list
        self.draws = draws
        if _blank:
            return
        if first_window_id < 1:
            raise MalformedAction(f"window ids start at 1, not {first_window_id}", reason="BAD_POSITION")
        self._next_window = first_window_id
        if shuffle is not None:
            self.shuffle = shuffle
        if deck is None:
            cards = standard_deck(
                blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds, h2o_wilds=ruleset.h2o_wilds
            )
            self.shuffle(cards, "deal")
        else:
            cards = list(deck)
        self.draw_pile = cards[::-1]
        self._deal()

    @classmethod
    def from_position(
        cls,
        ruleset: Ruleset,
        rng: random.Random,
        *,
        hands: Sequence[Sequence[Card]],
        draw_pile: Sequence[Card],
        discard: Sequence[Card],
        color: Color | None = None,
        current: int = 0,
        direction: int = 1,
        dealer: int = 0,
        round_no: int = 1,
        seats_in_play: Iterable[int] | None = None,
        obligation: Obligation | None = None,
        mid_play: MidPlay | None = None,
    ) -> Game:
        """A round set up mid-play (scenario files, puzzles, a search bot's view of its table):
        `draw_pile` top first, `discard` top last.

        The colour in force defaults to the top card's. `obligation` opens a draw obligation on `current`,
        who must be its target (a Draw Two or Wild Draw Four played just before the position; with a
        `bluff` record the Wild Draw Four can be challenged). `mid_play` sets what a round remembers
        between turns (`MidPlay`). Raises MalformedAction for an impossible set-up.
        """
        if not discard:
            raise MalformedAction("a position needs at least one discard", reason="BAD_POSITION")
        for name, seat in (("current", current), ("dealer", dealer)):
            if not 0 <= seat < len(hands):
                raise MalformedAction(
                    f"{name} seat {seat} is not one of seats 0 to {len(hands) - 1}", reason="BAD_POSITION"
                )
        game = cls(ruleset, len(hands), rng, dealer=dealer, round_no=round_no, seats_in_play=seats_in_play, _blank=True)
        game.hands = [list(hand) for hand in hands]
        game.draw_pile = list(draw_pile)[::-1]
        game.discard = list(discard)
        top = discard[-1]
        game.color = color if color is not None or top.is_black else top.color
        if direction not in (1, -1):
            raise MalformedAction(f"direction is 1 or -1, not {direction}", reason="BAD_POSITION")
        game.direction = direction
        if not game.in_play[current]:
            raise MalformedAction(f"seat {current} is not in play", reason="BAD_POSITION")
        game.current = current
        game.first_card_on_top = False
        if obligation is not None:
            game._check_position_obligation(obligation, back_at_setter=mid_play is not None)
            game._set_obligation(dataclasses.replace(obligation))
        if mid_play is not None:
            game._set_mid_play(mid_play)
        game._emit(ev.TurnStarted(current))
        return game

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
        self._reactions: dict[int, _ReactionLog] = {}
        self._pending_black: _PendingBlack | None = None
        self._pending_run: _PendingRun | None = None
        self._swap: tuple[int, int, Card] | None = None
        # The hand, fairness and colour in force when the last Wild Draw Four landed (B2).
        self._bluff_snapshot: tuple[tuple[Card, ...], bool, Color | None] = ((), True, None)
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
                context = _ColorFor.FIRST_CARD
            elif obligation is not None and top.rank is WILD:
                context = _ColorFor.DEFLECT
            else:
                context = _ColorFor.PLAY
            self._pending_black = _PendingBlack(current, top, context)
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

    # ----------------------------------------------------------------------------------- set-up (S)

    def _deal(self) -> None:
        seats = self._seats_from(self.dealer)
        if len(self.draw_pile) < HAND_SIZE * len(seats) + 1:
            raise MalformedAction("the deck is too small to deal this round", reason="DECK_TOO_SMALL")
        self._out.append(ev.RoundStarted(self.round_no, self.dealer, tuple(seats)))
        hands = [self.hands[seat] for seat in seats]
        pop = self.draw_pile.pop
        for _ in range(HAND_SIZE):  # S3: one card at a time, from the dealer's left
            for hand in hands:
                hand.append(pop())
        left = len(self.draw_pile)
        for seat in seats:
            self._out.append(ev.Dealt(seat, HAND_SIZE, tuple(self.hands[seat]), self.dealer, left))
        self._turn_first_card()

    def _turn_first_card(self) -> None:
        """S4: the first turned card acts as if played by the dealer, with no house effect."""
        ruleset = self.ruleset

        def is_returned(card: Card) -> bool:
            return bool(_FIRST_CARD_RETURNED_MASK >> card.index & 1) or (
                card.rank is WILD and ruleset.first_wild is FirstWild.REDRAW
            )

        # Else returning would never end; a top card that stays settles it without the scan.
        if is_returned(self.draw_pile[-1]) and all(is_returned(card) for card in self.draw_pile):
            raise MalformedAction("no card left to deal can start the discard pile", reason="DECK_TOO_SMALL")
        while True:
            card = self.draw_pile.pop()
            if not is_returned(card):
                break
            self._out.append(ev.FirstCardReturned(card))
            self.draw_pile.append(card)
            self.shuffle(self.draw_pile, "first_card_returned")
        self.discard.append(card)
        self._out.append(ev.FirstCardTurned(card))
        first = self._next(self.dealer)
        self.current = first
        if card.rank is WILD:
            self.phase = CHOOSE_COLOR
            self._pending_black = _PendingBlack(first, card, _ColorFor.FIRST_CARD)
            return
        self.color = card.color
        if card.rank is SKIP:
            self._out.append(skipped(first))
            self._start_turn(self._next(first))
        elif card.rank is REVERSE:
            self.direction = -1
            self._out.append(ev.DirectionChanged(-1))
            self._start_turn(self.dealer)
        elif card.rank is DRAW_TWO:
            self._set_obligation(Obligation(2, DRAW_TWO, first, self.dealer, ruleset.draw_penalty_skips_turn))
            self._start_turn(first)
        else:
            self._start_turn(first)

    # --------------------------------------------------------------------------------- queries

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

    def copy(self) -> Game:
        """An independent copy for bots that search; the copy's random stream continues the same way."""
        clone = _blank_copy(self)
        for name in _COPY_SHALLOW:
            setattr(clone, name, getattr(self, name))
        # Not random.Random(): its constructor seeds itself from os.urandom first, half of a copy's cost.
        clone.rng = random.Random.__new__(random.Random)
        clone.rng.setstate(self.rng.getstate())
        clone.shuffle = clone._shuffle_with_rng  # a search must never advance the host's own shuffles
        clone.hands = [list(hand) for hand in self.hands]
        clone.draw_pile = list(self.draw_pile)
        clone.draws = None  # a search draws from the pile's top: it must never read the draws to come
        clone.discard = list(self.discard)
        clone.catchable = set(self.catchable)
        clone.windows = dict(self.windows)
        clone.penalty_points = list(self.penalty_points)
        clone.skip_next = set(self.skip_next)
        clone._reactions = {k: _ReactionLog(list(v.order)) for k, v in self._reactions.items()}
        clone.obligation = (
            None
            if self.obligation is None
            else Obligation(
                self.obligation.amount,
                self.obligation.kind,
                self.obligation.target,
                self.obligation.setter,
                self.obligation.skips,
                self.obligation.bluff,
            )
        )
        clone._pending_black = self._pending_black
        clone._pending_run = self._pending_run
        clone._out = []
        return clone

    def redeal_unseen(self, hands: Sequence[Sequence[Card]], draw_pile: Sequence[Card]) -> None:
        """Determinization's one write (`unonet.engine.search.determinize`): put other cards in the
        hands and the draw pile (top last, as `draw_pile` holds it), the same cards in all.

        What the rules remember about hidden cards is judged again from the new hands, as it was when
        they were played: an open Wild Draw Four's bluff record (B2: the accused's hand then is the first
        cards of its hand now, since every draw appends) and the hand a Wild Draw Four still waiting for
        its colour left (T2). Raises MalformedAction when the cards are not the same, or a hand would
        be too small for that record.
        """
        if len(hands) != self.num_players:
            raise MalformedAction(f"{len(hands)} hands for {self.num_players} seats", reason="BAD_POSITION")
        before = [card.key for hand in self.hands for card in hand] + [card.key for card in self.draw_pile]
        after = [card.key for hand in hands for card in hand] + [card.key for card in draw_pile]
        if sorted(before) != sorted(after):
            raise MalformedAction("a redeal must keep the same cards", reason="BAD_POSITION")
        new_hands = [list(hand) for hand in hands]
        rule, under = self.ruleset.wild_draw_four, self.discard[-2] if len(self.discard) > 1 else None
        obligation = self.obligation
        if obligation is not None and obligation.bluff is not None and under is not None:
            bluff = obligation.bluff
            held = new_hands[bluff.accused][: len(bluff.hand)]
            if len(held) != len(bluff.hand):
                raise MalformedAction(f"seat {bluff.accused} holds too few cards", reason="BAD_POSITION")
            fair = is_wild_draw_four_fair(held, bluff.previous_color, under, rule)
            obligation.bluff = dataclasses.replace(bluff, hand=tuple(held), is_fair=fair)
        pending = self._pending_black
        if pending is not None and pending.card.rank is WILD_DRAW_FOUR and under is not None:
            rest = tuple(new_hands[pending.seat])
            self._bluff_snapshot = (rest, is_wild_draw_four_fair(rest, self.color, under, rule), self.color)
        self.hands = new_hands
        self.draw_pile = list(draw_pile)

    # --------------------------------------------------------------------------------- applying

    def apply(self, action: Action) -> list[Event]:
        """Apply one seat's action and return the events it caused.

        Raises MalformedAction (bad seat, card not held), NotYourTurn, RoundOver or IllegalAction; a refused
        action changes nothing.
        """
        if self.phase is ROUND_OVER:
            raise RoundOver(f"round {self.round_no} is over; {action} was not applied")
        seat = action.seat
        if not (isinstance(seat, int) and 0 <= seat < self.num_players) or not self._in_play[seat]:
            raise MalformedAction(f"seat {seat!r} is not playing this round", reason="BAD_SEAT")
        self._quiet = False
        self._out = []
        self._handle(action)
        return self._out

    def step(self, action: Action) -> None:
        """The search path (`unonet.engine.search`): apply an action the caller knows is legal now.

        It skips what `apply` checks before the rules run (the round still going, the seat in play,
        the action's type) and builds no events: the handlers a playout runs through (plays, draws,
        turns passing on, colours, UNO calls, windows opening and closing) skip them while `_quiet`
        is set, and the rarer ones add theirs to a scratch list nobody reads. It reaches exactly the state `apply` would
        (tests/engine/test_search.py compares fingerprints along random playouts). An action that is
        not legal is undefined behaviour: it may raise, or leave a state no rule leads to.
        """
        if self._quiet:
            self._out.clear()  # the scratch list: `apply` hands out a new one
        else:
            self._quiet = True
            self._out = []
        self._handle(action)

    def _handle(self, action: Action) -> None:
        """Run the handler of the action's type. The commonest ones are called by name, a direct call in
        the compiled build (through `_HANDLERS` every call would go through Python's calling protocol)."""
        kind = type(action)
        if kind is Play:
            self._on_play(cast(Play, action))
        elif kind is Draw:
            self._on_draw(cast(Draw, action))
        elif kind is ChooseColor:
            self._on_choose_color(cast(ChooseColor, action))
        elif kind is Pass:
            self._on_pass(cast(Pass, action))
        else:
            handler = _HANDLERS.get(kind)
            if handler is None:
                raise MalformedAction(f"not an action: {action!r}", reason="UNKNOWN_ACTION")
            handler(self, action)

    def apply_command(self, actions: Sequence[Action]) -> list[Event]:
        """Apply one command's actions all or nothing: a play and the colour it names are two.

        A follow-up is moot once the round is over: a Wild that is a player's last card ends the round
        (T9, P1), so the colour sent with it names nothing and is dropped, as when it is sent alone.
        Raises what `apply` raises, for any of the actions, and then nothing has changed.
        """
        if len(actions) == 1:
            return self.apply(actions[0])
        trial = self.copy()  # check the whole command first, so a refused follow-up leaves nothing half done
        for action in actions:
            if trial.phase is ROUND_OVER and action is not actions[0]:
                break
            trial.apply(action)
        out: list[Event] = []
        for action in actions:
            if self.phase is ROUND_OVER and action is not actions[0]:
                break
            out += self.apply(action)
        return out

    def close_window(self, window_id: int) -> list[Event]:
        """The host's call when a window's deadline has passed: settle it with the answers it got.

        Raises IllegalAction for a window that is not open.
        """
        if window_id not in self.windows:
            raise IllegalAction(f"window {window_id} is not open", reason="WINDOW_CLOSED")
        self._quiet = False
        self._out = []
        self._close_window(window_id)
        return self._out

    def resolve_window(
        self, window_id: int, reactions: Sequence[Action | Sequence[Action]], *, as_recorded_before: bool = False
    ) -> list[Event]:
        """The events of `resolve_window_outcome`, without its record of the answers the rules refused.

        Raises IllegalAction for a window that is not open.
        """
        return self.resolve_window_outcome(window_id, reactions, as_recorded_before=as_recorded_before).events

    def resolve_window_outcome(
        self, window_id: int, reactions: Sequence[Action | Sequence[Action]], *, as_recorded_before: bool = False
    ) -> WindowOutcome:
        """Apply the answers to a window in the order the host ruled they happened, then close it.

        Each answer is an action, or a command of several (a play and the colour it names), whose
        follow-ups apply right after it. The result is the same as applying the answers one after
        another with `apply` and then `close_window`, but for the race rule: once an exclusive window
        (a catch, jump-in, skip escape or run cut) has been decided, the later answers lost the race
        and change nothing (RaceLost). Penalties stay as the rules give them: under
        `false_call_penalty` a catch ruled after its target called UNO, or after another catch, is a
        false catch (U4) and costs its catcher 2, exactly as when applied in order. An answer the rules
        refuse by its turn in the order also loses at no cost (the host checked each when it arrived);
        it is listed in `WindowOutcome.refused` with its reason, so a caller that did not answer it
        already (a scenario file, a replay check) can say so.

        `as_recorded_before` rules as hosts did before that equivalence held (every answer after the
        window closed lost, a refused answer left no trace), for replaying the rulings they journalled.

        Raises IllegalAction for a window that is not open.
        """
        window = self.windows.get(window_id)
        if window is None:
            raise IllegalAction(f"window {window_id} is not open", reason="WINDOW_CLOSED")
        out: list[Event] = []
        refused: list[RefusedReaction] = []
        for answer in reactions:
            command = (answer,) if isinstance(answer, Action) else tuple(answer)
            reaction = command[0]
            is_judged = window_id in self.windows or (not as_recorded_before and self._is_judged_late(window, reaction))
            if self.phase is ROUND_OVER or not is_judged:
                out.append(ev.RaceLost(reaction.seat, window_id))
                continue
            try:
                out += self.apply_command(command)
            except (IllegalAction, MalformedAction) as error:
                refused.append(RefusedReaction(reaction, error.reason, str(error)))
                if not as_recorded_before:
                    out.append(ev.RaceLost(reaction.seat, window_id))
        if window_id in self.windows and self.phase is not ROUND_OVER:
            out += self.close_window(window_id)
        return WindowOutcome(out, tuple(refused))

    def _is_judged_late(self, window: Window, reaction: Action) -> bool:
        """U4: a catch ruled after its window closed is still a catch the rules judge (a false catch
        under `false_call_penalty`); every other late answer to an exclusive window lost the race."""
        return window.kind is UNO_CATCH_WINDOW and isinstance(reaction, CatchUno) and self.ruleset.false_call_penalty

    # ------------------------------------------------------------------------------ handlers

    def _on_play(self, action: Play) -> None:
        seat, cards = action.seat, action.cards
        if type(cards) is tuple and len(cards) == 1 and type(cards[0]) is Card:  # one card
            card = cards[0]
            if card not in self.hands[seat]:
                raise MalformedAction(f"seat {seat} does not hold {card}", reason="CARD_NOT_IN_HAND")
            color = self.color
            phase = self.phase
            # The usual play: the seat to act on its turn (or the card it just drew), nothing open (no
            # window, so no blocking one and no run waiting to be cut, nor an obligation) and a card
            # `_is_playable` (inlined) accepts. Every check below would pass (a playable card `matches`,
            # so H15 does not apply), and with no window `_begin_turn` has nothing to close.
            if (
                seat == self.current
                and (phase is TURN or (phase is AFTER_DRAW and card is self.drawn))
                and self.obligation is None
                and not self.windows
                and self._pending_run is None
                and (card.color is color or card.rank is self.discard[-1].rank or card.color is BLACK or color is None)
                and (card.rank is not WILD_DRAW_FOUR or self.ruleset.bluffing)
            ):
                self.drawn = None  # `_play_from_turn`, for one card and no obligation
                self.phase = TURN
                self._land(seat, cards)
                self._after_landing(seat, cards, action.call_uno)
                return
        else:
            if not cards or not all(isinstance(card, Card) for card in cards):
                raise MalformedAction("a play needs at least one card", reason="NO_CARDS")
            self._require_held(seat, cards)
        run = self._pending_run
        if run is not None:
            refusal = self.run_cut_refusal(seat, cards)
            if refusal is not None:
                raise refusal()
            self._cut_run(action)
            return
        if self._blocking:
            raise IllegalAction("a reaction window is open; play waits for it", reason="WINDOW_OPEN")
        phase = self.phase
        if seat != self.current or (phase is not TURN and phase is not AFTER_DRAW):
            self._jump_in(action)
            return
        if phase is AFTER_DRAW:
            if len(cards) != 1 or cards[0] != self.drawn:
                raise IllegalAction(
                    f"after drawing, only the drawn card ({self.drawn}) may be played",
                    reason="ONLY_DRAWN_CARD",
                )
            self._require_playable(seat, cards[0])
            self._play_from_turn(action)
            return
        if len(cards) > 1:
            self._check_group(seat, cards)
        elif self.obligation is not None and self._answer_kind(cards[0], self.obligation) is not None:
            self._check_answer(seat, cards[0])  # H1/H3 decide what answers an obligation, not T1
        elif self.ruleset.illegal_play_penalty and not matches(cards[0], self.color, self.top):
            # H15: only a card that does not match is punished (an unfair Wild Draw Four matches: T2
            # refuses it), also when a draw obligation is open; the obligation stays.
            self._begin_turn()
            self._out.append(ev.IllegalPlay(seat, cards[0]))
            self._draw(seat, ILLEGAL_PLAY_PENALTY, DrawReason.ILLEGAL_PLAY)
            return
        elif self.obligation is not None:
            self._check_answer(seat, cards[0])
        elif not self._is_playable(seat, cards[0]):
            self._require_playable(seat, cards[0])
        if self.windows:
            self._begin_turn()
        self._play_from_turn(action)

    def _play_from_turn(self, action: Play) -> None:
        seat, cards = action.seat, action.cards
        self.drawn = None
        self.phase = TURN
        if len(cards) > 1 and self.ruleset.runs and is_run(cards):
            self._start_run(action)
            return
        answering = self.obligation
        self._land(seat, cards)
        if answering is not None:
            self._answer_obligation(seat, cards[0], answering, action.call_uno)
            return
        self._after_landing(seat, cards, action.call_uno)

    def color_refusal(self, seat: int) -> Refusal | None:
        """T9, T10: why `seat` may not name a colour now, or None when it names the one just played."""
        pending = self._pending_black
        if self.phase is not CHOOSE_COLOR or pending is None:
            return lambda: IllegalAction("there is no colour to choose now", reason="NO_COLOR_TO_CHOOSE")
        if seat != pending.seat:
            return lambda: NotYourTurn(f"seat {pending.seat} names the colour, not seat {seat}")
        return None

    def _on_choose_color(self, action: ChooseColor) -> None:
        refusal = self.color_refusal(action.seat)
        if refusal is not None:
            raise refusal()
        pending = self._pending_black
        assert pending is not None
        if action.color not in PLAYABLE_COLORS:
            raise MalformedAction(
                f"{action.color!r} cannot be named; name red, yellow, green or blue", reason="BAD_COLOR"
            )
        self._pending_black = None
        self.phase = TURN
        self.color = action.color
        seat, card = pending.seat, pending.card
        if not self._quiet:
            self._out.append(color_chosen(seat, action.color))
        if pending.context is _ColorFor.FIRST_CARD:
            self._start_turn(seat)
            return
        if pending.context is _ColorFor.DEFLECT:
            obligation = self.obligation
            assert obligation is not None
            self._move_obligation(obligation, self._next(seat))
            return
        if card.rank is WILD_DRAW_FOUR:
            self._set_wild_draw_four(seat, card)
        elif card.rank is BLANK and self.ruleset.blank_effect is BlankEffect.DRAW:
            self._set_obligation(Obligation(self.ruleset.blank_draw, BLANK, self._next(seat), seat, True))
            self._start_turn(self._next(seat))
        elif card.rank is PLUS_ONE or card.rank is PLUS_TWO:  # `in H2O_AMOUNT` hashes the Rank in Python
            self._h2o(seat, H2O_AMOUNT[card.rank])
            self._advance(seat)
        else:
            self._advance(seat)

    def _on_draw(self, action: Draw) -> None:
        seat = action.seat
        if self._blocking or seat != self.current or self.phase is not TURN:
            self._require_turn(seat, TURN)  # raises
        if self.windows:
            self._begin_turn()
        obligation = self.obligation
        if obligation is not None:  # T8, T10: accepting the obligation
            self.obligation = None
            self._draw(seat, obligation.amount, DrawReason.OBLIGATION)
            if self._round_ended_by_went_out():
                return
            if obligation.skips:
                self._advance(seat)
            else:
                self._start_turn(seat, announce=False)
            return
        if self.ruleset.draw_to_match:
            drawn = self._draw_for_turn(seat)
        else:  # `_draw_for_turn`, inlined for the usual one card
            got = self._draw(seat, 1, TURN_DRAW)
            drawn = got[0] if got else None
        if drawn is not None and self._is_playable(seat, drawn):
            self.drawn = drawn
            self.phase = AFTER_DRAW
        else:
            self._advance(seat)

    def _on_pass(self, action: Pass) -> None:
        # H11: a 5 *lets* its player swap a card; passing declines the swap.
        declines_swap = self.phase is FIVE_SWAP
        self._require_turn(action.seat, FIVE_SWAP if declines_swap else AFTER_DRAW)
        if not declines_swap and not self._quiet:
            self._out.append(ev.DrawnCardKept(action.seat))  # T3
        self.phase = TURN
        self.drawn = None
        self._advance(action.seat)

    def _on_call_uno(self, action: CallUno) -> None:
        seat = action.seat
        if seat not in self.catchable:
            raise IllegalAction(
                f"seat {seat} has no UNO to call: it holds {len(self.hands[seat])} cards or already called",
                reason="NOTHING_TO_CALL",
            )
        self.catchable.discard(seat)
        self._close_catch_window(seat)
        self._out.append(uno_called(seat))
        self._open_slap_window(seat)

    def _on_catch(self, action: CatchUno) -> None:
        seat, target = action.seat, action.target
        if not (isinstance(target, int) and 0 <= target < self.num_players) or not self.in_play[target]:
            raise MalformedAction(f"seat {target!r} is not playing this round", reason="BAD_SEAT")
        if target == seat:
            raise MalformedAction("a player cannot catch themselves; call UNO instead", reason="CATCH_SELF")
        if target in self.catchable:  # U2
            self.catchable.discard(target)
            self._close_catch_window(target)
            if not self._quiet:
                self._out.append(ev.UnoCaught(seat, target, self.ruleset.uno_penalty))
            self._draw(target, self.ruleset.uno_penalty, DrawReason.UNO_PENALTY)
            return
        if not self.ruleset.false_call_penalty:  # U3
            raise IllegalAction(f"seat {target} cannot be caught now", reason="NOT_CATCHABLE")
        self._out.append(ev.FalseCatch(seat, target, FALSE_CATCH_PENALTY))  # U4
        self._draw(seat, FALSE_CATCH_PENALTY, DrawReason.FALSE_CATCH)

    def challenge_refusal(self, seat: int) -> Refusal | None:
        """B1: the refusal of `seat` challenging now, or None when it may challenge the Wild Draw Four it
        must answer."""
        refusal = self._turn_refusal(seat, TURN)
        if refusal is not None:
            return refusal
        obligation = self.obligation
        if obligation is None or obligation.bluff is None or not self.ruleset.can_challenge:
            return lambda: IllegalAction("there is no Wild Draw Four to challenge", reason="NOTHING_TO_CHALLENGE")
        return None

    def _on_challenge(self, action: Challenge) -> None:
        seat = action.seat
        refusal = self.challenge_refusal(seat)
        if refusal is not None:
            raise refusal()
        obligation = self.obligation
        bluff = obligation.bluff if obligation is not None else None
        assert obligation is not None and bluff is not None
        self._begin_turn()
        self.obligation = None
        accused = bluff.accused
        guilty = not bluff.is_fair
        quiet = self._quiet  # a playout's challenge (a decision a search weighs) builds no events
        if not quiet:
            self._out.append(ev.HandRevealed(seat, accused, bluff.hand))  # B2
        rule = self.ruleset.bluff_penalty
        if not guilty:  # B4, B5
            if not quiet:
                self._out.append(ev.Challenged(seat, accused, guilty, obligation.amount + BLUFF_EXTRA, rule))
            self._draw(seat, obligation.amount + BLUFF_EXTRA, DrawReason.CHALLENGE_LOST)
            if not self._round_ended_by_went_out():
                self._advance(seat)
            return
        penalty = obligation.amount  # B3, B5
        if rule is BluffPenalty.DRAW_SIX:
            penalty += BLUFF_EXTRA
        if not quiet:
            self._out.append(ev.Challenged(seat, accused, guilty, penalty, rule))
        if rule is BluffPenalty.TAKE_BACK:
            taken = self.discard.pop()
            self.hands[accused].append(taken)
            self.color = bluff.previous_color
            self.skip_next.add(accused)
            if not quiet:
                self._out.append(ev.CardTakenBack(accused, taken, self.discard[-1], self.color))
        if self.went_out == accused:  # B3: back in the round (another who went out is then waited for)
            self.went_out = next((s for s in self.seats() if not self.hands[s] and s != accused), None)
        self._draw(accused, penalty, DrawReason.BLUFF_CAUGHT)
        if self._round_ended_by_went_out():  # P1: the chain's draw is settled by the accused's draw
            return
        self._start_turn(seat)

    def _on_choose_swap_target(self, action: ChooseSwapTarget) -> None:
        seat, target = action.seat, action.target
        self._require_turn(seat, CHOOSE_SWAP_TARGET)
        self._require_other_seat(seat, target)
        self.hands[seat], self.hands[target] = self.hands[target], self.hands[seat]
        self._out.append(ev.HandsSwapped(seat, target, tuple(self.hands[seat]), tuple(self.hands[target])))
        self.phase = TURN
        self._advance(seat)

    def _on_five_swap(self, action: FiveSwap) -> None:
        seat, target, card = action.seat, action.target, action.card
        self._require_turn(seat, FIVE_SWAP)
        self._require_other_seat(seat, target)
        self._require_held(seat, (card,))
        self.hands[seat].remove(card)
        self._swap = (seat, target, card)
        self.phase = GIVE_CARD
        self._out.append(ev.SwapOffered(seat, target, card))

    def _on_give_card(self, action: GiveCard) -> None:
        swap = self._swap
        if self.phase is not GIVE_CARD or swap is None:
            raise IllegalAction("nobody is waiting for a card now", reason="NO_SWAP")
        giver, target, given = swap
        if action.seat != target:
            raise NotYourTurn(f"seat {target} gives the card back, not seat {action.seat}")
        self._require_held(target, (action.card,))
        self.hands[target].remove(action.card)
        self.hands[target].append(given)
        self.hands[giver].append(action.card)
        self._swap = None
        self._out.append(ev.CardsExchanged(giver, target, given, action.card))
        self.phase = TURN
        self._advance(giver)

    def react_refusal(self, seat: int, window_id: int) -> Refusal | None:
        """U5, H12: the refusal of `seat` answering window `window_id` now, or None when it may: the
        window is an open slap or sound-wild window, the seat is eligible and has not answered yet."""
        window = self.windows.get(window_id)
        log = self._reactions.get(window_id)
        if window is None or log is None:
            return lambda: IllegalAction(f"window {window_id} is not open for reactions", reason="WINDOW_CLOSED")
        if seat not in window.eligible:
            return lambda: IllegalAction(f"seat {seat} is not in window {window_id}", reason="NOT_ELIGIBLE")
        if seat in log.order:
            return lambda: IllegalAction(f"seat {seat} already reacted", reason="ALREADY_REACTED")
        return None

    def _on_react(self, action: React) -> None:
        refusal = self.react_refusal(action.seat, action.window)
        if refusal is not None:
            raise refusal()
        window = self.windows[action.window]
        log = self._reactions[action.window]
        log.order.append(action.seat)
        if len(log.order) == len(window.eligible):
            self._close_window(window.id)

    def _on_chat(self, action: Chat) -> None:
        if self.silence is not None:  # H14
            self._draw(action.seat, SILENCE_PENALTY, DrawReason.BROKE_SILENCE)

    # ----------------------------------------------------------------------- turn mechanics (T)

    def _begin_turn(self) -> None:
        """The player to act began their turn: U2 catch, H6 jump-in and H8 escape windows close."""
        if self.windows:
            for window in list(self.windows.values()):
                if not window.is_blocking:
                    self._close_window(window.id)

    def _start_turn(self, seat: int, *, announce: bool = True) -> None:
        self.current = seat
        self.phase = TURN
        if announce and not self._quiet:
            self._out.append(turn_started(seat))

    def _advance(self, seat: int, skips: int = 0) -> None:
        """Pass the turn on from `seat`, skipping `skips` players (T6) and anyone owed a lost turn (B3)."""
        step = self.direction  # `self._next(seat)`, inlined
        nxt = (seat + step) % (n := self.num_players)
        in_play, hands = self._in_play, self.hands
        while not in_play[nxt] or nxt == self.went_out or not hands[nxt]:
            nxt = (nxt + step) % n
        if skips:
            for _ in range(skips):
                if nxt == seat:  # with two players, however many skips, the player goes again
                    break
                if not self._quiet:
                    self._out.append(skipped(nxt))
                nxt = self._next(nxt)
        skip_next = self.skip_next
        while skip_next and nxt in skip_next:
            skip_next.discard(nxt)
            if not self._quiet:
                self._out.append(skipped(nxt))
            nxt = self._next(nxt)
        self.current = nxt  # `_start_turn(nxt)`, inlined
        self.phase = TURN
        if not self._quiet:
            self._out.append(turn_started(nxt))

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

    def _draw_for_turn(self, seat: int) -> Card | None:
        """T3/T4: one card, or with `draw_to_match` until a playable one. Returns the last card drawn."""
        if not self.ruleset.draw_to_match:
            drawn = self._draw(seat, 1, TURN_DRAW)
            return drawn[0] if drawn else None
        last: Card | None = None
        drawn_cards: list[Card] = []
        while True:
            got = self._take(1) if self.draws is None else self._take_for(seat, 1)
            if not got:
                break
            last = got[0]
            drawn_cards.append(last)
            self.hands[seat].append(last)
            if self._is_playable(seat, last):
                break
        self._out.append(ev.Drew(seat, len(drawn_cards), DrawReason.TURN, tuple(drawn_cards), len(self.hands[seat])))
        return last

    def _draw(self, seat: int, count: int, reason: DrawReason) -> list[Card]:
        pile = self.draw_pile
        if self.draws is not None:
            cards = self._take_for(seat, count)
        else:
            cards = [pile.pop()] if count == 1 and len(pile) > 1 else self._take(count)  # `_take(1)`'s usual case
        hand = self.hands[seat]
        hand += cards
        size = len(hand)
        if not self._quiet:
            if len(cards) == 1 and reason is TURN_DRAW:
                self._out.append(drew_one(seat, cards[0], size))
            else:
                self._out.append(ev.Drew(seat, len(cards), reason, tuple(cards), size, count - len(cards)))
        if cards and seat == self.went_out:
            # Holding cards again (a Reverse sent a draw back, H3): back in the round; whoever else
            # went out in the same chain is now the one the round waits for (P1).
            self.went_out = next((s for s in self.seats() if not self.hands[s]), None)
        if seat in self.catchable and len(self.hands[seat]) != 1:
            self.catchable.discard(seat)
            self._close_catch_window(seat)
        return cards

    def _take(self, count: int) -> list[Card]:
        """T5: take cards from the pile, rebuilding it from the discards whenever it runs out."""
        pile = self.draw_pile
        if 0 < count < len(pile):  # the usual draw: enough cards, and some left after
            if count == 1:
                return [pile.pop()]
            top = pile[-count:]
            top.reverse()  # popped one at a time, the last card first
            del pile[-count:]
            return top
        return self._take_each(count, pile.pop)

    def _take_for(self, seat: int, count: int) -> list[Card]:
        """`_take` with each card the one `draws` picks for `seat`: the same rebuilds at the same moments."""
        pile = self.draw_pile
        draws = self.draws
        assert draws is not None
        return self._take_each(count, lambda: draws.take(pile, seat))

    def _take_each(self, count: int, pick: Callable[[], Card]) -> list[Card]:
        """`count` cards, one `pick()` from the draw pile at a time, the discards rebuilt into it whenever
        it runs out (T5; `_rebuild_pile` refills the same list, which `pick` holds)."""
        pile = self.draw_pile
        taken: list[Card] = []
        for _ in range(count):
            if not pile:
                self._rebuild_pile()
                if not pile:
                    break  # owed cards that cannot be drawn are forgiven
            taken.append(pick())
        if not pile:
            self._rebuild_pile()
        return taken

    def _rebuild_pile(self) -> None:
        # B3 take_back may still restore the card under a Wild Draw Four: it stays with the top card.
        keep = 2 if self._can_take_back() else 1
        if len(self.discard) <= keep:
            return
        rest = self.discard[:-keep]
        del self.discard[:-keep]
        self.shuffle(rest, "rebuild")
        self.draw_pile[:0] = rest
        if not self._quiet:
            self._out.append(ev.Reshuffled(len(rest)))

    def _can_take_back(self) -> bool:
        """Could a challenge still take the top Wild Draw Four back (B3 `take_back`)?"""
        if self.ruleset.bluff_penalty is not BluffPenalty.TAKE_BACK or not self.ruleset.can_challenge:
            return False
        pending = self._pending_black
        if pending is not None and pending.card.rank is WILD_DRAW_FOUR:
            return True  # its colour is still being named
        return self.obligation is not None and self.obligation.bluff is not None

    # ----------------------------------------------------------------------- playing cards

    def _is_playable(self, seat: int, card: Card) -> bool:
        """T1, T2: may `card` be played on the pile now, with no draw obligation open?"""
        rank = card.rank
        if rank is WILD_DRAW_FOUR:
            return self.ruleset.bluffing or self._is_fair_wild_draw_four(seat, card)
        color = self.color  # T1 as `rules.matches`, inlined
        return card.color is BLACK or color is None or card.color is color or rank is self.discard[-1].rank

    def _is_fair_wild_draw_four(self, seat: int, card: Card) -> bool:
        rest = list(self.hands[seat])
        rest.remove(card)
        return is_wild_draw_four_fair(rest, self.color, self.discard[-1], self.ruleset.wild_draw_four)

    def playable_refusal(self, seat: int, card: Card) -> Refusal | None:
        """T1, T2: why `card` may not be played on the pile now (with no obligation open), or None.

        `_is_playable` is the same test as a bool, for the paths that need no message.
        """
        if self._is_playable(seat, card):
            return None
        if card.rank is WILD_DRAW_FOUR:
            return lambda: IllegalAction(
                f"{card} is not allowed: seat {seat} holds a card it could play instead "
                f"({self.ruleset.wild_draw_four.value}) and bluffing is off",
                reason="WILD_DRAW_FOUR_NOT_ALLOWED",
            )
        color = self.color.value if self.color else "any colour"
        return lambda: IllegalAction(f"{card} does not match {self.top} ({color})", reason="CARD_DOES_NOT_MATCH")

    def _require_playable(self, seat: int, card: Card) -> None:
        refusal = self.playable_refusal(seat, card)
        if refusal is not None:
            raise refusal()

    def _check_group(self, seat: int, cards: tuple[Card, ...]) -> None:
        """H4/H5: several cards at once must form a run or a multi-play starting with a playable card."""
        ruleset = self.ruleset
        if self.obligation is not None:
            raise IllegalAction("only one card may answer a draw obligation", reason="ONE_CARD_ONLY")
        if (ruleset.runs and is_run(cards)) or (ruleset.multi_play and is_multi_play(cards)):
            self._require_playable(seat, cards[0])
            return
        if not (ruleset.runs or ruleset.multi_play):
            raise IllegalAction("one card at a time: neither runs nor multi_play is on", reason="ONE_CARD_ONLY")
        raise IllegalAction(
            f"{', '.join(map(str, cards))} is neither a run nor a multi-play these rules allow",
            reason="NOT_A_GROUP",
        )

    def _answer_kind(self, card: Card, obligation: Obligation) -> _Answer | None:
        """H1/H3: how `card` may answer the open obligation, or None when it cannot."""
        ruleset = self.ruleset
        kind = obligation.kind
        rank = card.rank
        if ruleset.stacking:
            is_draw = rank is DRAW_TWO or rank is WILD_DRAW_FOUR  # rank in DRAW_AMOUNT
            if rank is kind and is_draw:
                return _Answer.STACK
            if ruleset.stacking_mixed and (kind is DRAW_TWO or kind is WILD_DRAW_FOUR) and is_draw:
                if rank is WILD_DRAW_FOUR or card.color is self.color:
                    return _Answer.STACK
        if ruleset.deflecting:
            if (rank is SKIP or rank is REVERSE) and card.color is self.color:
                return _Answer.DEFLECT
            if rank is WILD:
                return _Answer.DEFLECT
            if rank is DRAW_TWO and kind is WILD_DRAW_FOUR and card.color is self.color:
                return _Answer.DEFLECT
        return None

    def answer_refusal(self, seat: int, card: Card) -> Refusal | None:
        """H1, H3: why `card` may not answer the draw obligation open on `seat`, or None when it may.

        The one test of an answer: `apply` raises what it returns and `legal_actions` lists the cards
        it lets through. Raises nothing; needs an open obligation.
        """
        obligation = self.obligation
        assert obligation is not None
        kind = self._answer_kind(card, obligation)
        # Only a deflecting Reverse can reach a setter who went out (H3, P1); nothing else can pass it on,
        # and a setter who forfeited cannot be reached at all.
        back_to_setter = kind is _Answer.DEFLECT and card.rank is REVERSE and self.in_play[obligation.setter]
        if self._next(seat) == seat and not back_to_setter:
            return lambda: IllegalAction("nobody is left to pass the obligation to", reason="MUST_DRAW")
        if kind is None:
            return lambda: IllegalAction(
                f"seat {seat} must draw {obligation.amount}"
                + (" or challenge" if obligation.bluff else "")
                + f"; {card} cannot answer it under these rules",
                reason="MUST_ANSWER_OBLIGATION",
            )
        if card.rank is WILD_DRAW_FOUR and not self.ruleset.bluffing:
            return self.playable_refusal(seat, card)
        return None

    def _check_answer(self, seat: int, card: Card) -> None:
        refusal = self.answer_refusal(seat, card)
        if refusal is not None:
            raise refusal()

    def _land(self, seat: int, cards: tuple[Card, ...]) -> None:
        """Move played cards from the hand to the pile (the card 'lands')."""
        hand = self.hands[seat]
        if cards[0].rank is WILD_DRAW_FOUR:
            rest = list(hand)
            rest.remove(cards[0])
            fair = is_wild_draw_four_fair(rest, self.color, self.discard[-1], self.ruleset.wild_draw_four)
            self._bluff_snapshot = (tuple(rest), fair, self.color)
        if len(cards) == 1 and type(cards) is tuple:  # the usual play: one card, and its shared event
            card = cards[0]
            hand.remove(card)
            self.discard.append(card)
            if self._quiet:
                self.first_card_on_top = False
                if self.silence == seat:
                    self.silence = None
                return
            played = played_one(seat, cards, len(hand))
        else:
            for card in cards:
                hand.remove(card)
                self.discard.append(card)
            played = ev.Played(seat, cards, hand_size=len(hand))
        self.first_card_on_top = False
        if self.silence == seat:
            self.silence = None
        if not self._quiet:
            self._out.append(played)

    def _after_landing(self, seat: int, cards: tuple[Card, ...], call_uno: bool) -> None:
        """Apply a played card's effects (T6–T10, H10–H14) and settle UNO (U1) and the end of the round."""
        card = cards[-1]
        rank = card.rank
        ruleset = self.ruleset
        hand = self.hands[seat]
        if len(hand) == 1:
            self._settle_uno(seat, call_uno)
        if rank is TWO and ruleset.silent_two:
            self.silence = seat
            self._out.append(ev.SilenceStarted(seat))
        if (
            not hand
            and rank is not WILD_DRAW_FOUR
            and not (rank is DRAW_TWO or (rank is BLANK and ruleset.blank_effect is BlankEffect.DRAW))
        ):
            if rank is PLUS_ONE or rank is PLUS_TWO:  # rank in H2O_AMOUNT
                self._h2o(seat, H2O_AMOUNT[rank])
            self._end_round(seat)
            return
        if ruleset.jump_in:
            self._open_jump_window(seat, card)
        if not hand and self.went_out is None:  # P1: a final draw card still makes the next player draw
            self.went_out = seat
        color = card.color
        if color is BLACK:
            if rank is SOUND_WILD:  # H12: no colour is named, anything may follow
                self.color = None
                self._open_window(SOUND_WILD_WINDOW, self._seats, seat, blocking=True, card=card)
                self._advance(seat)
                return
            self._pending_black = _PendingBlack(seat, card, _ColorFor.PLAY)
            self.current = seat
            self.phase = CHOOSE_COLOR
            return
        self.color = color
        count = len(cards)
        if rank is SKIP:
            self._advance(seat, skips=count)
            if ruleset.skip_escape:
                self._open_escape_window(seat, card)
        elif rank is REVERSE:
            if len(self._seats) == 2:  # T7
                self._advance(seat, skips=count)
            else:
                if count % 2:
                    self.direction = -self.direction
                    if not self._quiet:
                        self._out.append(ev.DirectionChanged(self.direction))
                self._advance(seat)
        elif rank is DRAW_TWO:
            target = self._next(seat)
            self._set_obligation(Obligation(2, DRAW_TWO, target, seat, ruleset.draw_penalty_skips_turn))
            self._start_turn(target)
        elif rank is ZERO and ruleset.seven_o:
            self._rotate_hands()
            self._advance(seat)
        elif rank is SEVEN and ruleset.seven_o:
            self.phase = CHOOSE_SWAP_TARGET
        elif rank is FIVE and ruleset.five_swap:
            self.phase = FIVE_SWAP
        else:
            self._advance(seat)

    def _settle_uno(self, seat: int, call_uno: bool) -> None:
        """U1: a player down to one card by playing must call; one who did not can be caught (U2)."""
        if len(self.hands[seat]) != 1:
            return
        if call_uno:
            if seat in self.catchable:
                self.catchable.discard(seat)
                self._close_catch_window(seat)
            self._markcalled_uno(seat)
            if not self._quiet:
                self._out.append(uno_called(seat))
            self._open_slap_window(seat)
        elif seat not in self.catchable:
            self.catchable.add(seat)
            others = tuple([s for s in self._seats if s != seat])
            self._open_window(UNO_CATCH_WINDOW, others, seat, blocking=False, target=seat)

    def _markcalled_uno(self, seat: int) -> None:
        """The play that brought `seat` down to one card carried the call (CardsPlayed.called_uno): its
        Played, the seat's last in this step, says so. A run's first card landed in an earlier step, so
        a call settled when the run is cut has no Played here to mark."""
        if self._quiet:
            return
        out = self._out
        for i in range(len(out) - 1, -1, -1):
            event = out[i]
            if type(event) is ev.Played and event.seat == seat:
                out[i] = called_uno(event)
                return

    def _set_wild_draw_four(self, seat: int, card: Card) -> None:
        """T10/B5: after the colour is named, the next player owes 4 (or the chain's total)."""
        hand, is_fair, previous_color = self._bluff_snapshot
        previous = self.obligation
        amount = _WILD_DRAW_FOUR_AMOUNT
        if previous is not None and self.ruleset.stacking_cumulative:
            amount += previous.amount
        bluff = BluffRecord(seat, hand, is_fair, card, previous_color)
        target = self._next(seat)
        self._set_obligation(
            Obligation(amount, WILD_DRAW_FOUR, target, seat, self.ruleset.draw_penalty_skips_turn, bluff)
        )
        self._start_turn(target)

    def _answer_obligation(self, seat: int, card: Card, obligation: Obligation, call_uno: bool) -> None:
        """H1 stacking and H3 deflecting, after the answering card has landed."""
        kind = self._answer_kind(card, obligation)
        self._settle_uno(seat, call_uno)
        self._open_jump_window(seat, card)  # H6: every card played opens its window, an answer too
        if not self.hands[seat] and self.went_out is None:  # H1/H3: the round ends once it is drawn;
            self.went_out = seat  # the first to go out wins (P1)
        if card.rank is WILD_DRAW_FOUR:  # stacked: colour first, then the chain goes on (B5)
            self._pending_black = _PendingBlack(seat, card, _ColorFor.PLAY)
            self.phase = CHOOSE_COLOR
            self.current = seat
            return
        if kind is _Answer.STACK:
            self.color = card.color
            amount = 2 + obligation.amount if self.ruleset.stacking_cumulative else 2
            target = self._next(seat)
            self._set_obligation(Obligation(amount, DRAW_TWO, target, seat, obligation.skips))
            self._start_turn(target)
            return
        if card.rank is WILD:
            self._pending_black = _PendingBlack(seat, card, _ColorFor.DEFLECT)
            self.phase = CHOOSE_COLOR
            self.current = seat
            return
        self.color = card.color
        if card.rank is DRAW_TWO:  # H3: a Draw Two of the named colour drops the four
            target = self._next(seat)
            self._set_obligation(Obligation(2, DRAW_TWO, target, seat, self.ruleset.draw_penalty_skips_turn))
            self._start_turn(target)
        elif card.rank is SKIP:
            self._move_obligation(obligation, self._next(seat))
        else:  # Reverse: back to the player who set it
            self.direction = -self.direction
            if not self._quiet:
                self._out.append(ev.DirectionChanged(self.direction))
            # P1: also a setter who went out; a setter who forfeited is gone, so it goes on instead.
            back = obligation.setter if self.in_play[obligation.setter] else self._next(seat)
            self._move_obligation(obligation, back)

    def _move_obligation(self, obligation: Obligation, target: int) -> None:
        moved = Obligation(obligation.amount, obligation.kind, target, obligation.setter, obligation.skips)
        self._set_obligation(moved)
        self._start_turn(target)

    def _set_obligation(self, obligation: Obligation) -> None:
        self.obligation = obligation
        if self._quiet:
            return
        challengeable = obligation.bluff is not None and self.ruleset.can_challenge
        self._out.append(
            draw_obligation(obligation.target, obligation.amount, obligation.setter, obligation.kind, challengeable)
        )

    def _round_ended_by_went_out(self) -> bool:
        """P1: once the obligation left by a player who went out is drawn, the round ends."""
        if self.went_out is not None and self.obligation is None and not self.hands[self.went_out]:
            self._end_round(self.went_out)
            return True
        return False

    def _h2o(self, seat: int, amount: int) -> None:
        """C2 h2o wilds: every other player draws, one at a time in turn order; nobody is skipped."""
        seats = self.seats()  # in turn order from the next player (a last card's player holds none)
        start = seats.index(seat)
        for i in range(1, len(seats)):
            self._draw(seats[(start + i * self.direction) % len(seats)], amount, DrawReason.H2O)

    def _rotate_hands(self) -> None:
        """H10 zero: every hand passes to the next player in the direction of play."""
        seats = self.seats()  # not `_next`: at the end of a round (P3) the winner's hand is empty
        old = [self.hands[seat] for seat in seats]
        for i, hand in enumerate(old):
            self.hands[seats[(i + self.direction) % len(seats)]] = hand
        self._out.append(ev.HandsRotated(self.direction, tuple(tuple(hand) for hand in self.hands)))

    # ----------------------------------------------------------------------- runs (H4)

    def _start_run(self, action: Play) -> None:
        seat, cards = action.seat, action.cards
        self._land(seat, cards[:1])
        self.color = cards[0].color
        cutter = self._next(seat)
        self._pending_run = _PendingRun(seat, cards[1:], action.call_uno)
        self._open_window(RUN_CUT_WINDOW, (cutter,), seat, blocking=True, target=cutter, card=cards[0])

    def _cut_run(self, action: Play) -> None:
        run = self._pending_run
        assert run is not None  # `run_cut_refusal` has passed the play
        window = next(w for w in self.windows.values() if w.kind is RUN_CUT_WINDOW)
        self._pending_run = None
        self._reactions.pop(window.id, None)
        del self.windows[window.id]
        self._blocking -= 1  # a run-cut window is blocking
        self._out.append(ev.WindowClosed(window.id, (action.seat,), kind=window.kind))
        self._settle_uno(run.seat, run.call_uno)
        self.current = action.seat
        self.phase = TURN
        self._begin_turn()
        seat, cards = action.seat, action.cards
        self._land(seat, cards)
        if not self._quiet:
            landed = self._out[-1]
            assert isinstance(landed, ev.Played)
            self._out[-1] = dataclasses.replace(landed, run_cut=True, window=window.id)
        self._after_landing(seat, cards, action.call_uno)

    def _finish_run(self) -> None:
        run = self._pending_run
        assert run is not None
        self._pending_run = None
        self._land(run.seat, run.rest)
        self._after_landing(run.seat, run.rest, run.call_uno)

    # ----------------------------------------------------------------------- jump-ins (H6–H8)

    def _jump_in(self, action: Play) -> None:
        seat, cards = action.seat, action.cards
        ruleset = self.ruleset
        escape = self._escape_window_for(seat)
        refusal = self._jump_in_refusal(seat, len(cards), escape)
        if refusal is not None:
            raise refusal()
        card = cards[0]
        if not self._is_jump_allowed(seat, card, escape):
            if ruleset.jump_in_penalty is JumpInPenalty.CARDS:
                self._out.append(ev.WrongJumpIn(seat, card, penalty_cards=WRONG_JUMP_IN_CARDS))
                self._draw(seat, WRONG_JUMP_IN_CARDS, DrawReason.WRONG_JUMP_IN)
            else:
                self._out.append(ev.WrongJumpIn(seat, card, penalty_points=WRONG_JUMP_IN_POINTS))
                self.penalty_points[seat] += WRONG_JUMP_IN_POINTS
                self._out.append(ev.PenaltyPoints(seat, WRONG_JUMP_IN_POINTS))
            return
        refusal = self.jump_in_obligation_refusal(card)
        if refusal is not None:
            raise refusal()
        obligation = self.obligation
        # The window the jump-in wins: the skipped player's escape with the identical Skip, else the top card's.
        won = escape.id if escape is not None and card == self.discard[-1] else self._jump_window or 0
        self._begin_turn()
        self.current = seat
        self.phase = TURN
        self.drawn = None
        self._land(seat, cards)
        if not self._quiet:
            landed = self._out[-1]
            assert isinstance(landed, ev.Played)
            self._out[-1] = dataclasses.replace(landed, jump_in=True, window=won)
        if obligation is not None and card.rank is DRAW_TWO:  # H6: the jumper takes the chain over
            self._settle_uno(seat, action.call_uno)
            self._open_jump_window(seat, card)
            self.color = card.color
            cumulative = ruleset.stacking and ruleset.stacking_cumulative
            amount = obligation.amount + 2 if cumulative else 2
            target = self._next(seat)
            self._set_obligation(Obligation(amount, DRAW_TWO, target, seat, obligation.skips))
            if not self.hands[seat] and self.went_out is None:
                self.went_out = seat
            self._start_turn(target)
            return
        self.obligation = None
        self._after_landing(seat, cards, action.call_uno)

    def jump_in_refusal(self, seat: int, count: int) -> Refusal | None:
        """H6-H8: why a play of `count` cards by `seat`, out of its turn, is refused before the rules
        judge its card (`is_jump_in_allowed`), or None. Needs no run waiting to be cut (H4) nor a
        blocking window open: those refuse or take the play first."""
        return self._jump_in_refusal(seat, count, self._escape_window_for(seat))

    def _jump_in_refusal(self, seat: int, count: int, escape: Window | None) -> Refusal | None:
        if not self.ruleset.jump_in and escape is None:
            if seat != self.current:
                return lambda: NotYourTurn(
                    f"it is seat {self.to_act}'s turn, not seat {seat}'s", metadata=self._turn_facts()
                )
            return lambda: IllegalAction(f"seat {seat} cannot play during {self.phase.value}", reason="WRONG_PHASE")
        if self.phase is not TURN and self.phase is not AFTER_DRAW:
            return lambda: IllegalAction(
                f"wait until seat {self.current} finishes {self.phase.value}", reason="WAIT_FOR_EFFECT"
            )
        if count != 1:
            return lambda: IllegalAction("a jump-in is one card", reason="ONE_CARD_ONLY")
        return None

    def jump_in_obligation_refusal(self, card: Card) -> Refusal | None:
        """H6: why `card`, a jump-in the rules allow, is refused on the open draw obligation, or None."""
        if self.obligation is not None and card.rank is not DRAW_TWO:
            return lambda: IllegalAction(
                "only a Draw Two may jump in on an open draw obligation", reason="OBLIGATION_OPEN"
            )
        return None

    def is_jump_in_allowed(self, seat: int, card: Card) -> bool:
        """H6-H8: does `card`, played by `seat` out of its turn, jump in rightly? A wrong one is punished
        (H7), not refused."""
        return self._is_jump_allowed(seat, card, self._escape_window_for(seat))

    def run_cut_refusal(self, seat: int, cards: tuple[Card, ...]) -> Refusal | None:
        """H4: why `seat` may not cut the run waiting for its cut window with `cards`, or None."""
        cutter = self.run_cutter
        assert cutter is not None, "no run is waiting to be cut"
        if seat != cutter:
            run = self._pending_run
            assert run is not None
            return lambda: NotYourTurn(f"seat {run.seat} is playing a run; only seat {cutter} may cut it")
        if len(cards) != 1:
            return lambda: IllegalAction("a run is cut with one card", reason="ONE_CARD_ONLY")
        return self.playable_refusal(seat, cards[0])

    def _is_jump_allowed(self, seat: int, card: Card, escape: Window | None) -> bool:
        if self.first_card_on_top or card.rank is WILD_DRAW_FOUR:
            return False
        top = self.discard[-1]
        if escape is not None and card == top:
            return True
        if self._jump_window is None or not self.ruleset.jump_in:
            return False
        if card.is_black:
            return card.rank is WILD and top.rank is WILD and self.ruleset.jump_in_wilds
        if card.rank is not top.rank:
            return False
        return self.ruleset.super_jump_in or card.color is top.color

    def _escape_window_for(self, seat: int) -> Window | None:
        for window in self.windows.values():
            if window.kind is SKIP_ESCAPE_WINDOW and window.target == seat:
                return window
        return None

    # ----------------------------------------------------------------------- windows

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
            self._reactions[window.id] = _ReactionLog()
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

    def _close_window(self, window_id: int) -> None:
        window = self.windows.pop(window_id)
        if window.is_blocking:
            self._blocking -= 1
        log = self._reactions.pop(window_id, None)
        if window.id == self._jump_window:
            self._jump_window = None
        if window.kind is UNO_CATCH_WINDOW and window.target is not None:
            self.catchable.discard(window.target)  # U3: nobody can be caught for that card any more
        if log is None:
            if not self._quiet:
                self._out.append(window_closed(window))
            if window.kind is RUN_CUT_WINDOW and self._pending_run is not None:
                self._finish_run()
            return
        order = tuple(log.order)
        missing = tuple(seat for seat in window.eligible if seat not in order)
        slowest = missing or order[-1:]  # U5, H12: the slowest (or everyone who never reacted) draws 2
        self._out.append(ev.WindowClosed(window.id, order, slowest, window.kind))
        for seat in slowest:
            self._draw(seat, SLOWEST_PENALTY, DrawReason.SLOWEST)

    # ----------------------------------------------------------------------- forfeits

    def forfeit(self, seat: int) -> list[Event]:
        """Take a player out mid-round (a host's forfeit policy): their cards go under the draw pile,
        everything waiting on them moves on, and a round left with one player is that player's win.

        Raises MalformedAction for a seat not in play, RoundOver once the round is over.
        """
        if self.phase is Phase.ROUND_OVER:
            raise RoundOver(f"round {self.round_no} is over")
        if not (isinstance(seat, int) and 0 <= seat < self.num_players) or not self.in_play[seat]:
            raise MalformedAction(f"seat {seat!r} is not playing this round", reason="BAD_SEAT")
        self._quiet = False
        self._out = []
        was_to_act = self.to_act == seat or self.current == seat
        returned = tuple(self.hands[seat])
        self.draw_pile[:0] = returned
        self.hands[seat] = []
        self.in_play = tuple(playing and i != seat for i, playing in enumerate(self.in_play))
        self._out.append(ev.PlayerEliminated(seat, returned=returned))
        self.catchable.discard(seat)
        self.skip_next.discard(seat)
        if self.silence == seat:
            self.silence = None
        if self.went_out == seat:
            self.went_out = None
        self._forfeit_windows(seat)
        if self.is_over:  # the run the leaver would have cut landed and ended the round
            return self._out
        advance_from = seat
        swap = self._swap
        if swap is not None and seat in swap[:2]:  # H11 cut short: the given card goes back
            giver, _, given = swap
            (self.hands[giver] if giver != seat else self.draw_pile).append(given)
            self._swap = None
            was_to_act, advance_from = True, giver
        obligation = self.obligation
        if obligation is not None and seat in (obligation.setter, obligation.target):
            if obligation.setter == seat:
                obligation.bluff = None  # nobody is left to challenge
            if obligation.target == seat:
                obligation.target = self._next(seat)  # the next player owes it
            self._set_obligation(obligation)  # who owes it, or whether it can be challenged, changed: say so
        remaining = self.seats()
        if len(remaining) == 1:
            self._end_round(remaining[0])
        elif was_to_act:
            self._pending_black = None
            self.drawn = None
            if obligation is not None:
                self._start_turn(obligation.target)
            else:
                self._advance(advance_from)
        return self._out

    def _forfeit_windows(self, seat: int) -> None:
        run = self._pending_run
        if run is not None and run.seat == seat:
            self._pending_run = None  # the rest of the run went under the pile with the hand
        for window in list(self.windows.values()):
            is_run_cut = window.kind is RUN_CUT_WINDOW
            # A window about the leaver goes; a run cut the leaver would have made closes, and the run lands.
            if (window.target == seat and not is_run_cut) or (window.opened_by == seat and is_run_cut):
                self._reactions.pop(window.id, None)
                del self.windows[window.id]
                if window.id == self._jump_window:
                    self._jump_window = None
                self._out.append(window_closed(window))
            elif seat in window.eligible:
                eligible = tuple(s for s in window.eligible if s != seat)
                self.windows[window.id] = dataclasses.replace(window, eligible=eligible)
                reacted = self._reactions.get(window.id)
                if not eligible or (reacted is not None and set(eligible) <= set(reacted.order)):
                    self._close_window(window.id)
        self._blocking = sum(window.is_blocking for window in self.windows.values())

    # ----------------------------------------------------------------------- end of round (P1)

    def _end_round(self, winner: int) -> None:
        self.winner = winner
        self.went_out = None
        self.phase = ROUND_OVER
        self.obligation = None
        for window in list(self.windows.values()):
            self._reactions.pop(window.id, None)
            del self.windows[window.id]
            if not self._quiet:
                self._out.append(window_closed(window))
        self._blocking = 0
        self._pending_run = None
        self.catchable.clear()
        last = self.discard[-1]
        if self.ruleset.russian_scoring and self.ruleset.seven_o and last.rank is ZERO:
            self._rotate_hands()  # P3: hands rotate on a final 0 before counting

    # ----------------------------------------------------------------------- checks and helpers

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
            message = f"seat {seat} must {self.phase.value.replace('_', ' ')} now, not {phase.value.replace('_', ' ')}"
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


def _blank_copy(game: Game) -> Game:
    """An empty `Game` of `game`'s table for `copy` to fill: built through `__init__`, as a compiled
    class must be. Every seat in play, so that no check can refuse it (a copy may be of a round whose
    dealer has forfeited): `copy` then copies the seats in play."""
    return Game(game.ruleset, game.num_players, game.rng, dealer=game.dealer, _blank=True)


_COPY_SHALLOW = (
    "ruleset",
    "num_players",
    "round_no",
    "dealer",
    "_in_play",
    "_seats",
    "_blocking",
    "color",
    "direction",
    "current",
    "phase",
    "silence",
    "drawn",
    "winner",
    "went_out",
    "first_card_on_top",
    "_next_window",
    "_jump_window",
    "_swap",
    "_bluff_snapshot",
)

_HANDLERS: dict[type, Callable[[Game, Any], None]] = {
    Play: Game._on_play,
    ChooseColor: Game._on_choose_color,
    Draw: Game._on_draw,
    Pass: Game._on_pass,
    CallUno: Game._on_call_uno,
    CatchUno: Game._on_catch,
    Challenge: Game._on_challenge,
    ChooseSwapTarget: Game._on_choose_swap_target,
    FiveSwap: Game._on_five_swap,
    GiveCard: Game._on_give_card,
    React: Game._on_react,
    Chat: Game._on_chat,
}
