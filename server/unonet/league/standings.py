"""Ratings and statistics: pure functions of the recorded results (never of how they were played).

- OpenSkill's Plackett-Luce model (`openskill.models.PlackettLuce`) rates each game's finishing
  order, game by game in schedule order, with mu, sigma and the conservative ordinal mu - 3 sigma.
  Bots are fixed programs, so their skill does not change between games: the model's dynamics factor
  tau, which adds uncertainty before every game so a human's rating can follow their form, is set to
  0. With tau = 0 a fixed bot's sigma only ever shrinks and its mu settles; there is no drift.
- Points per game (`order.scores`: 1 for first place alone, 0 for last) with a 95% normal interval,
  and the win rate (first place, shared or not) with a 95% Wilson score interval.
- A head-to-head matrix: for bots A and B, A's score against B over the games both played (1 when A
  finished ahead, 1/2 when tied, 0 behind).
- What went wrong, per bot, each counted apart (`tallies.SeatStats` and the games' outcomes): crashes
  (its program exited or its policy raised), restarts, timeouts (turns its clock ran out on), time
  losses (games the host forfeited it for its timeouts), bad answers (not an answer at all), illegal
  answers (a command the legal actions did not list, or the rules refused), forfeits (out of restarts,
  it left) and stalls; and its decision times' median, 99th percentile (nearest rank) and maximum.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from unonet.league.order import scores
from unonet.league.results import GameResult
from unonet.league.tallies import SeatStats

__all__ = [
    "Z95",
    "BotStanding",
    "LiveRatings",
    "RatingPoint",
    "head_to_head",
    "mean_interval",
    "percentile",
    "rating_history",
    "standings",
    "wilson_interval",
]

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class BotStanding:
    """One bot's line of the leaderboard."""

    name: str
    games: int
    mu: float
    sigma: float
    ordinal: float
    points_per_game: float
    points_low: float
    points_high: float
    wins: int
    win_rate: float
    win_low: float
    win_high: float
    losses_by_failure: int
    crashes: int = 0
    restarts: int = 0
    timeouts: int = 0
    time_losses: int = 0
    bad_answers: int = 0
    illegal: int = 0
    forfeits: int = 0
    stalls: int = 0
    decisions: int = 0
    decision_p50_ms: float | None = None
    decision_p99_ms: float | None = None
    decision_max_ms: float | None = None


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """Every bot's (mu, sigma) after `games` games."""

    games: int
    ratings: dict[str, tuple[float, float]]


def model() -> PlackettLuce:
    """The league's rating model: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6) but tau = 0."""
    return PlackettLuce(tau=0.0)


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion; (0, 1) with no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean and its 95% normal interval (mean +- z * s / sqrt(n)); a single value has width 0."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


class LiveRatings:
    """Ratings updated one recorded game at a time (the progress bar's leader, the rating plot)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.model = model()
        self.ratings = {name: self.model.rating(name=name) for name in names}
        self.games = 0

    def add(self, result: GameResult) -> None:
        """Rate one game's finishing order."""
        teams = [[self.ratings[name]] for name in result.seats]
        rated = self.model.rate(teams, ranks=[float(rank) for rank in result.ranks])
        for name, team in zip(result.seats, rated, strict=True):
            self.ratings[name] = team[0]
        self.games += 1

    def point(self) -> RatingPoint:
        return RatingPoint(self.games, {name: (r.mu, r.sigma) for name, r in self.ratings.items()})

    def leader(self) -> str:
        """The bot with the best conservative rating (mu - 3 sigma) so far, and that ordinal."""
        name = max(self.ratings, key=lambda each: (self.ratings[each].ordinal(), each))
        return f"{name} (ordinal {self.ratings[name].ordinal():.2f})"


def rating_history(results: Sequence[GameResult], names: Sequence[str], every: int = 1) -> list[RatingPoint]:
    """Every bot's rating after each `every` games (and after the last), from the prior at 0 games.

    Games are rated in schedule order, whatever order they finished in, so a resumed or distributed
    league rates exactly as one run straight through."""
    live = LiveRatings(names)
    history = [live.point()]
    for number, result in enumerate(sorted(results, key=lambda r: r.index), start=1):
        live.add(result)
        if number % every == 0 or number == len(results):
            history.append(live.point())
    return history


def percentile(ordered: Sequence[int], share: float) -> int:
    """The nearest-rank percentile of sorted values: the smallest value at least `share` of them do not
    exceed (share 0.5: the median's upper value; 0.99: the 99th percentile)."""
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


class _Failures:
    """One bot's failure counts and decision times, summed over its games."""

    def __init__(self) -> None:
        self.counts = dict.fromkeys(("crashes", "restarts", "timeouts", "time_losses", "bad_answers", "illegal",
                                     "forfeits", "stalls"), 0)
        self.decision_us: list[int] = []

    def add(self, outcome: str, stats: SeatStats | None) -> None:
        self.counts["time_losses"] += outcome == "time_loss"
        self.counts["forfeits"] += outcome == "forfeit"
        self.counts["stalls"] += outcome == "stall"
        if stats is None:  # a row from before per-seat stats: only the outcome tells
            self.counts["crashes"] += outcome == "crash"
            return
        for key in ("crashes", "restarts", "timeouts", "bad_answers", "illegal"):
            self.counts[key] += getattr(stats, key)
        self.decision_us += stats.decision_us

    def fields(self) -> dict[str, Any]:
        times = sorted(self.decision_us)
        summary: dict[str, Any] = dict(self.counts, decisions=len(times))
        if times:
            summary.update(decision_p50_ms=percentile(times, 0.5) / 1000,
                           decision_p99_ms=percentile(times, 0.99) / 1000, decision_max_ms=times[-1] / 1000)
        return summary


def standings(results: Sequence[GameResult], names: Sequence[str]) -> list[BotStanding]:
    """The leaderboard, best conservative rating (ordinal) first."""
    final = rating_history(results, names, every=max(1, len(results)))[-1].ratings
    points: dict[str, list[float]] = {name: [] for name in names}
    wins = dict.fromkeys(names, 0)
    failures = dict.fromkeys(names, 0)
    failed = {name: _Failures() for name in names}
    for result in results:
        stats: Sequence[SeatStats | None] = result.stats or (None,) * len(result.seats)
        for name, rank, score, outcome, seat_stats in zip(result.seats, result.ranks, scores(result.ranks),
                                                          result.outcomes, stats, strict=True):
            points[name].append(score)
            wins[name] += rank == 1
            failures[name] += outcome != "played"
            failed[name].add(outcome, seat_stats)
    table = []
    for name in names:
        mu, sigma = final[name]
        games = len(points[name])
        mean, low, high = mean_interval(points[name])
        win_low, win_high = wilson_interval(wins[name], games)
        table.append(
            BotStanding(
                name=name, games=games, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma,
                points_per_game=mean, points_low=low, points_high=high,
                wins=wins[name], win_rate=wins[name] / games if games else 0.0, win_low=win_low, win_high=win_high,
                losses_by_failure=failures[name], **failed[name].fields(),
            )
        )
    return sorted(table, key=lambda line: (-line.ordinal, line.name))


def head_to_head(results: Sequence[GameResult], names: Sequence[str]) -> dict[str, dict[str, tuple[float, int]]]:
    """`matrix[a][b]` = (a's mean score against b, games they both played); a's row omits a itself."""
    totals: dict[str, dict[str, list[float]]] = {a: {b: [] for b in names if b != a} for a in names}
    for result in results:
        for a, rank_a in zip(result.seats, result.ranks, strict=True):
            for b, rank_b in zip(result.seats, result.ranks, strict=True):
                if a != b:
                    totals[a][b].append(1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0)
    return {
        a: {b: (statistics.fmean(v) if v else 0.0, len(v)) for b, v in row.items()} for a, row in totals.items()
    }
