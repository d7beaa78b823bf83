"""How much duplicate deals narrow a league's uncertainty: games needed to separate two bots at 95%.

Heads-up, one round per game, in-process. A pool of D deals is played once, each deal twice, with the
seats swapped (the stronger bot, `--strong`, in seat 0 and then in seat 1), fixed seeds throughout.
Simulated leagues then draw from the pool, each with its own random order:

  * duplicate: games come in pairs, both seatings of one deal; the unit of the statistic is the pair
    (the mean of its two scores);
  * independent: every game a deal of its own, seats alternating; the unit is the game.

After each game the stronger bot's mean score per unit gets its 95% normal interval (mean +- 1.96 s /
sqrt(n)); the league has separated the two bots from the game after which the interval lies wholly
above 1/2 and stays there to the league's end (`--max-games`; at least 10 games first, and a lucky
early crossing that does not last does not count). A league still not separated at its end counts as
needing all its games (reported as `capped_*`, so a capped mean is never mistaken for a measured one).
The figure is the mean over `--leagues` leagues of the games needed, each way, and `reduction` =
1 - duplicate / independent. The same question answered from the pool's variances, the games at which
a 95% half-width equals the stronger bot's edge, is printed beside it (`expected_*`): (1.96 s / edge)^2
games with s the deviation per game, and twice (1.96 s_pair / edge)^2 with s_pair that per pair.

    .venv/bin/python bench/league_duplicates.py --strong greedy --weak random        # 200 leagues
    .venv/bin/python bench/league_duplicates.py --quick --json                       # 60 leagues; JSON last
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from unonet.bots import BOT_KINDS
from unonet.league.config import load
from unonet.league.entrants import factory
from unonet.league.inprocess import play_game
from unonet.league.order import scores
from unonet.league.schedule import GameSpec, deal_seed
from unonet.league.standings import Z95

MIN_GAMES = 10


def play_pool(strong: str, weak: str, deals: int, seed: int) -> list[tuple[float, float]]:
    """Each deal's two games: the strong bot's score in seat 0, then in seat 1."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "pool.toml"
        path.write_text(
            f'[league]\nseed = {seed}\ngames = 2\ntable_size = 2\n\n'
            f'[[bot]]\nname = "strong"\nkind = "{strong}"\n\n[[bot]]\nname = "weak"\nkind = "{weak}"\n'
        )
        config = load(path)
    built = {spec.name: factory(spec) for spec in config.bots}
    pool = []
    for deal in range(1, deals + 1):
        pair = []
        for rotation, seats in enumerate((("strong", "weak"), ("weak", "strong"))):
            spec = GameSpec(0, f"d{deal}r{rotation}", 0, deal, deal_seed(seed, deal), rotation, seats)
            result = play_game(config, spec, [built[name] for name in seats])
            pair.append(scores(result.ranks)[seats.index("strong")])
        pool.append((pair[0], pair[1]))
    return pool


def games_to_separate(units: list[float], games_per_unit: int, cap: int) -> int:
    """Games from which on the 95% interval of the mean unit stays above 1/2 up to the league's end
    (a lucky early crossing that does not last does not count); `cap` when it is not above at the end."""
    total = total_sq = 0.0
    since: int | None = None
    for n, value in enumerate(units, start=1):
        total += value
        total_sq += value * value
        if n * games_per_unit < MIN_GAMES or n < 2:
            continue
        mean = total / n
        variance = max(0.0, (total_sq - n * mean * mean) / (n - 1))
        above = mean - Z95 * math.sqrt(variance / n) > 0.5
        if above and since is None:
            since = n * games_per_unit
        elif not above:
            since = None
    return cap if since is None else since


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strong", default="greedy" if "greedy" in BOT_KINDS else "random")
    parser.add_argument("--weak", default="random")
    parser.add_argument("--deals", type=int, default=1500, help="deals in the pool (each played twice)")
    parser.add_argument("--leagues", type=int, default=200)
    parser.add_argument("--max-games", type=int, default=600, help="games per simulated league at most")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--quick", action="store_true", help="600 deals, 60 leagues, 400 games at most")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.leagues, args.max_games = 600, 60, 400
    started = time.perf_counter()
    pool = play_pool(args.strong, args.weak, args.deals, args.seed)
    played = time.perf_counter() - started
    cap = min(args.max_games, 2 * len(pool))
    rng = random.Random(args.seed)
    duplicate, independent, capped = [], [], [0, 0]
    for _ in range(args.leagues):
        order = rng.sample(range(len(pool)), len(pool))
        pairs = [(pool[i][0] + pool[i][1]) / 2 for i in order[: cap // 2]]
        singles = [pool[i][k % 2] for k, i in enumerate(rng.sample(range(len(pool)), min(cap, len(pool))))]
        d = games_to_separate(pairs, 2, cap)
        s = games_to_separate(singles, 1, cap)
        duplicate.append(d)
        independent.append(s)
        capped[0] += d == cap
        capped[1] += s == cap
    strong_score = statistics.fmean(a + b for a, b in pool) / 2
    # The same question from the whole pool's variances: games for a 95% half-width equal to the edge.
    edge = strong_score - 0.5
    game_sd = statistics.stdev([score for pair in pool for score in pair])
    pair_sd = statistics.stdev([(a + b) / 2 for a, b in pool])
    expected_independent = (Z95 * game_sd / edge) ** 2 if edge > 0 else math.inf
    expected_duplicate = 2 * (Z95 * pair_sd / edge) ** 2 if edge > 0 else math.inf
    out = {
        "strong": args.strong, "weak": args.weak, "deals": len(pool), "leagues": args.leagues, "max_games": cap,
        "strong_mean_score": strong_score,
        "games_to_separate_duplicate": statistics.fmean(duplicate),
        "games_to_separate_independent": statistics.fmean(independent),
        "median_duplicate": statistics.median(duplicate), "median_independent": statistics.median(independent),
        "capped_duplicate": capped[0], "capped_independent": capped[1],
        "reduction": 1 - statistics.fmean(duplicate) / statistics.fmean(independent),
        "sd_per_game": game_sd, "sd_per_pair": pair_sd,
        "expected_games_duplicate": expected_duplicate, "expected_games_independent": expected_independent,
        "expected_reduction": 1 - expected_duplicate / expected_independent,
        "pool_seconds": played,
    }
    print(f"{args.strong} vs {args.weak}: strong scores {strong_score:.3f} per game over {2 * len(pool)} games "
          f"({played:.0f} s); games to separate at 95%, mean over {args.leagues} leagues: duplicate "
          f"{out['games_to_separate_duplicate']:.1f}, independent {out['games_to_separate_independent']:.1f} "
          f"({100 * out['reduction']:.0f}% fewer)", file=sys.stderr)
    print(json.dumps(out, sort_keys=True) if args.json else json.dumps(out, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
