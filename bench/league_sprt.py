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
and `reduction` = 1 - duplicate / independent.

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
        args.deals, args.runs = 400, 60
    started = time.perf_counter()
    pool = play_pool(args.strong, args.weak, args.deals, args.seed, 2)
    played = time.perf_counter() - started
    test = Sprt(args.elo0, args.elo1)
    rng = random.Random(args.seed)
    results: dict[str, list[tuple[int, Decision]]] = {"duplicate": [], "independent": []}
    for _ in range(args.runs):
        pairs = [pool[rng.randrange(len(pool))] for _ in range(args.max_games // 2)]
        singles = [(pool[rng.randrange(len(pool))][rng.randrange(2)],) for _ in range(args.max_games)]
        results["duplicate"].append(sprt_games(pairs, test, args.max_games, paired=True))
        results["independent"].append(sprt_games(singles, test, args.max_games, paired=False))
    mean = {way: statistics.fmean(games for games, _ in runs) for way, runs in results.items()}
    scores = [score for deal in pool for score in deal]
    out = {
        "strong": args.strong, "weak": args.weak, "deals": len(pool), "runs": args.runs,
        "elo0": args.elo0, "elo1": args.elo1, "max_games": args.max_games,
        "strong_mean_score": statistics.fmean(scores),
        "pool_pentanomial": pentanomial(pool), "pool_trinomial": trinomial(scores),
        "sprt_games_duplicate": mean["duplicate"],
        "sprt_games_independent": mean["independent"],
        "median_duplicate": statistics.median(games for games, _ in results["duplicate"]),
        "median_independent": statistics.median(games for games, _ in results["independent"]),
        "h1_share_duplicate": sum(d is Decision.H1 for _, d in results["duplicate"]) / args.runs,
        "h1_share_independent": sum(d is Decision.H1 for _, d in results["independent"]) / args.runs,
        "capped_duplicate": sum(d is Decision.CONTINUE for _, d in results["duplicate"]),
        "capped_independent": sum(d is Decision.CONTINUE for _, d in results["independent"]),
        "reduction": 1 - mean["duplicate"] / mean["independent"],
        "pool_seconds": round(played, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if not args.json:
        print(f"{args.strong} vs {args.weak}, SPRT({args.elo0:g}, {args.elo1:g}) over {args.runs} runs each way "
              f"from {len(pool)} deals: duplicate pairs {mean['duplicate']:.0f} games, independent "
              f"{mean['independent']:.0f} games ({out['reduction']:+.0%} fewer with pairs)")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
