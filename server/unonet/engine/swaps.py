"""Swaps: the 7-0 rule's chosen swap (H10), the 5-swap's offer and the card given back (H11)."""

from __future__ import annotations

from unonet.engine import events as ev
from unonet.engine._members import CHOOSE_SWAP_TARGET, FIVE_SWAP, GIVE_CARD, TURN
from unonet.engine.actions import ChooseSwapTarget, FiveSwap, GiveCard
from unonet.engine.errors import IllegalAction, NotYourTurn
from unonet.engine.obligations import DrawObligations


class Swaps(DrawObligations):
    """The actions a swap waits for: a target for a 7, a target and a card back for a 5."""

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
