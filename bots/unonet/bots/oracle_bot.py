"""`OracleBot` (kind `oracle`): greedy with perfect information, for measurement only. It cheats.

It sees every hand and knows whether a Wild Draw Four it must answer was fair, so it is the upper bound
that shows what inference about the unseen cards can be worth: `greedy` guesses what the oracle knows.
It needs the true round, which only an in-process table can show it (`unonet.bots.arena` calls
`reveal(game)` before each decision), so it is never offered at a public table, by ListBotKinds or by
the host's bot seats; over the network it would see nothing more than greedy does and play as greedy.
"""

from __future__ import annotations

from collections.abc import Sequence

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.hand import is_black, without
from unonet.engine import Card, Game
from unonet.v1 import actions_pb2, cards_pb2, views_pb2

__all__ = ["OracleBot"]


class OracleBot(GreedyBot):
    """`GreedyBot` that reads the true hands and bluff records of the round `reveal` showed it."""

    kind = "oracle"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.hands: list[list[cards_pb2.Card]] | None = None
        self.bluffed: bool | None = None

    def reveal(self, game: Game) -> None:
        """Look at the whole round (every hand, the open obligation's bluff record) before deciding."""
        self.hands = [[card_pb(card) for card in hand] for hand in game.hands]
        obligation = game.obligation
        record = obligation.bluff if obligation is not None else None
        self.bluffed = None if record is None else not record.is_fair

    def opponent_hand(self, seat: int) -> list[cards_pb2.Card] | None:
        """The true hand of `seat`, as last revealed."""
        if self.hands is None or not 0 <= seat < len(self.hands):
            return None
        return self.hands[seat]

    def known_bluff(self, accused: int) -> bool:
        """Whether the Wild Draw Four to answer was unfair, from its record."""
        return bool(self.bluffed)

    def score_play(self, view: views_pb2.SeatView, hand: list[cards_pb2.Card], option: actions_pb2.PlayOption) -> float:
        """Greedy's score, plus a bonus when the next player holds nothing to play on the result."""
        score = super().score_play(view, hand, option)
        next_seat = self._next_seat(view)
        known = self.opponent_hand(next_seat) if next_seat is not None else None
        if known is None or score >= 10_000.0:
            return score
        last = option.cards[-1]
        color = last.color if not is_black(last) else self.best_color(view, without(hand, option.cards))
        if not _can_follow(known, color, last.rank):
            score += 20.0 if self._hand_size(view, next_seat or 0) <= 2 else 8.0
        return score


def _can_follow(hand: Sequence[cards_pb2.Card], color: int, rank: int) -> bool:
    """Whether `hand` holds a card that plays on `rank` with `color` in force (standard matching)."""
    return any(is_black(card) or card.color == color or card.rank == rank for card in hand)


def card_pb(card: Card) -> cards_pb2.Card:
    """An engine card as the protocol's (by the enums' shared names)."""
    return cards_pb2.Card(color=cards_pb2.Color.Value(f"COLOR_{card.color.name}"),
                          rank=cards_pb2.Rank.Value(f"RANK_{card.rank.name}"))
