"""Windows and races: UNO calls and catches (U), slaps and sound wilds, runs (H4), jump-ins and escapes (H6-H8)."""

from __future__ import annotations

import dataclasses

from unonet.engine import events as ev
from unonet.engine._members import (
    AFTER_DRAW,
    DRAW_TWO,
    RUN_CUT_WINDOW,
    SKIP_ESCAPE_WINDOW,
    TURN,
    UNO_CATCH_WINDOW,
    WILD,
    WILD_DRAW_FOUR,
)
from unonet.engine.actions import CallUno, CatchUno, Play, React
from unonet.engine.cards import Card
from unonet.engine.errors import IllegalAction, MalformedAction, NotYourTurn, Refusal
from unonet.engine.events import DrawReason, Window
from unonet.engine.phase import DUTIES
from unonet.engine.round_state import Obligation, PendingRun
from unonet.engine.ruleset import JumpInPenalty
from unonet.engine.shared_events import called_uno, uno_called, window_closed
from unonet.engine.turns import Turns

SLOWEST_PENALTY = 2


FALSE_CATCH_PENALTY = 2


WRONG_JUMP_IN_CARDS = 2


WRONG_JUMP_IN_POINTS = 3


class Races(Turns):
    """The reaction windows and everything raced or judged in them."""

    # -------------------------------------------------------------------------------------- windows

    def _begin_turn(self) -> None:
        """The player to act began their turn: U2 catch, H6 jump-in and H8 escape windows close."""
        if self.windows:
            for window in list(self.windows.values()):
                if not window.is_blocking:
                    self._close_window(window.id)

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

    # -------------------------------------------------------------------- UNO calls and catches (U)

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

    # ------------------------------------------------------------------------------------ runs (H4)

    def _start_run(self, action: Play) -> None:
        seat, cards = action.seat, action.cards
        self._land(seat, cards[:1])
        self.color = cards[0].color
        cutter = self._next(seat)
        self._pending_run = PendingRun(seat, cards[1:], action.call_uno)
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

    # ----------------------------------------------------------------------------- jump-ins (H6–H8)

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
            duty = DUTIES[self.phase]
            return lambda: IllegalAction(f"seat {seat} cannot play now: it must {duty}", reason="WRONG_PHASE")
        if self.phase is not TURN and self.phase is not AFTER_DRAW:
            return lambda: IllegalAction(
                f"wait: seat {self.current} must {DUTIES[self.phase]} first", reason="WAIT_FOR_EFFECT"
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

    # ------------------------------------------------------------------------------------- forfeits

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

    # ----------------------------------------------------------------------- the play path's hooks
    # A run's cards and a jump-in land as every play does, through `Game` (game.py), the layer above.

    def _land(self, seat: int, cards: tuple[Card, ...]) -> None:
        """`cards` leave `seat`'s hand for the discard pile: `Game._land`."""
        raise NotImplementedError

    def _after_landing(self, seat: int, cards: tuple[Card, ...], call_uno: bool) -> None:
        """The landed cards take effect and the turn moves on: `Game._after_landing`."""
        raise NotImplementedError
