"""`BasicBot` (kind `basic`): a random legal play, with the habits that make it a fair opponent."""

from __future__ import annotations

import random
from collections import Counter

from unonet.bots.hand import NAMEABLE, without
from unonet.bots.policy import Bot, BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, cards_pb2, views_pb2

__all__ = ["BasicBot"]


class BasicBot(Bot):
    """Plays a uniformly random legal command, seeded, with these habits:

    - it plays whenever it can: it picks among the plays when there are any, and only otherwise
      among drawing, passing and challenging;
    - it names the colour it holds most of (after the cards it plays; ties broken at random);
    - it calls UNO with the play that leaves it one card, and calls it on its own if it ever may;
    - it catches any seat it may catch, and answers every UNO slap and Sound Wild window;
    - it never jumps in (jump-ins and run cuts are optional; it only plays on its turn).
    """

    kind = "basic"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """Choose the command the game waits for; see the class docstring."""
        legal = view.legal_actions
        hand = [ref.card for ref in view.hand if ref.HasField("card")]
        for window_id in legal.react_window_ids:
            return cmd.React(window_id)
        if legal.choose_color:
            return cmd.ChooseColor(self.favourite_color(hand))
        if legal.swap_target_seats:
            return cmd.ChooseSwapTarget(self.rng.choice(list(legal.swap_target_seats)))
        if legal.HasField("five_swap") and legal.five_swap.target_seats and legal.five_swap.cards:
            return cmd.FiveSwap(
                self.rng.choice(list(legal.five_swap.target_seats)), self.rng.choice(list(legal.five_swap.cards))
            )
        if legal.give_cards:
            return cmd.GiveCard(self.rng.choice(list(legal.give_cards)))
        plays = [option for option in legal.plays if option.kind != actions_pb2.PLAY_KIND_JUMP_IN]
        if plays:
            return self._play(self.rng.choice(plays), hand, len(view.hand))
        others: list[cmd.Command] = []
        if legal.HasField("draw"):
            others.append(cmd.Draw())
        if legal.pass_turn:
            others.append(cmd.Pass())
        if legal.challenge:
            others.append(cmd.Challenge())
        if others:
            return self.rng.choice(others)
        if legal.call_uno:
            return cmd.CallUno()
        if legal.catch_uno_targets:
            return self._catch(legal, state)
        return None

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """Answer slaps and Sound Wilds, catch whoever may be caught, call UNO when it may."""
        answer = super().respond(legal, state)
        if answer is not None:
            return answer
        if legal.catch_uno_targets:
            return self._catch(legal, state)
        if legal.call_uno:
            return cmd.CallUno()
        return None

    def favourite_color(self, hand: list[cards_pb2.Card]) -> cards_pb2.Color.ValueType:
        """The colour this hand holds most of (black cards do not count); ties, or none, at random."""
        counts = Counter(card.color for card in hand if card.color in NAMEABLE)
        if not counts:
            return self.rng.choice(NAMEABLE)
        most = max(counts.values())
        return self.rng.choice([color for color in NAMEABLE if counts[color] == most])

    def _play(self, option: actions_pb2.PlayOption, hand: list[cards_pb2.Card], hand_size: int) -> cmd.Play:
        cards = tuple(option.cards)
        color = self.favourite_color(without(hand, cards)) if option.needs_color else None
        call_uno = hand_size - len(cards) == 1
        return cmd.Play(cards, color=color, call_uno=call_uno, reaction_window_id=option.reaction_window_id)

    def _catch(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.CatchUno | None:
        targets = [seat for seat in legal.catch_uno_targets if seat != state.seat]
        fresh = [seat for seat in targets if state.catch_window(seat) not in state.answered_windows]
        if not fresh:
            return None
        target = self.rng.choice(fresh)
        return cmd.CatchUno(target, state.catch_window(target))

