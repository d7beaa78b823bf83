"""P2/P3: what a finished round scores, seat by seat: the one place a round is scored.

`Match` adds it to the totals and a search's playout returns it (`search.finished`,
`heuristic.play_out`), thousands of times a decision, so it lives in a module the compiled build
compiles (`match.py` stays Python: see pyproject.toml).
"""

from __future__ import annotations

from typing import Final

from unonet.engine.cards import Card, Rank
from unonet.engine.game import Game
from unonet.engine.ruleset import Ruleset, Scoring

__all__ = ["RUSSIAN_WILD_DRAW_FOUR_BONUS", "RUSSIAN_ZERO_POINTS", "round_points"]

RUSSIAN_ZERO_POINTS: Final = 50
RUSSIAN_WILD_DRAW_FOUR_BONUS: Final = 50


def round_points(game: Game, winner: int) -> list[int]:
    """What a finished round adds to each seat's total under its ruleset's scoring (P2, P3)."""
    ruleset = game.ruleset
    seats = game.seats()
    hands = game.hands
    points = [0] * game.num_players
    if ruleset.scoring is Scoring.WINNER_TAKES:
        total = 0
        for seat in seats:
            total += _hand_points(ruleset, hands[seat])
            points[seat] -= game.penalty_points[seat]
        points[winner] += total
    else:
        for seat in seats:
            points[seat] = _hand_points(ruleset, hands[seat]) + game.penalty_points[seat]
        if ruleset.russian_scoring and game.discard[-1].rank is Rank.WILD_DRAW_FOUR:
            points[winner] -= RUSSIAN_WILD_DRAW_FOUR_BONUS
    return points


def _hand_points(ruleset: Ruleset, hand: list[Card]) -> int:
    if ruleset.russian_scoring and len(hand) == 1 and hand[0].rank is Rank.ZERO:
        return RUSSIAN_ZERO_POINTS  # P3: a single 0 left in hand
    total = 0
    for card in hand:
        total += card.points
    return total
