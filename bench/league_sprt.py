"""How many games an SPRT needs on duplicate pairs against independent games (fishtest's GSPRT).

Heads-up, one round per game, in-process, fixed seeds. A pool of D deals is played once, each deal
twice with the seats swapped (`league_duplicates.play_pool`: real bots on the engine, fed what a
networked seat receives). Simulated SPRTs (`unonet.league.sprt.Sprt`, the same test `unonet league
sprt` runs) then draw from the pool, each with its own random order, until H0 or H1:

  * duplicate: one deal's two games at a time, scored as a game pair (pentanomial);
  * independent: one game at a time, every game a deal of its own and a seat drawn at random
    (trinomial); the LLR is read after every second game, the duplicate test's cadence.

A test that reaches `--max-games` undecided counts as needing all of them (reported as `capped_*`).
The figures are the mean games to a decision each way over `--runs` tests, the share that accepted H1,
and `reduction` = 1 - duplicate / independent; each for the league's per-seat draw streams
(`seat_draws`, unonet.engine.draws) and for draws from the top of the pile (`pile_draws`), the same
deals in the same process.

    .venv/bin/python bench/league_sprt.py                    # greedy vs basic, 1,500 deals, 200 runs each way
    .venv/bin/python bench/league_sprt.py --quick --json     # 400 deals, 60 runs; JSON last
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from league_duplicates import play_pool  # a sibling bench script, not a package

from unonet.league.sprt import Decision, Sprt, pentanomial, trinomial

QUICK_DEALS, QUICK_RUNS = 400, 60  # `--quick`, and bench/league.py's SPRT figures


def sprt_games(units: list[tuple[float, ...]], test: Sprt, cap: int, *, paired: bool) -> tuple[int, Decision]:
    """Games the test took on `units` (pairs of scores, or single scores as 1-tuples), and its decision."""
    counts = [0] * (5 if paired else 3)
    games = 0
    for unit in units:
        if paired:
            counts[round(sum(unit) * 2)] += 1
        else:
            counts[round(unit[0] * 2)] += 1
        games += len(unit)
        if games % 2 == 0:
            decision = test.decide(counts)
            if decision is not Decision.CONTINUE:
                return games, decision
        if games >= cap:
            break
    return cap, Decision.CONTINUE


def measure(pool: list[tuple[float, ...]], test: Sprt, runs: int, max_games: int, seed: int) -> dict[str, object]:
    """Simulated SPRTs each way on one pool: the mean games to a decision and how the tests ended."""
    rng = random.Random(seed)
    results: dict[str, list[tuple[int, Decision]]] = {"duplicate": [], "independent": []}
    for _ in range(runs):
        pairs = [pool[rng.randrange(len(pool))] for _ in range(max_games // 2)]
        singles = [(pool[rng.randrange(len(pool))][rng.randrange(2)],) for _ in range(max_games)]
        results["duplicate"].append(sprt_games(pairs, test, max_games, paired=True))
        results["independent"].append(sprt_games(singles, test, max_games, paired=False))
    mean = {way: statistics.fmean(games for games, _ in ended) for way, ended in results.items()}
    scores = [score for deal in pool for score in deal]
    first, second = [deal[0] for deal in pool], [deal[1] for deal in pool]
    return {
        "strong_mean_score": statistics.fmean(scores),
        "pool_pentanomial": pentanomial(pool), "pool_trinomial": trinomial(scores),
        # The strong bot's scores in a deal's two games: the more negative, the more of the deal's luck
        # the pair cancels (the seat the deal favours wins whoever sits there).
        "pair_correlation": statistics.correlation(first, second),
        "sprt_games_duplicate": mean["duplicate"],
        "sprt_games_independent": mean["independent"],
        "median_duplicate": statistics.median(games for games, _ in results["duplicate"]),
        "median_independent": statistics.median(games for games, _ in results["independent"]),
        "h1_share_duplicate": sum(d is Decision.H1 for _, d in results["duplicate"]) / runs,
        "h1_share_independent": sum(d is Decision.H1 for _, d in results["independent"]) / runs,
        "capped_duplicate": sum(d is Decision.CONTINUE for _, d in results["duplicate"]),
        "capped_independent": sum(d is Decision.CONTINUE for _, d in results["independent"]),
        "reduction": 1 - mean["duplicate"] / mean["independent"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strong", default="greedy")
    parser.add_argument("--weak", default="basic")
    parser.add_argument("--deals", type=int, default=1500)
    parser.add_argument("--runs", type=int, default=200, help="simulated SPRTs each way")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=40.0)
    parser.add_argument("--max-games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--quick", action="store_true", help="400 deals, 60 runs each way")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.runs = QUICK_DEALS, QUICK_RUNS
    out = run(args.strong, args.weak, args.deals, args.runs, args.elo0, args.elo1, args.max_games, args.seed)
    if not args.json:
        for way in ("seat_draws", "pile_draws"):
            figures = out[way]
            assert isinstance(figures, dict)
            print(f"{args.strong} vs {args.weak}, {way.replace('_', ' ')}, SPRT({args.elo0:g}, {args.elo1:g}) "
                  f"over {args.runs} runs each way from {out['deals']} deals: duplicate pairs "
                  f"{figures['sprt_games_duplicate']:.0f} games, independent {figures['sprt_games_independent']:.0f} "
                  f"games ({figures['reduction']:+.0%} fewer with pairs)")
    print(json.dumps(out))
    return 0


def run(strong: str, weak: str, deals: int, runs: int, elo0: float, elo1: float, max_games: int,
        seed: int) -> dict[str, object]:
    """Both ways of drawing on the same deals, in this process: per-seat draw streams (a heads-up
    duplicate league's default, unonet.engine.draws) and draws from the top of the pile. The top-level
    `sprt_games_*` and `reduction` are the seat draws' (what `unonet league sprt` plays)."""
    started = time.perf_counter()
    test = Sprt(elo0, elo1)
    out: dict[str, object] = {"strong": strong, "weak": weak, "deals": deals, "runs": runs, "elo0": elo0,
                              "elo1": elo1, "max_games": max_games}
    for way in ("seat_draws", "pile_draws"):
        began = time.perf_counter()
        pool = play_pool(strong, weak, deals, seed, 2, seat_draws=way == "seat_draws")
        figures = measure(pool, test, runs, max_games, seed)
        figures["pool_seconds"] = round(time.perf_counter() - began, 1)
        out[way] = figures
    seat = out["seat_draws"]
    assert isinstance(seat, dict)
    for key in ("sprt_games_duplicate", "sprt_games_independent", "reduction"):
        out[key] = seat[key]
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
