"""The Elo difference between two bots, with its 95% interval and likelihood of superiority, as fishtest
reports it: pure functions of the recorded games.

A port of fishtest's `get_elo` (`server/fishtest/stats/stat_util.py`, github.com/official-stockfish/fishtest),
the figure its test pages print as "Elo: 2.22 ± 1.3 (95%) LOS: 100.0%":

- the results are fishtest's counts, `[losses, draws, wins]` of independent games (trinomial) or
  `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` of game pairs (pentanomial; in a league, the two games of one
  duplicate deal with the seats swapped, `league.pairs.heads_up_pairs`), an empty count taken as 1/1000;
- mu is the mean score per game and sigma its standard deviation per game, from the pairs' spread for
  pentanomial counts (so the deal's luck, shared by both games of a pair, is not counted as noise);
- the interval is mu +- 1.96 sigma / sqrt(games), turned into logistic Elo (-400 log10(1 / score - 1),
  the score kept within [0.001, 0.999]) at both ends and halved: Elo +- that half-width;
- LOS, the likelihood of superiority, is Phi((mu - 1/2) / (sigma / sqrt(games))).

`heads_up` gives every pairing of a league that met at 2-seat tables its estimate: pentanomial from its
duplicate pairs where the deals were duplicated, trinomial from its games otherwise. Multiplayer tables
are rated by OpenSkill only (`standings`). Checked against fishtest's published figures
(`tests/league/test_elo.py`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from unonet.league.order import scores
from unonet.league.pairs import heads_up_pairs
from unonet.league.results import GameResult
from unonet.league.sprt import pentanomial, trinomial

__all__ = ["EloEstimate", "HeadsUp", "elo_estimate", "heads_up", "logistic_elo"]

_NORMAL = NormalDist()


def logistic_elo(score: float) -> float:
    """The Elo difference a mean score stands for (fishtest's `elo`), the score kept within [0.001, 0.999]."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo difference with its 95% interval (`low`, `high`) and its likelihood of superiority (`los`, 0
    to 1), from `counts` (trinomial or pentanomial) over `games` games."""

    elo: float
    low: float
    high: float
    los: float
    games: int
    counts: tuple[int, ...]

    @property
    def model(self) -> str:
        return "pentanomial" if len(self.counts) == 5 else "trinomial"

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def describe(self) -> str:
        """fishtest's line: `Elo: +12.34 ± 5.6 (95%) LOS: 99.9%`."""
        return f"Elo: {self.elo:+.2f} ± {self.half_width:.1f} (95%) LOS: {100 * self.los:.1f}%"


def elo_estimate(counts: Sequence[int]) -> EloEstimate:
    """fishtest's `get_elo` on trinomial (3) or pentanomial (5) counts. Raises ValueError for other shapes
    or no results."""
    if len(counts) not in (3, 5):
        raise ValueError("results are 3 (trinomial) or 5 (pentanomial) counts")
    if not any(counts):
        raise ValueError("no results to estimate from")
    regular = [float(count) if count else 1e-3 for count in counts]
    steps = len(regular) - 1
    games = sum(regular) * steps / 2
    mu = sum(count * (index / 2) for index, count in enumerate(regular)) / games
    unit_mean = steps / 2 * mu  # the mean of a pair's total (pentanomial), of a game's score (trinomial)
    variance = sum(count * (index / 2 - unit_mean) ** 2 for index, count in enumerate(regular)) / games
    spread = math.sqrt(variance) / math.sqrt(games)
    z = _NORMAL.inv_cdf(0.975)
    low, high = logistic_elo(mu - z * spread), logistic_elo(mu + z * spread)
    elo = logistic_elo(mu)
    half = (high - low) / 2
    los = _NORMAL.cdf((mu - 0.5) / spread) if spread > 0 else (1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5)
    return EloEstimate(elo, elo - half, elo + half, los, sum(counts) * steps // 2, tuple(counts))


@dataclass(frozen=True, slots=True)
class HeadsUp:
    """`first` against `second` at 2-seat tables: `first`'s Elo advantage (negative when it is behind)."""

    first: str
    second: str
    estimate: EloEstimate


def heads_up(results: Iterable[GameResult], names: Sequence[str]) -> list[HeadsUp]:
    """Every two of `names` that met heads-up, in `names` order (each pairing once, the earlier name first):
    pentanomial over their duplicate pairs when there are any, else trinomial over their games."""
    games = [game for game in results if len(game.seats) == 2]
    out = []
    for first, second in itertools.combinations(names, 2):
        met = [game for game in games if set(game.seats) == {first, second}]
        if not met:
            continue
        pairs = heads_up_pairs(met, first, second)
        if pairs:
            counts = pentanomial(pair.scores for pair in pairs)
        else:
            counts = trinomial(scores(game.ranks)[game.seats.index(first)] for game in met)
        out.append(HeadsUp(first, second, elo_estimate(counts)))
    return out
