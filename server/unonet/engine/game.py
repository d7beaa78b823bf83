"""One round of UNO: the mutable state and the only code that changes it (`Game.apply`).

The state machine follows RULES.md rule by rule; each rule ID appears next to the code that plays it.
Every handler checks everything first and mutates after, so a refused action leaves the state exactly
as it was. All chance comes from the injected `random.Random`, and shuffling is the only chance event.

The rules below `Game` are layered by family (`round_state`, `turns`, `races`, `obligations`, `swaps`:
see `round_state`'s docstring); this module keeps set-up (S), the actions' way in (`apply`, `step`, the
window calls, `forfeit`), the turn's own handlers and a card landing with its effects.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from unonet.engine import events as ev
from unonet.engine._members import (
    AFTER_DRAW,
    BLACK,
    BLANK,
    CHOOSE_COLOR,
    CHOOSE_SWAP_TARGET,
    DRAW_TWO,
    FIVE,
    FIVE_SWAP,
    PLUS_ONE,
    PLUS_TWO,
    REVERSE,
    ROUND_OVER,
    SEVEN,
    SKIP,
    SOUND_WILD,
    SOUND_WILD_WINDOW,
    TURN,
    TURN_DRAW,
    TWO,
    UNO_CATCH_WINDOW,
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
from unonet.engine.events import DrawReason, Event, Window
from unonet.engine.phase import Phase as Phase  # re-exported: `from unonet.engine.game import Phase` predates phase.py
from unonet.engine.round_state import BluffRecord as BluffRecord  # `X as X`: named here before the split, still
from unonet.engine.round_state import ColorFor, PendingBlack, ReactionLog
from unonet.engine.round_state import MidPlay as MidPlay
from unonet.engine.round_state import Obligation as Obligation
from unonet.engine.round_state import Shuffle as Shuffle
from unonet.engine.round_state import shuffle_like_random as shuffle_like_random
from unonet.engine.rules import is_run, is_wild_draw_four_fair, matches
from unonet.engine.ruleset import BlankEffect, FirstWild, Ruleset
from unonet.engine.shared_events import color_chosen, played_one, skipped
from unonet.engine.swaps import Swaps

HAND_SIZE = 7


ILLEGAL_PLAY_PENALTY = 2


SILENCE_PENALTY = 2


H2O_AMOUNT = {Rank.PLUS_ONE: 1, Rank.PLUS_TWO: 2}


FIRST_CARD_RETURNED = frozenset({Rank.WILD_DRAW_FOUR, Rank.BLANK, Rank.SOUND_WILD, Rank.PLUS_ONE, Rank.PLUS_TWO})


_FIRST_CARD_RETURNED_MASK: Final = sum(1 << card.index for card in CARDS if card.rank in FIRST_CARD_RETURNED)


SEVEN_O_RANKS = (Rank.ZERO, Rank.SEVEN)


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


class Game(Swaps):
    """The state of one round and the rules that change it.

    Only the actions change it: `apply` and `apply_command`, the window calls (`close_window`,
    `resolve_window`, `resolve_window_outcome`) and `forfeit` (a host's forfeit policy). Every other
    method and property only reads, the refusal checks (`answer_refusal`, ...) included.
    """

    # ----------------------------------------------------------------------------------- set-up (S)

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
        self._init_state(
            ruleset, num_players, rng, dealer=dealer, round_no=round_no, seats_in_play=seats_in_play, draws=draws
        )
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
            self._pending_black = PendingBlack(first, card, ColorFor.FIRST_CARD)
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
        clone._reactions = {k: ReactionLog(list(v.order)) for k, v in self._reactions.items()}
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

    # ------------------------------------------------------------------------------------- applying

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

    # ------------------------------------------------------------------------------------- handlers

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
                f"{action.color.value} cannot be named; name red, yellow, green or blue", reason="BAD_COLOR"
            )
        self._pending_black = None
        self.phase = TURN
        self.color = action.color
        seat, card = pending.seat, pending.card
        if not self._quiet:
            self._out.append(color_chosen(seat, action.color))
        if pending.context is ColorFor.FIRST_CARD:
            self._start_turn(seat)
            return
        if pending.context is ColorFor.DEFLECT:
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

    def _on_chat(self, action: Chat) -> None:
        if self.silence is not None:  # H14
            self._draw(action.seat, SILENCE_PENALTY, DrawReason.BROKE_SILENCE)

    # --------------------------------------------------------------- a card landing and its effects

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
            self._pending_black = PendingBlack(seat, card, ColorFor.PLAY)
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

    # ------------------------------------------------------------------------------------- forfeits

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
