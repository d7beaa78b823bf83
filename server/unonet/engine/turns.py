"""T: turns, drawing and what may be played (T1-T6, P1), on the round's state (`round_state`)."""

from __future__ import annotations

from collections.abc import Callable

from unonet.engine import events as ev
from unonet.engine._members import BLACK, ROUND_OVER, TURN, TURN_DRAW, WILD_DRAW_FOUR, ZERO
from unonet.engine.cards import Card
from unonet.engine.errors import IllegalAction, Refusal
from unonet.engine.events import DrawReason
from unonet.engine.round_state import RoundState
from unonet.engine.rules import is_multi_play, is_run, is_wild_draw_four_fair
from unonet.engine.ruleset import BluffPenalty
from unonet.engine.shared_events import drew_one, skipped, turn_started, window_closed


class Turns(RoundState):
    """Whose turn it is and what a seat may do with it: turn order, drawing, playability, a round's end."""

    # --------------------------------------------------------------------------- turn mechanics (T)

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

    # ------------------------------------------------------------------------- drawing (T3, T4, T5)

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

    # ----------------------------------------------------------------------- playing cards (T1, T2)

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
                f"(the Wild Draw Four rule: {self.ruleset.wild_draw_four.value.replace('_', ' ')}) and bluffing is off",
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

    # ---------------------------------------------------------------------------- end of round (P1)

    def _round_ended_by_went_out(self) -> bool:
        """P1: once the obligation left by a player who went out is drawn, the round ends."""
        if self.went_out is not None and self.obligation is None and not self.hands[self.went_out]:
            self._end_round(self.went_out)
            return True
        return False

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
