"""How many games an SPRT needs on duplicate pairs against independent games (fishtest's GSPRT).

Heads-up, one round per game, in-process, fixed seeds. A pool of D deals is played once, each deal
twice with the seats swapped (`league_duplicates.play_pool`: real bots on the engine, fed what a
networked seat receives). Simulated SPRTs (the test `unonet league sprt` runs, `unonet.league.sprt`)
then draw from the pool, each with its own random order, until H0 or H1:

  * duplicate: one deal's two games at a time, scored as a game pair (pentanomial);
  * independent: one game at a time, every game a deal of its own and a seat drawn at random
    (trinomial); the LLR is read after every second game, the duplicate test's cadence.

A test that reaches `--max-games` undecided counts as needing all of them (reported as `capped_*`).
The figures are the mean games to a decision each way over `--runs` tests, the share that accepted H1,
and `reduction` = 1 - duplicate / independent; each for the league's per-seat draw streams
(`seat_draws`, unonet.engine.draws) and for draws from the top of the pile (`pile_draws`), the same
deals in the same process.

**How sure the reduction is.** An SPRT's length varies about as much as its mean, so a few hundred
simulated tests move the reduction by several points; and the pool is a sample of deals, so even
infinitely many tests on it would only estimate the pairing's true reduction. Both are measured:
`reduction_ci95` is a 95% normal interval whose variance is the simulation's (the delta method over
the `--runs` tests each way) plus the pool's, estimated from `--bootstrap` resamples of the deals,
each with `--bootstrap-runs` tests each way: the variance of their reductions, their own simulation
noise included, so the interval is if anything too wide (`reduction_sd_pool_net` is that variance
less the share the resamples' own simulation explains: the pool's alone, a noisier estimate).

The tests run in lockstep, thousands at a time, with a vectorized port of the library's LLR
(`llr_many`); before any figure is printed it is checked against `unonet.league.sprt.llr_normalized`
on counts the simulation reached, and the bench stops if they differ by more than 1e-7.

    .venv/bin/python bench/league_sprt.py --strong greedy --weak greedy:2 --deals 2000 --runs 4000
    .venv/bin/python bench/league_sprt.py --quick --json     # greedy vs greedy:2, 400 deals; JSON last
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from league_duplicates import play_pool  # a sibling bench script, not a package

from unonet.league.sprt import NELO_DIVIDED_BY_NT, Sprt, llr_normalized, pentanomial, trinomial

#: `--quick`, and bench/league.py's SPRT figures: deals, tests each way, bootstrap resamples and their tests.
QUICK_DEALS, QUICK_RUNS, QUICK_BOOTSTRAP, QUICK_BOOTSTRAP_RUNS = 400, 1000, 20, 200
#: The pairing the docs justify (docs/leagues.md: an SPRT's real use is a bot against a close version of itself).
CLOSE_STRONG, CLOSE_WEAK, CLOSE_ELO1 = "greedy", "greedy:2", 20.0
LLR_TOLERANCE = 1e-7


def llr_many(counts: np.ndarray, elo0: float, elo1: float) -> np.ndarray:
    """`unonet.league.sprt.llr_normalized` for every row of `counts` (trinomial or pentanomial) at once:
    the same regularization, fixed point and bisection, each row stopping where the library's would."""
    size = counts.shape[1]
    nt0, nt1 = elo0 / NELO_DIVIDED_BY_NT, elo1 / NELO_DIVIDED_BY_NT
    if size == 5:
        nt0, nt1 = nt0 * math.sqrt(2), nt1 * math.sqrt(2)
    regular = np.where(counts > 0, counts.astype(float), 1e-3)
    total = regular.sum(axis=1)
    pdfhat = regular / total[:, None]
    values = np.arange(size) / (size - 1)
    q0, q1 = _mle_t_value(pdfhat, values, 0.5, nt0), _mle_t_value(pdfhat, values, 0.5, nt1)
    return np.asarray(total * (pdfhat * (np.log(q1) - np.log(q0))).sum(axis=1))


def _mle_t_value(pdfhat: np.ndarray, values: np.ndarray, ref: float, t: float) -> np.ndarray:
    rows, size = pdfhat.shape
    pdf = np.full((rows, size), 1 / size)
    active = np.ones(rows, dtype=bool)
    for _ in range(10):
        index = np.nonzero(active)[0]
        if not len(index):
            break
        current = pdf[index]
        mu = (current * values).sum(axis=1)
        sigma = np.sqrt((current * (values - mu[:, None]) ** 2).sum(axis=1))
        shifted = values - ref - t * sigma[:, None] * (1 + ((mu[:, None] - values) / sigma[:, None]) ** 2) / 2
        x = _secular(pdfhat[index], shifted)
        updated = pdfhat[index] / (1 + x[:, None] * shifted)
        pdf[index] = updated
        active[index] = np.abs(current - updated).max(axis=1) >= 1e-9
    return pdf


def _secular(probs: np.ndarray, shifted: np.ndarray) -> np.ndarray:
    low = -1 / shifted.max(axis=1) + 1e-9
    high = -1 / shifted.min(axis=1) - 1e-9
    active = np.ones(len(low), dtype=bool)
    for _ in range(200):
        if not active.any():
            break
        middle = (low + high) / 2
        positive = (probs * shifted / (1 + middle[:, None] * shifted)).sum(axis=1) > 0
        low = np.where(active & positive, middle, low)
        high = np.where(active & ~positive, middle, high)
        active &= ~(high - low < 2e-12 + 4 * np.abs(middle) * 2.2e-16)
    return np.asarray((low + high) / 2)


def check_port(test: Sprt, counts: np.ndarray) -> float:
    """The largest difference between `llr_many` and the library on `counts`; raises AssertionError
    above LLR_TOLERANCE (the simulation would not be the test `unonet league sprt` runs)."""
    ported = llr_many(counts, test.elo0, test.elo1)
    worst = 0.0
    for row, value in zip(counts, ported, strict=True):
        worst = max(worst, abs(llr_normalized(test.elo0, test.elo1, [int(c) for c in row]) - float(value)))
    if worst > LLR_TOLERANCE:
        raise AssertionError(f"the vectorized LLR differs from unonet.league.sprt by {worst:g}")
    return worst


def simulate(units: np.ndarray, pool_of_row: np.ndarray, test: Sprt, max_games: int, rng: np.random.Generator,
             *, paired: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every row one SPRT on pool `pool_of_row[row]` (`units[pool]`: each deal's pentanomial category
    when `paired`, else its two games' trinomial categories), all in lockstep. Returns the games each
    took (`max_games` when capped), its decision (1 H1, -1 H0, 0 capped) and a sample of the counts
    it reached (for `check_port`)."""
    rows = len(pool_of_row)
    deals = units.shape[1]
    counts = np.zeros((rows, 5 if paired else 3), dtype=np.int64)
    games = np.full(rows, max_games)
    decision = np.zeros(rows, dtype=np.int8)
    active = np.arange(rows)
    sample = []
    for step in range(1, max_games // 2 + 1):
        pools = pool_of_row[active]
        if paired:
            counts[active, units[pools, rng.integers(deals, size=len(active))]] += 1
        else:
            for _ in range(2):
                picked = units[pools, rng.integers(deals, size=len(active)), rng.integers(2, size=len(active))]
                counts[active, picked] += 1
        reached, inverse = np.unique(counts[active], axis=0, return_inverse=True)
        llr = llr_many(reached, test.elo0, test.elo1)[inverse.reshape(-1)]
        if step % 50 == 1:
            sample.append(reached[:: max(1, len(reached) // 4)])
        done = (llr >= test.upper) | (llr <= test.lower)
        games[active[done]] = 2 * step
        decision[active[done]] = np.where(llr[done] >= test.upper, 1, -1)
        active = active[~done]
        if not len(active):
            break
    return games, decision, np.concatenate(sample)


def _reduction_and_variance(duplicate: np.ndarray, independent: np.ndarray) -> tuple[float, float]:
    """1 - mean(duplicate) / mean(independent) and its variance by the delta method (independent tests)."""
    md, mi = float(duplicate.mean()), float(independent.mean())
    ratio = md / mi
    variance = ratio**2 * (duplicate.var(ddof=1) / (len(duplicate) * md**2)
                           + independent.var(ddof=1) / (len(independent) * mi**2))
    return 1 - ratio, variance


def measure(pool: list[tuple[float, ...]], test: Sprt, runs: int, max_games: int, seed: int,
            bootstrap: int = 0, bootstrap_runs: int = 200) -> dict[str, Any]:
    """Simulated SPRTs each way on one pool (and on `bootstrap` resamples of it): games to a decision,
    how the tests ended, the reduction with its 95% interval (see the module)."""
    rng = np.random.default_rng(seed)
    deals = len(pool)
    resamples = [np.arange(deals)] + [rng.integers(deals, size=deals) for _ in range(bootstrap)]
    scores = np.array(pool)
    pairs = np.stack([np.rint(scores[order].sum(axis=1) * 2).astype(int) for order in resamples])
    singles = np.stack([np.rint(scores[order] * 2).astype(int) for order in resamples])
    pool_of_row = np.concatenate([np.zeros(runs, dtype=int), np.repeat(np.arange(1, bootstrap + 1), bootstrap_runs)])
    ended = {}
    worst = 0.0
    for way, units, paired in (("duplicate", pairs, True), ("independent", singles, False)):
        games, decision, reached = simulate(units, pool_of_row, test, max_games, rng, paired=paired)
        worst = max(worst, check_port(test, reached[: 400]))
        ended[way] = (games, decision)
    point = pool_of_row == 0
    duplicate, independent = ended["duplicate"][0][point], ended["independent"][0][point]
    reduction, simulation_var = _reduction_and_variance(duplicate, independent)
    out: dict[str, Any] = {}
    if bootstrap:
        replicate, within = [], []
        for b in range(1, bootstrap + 1):
            rows = pool_of_row == b
            r, v = _reduction_and_variance(ended["duplicate"][0][rows], ended["independent"][0][rows])
            replicate.append(r)
            within.append(v)
        pool_var = statistics.variance(replicate)  # with the resamples' own simulation noise: wide
        half = 1.96 * math.sqrt(simulation_var + pool_var)
        out |= {"reduction_ci95": [reduction - half, reduction + half], "reduction_sd_simulation":
                math.sqrt(simulation_var), "reduction_sd_pool": math.sqrt(pool_var),
                "reduction_sd_pool_net": math.sqrt(max(0.0, pool_var - statistics.fmean(within)))}
    flat = [score for deal in pool for score in deal]
    first, second = [deal[0] for deal in pool], [deal[1] for deal in pool]
    game_var = statistics.variance(flat)
    pair_var = statistics.variance([(a + b) / 2 for a, b in pool])
    mean_score = statistics.fmean(flat)
    dh1, ih1 = ended["duplicate"][1][point], ended["independent"][1][point]
    return {
        "strong_mean_score": mean_score,
        "t_per_game": (mean_score - 0.5) / math.sqrt(game_var),
        "pool_pentanomial": pentanomial(pool), "pool_trinomial": trinomial(flat),
        # The strong bot's scores in a deal's two games: the more negative, the more of the deal's luck
        # the pair cancels (the seat the deal favours wins whoever sits there).
        "pair_correlation": statistics.correlation(first, second),
        # A pair's variance over two independent games': what the pairing leaves of the luck.
        "pair_variance_ratio": pair_var / (game_var / 2),
        "sprt_games_duplicate": float(duplicate.mean()),
        "sprt_games_independent": float(independent.mean()),
        "sprt_games_duplicate_se": float(duplicate.std(ddof=1) / math.sqrt(runs)),
        "sprt_games_independent_se": float(independent.std(ddof=1) / math.sqrt(runs)),
        "median_duplicate": float(np.median(duplicate)),
        "median_independent": float(np.median(independent)),
        "h1_share_duplicate": float((dh1 == 1).mean()),
        "h1_share_independent": float((ih1 == 1).mean()),
        "capped_duplicate": int((dh1 == 0).sum()),
        "capped_independent": int((ih1 == 0).sum()),
        "reduction": reduction,
        **out,
        "llr_port_max_error": worst,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strong", default=CLOSE_STRONG)
    parser.add_argument("--weak", default=CLOSE_WEAK)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=4000, help="simulated SPRTs each way on the pool")
    parser.add_argument("--bootstrap", type=int, default=40, help="resamples of the deals, for the interval")
    parser.add_argument("--bootstrap-runs", type=int, default=300, help="simulated SPRTs each way per resample")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, nargs="+", default=[40.0],
                        help="H1's bound(s); each further one is measured on the same deals (`also`)")
    parser.add_argument("--max-games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--draws", choices=("both", "seat", "pile"), default="both",
                        help="per-seat draw streams, draws from the top of the pile, or both (the default)")
    parser.add_argument("--quick", action="store_true", help="400 deals, 1,000 runs each way, 20 resamples")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.runs, args.bootstrap, args.bootstrap_runs = (QUICK_DEALS, QUICK_RUNS, QUICK_BOOTSTRAP,
                                                                      QUICK_BOOTSTRAP_RUNS)
    ways = {"both": ("seat_draws", "pile_draws"), "seat": ("seat_draws",), "pile": ("pile_draws",)}[args.draws]
    out = run(args.strong, args.weak, args.deals, args.runs, args.elo0, args.elo1[0], args.max_games, args.seed,
              bootstrap=args.bootstrap, bootstrap_runs=args.bootstrap_runs, ways=ways, also=args.elo1[1:])
    for way in ways:
        for elo1, figures in [(args.elo1[0], out[way]), *((e, out[way]["also"][f"{e:g}"]) for e in args.elo1[1:])]:
            interval = figures.get("reduction_ci95")
            told = f", 95% interval {interval[0]:+.0%} to {interval[1]:+.0%}" if interval else ""
            print(f"{args.strong} vs {args.weak}, {way.replace('_', ' ')}, SPRT({args.elo0:g}, {elo1:g}) "
                  f"over {args.runs} runs each way from {out['deals']} deals: duplicate pairs "
                  f"{figures['sprt_games_duplicate']:.0f} games, independent {figures['sprt_games_independent']:.0f} "
                  f"games ({figures['reduction']:+.0%} fewer with pairs{told}); pair variance "
                  f"{out[way]['pair_variance_ratio']:.2f} of two games'", file=sys.stderr)
    print(json.dumps(out))
    return 0


def run(strong: str, weak: str, deals: int, runs: int, elo0: float, elo1: float, max_games: int, seed: int, *,
        bootstrap: int = 0, bootstrap_runs: int = 200,
        ways: tuple[str, ...] = ("seat_draws", "pile_draws"), also: Sequence[float] = ()) -> dict[str, Any]:
    """Each way of drawing in `ways` on the same deals, in this process: per-seat draw streams (a heads-up
    duplicate league's default, unonet.engine.draws) and draws from the top of the pile. The top-level
    `sprt_games_*` and `reduction` are the first way's (per-seat draws: what `unonet league sprt` plays).
    Each bound in `also` is another SPRT(elo0, that bound) on the same pool, under the way's `also`."""
    started = time.perf_counter()
    test = Sprt(elo0, elo1)
    out: dict[str, Any] = {"strong": strong, "weak": weak, "deals": deals, "runs": runs, "elo0": elo0,
                           "elo1": elo1, "max_games": max_games, "bootstrap": bootstrap}
    for way in ways:
        began = time.perf_counter()
        pool = play_pool(strong, weak, deals, seed, 2, seat_draws=way == "seat_draws")
        played = time.perf_counter() - began
        figures = measure(pool, test, runs, max_games, seed, bootstrap, bootstrap_runs)
        if also:
            figures["also"] = {f"{bound:g}": measure(pool, Sprt(elo0, bound), runs, max_games, seed, bootstrap,
                                                     bootstrap_runs) for bound in also}
        figures["pool_seconds"] = round(played, 1)
        figures["simulation_seconds"] = round(time.perf_counter() - began - played, 1)
        out[way] = figures
    first = out[ways[0]]
    for key in ("sprt_games_duplicate", "sprt_games_independent", "reduction", "reduction_ci95"):
        if key in first:
            out[key] = first[key]
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
