"""Draw obligations: stacking (H1), deflecting (H3), h2o wilds (C2) and Wild Draw Four challenges (B1-B5)."""

from __future__ import annotations

from enum import Enum
from typing import Final

from unonet.engine import events as ev
from unonet.engine._members import CHOOSE_COLOR, DRAW_TWO, REVERSE, SKIP, TURN, WILD, WILD_DRAW_FOUR
from unonet.engine.actions import Challenge
from unonet.engine.cards import Card, Rank
from unonet.engine.errors import IllegalAction, Refusal
from unonet.engine.events import DrawReason
from unonet.engine.races import Races
from unonet.engine.round_state import BluffRecord, ColorFor, Obligation, PendingBlack
from unonet.engine.ruleset import BluffPenalty

BLUFF_EXTRA = 2


DRAW_AMOUNT = {Rank.DRAW_TWO: 2, Rank.WILD_DRAW_FOUR: 4}


_WILD_DRAW_FOUR_AMOUNT: Final = DRAW_AMOUNT[Rank.WILD_DRAW_FOUR]  # read once: a dict keyed by Rank hashes in Python


class _Answer(Enum):
    """H1, H3: how a card answers an open draw obligation."""

    STACK = "stack"  # H1: it adds to the obligation and passes it on
    DEFLECT = "deflect"  # H3: it passes the obligation on (or back) as it is


class DrawObligations(Races):
    """An open draw obligation: how a card answers it, who draws, and a Wild Draw Four's challenge."""

    # ------------------------------------------------------------- answering an obligation (H1, H3)

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
            self._pending_black = PendingBlack(seat, card, ColorFor.PLAY)
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
            self._pending_black = PendingBlack(seat, card, ColorFor.DEFLECT)
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

    # ------------------------------------------------------------------------------- h2o wilds (C2)

    def _h2o(self, seat: int, amount: int) -> None:
        """C2 h2o wilds: every other player draws, one at a time in turn order; nobody is skipped."""
        seats = self.seats()  # in turn order from the next player (a last card's player holds none)
        start = seats.index(seat)
        for i in range(1, len(seats)):
            self._draw(seats[(start + i * self.direction) % len(seats)], amount, DrawReason.H2O)

    # --------------------------------------------------------------------------- challenges (B1–B5)

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
