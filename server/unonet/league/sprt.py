"""Fishtest's generalized sequential probability ratio test (GSPRT), for a heads-up comparison of two bots.

A port of Stockfish's fishtest (`server/fishtest/stats/LLRcalc.py`, `LLR_normalized` and the functions
it calls; the theory is in Michel Van den Bergh's notes, cantate.be/Fishtest: "normalized_elo_practical.pdf"
section 4.1 and "support_MLE_multinomial.pdf" proposition 1.1). Bounds are in normalized Elo: the
t-value of the score, (mu - 1/2) / sigma per game, times 800 / ln 10, so a bound means the same
separation whatever the game's draw rate or the pairing's variance.

Results come in fishtest's two shapes:

- **trinomial** `[losses, draws, wins]` of independent games;
- **pentanomial** `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` of game pairs: in a league, the two games of one
  duplicate deal with the seats swapped (`league.pairs.heads_up_pairs`). A pair's outcomes are scored
  together, so the deal's luck, which favours the same hand in both games, cancels within the pair.

fishtest finds the root of the secular equation with scipy's `brentq`; the function is strictly
decreasing on the bracket, so bisection to the same tolerance finds the same root without scipy.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "NELO_DIVIDED_BY_NT",
    "Decision",
    "Sprt",
    "llr_normalized",
    "pentanomial",
    "trinomial",
]

#: Normalized Elo per unit of t-value: 800 / ln 10, fishtest's `nelo_divided_by_nt`.
NELO_DIVIDED_BY_NT = 800 / math.log(10)

_Pdf = list[tuple[float, float]]


class Decision(enum.Enum):
    """Where a test stands: still running, or one hypothesis accepted."""

    CONTINUE = "continue"
    H0 = "H0"  # the difference is at most elo0: the first bot is not better by elo1
    H1 = "H1"  # the difference is at least elo1


def trinomial(scores: Iterable[float]) -> list[int]:
    """`[losses, draws, wins]` of the first bot's game scores (0, 1/2 or 1)."""
    counts = [0, 0, 0]
    for score in scores:
        counts[_index(score * 2, 2)] += 1
    return counts


def pentanomial(pairs: Iterable[tuple[float, float]]) -> list[int]:
    """`[LL, LD+DL, LW+DD+WL, DW+WD, WW]` of the first bot's scores in game pairs."""
    counts = [0, 0, 0, 0, 0]
    for first, second in pairs:
        counts[_index((first + second) * 2, 4)] += 1
    return counts


def _index(doubled: float, top: int) -> int:
    index = round(doubled)
    if abs(index - doubled) > 1e-9 or not 0 <= index <= top:
        raise ValueError(f"a game's score must be 0, 1/2 or 1, not {doubled / 2:g}")
    return index


def llr_normalized(nelo0: float, nelo1: float, results: Sequence[int]) -> float:
    """The generalized log-likelihood ratio of H1 (normalized Elo `nelo1`) against H0 (`nelo0`).

    `results` is trinomial (3 counts) or pentanomial (5 counts). fishtest's `LLR_normalized`: the
    maximum likelihood distributions with the two t-values, compared under the empirical one."""
    if len(results) not in (3, 5):
        raise ValueError("results are 3 (trinomial) or 5 (pentanomial) counts")
    nt0, nt1 = nelo0 / NELO_DIVIDED_BY_NT, nelo1 / NELO_DIVIDED_BY_NT
    if len(results) == 5:  # a pair's score is the mean of two games: its t-value is sqrt(2) times a game's
        nt0, nt1 = nt0 * math.sqrt(2), nt1 * math.sqrt(2)
    count, pdf = _results_to_pdf(results)
    pdf0, pdf1 = _mle_t_value(pdf, 0.5, nt0), _mle_t_value(pdf, 0.5, nt1)
    jumps = [(math.log(pdf1[i][1]) - math.log(pdf0[i][1]), pdf[i][1]) for i in range(len(pdf))]
    return count * _stats(jumps)[0]


def _results_to_pdf(results: Sequence[int]) -> tuple[float, _Pdf]:
    """fishtest's `regularize` + `results_to_pdf`: an empty outcome gets a count of 1/1000."""
    regular = [float(count) if count else 1e-3 for count in results]
    total = sum(regular)
    top = len(regular) - 1
    return total, [(i / top, regular[i] / total) for i in range(len(regular))]


def _stats(pdf: _Pdf) -> tuple[float, float]:
    mean = sum(prob * value for value, prob in pdf)
    return mean, sum(prob * (value - mean) ** 2 for value, prob in pdf)


def _secular(pdf: _Pdf) -> float:
    """The root of sum_i p_i a_i / (1 + x a_i) = 0 between -1/max(a) and -1/min(a)."""
    low_value, high_value = min(a for a, _ in pdf), max(a for a, _ in pdf)
    if low_value * high_value >= 0:
        raise ValueError("the secular equation needs values on both sides of zero")
    epsilon = 1e-9
    low, high = -1 / high_value + epsilon, -1 / low_value - epsilon

    def f(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in pdf)

    for _ in range(200):  # f decreases from + to -: halve the bracket to brentq's tolerance
        middle = (low + high) / 2
        if f(middle) > 0:
            low = middle
        else:
            high = middle
        if high - low < 2e-12 + 4 * abs(middle) * 2.2e-16:
            break
    return (low + high) / 2


def _mle_t_value(pdfhat: _Pdf, ref: float, t: float) -> _Pdf:
    """The distribution closest (maximum likelihood) to `pdfhat` whose (mu - ref) / sigma is `t`."""
    size = len(pdfhat)
    pdf = [(value, 1 / size) for value, _ in pdfhat]
    for _ in range(10):
        previous = pdf
        mu, var = _stats(pdf)
        sigma = math.sqrt(var)
        shifted = [(a - ref - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p) for a, p in pdfhat]
        x = _secular(shifted)
        pdf = [(pdfhat[i][0], pdfhat[i][1] / (1 + x * shifted[i][0])) for i in range(size)]
        if max(abs(previous[i][1] - pdf[i][1]) for i in range(size)) < 1e-9:
            break
    return pdf


@dataclass(frozen=True, slots=True)
class Sprt:
    """A test of H0: difference <= elo0 against H1: difference >= elo1 (normalized Elo), stopped at
    the bounds log(beta / (1 - alpha)) and log((1 - beta) / alpha): +-2.944 at 5% each."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be below elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("alpha and beta are probabilities")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, results: Sequence[int]) -> float:
        """The LLR of the results so far (0 before the first result; empty outcomes regularized as fishtest does)."""
        if not any(results):
            return 0.0
        return llr_normalized(self.elo0, self.elo1, results)

    def decide(self, results: Sequence[int]) -> Decision:
        llr = self.llr(results)
        if llr >= self.upper:
            return Decision.H1
        if llr <= self.lower:
            return Decision.H0
        return Decision.CONTINUE
