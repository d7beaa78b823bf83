"""`GreedyBot` (kind `greedy`): sound UNO heuristics, one decision at a time, from the seat's own view.

Every choice is scored from what the seat knows (its view and its `TableMemory` of the events):

- plays: shed more cards and higher points first, action cards early; hold black cards while coloured
  ones play; keep the colour it holds most in force; never play a Wild Draw Four that would be a bluff;
  when the next player is down to one or two cards, hit them with what it has (Draw Two, Skip, Reverse,
  a fair Wild Draw Four) and steer the colour to one they drew on;
- colours: the one it holds most (points break ties), away from what a threatened next player holds;
- challenges: when the chance that the Wild Draw Four was unfair, counted from the cards it has not
  seen and the accused's record, is worth the risk (8 cards swing against 2, so above 1 in 5);
- windows, catches and UNO: at once, every time; jump-ins and run cuts whenever a coloured card allows;
- house rules: stacks and deflects rather than draw, swaps hands (7) with the smallest hand, gives
  away (5-swap) its least useful card, answers slaps and Sound Wilds.

`opponent_hand(seat)` returns None here: the `oracle` subclass answers it with the true hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from unonet.bots.hand import ACTION_RANKS, DRAW_RANKS, NAMEABLE, color_counts, is_black, points, without
from unonet.bots.memory import TableMemory, chance_of_none
from unonet.bots.policy import Bot, BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, views_pb2

__all__ = ["GreedyBot"]

C = cards_pb2
_HITS = ACTION_RANKS | DRAW_RANKS  # what stops or hurts the next player
# A challenge turns 4 cards for the challenger into 4 for the accused when guilty (8 cards swing) and
# costs 2 more when not: it pays above this chance of guilt.
_CHALLENGE_ABOVE = 2 / (8 + 2)
_BLUFF = -1000.0  # a play this bad is never made while anything else is allowed


class GreedyBot(Bot):
    """Scores each allowed command by the heuristics of the module docstring and sends the best."""

    kind = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.memory = TableMemory()

    # ------------------------------------------------------------------------------- the policy

    def on_event(self, event: events_pb2.Event) -> None:
        """Count the event (`TableMemory.follow`)."""
        self.memory.follow(event)

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """The best allowed command when the game waits for this seat."""
        legal = view.legal_actions
        hand = _hand(view)
        for window_id in legal.react_window_ids:
            return cmd.React(window_id)
        if legal.choose_color:
            return cmd.ChooseColor(self.best_color(view, hand))
        if legal.swap_target_seats:
            return cmd.ChooseSwapTarget(self._smallest_hand(view, legal.swap_target_seats))
        if legal.HasField("five_swap") and legal.five_swap.target_seats and legal.five_swap.cards:
            give = self._least_useful(list(legal.five_swap.cards), hand)
            return cmd.FiveSwap(self._smallest_hand(view, legal.five_swap.target_seats), give)
        if legal.give_cards:
            return cmd.GiveCard(self._least_useful(list(legal.give_cards), hand))
        if legal.challenge and self.should_challenge(view, hand):
            return cmd.Challenge()
        best = self._best_play(view, hand, legal.plays)
        if best is not None and not (legal.pass_turn and self._keeps_drawn_card(view, hand, best)):
            return self._play(view, hand, best)
        if legal.HasField("draw"):
            return cmd.Draw()
        if legal.pass_turn:
            return cmd.Pass()
        return self.respond(legal, state)

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """Answer windows, catch, call UNO, and jump in or cut a run with a coloured card, all at once."""
        for window_id in legal.react_window_ids:
            if window_id not in state.answered_windows:
                return cmd.React(window_id)
        windows = {catch.target_seat: catch.reaction_window_id for catch in legal.catch_uno}
        for seat in legal.catch_uno_targets:
            window = windows.get(seat) or state.catch_window(seat)
            if seat != state.seat and window not in state.answered_windows:
                return cmd.CatchUno(seat, window)
        if legal.call_uno:
            return cmd.CallUno()
        jumps = [option for option in legal.plays if not any(is_black(card) for card in option.cards)]
        if jumps:  # a jump-in or run cut sheds a card and takes the turn: the most points, actions first
            best = max(jumps, key=lambda option: (len(option.cards), option.cards[-1].rank in _HITS,
                                                  sum(points(card) for card in option.cards)))
            left = state.hand_sizes.get(state.seat, 0) - len(best.cards)
            return cmd.Play(tuple(best.cards), call_uno=left == 1, reaction_window_id=best.reaction_window_id)
        return None

    # ------------------------------------------------------------------------------ the scores

    def opponent_hand(self, seat: int) -> list[cards_pb2.Card] | None:
        """The cards `seat` holds, when this policy may know them: never, for an honest bot."""
        return None

    def score_play(self, view: views_pb2.SeatView, hand: list[cards_pb2.Card], option: actions_pb2.PlayOption) -> float:
        """How good playing `option` looks now (higher is better; `_BLUFF` for an unfair Wild Draw Four)."""
        cards = list(option.cards)
        rest = without(hand, cards)
        if not rest:
            return 10_000.0  # going out wins the round
        if option.is_bluff:
            return _BLUFF
        last = cards[-1]
        next_seat = self._next_seat(view)
        threatened = next_seat is not None and self._hand_size(view, next_seat) <= 2
        score = 10.0 * len(cards) + 0.3 * sum(points(card) for card in cards)
        if last.rank in _HITS:
            score += 40.0 if threatened else 6.0
            if last.rank == C.RANK_WILD_DRAW_FOUR and not threatened:
                score -= 30.0  # the strongest card in hand: keep it for when it matters
        if is_black(last) and len(rest) > 1:
            score -= 25.0  # a wild can always be played later; a coloured card may not
        color = last.color if not is_black(last) else self.best_color(view, rest)
        score += 4.0 * sum(1 for card in rest if card.color == color)
        if next_seat is not None and color in self._blocked_colors(next_seat):
            score += 15.0 if threatened else 6.0
        return score

    def best_color(self, view: views_pb2.SeatView, hand: Sequence[cards_pb2.Card]) -> cards_pb2.Color.ValueType:
        """The colour to name: the one held most (points break ties), away from a threatened next player."""
        counts = color_counts(hand)
        value = {color: sum(points(card) for card in hand if card.color == color) for color in NAMEABLE}
        next_seat = self._next_seat(view)
        blocked = self._blocked_colors(next_seat) if next_seat is not None else set()
        threatened = next_seat is not None and self._hand_size(view, next_seat) <= 2
        weight = 3.0 if threatened else 0.6
        return max(NAMEABLE, key=lambda color: (counts[color] + weight * (color in blocked), value[color]))

    def should_challenge(self, view: views_pb2.SeatView, hand: list[cards_pb2.Card]) -> bool:
        """Whether the Wild Draw Four this seat must answer was more likely unfair than 1 in 5."""
        obligation = view.draw_obligation
        accused = obligation.setter_seat
        known = self.opponent_hand(accused)
        before = self.memory.color_before_draw_four.get(accused, C.COLOR_UNSPECIFIED)
        if before not in NAMEABLE:
            return False  # played on a Wild whose colour this seat did not see named: no odds to count
        if known is not None:
            return self.known_bluff(accused)
        unseen_total = view.draw_pile_size + sum(
            state.hand_size for state in view.seats if state.seat != view.seat
        )
        held = chance_of_none(unseen_total, self.memory.unseen(before, hand), self._hand_size(view, accused))
        return (1.0 - held) * self.memory.bluff_rate(accused) > _CHALLENGE_ABOVE

    def known_bluff(self, accused: int) -> bool:
        """Whether the accused is known to have bluffed; an honest bot never knows (the oracle does)."""
        return False

    # ------------------------------------------------------------------------------- helpers

    def _best_play(
        self, view: views_pb2.SeatView, hand: list[cards_pb2.Card], plays: Sequence[actions_pb2.PlayOption]
    ) -> actions_pb2.PlayOption | None:
        if not plays:
            return None
        best = max(plays, key=lambda option: self.score_play(view, hand, option))
        return None if self.score_play(view, hand, best) <= _BLUFF else best

    def _keeps_drawn_card(
        self, view: views_pb2.SeatView, hand: list[cards_pb2.Card], option: actions_pb2.PlayOption
    ) -> bool:
        """After drawing (Pass allowed): keep a drawn black card while many coloured ones remain."""
        return is_black(option.cards[-1]) and len(hand) > 3 and not self._next_threatened(view)

    def _play(self, view: views_pb2.SeatView, hand: list[cards_pb2.Card], option: actions_pb2.PlayOption) -> cmd.Play:
        cards = tuple(option.cards)
        rest = without(hand, cards)
        color = self.best_color(view, rest) if option.needs_color else None
        return cmd.Play(cards, color=color, call_uno=len(rest) == 1, reaction_window_id=option.reaction_window_id)

    def _least_useful(self, cards: list[cards_pb2.Card], hand: list[cards_pb2.Card]) -> cards_pb2.Card:
        """The card to give away: coloured before black, of the colour held least, highest points first."""
        counts = color_counts(hand)
        return min(cards, key=lambda card: (is_black(card), counts[card.color], -points(card)))

    def _smallest_hand(self, view: views_pb2.SeatView, seats: Sequence[int]) -> int:
        return min(seats, key=lambda seat: (self._hand_size(view, seat), seat))

    def _hand_size(self, view: views_pb2.SeatView, seat: int) -> int:
        for state in view.seats:
            if state.seat == seat:
                return state.hand_size
        return 0

    def _next_seat(self, view: views_pb2.SeatView) -> int | None:
        """The next seat in play after this one, in the direction of play."""
        step = -1 if view.direction == views_pb2.DIRECTION_COUNTERCLOCKWISE else 1
        count = len(view.seats)
        for offset in range(1, count):
            seat = (view.seat + step * offset) % count
            if self._hand_size(view, seat) > 0:
                return seat
        return None

    def _next_threatened(self, view: views_pb2.SeatView) -> bool:
        seat = self._next_seat(view)
        return seat is not None and self._hand_size(view, seat) <= 2

    def _blocked_colors(self, seat: int) -> set[cards_pb2.Color.ValueType]:
        """The colours `seat` cannot play: from its true hand when known, else those it drew on."""
        known = self.opponent_hand(seat)
        if known is not None:
            held = color_counts(known)
            return {color for color in NAMEABLE if not held[color]}
        return set(self.memory.lacks.get(seat, ()))


def _hand(view: views_pb2.SeatView) -> list[cards_pb2.Card]:
    return [ref.card for ref in view.hand if ref.HasField("card")]
