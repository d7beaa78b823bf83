"""How strong and how fast the shipped bots are: pairings of bot kinds over whole rounds, in-process.

One game is one round on the standard rules, from the deal to the first player out. A pairing
``A_vs_B_Np`` seats one A and N-1 Bs. Deals are duplicated with the seats rotated so luck cancels:
each deal (its seed and dealer) is played N times, with A at each seat in turn and the same cards
dealt each time, so a pairing of D deals is N x D games. Every policy is the code that plays at a real
table and sees exactly what a networked seat would: the host's converter builds each seat's events and
protobuf `SeatView` with its legal actions, and its command goes back through the PlayService
conversion (`unonet.bots.arena`). No network, clock or journal: races go to the first seat in turn
order that answers (the arena's docstring).

Figures, per pairing: A's win rate and A's points per game (the round's winner scores the cards left
in the other hands, P2), each with a 95% interval over deals (a deal's N rotations are one sample, so
the interval reflects what the duplicate design cancels), and B's points per game per seat; per kind,
the time its policy took per decision (p50, p99; the view's construction is not included), over every
decision of every pairing it played in, by the wall clock and as this thread's CPU time (on a machine
busy with other work the wall clock's p99 catches the moments this process was not running); and for
each kind measured against ``greedy`` heads-up, the share of the gap between ``greedy`` and the
``oracle`` it closes on the same deals (``KIND_gap_closed``: (KIND_vs_greedy - 50%) /
(oracle_vs_greedy - 50%)).

Pairings: every kind registered in `unonet.bots.kinds` is measured against the baselines: ``random``,
``basic`` and ``greedy``, heads-up and (against ``random``) at four; the ``oracle`` (it sees every
hand) against ``greedy`` heads-up. A kind registered later (``strong``) is paired the same way with
no change here; its ``--quick`` budget is what its registry entry gives the bench (`quick_level`).

The quick run (``--quick``) plays fewer deals (``DEALS["quick"]``), only the pairings the targets
name (``QUICK_PAIRINGS``), and each search kind at its registry's smaller fixed budget; its JSON says
all three (``deals``, ``pairings``, ``KIND_seated_as_means``). Every figure says which engine build
played it (``engine_build``: ``compiled`` when run on ``.venv-compiled``, whose mypyc build plays a
search kind's playouts two to three times faster, else ``pure``); a fixed budget is the same search
on both, only faster.

``--host`` plays the pairings through a real host's AddBots instead (`bench/bots_host.py`: a host in
this process, its worker processes playing the kinds that search, league-seeded tables, ``--tables``
at once), so the figures are the ones a player meets, with the arena on the very same deals as the
peer: per pairing the host's win rate (``KEY``), the arena's (``KEY_arena``) and their difference
paired by deal (``KEY_host_minus_arena``); ``stalls`` (tables with no event for ``--stall-s``),
``fallbacks`` (the worker watch's BotFallback events), ``host_games``; and per searching kind its own
figures at the host and in the arena (``KIND_host_*``, ``KIND_arena_*``: decisions, searched, not
searchable, each search's CPU time, the share that reached its budget). The oracle is never seated.

Usage:
    python bench/bots.py                   # the full run: 1,000 deals per pairing (about an hour)
    python bench/bots.py --quick --json    # the quick run (under 10 minutes); JSON last
    python bench/bots.py --deals 300 --pairings greedy_vs_basic_2p
    python bench/bots.py --build compiled --pairings strong_vs_greedy_2p   # on .venv-compiled's engine
    python bench/bots.py --host --deals 300 --pairings strong_vs_greedy_2p,strong_vs_random_2p --json
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import multiprocessing
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from unonet.bots import Bot
from unonet.bots.arena import play_round
from unonet.bots.kinds import bench_kinds, describe, make_bot
from unonet.engine import find_ruleset
from unonet.engine.draws import SeatDraws

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # bench/ is a folder of scripts, not a package

from compiled_env import NOT_FOR_BENCHES, PYTHON, built_for_benches

SEED = 20261202
DEALS = {"full": 1000, "quick": 100}
QUICK_PAIRINGS = ("greedy_vs_random_2p", "greedy_vs_basic_2p", "strong_vs_random_2p", "strong_vs_random_4p",
                  "strong_vs_greedy_2p", "oracle_vs_greedy_2p")
"""The pairings a quick run plays: the ones the strength targets and the quick JSON name."""
Z95 = statistics.NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Pairing:
    """One A against N-1 Bs."""

    a: str
    b: str
    players: int

    @property
    def key(self) -> str:
        return f"{self.a.split(':')[0]}_vs_{self.b.split(':')[0]}_{self.players}p"


@dataclass
class Outcome:
    """What a pairing's games gave: per deal, A's mean win and points over the rotations."""

    pairing: Pairing
    deal_wins: list[float] = field(default_factory=list)
    deal_points: list[float] = field(default_factory=list)
    b_points: list[float] = field(default_factory=list)
    games: int = 0
    seconds: float = 0.0


def pairings(kinds: dict[str, str]) -> list[Pairing]:
    """The pairings of the module docstring, for `kinds` (family -> the name to seat it by)."""
    out: list[Pairing] = []
    for family, name in kinds.items():
        if family in ("random", "oracle"):
            continue
        for baseline in ("random", "basic", "greedy"):
            if baseline != family and baseline in kinds and not (family == "basic" and baseline == "greedy"):
                out.append(Pairing(name, kinds[baseline], 2))
        out.append(Pairing(name, kinds["random"], 4))
    if "oracle" in kinds:
        out.append(Pairing(kinds["oracle"], kinds["greedy"], 2))
        out.append(Pairing(kinds["oracle"], kinds["random"], 2))
    return out


@dataclass
class Chunk:
    """What a run of consecutive deals of one pairing gave (one worker's share under ``--jobs``)."""

    deal_wins: list[float] = field(default_factory=list)
    deal_points: list[float] = field(default_factory=list)
    b_points: list[float] = field(default_factory=list)
    games: int = 0
    times: dict[str, list[int]] = field(default_factory=dict)
    cpu_times: dict[str, list[int]] = field(default_factory=dict)
    bot_stats: list[dict[str, object]] = field(default_factory=list)  # A's `Bot.stats()` per game, when it keeps any


PROGRESS_EVERY = 25
"""A single-process run says, every this many deals, where the pairing stands (stderr): a long run
stopped early still tells its figure so far."""


def play_deals(pairing: Pairing, first: int, stop: int, *, progress: bool = False, league: bool = False) -> Chunk:
    """Play the duplicated deals `first` to `stop` - 1 of `pairing` (each deal seeds itself, so any
    split of the deals gives the same games); with `progress`, the win rate so far on stderr every
    `PROGRESS_EVERY` deals. With `league`, each deal is the one a league-seeded host table deals from
    its seed (the dealer drawn, heads-up per-seat draws) and each policy is seeded as that host seeds
    its seat: `--host`'s peer, on the host's very deals."""
    ruleset = find_ruleset("standard")
    n = pairing.players
    chunk = Chunk()
    for deal in range(first, stop):
        if progress and chunk.deal_wins and len(chunk.deal_wins) % PROGRESS_EVERY == 0:
            win, lo, hi = interval(chunk.deal_wins)
            print(f"  {pairing.key}: {len(chunk.deal_wins)} deals, A wins {win:.1%} ({lo:.1%} - {hi:.1%})",
                  file=sys.stderr, flush=True)
        seed = SEED + deal
        wins = points = others = 0.0
        for a_seat in range(n):
            names = [pairing.a if seat == a_seat else pairing.b for seat in range(n)]
            if league:
                bots: list[Bot] = [make_bot(name, seed=seed * 31 + seat) for seat, name in enumerate(names)]
                draws = SeatDraws(seed) if n == 2 else None
                result = play_round(ruleset, bots, seed, dealer=None, draws=draws)
            else:
                bots = [make_bot(name, seed=seed * 97 + a_seat * 11 + seat) for seat, name in enumerate(names)]
                result = play_round(ruleset, bots, seed, dealer=deal % n)
            wins += result.winner == a_seat
            points += result.points[a_seat]
            others += sum(result.points) - result.points[a_seat]
            for seat, name in enumerate(names):
                chunk.times.setdefault(name, []).extend(result.decision_ns[seat])
                chunk.cpu_times.setdefault(name, []).extend(result.decision_cpu_ns[seat])
            if stats := bots[a_seat].stats():
                chunk.bot_stats.append(stats)
        chunk.deal_wins.append(wins / n)
        chunk.deal_points.append(points / n)
        chunk.b_points.append(others / n / (n - 1))
        chunk.games += n
    return chunk


def play_pairing(pairing: Pairing, deals: int, times: dict[str, list[int]],
                 cpu_times: dict[str, list[int]] | None = None, jobs: int = 1, league: bool = False) -> Outcome:
    """Play `deals` duplicated deals of `pairing`, in `jobs` worker processes when more than one (the
    deals split into consecutive runs: the same games, in the same order, as one process plays); each
    kind's decision times are added to `times` (wall clock) and `cpu_times` (its thread's CPU time).
    `league`: the host's deals (`play_deals`)."""
    outcome = Outcome(pairing)
    start = time.perf_counter()
    bounds = [deals * index // jobs for index in range(jobs + 1)] if jobs > 1 else [0, deals]
    spans = [(lo, hi) for lo, hi in itertools.pairwise(bounds) if hi > lo]
    if len(spans) > 1:
        with ProcessPoolExecutor(len(spans)) as pool:
            chunks = list(pool.map(functools.partial(play_deals, league=league), [pairing] * len(spans),
                                   *zip(*spans, strict=True)))
    else:
        chunks = [play_deals(pairing, *spans[0], progress=not league, league=league)] if spans else []
    for chunk in chunks:
        outcome.deal_wins += chunk.deal_wins
        outcome.deal_points += chunk.deal_points
        outcome.b_points += chunk.b_points
        outcome.games += chunk.games
        for name, values in chunk.times.items():
            times.setdefault(name, []).extend(values)
        if cpu_times is not None:
            for name, values in chunk.cpu_times.items():
                cpu_times.setdefault(name, []).extend(values)
    outcome.seconds = time.perf_counter() - start
    return outcome


def interval(samples: list[float]) -> tuple[float, float, float]:
    """The mean and its 95% normal interval (samples are independent deals)."""
    mean = statistics.fmean(samples)
    half = Z95 * statistics.stdev(samples) / math.sqrt(len(samples)) if len(samples) > 1 else math.inf
    return mean, mean - half, mean + half


def percentile_ms(values: list[int], q: float) -> float:
    """The q-th quantile (0..1) of nanosecond samples, in milliseconds (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index] / 1e6


def figures(outcomes: list[Outcome], times: dict[str, list[int]], deals: int, mode: str,
            cpu_times: dict[str, list[int]] | None = None) -> dict[str, object]:
    out: dict[str, object] = {"mode": mode, "deals": deals, "rules": "standard", "one_game": "one round",
                              "engine_build": engine_build(),
                              "pairings": [outcome.pairing.key for outcome in outcomes]}
    games: dict[str, int] = {}
    for outcome in outcomes:
        key = outcome.pairing.key
        win, lo, hi = interval(outcome.deal_wins)
        pts, plo, phi = interval(outcome.deal_points)
        out[key] = round(win, 4)
        out[f"{key}_ci95"] = [round(lo, 4), round(hi, 4)]
        out[f"{key}_points_per_game"] = round(pts, 2)
        out[f"{key}_points_per_game_ci95"] = [round(plo, 2), round(phi, 2)]
        out[f"{key}_opponent_points_per_game"] = round(statistics.fmean(outcome.b_points), 2)
        out[f"{key}_seats"] = f"{outcome.pairing.a} x1, {outcome.pairing.b} x{outcome.pairing.players - 1}"
        games[key] = outcome.games
    for name, values in sorted(times.items()):
        family = name.split(":")[0]
        if values:
            out[f"{family}_decision_p50_ms"] = round(percentile_ms(values, 0.5), 3)
            out[f"{family}_decision_p99_ms"] = round(percentile_ms(values, 0.99), 3)
            out[f"{family}_decisions"] = len(values)
            cpu = (cpu_times or {}).get(name)
            if cpu:
                out[f"{family}_decision_cpu_p50_ms"] = round(percentile_ms(cpu, 0.5), 3)
                out[f"{family}_decision_cpu_p99_ms"] = round(percentile_ms(cpu, 0.99), 3)
            out[f"{family}_seated_as"] = name
            out[f"{family}_seated_as_means"] = describe(name)  # a search kind's budget at that name
    oracle = out.get("oracle_vs_greedy_2p")
    for key in [k for k in games if k.endswith("_vs_greedy_2p") and not k.startswith("oracle_")]:
        if isinstance(oracle, float) and oracle > 0.5:  # how much of greedy's gap to the oracle it closes
            win = interval(next(o for o in outcomes if o.pairing.key == key).deal_wins)[0]
            out[f"{key.split('_vs_')[0]}_gap_closed"] = round((win - 0.5) / (oracle - 0.5), 3)
    out["games"] = min(games.values()) if games else 0
    out["games_by_pairing"] = games
    out["python"] = platform.python_version()
    return out


def search_figures(prefix: str, stats: list[dict[str, Any]]) -> dict[str, object]:
    """A searching kind's own figures over games (`StrongBot.stats`), under `prefix`: its decisions, the
    share it searched, what it could not (`unsearchable`, `ahead`), the share of searches that reached
    their budget (stopped on time or playouts, not for want of deals) and each search's CPU time."""
    if not stats:
        return {}
    total = {key: sum(int(s.get(key, 0)) for s in stats) for key in ("decisions", "searches", "unsearchable", "ahead")}
    seconds = [float(x) for s in stats for x in s.get("search_seconds", [])]
    stops = [stop for s in stats for stop, count in dict(s.get("search_stops", {})).items() for _ in range(count)]
    out: dict[str, object] = {f"{prefix}_{key}": value for key, value in total.items()}
    walls = [int(float(x) * 1e9) for s in stats for x in s.get("decision_seconds", [])]
    if walls:  # the wall clock per required decision, as the runner waited for it (host only)
        out[f"{prefix}_decision_wall_p50_ms"] = round(percentile_ms(walls, 0.5), 3)
        out[f"{prefix}_decision_wall_p99_ms"] = round(percentile_ms(walls, 0.99), 3)
    if seconds:
        out[f"{prefix}_search_budget_reached"] = round(sum(stop != "deals" for stop in stops) / len(stops), 4)
        out[f"{prefix}_search_cpu_p50_ms"] = round(percentile_ms([int(x * 1e9) for x in seconds], 0.5), 3)
        out[f"{prefix}_search_cpu_p99_ms"] = round(percentile_ms([int(x * 1e9) for x in seconds], 0.99), 3)
        out[f"{prefix}_playouts_p50"] = statistics.median(p for s in stats for p in s.get("search_playouts", []))
    return out


def host_figures(chosen: list[Pairing], host: dict[str, Any], peer: dict[str, Chunk], deals: range,
                 mode: str) -> dict[str, object]:
    """`--host`'s figures: per pairing the host's (its headline `KEY`), the arena's on the same deals
    (`KEY_arena`) and their difference paired by deal (`KEY_host_minus_arena`), each with its interval
    over the deals every game of which finished; stalls, BotFallback events, games; and per searching
    kind its figures at the host (`KIND_host_*`, from its workers) and in the arena (`KIND_arena_*`)."""
    out: dict[str, object] = {"mode": f"host ({mode})", "deals": len(deals), "first_deal": deals.start,
                              "rules": "standard", "one_game": "one round", "engine_build": engine_build(),
                              "pairings": [p.key for p in chosen]}
    for pairing in chosen:
        key, games, arena = pairing.key, host[pairing.key], peer[pairing.key]
        done = sorted(games.deal_wins)
        host_wins = [games.deal_wins[d] for d in done]
        arena_wins = [arena.deal_wins[d - deals.start] for d in done]
        out[f"{key}_by_deal"] = {d: [round(h, 4), round(a, 4)] for d, h, a in zip(done, host_wins, arena_wins,
                                                                                    strict=True)}
        for suffix, samples in (("", host_wins), ("_arena", arena_wins),
                                ("_host_minus_arena", [h - a for h, a in zip(host_wins, arena_wins, strict=True)])):
            if samples:
                mean, lo, hi = interval(samples)
                out[f"{key}{suffix}"] = round(mean, 4)
                out[f"{key}{suffix}_ci95"] = [round(lo, 4), round(hi, 4)]
        if done:
            points = interval([games.deal_points[d] for d in done])
            out[f"{key}_points_per_game"] = round(points[0], 2)
            out[f"{key}_points_per_game_ci95"] = [round(points[1], 2), round(points[2], 2)]
        out[f"{key}_seats"] = f"{pairing.a} x1, {pairing.b} x{pairing.players - 1}"
        out[f"{key}_games"] = games.games
        out[f"{key}_deals_complete"] = len(done)
        out[f"{key}_stalls"] = len(games.stalls)
        out[f"{key}_fallbacks"] = games.fallbacks
        family = pairing.a.split(":")[0]
        out[f"{family}_seated_as"] = pairing.a
        out.update(search_figures(f"{family}_host", [s for p in chosen if p.a == pairing.a
                                                     for s in host[p.key].worker_stats]))
        out.update(search_figures(f"{family}_arena", [s for p in chosen if p.a == pairing.a
                                                      for s in peer[p.key].bot_stats]))
    out["host_games"] = sum(host[p.key].games for p in chosen)
    out["stalls"] = sum(len(host[p.key].stalls) for p in chosen)
    out["stalled_tables"] = [t for p in chosen for t in host[p.key].stalls]
    out["fallbacks"] = sum(host[p.key].fallbacks for p in chosen)
    out["python"] = platform.python_version()
    return out


def print_host_table(chosen: list[Pairing], data: dict[str, object]) -> None:
    def rate(key: str) -> str:
        if key not in data:
            return "-"
        lo, hi = data[f"{key}_ci95"]  # type: ignore[misc]
        return f"{data[key]:.1%} ({lo:.1%} - {hi:.1%})"

    print(f"through a host's AddBots: standard rules, one game = one round, {data['deals']} duplicated deals per "
          f"pairing ({data['mode']} run, {data['engine_build']} engine), the arena on the same deals as the peer\n")
    print(f"{'pairing':<24}{'games':>7}{'stalls':>8}{'fallbacks':>10}  {'host: A wins (95%)':<26}"
          f"{'arena: A wins (95%)':<26}{'host - arena (95%)':<26}")
    for pairing in chosen:
        key = pairing.key
        diff = f"{key}_host_minus_arena"
        diff_text = "-" if diff not in data else (
            f"{data[diff]:+.1%} ({data[f'{diff}_ci95'][0]:+.1%} - {data[f'{diff}_ci95'][1]:+.1%})")  # type: ignore[index]
        print(f"{key:<24}{data[f'{key}_games']!s:>7}{data[f'{key}_stalls']!s:>8}{data[f'{key}_fallbacks']!s:>10}  "
              f"{rate(key):<26}{rate(f'{key}_arena'):<26}{diff_text:<26}")
    print(f"\n{'kind, seated':<22}{'decisions':>10}{'searched':>10}{'unsearch.':>10}{'ahead':>7}{'budget':>8}"
          f"{'cpu p50 ms':>12}{'cpu p99 ms':>12}{'playouts p50':>14}")
    for family in sorted({p.a.split(':')[0] for p in chosen}):
        for where in ("host", "arena"):
            prefix = f"{family}_{where}"
            if f"{prefix}_decisions" in data:
                print(f"{prefix:<22}{data[f'{prefix}_decisions']!s:>10}{data[f'{prefix}_searches']!s:>10}"
                      f"{data[f'{prefix}_unsearchable']!s:>10}{data[f'{prefix}_ahead']!s:>7}"
                      f"{data.get(f'{prefix}_search_budget_reached', '-')!s:>8}"
                      f"{data.get(f'{prefix}_search_cpu_p50_ms', '-')!s:>12}"
                      f"{data.get(f'{prefix}_search_cpu_p99_ms', '-')!s:>12}"
                      f"{data.get(f'{prefix}_playouts_p50', '-')!s:>14}")
    print("(cpu: each search's CPU time in its thread; budget: the share of searches that reached their budget)")
    for family in sorted({p.a.split(':')[0] for p in chosen}):
        wall = f"{family}_host_decision_wall"
        if f"{wall}_p50_ms" in data:
            print(f"{family} at the host, each required decision as its worker's runner waited for it (wall clock): "
                  f"p50 {data[f'{wall}_p50_ms']} ms, p99 {data[f'{wall}_p99_ms']} ms")


def run_host(
    chosen: list[Pairing], deals: range, mode: str, *, tables: int, stall_s: float, jobs: int,
    watch_grace_s: float | None = None,
) -> dict[str, object]:
    """`--host`: the pairings through a host's AddBots (`bots_host.py`), the arena on the same deals meanwhile
    in `jobs` processes of their own."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bots_host import play_host_games

    from unonet.host.bot_watch import GRACE_S

    with ProcessPoolExecutor(max(1, jobs), mp_context=multiprocessing.get_context("spawn")) as pool:
        peers = {p.key: pool.submit(play_deals, p, deals.start, deals.stop, league=True) for p in chosen}
        host = play_host_games(chosen, deals, SEED, tables=tables, stall_s=stall_s, watch_grace_s=watch_grace_s)
        peer = {key: future.result() for key, future in peers.items()}
    data = host_figures(chosen, host, peer, deals, mode)
    data["watch_grace_s"] = watch_grace_s if watch_grace_s is not None else GRACE_S
    data["tables_at_once"] = tables
    return data


def engine_build() -> str:
    """``compiled`` when the engine's hot modules are mypyc's extension modules (`make compiled`), else ``pure``."""
    from unonet.engine import game

    return "compiled" if not game.__file__ or not game.__file__.endswith(".py") else "pure"


def run_compiled(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """Run this bench again, with the same arguments, on the compiled build's interpreter (`make
    compiled` builds `.venv-compiled` beside this checkout's sources, and builds it again when an engine
    or bot source changed: its wheel ships the bots too). Exits through `parser` when it is missing."""
    python = str(PYTHON)
    if not os.access(python, os.X_OK):
        parser.error(f"--build compiled: no {python}; run `make compiled` first")
    if not built_for_benches():
        parser.error(f"--build compiled: {NOT_FOR_BENCHES}")
    os.execv(python, [python, os.path.abspath(__file__), *argv])
    return 1  # not reached: execv replaces this process


def print_table(outcomes: list[Outcome], data: dict[str, object]) -> None:
    print(f"standard rules, one game = one round, {data['deals']} duplicated deals per pairing "
          f"({data['mode']} run, {data['engine_build']} engine), 95% intervals over deals\n")
    print(f"{'pairing':<24}{'games':>7}{'A wins':>9}{'95% interval':>18}{'A pts/game':>12}{'95% interval':>18}"
          f"{'B pts/game':>12}{'s':>8}")
    for outcome in outcomes:
        key = outcome.pairing.key
        win, lo, hi = interval(outcome.deal_wins)
        pts, plo, phi = interval(outcome.deal_points)
        print(f"{key:<24}{outcome.games:>7}{win:>9.1%}{f'{lo:.1%} - {hi:.1%}':>18}"
              f"{pts:>12.1f}{f'{plo:.1f} - {phi:.1f}':>18}"
              f"{data[f'{key}_opponent_points_per_game']:>12.1f}{outcome.seconds:>8.1f}")
    print(f"\n{'kind':<16}{'decisions':>10}{'p50 ms':>10}{'p99 ms':>10}{'cpu p50':>10}{'cpu p99':>10}")
    for key in sorted(k for k in data if k.endswith("_decisions")):
        family = key[: -len("_decisions")]
        print(f"{data[f'{family}_seated_as']!s:<16}{data[key]:>10}{data[f'{family}_decision_p50_ms']:>10.3f}"
              f"{data[f'{family}_decision_p99_ms']:>10.3f}{data.get(f'{family}_decision_cpu_p50_ms', 0):>10.3f}"
              f"{data.get(f'{family}_decision_cpu_p99_ms', 0):>10.3f}")
    print("(wall clock; cpu: this thread's CPU time, which other work on the machine does not inflate)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"{DEALS['quick']} deals per pairing, not "
                        f"{DEALS['full']}; kinds at their quick budget")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--deals", type=int, default=None, help="deals per pairing (overrides the mode)")
    parser.add_argument("--pairings", default="", help="comma-separated pairing keys to play (default: all; "
                        "with --quick, QUICK_PAIRINGS)")
    parser.add_argument("--seat", action="append", default=[], metavar="KIND:LEVEL",
                        help="seat a kind at this level instead of the mode's (repeatable: --seat strong:2)")
    parser.add_argument("--build", choices=("current", "compiled"), default="current",
                        help="compiled: run on .venv-compiled's engine (`make compiled`), where a search kind's "
                        "CPU-time budget buys several times the playouts; current: this interpreter's")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes per pairing (default 1: one "
                        "core, as the decision times assume); the games are the same whatever the number")
    parser.add_argument("--host", action="store_true", help="play the pairings through a real host's AddBots "
                        "(its worker processes play the kinds that search), with the arena on the same deals as "
                        "the peer (bench/bots_host.py)")
    parser.add_argument("--tables", type=int, default=2, help="--host: tables played at once (default 2)")
    parser.add_argument("--first-deal", type=int, default=0,
                        help="--host: the first deal to play (each deal seeds itself: runs of deals add up)")
    parser.add_argument("--stall-s", type=float, default=300.0,
                        help="--host: seconds without an event after which a table counts as stalled")
    parser.add_argument("--watch-grace-s", type=float, default=None,
                        help="--host: the worker watch's grace, when a loaded machine needs more than its default")
    args = parser.parse_args(argv)
    if args.build == "compiled" and engine_build() != "compiled":
        return run_compiled(parser, sys.argv[1:] if argv is None else argv)
    mode = "quick" if args.quick else "full"
    deals = args.deals or DEALS[mode]
    kinds = bench_kinds(quick=args.quick)
    for name in args.seat:
        family = name.split(":")[0]
        if family not in kinds:
            parser.error(f"--seat {name}: no kind {family!r}; known: {', '.join(kinds)}")
        kinds[family] = name
    wanted = {key for key in args.pairings.split(",") if key} or (set(QUICK_PAIRINGS) if args.quick else set())
    chosen = [p for p in pairings(kinds) if not wanted or p.key in wanted]
    if args.host:
        chosen = [p for p in chosen if "oracle" not in (p.a, p.b)]  # no host seats it
        played = range(args.first_deal, args.first_deal + deals)
        data = run_host(chosen, played, mode, tables=args.tables, stall_s=args.stall_s, jobs=args.jobs,
                        watch_grace_s=args.watch_grace_s)
        print_host_table(chosen, data)
        if args.json:
            print(json.dumps(data))
        return 0
    times: dict[str, list[int]] = {}
    cpu_times: dict[str, list[int]] = {}
    outcomes: list[Outcome] = []
    for pairing in chosen:
        outcomes.append(play_pairing(pairing, deals, times, cpu_times, jobs=args.jobs))
        print(f"{pairing.key}: {outcomes[-1].games} games in {outcomes[-1].seconds:.0f} s", file=sys.stderr, flush=True)
    data = figures(outcomes, times, deals, mode, cpu_times)
    print_table(outcomes, data)
    if args.json:
        print(json.dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
