"""The games of one deal, grouped: what a duplicate-deal analysis reads from the results.

Every recorded game keeps its deal id, seed and rotation (`results.GameResult`), so the games that
replayed one deck with the seats rotated can be found again. `heads_up_pairs` gives, for two bots
that met heads-up on duplicate deals, each deal's two scores of the first bot (1 won, 0 lost, 1/2
shared): the pairs a pentanomial (game-pair) statistic such as fishtest's counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from unonet.league.order import scores
from unonet.league.results import GameResult

__all__ = ["DealPair", "by_deal", "heads_up_pairs"]


@dataclass(frozen=True, slots=True)
class DealPair:
    """One deal played twice heads-up, the seats swapped: `first`'s score in each game, in rotation order."""

    deal: int
    seed: int
    scores: tuple[float, float]
    game_ids: tuple[str, str]


def by_deal(results: Iterable[GameResult]) -> dict[int, list[GameResult]]:
    """Recorded games by deal id, each deal's games in rotation order."""
    groups: dict[int, list[GameResult]] = {}
    for result in results:
        groups.setdefault(result.deal, []).append(result)
    return {deal: sorted(games, key=lambda game: game.rotation) for deal, games in sorted(groups.items())}


def heads_up_pairs(results: Iterable[GameResult], first: str, second: str) -> list[DealPair]:
    """Every deal that `first` and `second` played against each other from both seats of a 2-seat
    table, as `first`'s two scores. Deals only half recorded (a league still running) are left out."""
    pairs = []
    for deal, games in by_deal(results).items():
        heads_up = [game for game in games if sorted(game.seats) == sorted((first, second))]
        if len(heads_up) != 2 or heads_up[0].seats == heads_up[1].seats:
            continue
        points = tuple(scores(game.ranks)[game.seats.index(first)] for game in heads_up)
        pairs.append(DealPair(deal, heads_up[0].seed, (points[0], points[1]),
                              (heads_up[0].game_id, heads_up[1].game_id)))
    return pairs
