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
1 - duplicate / independent, for the per-seat draw streams (`seat_draws`, unonet.engine.draws) and
for draws from the top of the pile (`pile_draws`), the same deals in the same process. The same
question answered from the pool's variances, the games at which a 95% half-width equals the stronger
bot's edge, is printed beside it (`expected_*`): (1.96 s / edge)^2 games with s the deviation per
game, and twice (1.96 s_pair / edge)^2 with s_pair that per pair.

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


def play_pool(
    strong: str, weak: str, deals: int, seed: int, table: int = 2, *, seat_draws: bool = False
) -> list[tuple[float, ...]]:
    """Each deal's `table` games, the strong bot in seat 0, 1, ... (the weak kind in the other seats,
    each seat its own bot): the strong bot's score in each. `seat_draws`: the league's per-seat draw
    streams (unonet.engine.draws) instead of draws from the top of the pile."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "pool.toml"
        bots = f'[[bot]]\nname = "strong"\nkind = "{strong}"\n\n' + "".join(
            f'[[bot]]\nname = "weak{index}"\nkind = "{weak}"\n\n' for index in range(1, table))
        draws = str(seat_draws).lower()
        path.write_text(f"[league]\nseed = {seed}\ngames = 2\ntable_size = {table}\nseat_draws = {draws}\n\n{bots}")
        config = load(path)
    built = {spec.name: factory(spec) for spec in config.bots}
    order = ["strong", *(f"weak{index}" for index in range(1, table))]
    pool = []
    for deal in range(1, deals + 1):
        rotated = []
        for rotation in range(table):
            seats = tuple(order[-rotation:] + order[:-rotation]) if rotation else tuple(order)
            spec = GameSpec(0, f"d{deal}r{rotation}", 0, deal, deal_seed(seed, deal), rotation, seats)
            result = play_game(config, spec, [built[name] for name in seats])
            rotated.append(scores(result.ranks)[seats.index("strong")])
        pool.append(tuple(rotated))
    return pool


def games_to_separate(units: list[float], games_per_unit: int, cap: int, even: float = 0.5) -> int:
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
        above = mean - Z95 * math.sqrt(variance / n) > even
        if above and since is None:
            since = n * games_per_unit
        elif not above:
            since = None
    return cap if since is None else since


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strong", default="greedy" if "greedy" in BOT_KINDS else "random")
    parser.add_argument("--weak", default="random")
    parser.add_argument("--deals", type=int, default=1500, help="deals in the pool (each played once per seat)")
    parser.add_argument("--leagues", type=int, default=200)
    parser.add_argument("--max-games", type=int, default=600, help="games per simulated league at most")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--table", type=int, default=2, help="seats: the strong bot against table - 1 weak ones")
    parser.add_argument("--quick", action="store_true", help="600 deals, 60 leagues, 400 games at most")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.deals, args.leagues, args.max_games = 600, 60, 400
    table = args.table
    out: dict[str, object] = {"strong": args.strong, "weak": args.weak, "table": table, "leagues": args.leagues}
    for way in ("seat_draws", "pile_draws"):
        started = time.perf_counter()
        pool = play_pool(args.strong, args.weak, args.deals, args.seed, table, seat_draws=way == "seat_draws")
        figures = separate(pool, table, args.leagues, args.max_games, args.seed)
        figures["pool_seconds"] = time.perf_counter() - started
        out[way] = figures
        print(f"{args.strong} vs {args.weak} x{table - 1}, {way.replace('_', ' ')}: strong scores "
              f"{figures['strong_mean_score']:.3f} per game over {table * len(pool)} games "
              f"({figures['pool_seconds']:.0f} s); games to separate at 95%, mean over {args.leagues} leagues: "
              f"duplicate {figures['games_to_separate_duplicate']:.1f}, independent "
              f"{figures['games_to_separate_independent']:.1f} ({100 * figures['reduction']:.0f}% fewer)",
              file=sys.stderr)
    print(json.dumps(out, sort_keys=True) if args.json else json.dumps(out, indent=2, sort_keys=True))
    return 0


def separate(pool: list[tuple[float, ...]], table: int, leagues: int, max_games: int, seed: int) -> dict[str, float]:
    """Simulated leagues on one pool, duplicate and independent: the games each needed to separate."""
    cap = min(max_games, len(pool))  # independent games need a deal each
    cap -= cap % table
    even = 0.5  # the strong bot's mean score if it were no better than the others (order.scores)
    rng = random.Random(seed)
    duplicate, independent, capped = [], [], [0, 0]
    for _ in range(leagues):
        order = rng.sample(range(len(pool)), len(pool))
        pairs = [statistics.fmean(pool[i]) for i in order[: cap // table]]
        singles = [pool[i][k % table] for k, i in enumerate(rng.sample(range(len(pool)), cap))]
        d = games_to_separate(pairs, table, cap, even)
        s = games_to_separate(singles, 1, cap, even)
        duplicate.append(d)
        independent.append(s)
        capped[0] += d == cap
        capped[1] += s == cap
    strong_score = statistics.fmean(score for deal in pool for score in deal)
    # The same question from the whole pool's variances: games for a 95% half-width equal to the edge.
    edge = strong_score - even
    game_sd = statistics.stdev([score for deal in pool for score in deal])
    pair_sd = statistics.stdev([statistics.fmean(deal) for deal in pool])
    expected_independent = (Z95 * game_sd / edge) ** 2 if edge > 0 else math.inf
    expected_duplicate = table * (Z95 * pair_sd / edge) ** 2 if edge > 0 else math.inf
    return {
        "deals": len(pool), "max_games": cap,
        "strong_mean_score": strong_score,
        "games_to_separate_duplicate": statistics.fmean(duplicate),
        "games_to_separate_independent": statistics.fmean(independent),
        "median_duplicate": statistics.median(duplicate), "median_independent": statistics.median(independent),
        "capped_duplicate": capped[0], "capped_independent": capped[1],
        "reduction": 1 - statistics.fmean(duplicate) / statistics.fmean(independent),
        "sd_per_game": game_sd, "sd_per_pair": pair_sd,
        "expected_games_duplicate": expected_duplicate, "expected_games_independent": expected_independent,
        "expected_reduction": 1 - expected_duplicate / expected_independent,
    }


if __name__ == "__main__":
    sys.exit(main())
