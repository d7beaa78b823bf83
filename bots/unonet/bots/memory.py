"""`TableMemory`: what one seat has seen of the round, from its own events, for a policy's estimates.

A policy that only reads the current view forgets the discard pile under the top card. This keeps, from
the events a networked seat receives (`Bot.on_event`), what a careful player counts: the cards played
since the last reshuffle, the colour in force before each Wild Draw Four (what a challenge is about,
B2), the colours a seat had to draw on (it held none of them then), and each seat's record of
challenged Wild Draw Fours. Nothing here sees a card the seat was not shown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from unonet.bots.hand import NAMEABLE, is_black
from unonet.v1 import cards_pb2, events_pb2

__all__ = ["COLOR_CARDS", "TableMemory", "chance_of_none"]

C = cards_pb2

#: Cards of one colour in the standard deck (C1): one 0, two of each 1-9, two of each action card.
COLOR_CARDS = 25


@dataclass
class TableMemory:
    """The seat's count of the round so far; `follow(event)` keeps it, the policy only reads it.

    Attributes:
        played: the face-up cards in the discard pile since the deal or the last reshuffle, by colour.
        color: the colour in force as far as the events said (COLOR_UNSPECIFIED before any card).
        color_before_draw_four: for each seat, the colour in force when it last played a Wild Draw Four.
        lacks: for each seat, the colours it drew on for its turn and has not played since.
        guilty, innocent: for each seat, how its challenged Wild Draw Fours were judged.
    """

    played: Counter[cards_pb2.Color.ValueType] = field(default_factory=Counter)
    color: cards_pb2.Color.ValueType = C.COLOR_UNSPECIFIED
    color_before_draw_four: dict[int, cards_pb2.Color.ValueType] = field(default_factory=dict)
    lacks: dict[int, set[cards_pb2.Color.ValueType]] = field(default_factory=dict)
    guilty: Counter[int] = field(default_factory=Counter)
    innocent: Counter[int] = field(default_factory=Counter)

    def follow(self, event: events_pb2.Event) -> None:
        """Count one event (any kind; those that tell nothing are skipped)."""
        kind = event.WhichOneof("payload")
        if kind == "cards_dealt":
            self.played.clear()
            self.lacks.clear()
            self.color_before_draw_four.clear()
            self.color = C.COLOR_UNSPECIFIED
        elif kind == "first_card_turned":
            self._lay(event.first_card_turned.card.card)
        elif kind == "cards_played":
            played = event.cards_played
            for ref in played.cards:
                if ref.card.rank == C.RANK_WILD_DRAW_FOUR:
                    self.color_before_draw_four[played.seat] = self.color
                self.lacks.get(played.seat, set()).discard(ref.card.color)
                self._lay(ref.card)
        elif kind == "color_chosen":
            self.color = event.color_chosen.color
        elif kind == "cards_drawn":
            drawn = event.cards_drawn
            if drawn.reason == events_pb2.DRAW_REASON_TURN and self.color in NAMEABLE:
                self.lacks.setdefault(drawn.seat, set()).add(self.color)
        elif kind == "pile_reshuffled":
            self.played.clear()  # the pile under the top card went back into the draw pile
        elif kind in ("hands_rotated", "hands_swapped"):
            self.lacks.clear()
        elif kind == "challenge_resolved":
            resolved = event.challenge_resolved
            (self.guilty if resolved.guilty else self.innocent)[resolved.accused_seat] += 1

    def unseen(self, color: cards_pb2.Color.ValueType, hand: list[cards_pb2.Card]) -> int:
        """How many cards of `color` this seat has not seen: neither in the pile nor in its hand."""
        held = sum(1 for card in hand if card.color == color)
        return max(0, COLOR_CARDS - self.played[color] - held)

    def bluff_rate(self, seat: int) -> float:
        """How often `seat` bluffs with a Wild Draw Four, by Laplace's rule over its challenged ones."""
        return (self.guilty[seat] + 1) / (self.guilty[seat] + self.innocent[seat] + 2)

    def _lay(self, card: cards_pb2.Card) -> None:
        if not is_black(card):
            self.played[card.color] += 1
            self.color = card.color


def chance_of_none(unseen_total: int, unseen_of_kind: int, hand_size: int) -> float:
    """The chance that `hand_size` cards drawn from `unseen_total` hold none of `unseen_of_kind`.

    The hypergeometric probability of zero successes: prod over i of (N - K - i) / (N - i).
    """
    if unseen_total <= 0:
        return 1.0
    chance = 1.0
    for i in range(min(hand_size, unseen_total)):
        remaining = unseen_total - i
        chance *= max(0, remaining - unseen_of_kind) / remaining
    return chance
