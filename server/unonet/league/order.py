"""A game's finishing order, as ranks per seat (1 = first; tied seats share a rank).

- One round: the winner first, then by points left in hand, fewest first; ties shared.
- A whole match: the match's winners first, then by the totals as the scoring counts them (under
  winner_takes the highest total is best, under lowest_wins and elimination the lowest, and under
  elimination a seat still in beats every seat knocked out).

A seat that forfeited (it left, or was knocked out by a bot failure) finishes behind every seat still
playing. Ranks are "competition" ranks (1, 2, 2, 4), the form OpenSkill's `rate(ranks=...)` takes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from unonet.engine import Card, Scoring

__all__ = ["competition_ranks", "hand_points", "match_ranks", "round_ranks", "scores"]


def competition_ranks(keys: Sequence[tuple[float, ...]]) -> tuple[int, ...]:
    """Rank seats by `keys` (lower is better): a seat's rank is 1 + the number of seats strictly ahead."""
    return tuple(1 + sum(other < key for other in keys) for key in keys)


def hand_points(hand: Sequence[Card]) -> int:
    """The points a hand is worth at the end of a round (numbers at face value, actions 20, wilds 50)."""
    return sum(card.points for card in hand)


def round_ranks(winner: int, points_left: Sequence[int], forfeited: Collection[int] = ()) -> tuple[int, ...]:
    """One round's ranks: `winner` first, the others by `points_left` (fewest first), forfeits last."""
    keys = [
        (2.0, 0.0) if seat in forfeited else (0.0, 0.0) if seat == winner else (1.0, float(points))
        for seat, points in enumerate(points_left)
    ]
    return competition_ranks(keys)


def match_ranks(
    winners: Collection[int],
    totals: Sequence[int],
    scoring: Scoring,
    eliminated: Collection[int] = (),
    forfeited: Collection[int] = (),
) -> tuple[int, ...]:
    """A match's ranks: `winners` first, then by `totals` as `scoring` reads them, forfeits last."""
    sign = -1.0 if scoring is Scoring.WINNER_TAKES else 1.0
    keys: list[tuple[float, ...]] = []
    for seat, total in enumerate(totals):
        if seat in forfeited:
            keys.append((3.0, 0.0))
        elif seat in winners:
            keys.append((0.0, 0.0))
        elif scoring is Scoring.ELIMINATION and seat in eliminated:
            keys.append((2.0, float(total)))
        else:
            keys.append((1.0, sign * total))
    return competition_ranks(keys)


def scores(ranks: Sequence[int]) -> tuple[float, ...]:
    """Each seat's points for the game, from 1 (alone in first place) to 0 (alone in last place).

    Tied seats share the places they span: two seats tied for first of four get (1 + 2/3) / 2 each.
    The points of a game always add up to n / 2, so they are comparable across table sizes.
    """
    n = len(ranks)
    if n < 2:
        return tuple(1.0 for _ in ranks)
    out = []
    for rank in ranks:
        tied = sum(other == rank for other in ranks)
        mean_place = rank + (tied - 1) / 2  # 1-based place, averaged over the places the tie spans
        out.append((n - mean_place) / (n - 1))
    return tuple(out)
