"""League throughput: the same 4-bot league in-process, over real gRPC, and on LocalClusters of 1, 2, 4 workers.

The league: four bots of one kind (`--kind`, default `greedy` when the bots' registry has it, else
`random`), one 4-seat table, duplicate deals, one round per game, fixed seeds. Each path plays the same
scheduled games into a fresh results database:

  * in-process (`--inprocess`): the policies straight on the engine, in this process;
  * gRPC (the default path): an embedded host on 127.0.0.1 in this process, the bots in a process of
    their own (`unonet.league.seats`), one TableClient and BotRunner per seat, 8 games at a time; and
    again with the bots on the host's event loop in this process (`games_per_s_grpc_one_process`), as a
    Dask worker plays them;
  * Dask: a LocalCluster of 1, 2 and 4 worker processes on 127.0.0.1 (no dashboard, one thread each),
    batches of 8 games, each batch with its own embedded host and its bots on that host's event loop (the
    gRPC path on the worker, `bot_processes=0`: a worker is one core). Cluster start-up is not counted.
    From the scheduler's task stream: `dask_N_busy_share`, the share of N workers' wall-clock time spent
    computing batches, and `dask_N_batch_s`, a batch's mean compute time; `grpc_batch_setup_s` is what
    a batch pays before its first game and after its last (an embedded host, no seats process, started
    and stopped in this process).

Games per second is games recorded over wall-clock seconds, database writes included, and for the gRPC
path the embedded host's and the seats process's start and stop too: `grpc_setup_s` is that fixed cost
alone (a league of no games, timed in the same process), to read the figure's share of it. The gRPC
path's cost per game is shown as where a game's own time goes on the runner's side (`grpc_per_game_ms`,
means over the league's games, 8 in flight at once): `setup` (create the table, join its seats, hand the
job to the seats process), `connect` (until every seat's bot has its event stream open: the seats
process taking the game up; the table starts then), `play` (from the start to the host's saying the
table is finished), `wind_down` (until the seats process answers with the seats' tallies) and `record`
(reading the log back from the host's journal and building the result); beside it,
`inprocess_ms_per_game`, a whole game on the engine alone, and on every path `cpu_ms_per_game_*`, the CPU
seconds the league's processes spent (this one, the seats process, the Dask workers) per game. Then a
cProfile of the gRPC league says where its time goes, by the module that spent it (own time, not
cumulative): the host (`unonet.host`, `unonet.engine`, the `unonet.wire` rendering of every event,
`unonet.fairness`, and its journal's SQLite calls), the bots' runner (`BotRunner`, its `TablePicture`,
the `BotState`), the bots' policies (the rest of `unonet.bots`), the client SDK (`unonet.client`),
gRPC and protobuf (`grpc`, `google.protobuf`, the generated `unonet.v1`, protobuf's C methods, and
grpc.aio's Cython callbacks, which the profiler sees only as the `Context.run` that calls them),
asyncio (the loop, its futures, and the worker threads a policy's decision is handed to), the league
runner (`unonet.league`, the results database's SQLite calls) and the rest. The profile plays the bots
on the host's event loop (`bot_processes=0`), so one profiler sees the host, the bots and their
clients side by side; the runner's thread, that loop's thread and its worker threads (where the
policies decide) are profiled.

    .venv/bin/python bench/league.py                  # 96 games per path, a readable report
    .venv/bin/python bench/league.py --quick --json   # 32 games per path; the last line is one JSON object
    .venv/bin/python bench/league.py --workers 2      # Dask at 2 workers only

Last, `sprt_games_duplicate` and `sprt_games_independent`: the mean games a heads-up SPRT(0, 20) of
`greedy` against `greedy:2` (a close pairing, the SPRT's real use: docs/leagues.md) takes on duplicate
pairs and on independent games, with `sprt_reduction` and its 95% interval, from `bench/league_sprt.py`
at its `--quick` sizes (the same code; `--no-sprt` skips it).

Loopback only; the cluster and the host are stopped at the end, on error too.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import league_sprt  # a sibling bench script, not a package

from unonet.bots import BOT_KINDS
from unonet.league.cluster import dask_player
from unonet.league.config import load
from unonet.league.network import NetworkOptions, play_networked
from unonet.league.runner import Player, play_inprocess, run_league

# By the file that spent the time, first match wins. The host renders every event with `unonet.wire`
# and hashes with `unonet.fairness`; the bots' runner (its loop, the picture it keeps of the table,
# the state a policy reads) is apart from the policies themselves.
BUCKETS = (
    ("host", ("unonet/host/", "unonet/engine/", "unonet/wire/", "unonet/fairness/")),
    ("bots' runner", ("unonet/bots/runner.py", "unonet/bots/picture.py", "unonet/bots/policy.py",
                      "unonet/bots/faults.py", "unonet/bots/actions.py")),
    ("bots' policies", ("unonet/bots/",)),
    ("client SDK", ("unonet/client/",)),
    ("grpc + protobuf", ("grpc", "google/protobuf", "google/rpc", "unonet/v1/")),
    ("asyncio", ("asyncio/", "selectors.py", "concurrent/futures/", "threading.py", "queue.py")),
    ("league runner", ("unonet/league/",)),
)
IDLE_WORDS = ("poll", "acquire", "wait", "sleep", "select")


def builtin_bucket(function: str, thread: str) -> str:
    """The bucket of a built-in's own time (C code: its file is "~"), by what it is and which thread ran it."""
    if any(word in function for word in IDLE_WORDS) or "'get' of '_queue" in function:
        return "idle"  # waiting: the loop's epoll, a lock, a worker thread's queue
    if "_contextvars.Context" in function or "google._upb" in function or "FromString" in function:
        return "grpc + protobuf"  # grpc.aio is Cython: its callbacks' own time shows as Context.run
    if "sqlite3" in function:  # the host's journal on its loop's thread; the results database on the runner's
        return "host" if thread == "league-host" else "league runner"
    if "_asyncio." in function or "_queue." in function:
        return "asyncio"  # futures, and the hand-off of each decision to a worker thread (to_thread)
    return "other"


def league_file(folder: Path, kind: str, games: int) -> Path:
    lines = ["[league]", 'name = "bench"', "seed = 2026", f"games = {games}", "table_size = 4", ""]
    for index in range(4):
        lines += ["[[bot]]", f'name = "{kind}-{index}"', f'kind = "{kind}"', f"seed = {index}", ""]
    path = folder / f"bench-{time.monotonic_ns()}.toml"
    path.write_text("\n".join(lines))
    return path


def timed(path: Path, player: Player) -> tuple[int, float]:
    config = load(path)
    started = time.perf_counter()
    summary = run_league(config, player)
    return summary.played, time.perf_counter() - started


def own_cpu_s() -> float:
    """CPU seconds of this process and of its children it has waited for (the seats process, once its
    league is over)."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def process_cpu_s(pid: int) -> float:
    """CPU seconds process `pid` has used so far (/proc/PID/stat); 0 without /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def grpc_setup(path: Path, bot_processes: int = 1) -> float:
    """Seconds to start and stop the gRPC path's embedded host (and with `bot_processes`, the seats
    process), playing nothing."""
    import asyncio

    from unonet.league.network import NetworkedLeague

    async def empty() -> None:
        async with NetworkedLeague(load(path), NetworkOptions(bot_processes=bot_processes)):
            pass

    started = time.perf_counter()
    asyncio.run(empty())
    return time.perf_counter() - started


def timed_grpc(path: Path, bot_processes: int = 1) -> tuple[int, float, dict[str, float], float]:
    """The gRPC league timed, where each game's own time went on the runner's side (ms, means), and the
    CPU seconds it took in this process and the seats process together (`bot_processes=0`: the bots on
    the host's loop, in this process, as a Dask worker plays them)."""
    timings: Counter[str] = Counter()
    cpu = own_cpu_s()
    options = NetworkOptions(bot_processes=bot_processes)
    played, seconds = timed(path, lambda config, specs: play_networked(config, specs, options, timings=timings))
    cpu = own_cpu_s() - cpu
    games = max(1, int(timings.pop("games", 0)))
    return played, seconds, {part: 1000 * value / games for part, value in timings.items()}, cpu


def timed_dask(path: Path, workers: int) -> dict[str, float]:
    """The league on a LocalCluster of `workers` one-thread worker processes on 127.0.0.1, with how busy
    they were (from the scheduler's task stream)."""
    from distributed import Client, LocalCluster, get_task_stream

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                     dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        pids = list(client.run(os.getpid).values())
        cpu = own_cpu_s() + sum(map(process_cpu_s, pids))
        with get_task_stream(client) as stream:
            played, seconds = timed(path, dask_player(cluster.scheduler_address))
        cpu = own_cpu_s() + sum(map(process_cpu_s, pids)) - cpu
    computes = [part["stop"] - part["start"] for task in stream.data for part in task.get("startstops", ())
                if part.get("action") == "compute"]
    return {"games": played, "seconds": seconds, "games_per_s": played / seconds,
            "busy_share": sum(computes) / (workers * seconds), "batch_s": sum(computes) / max(1, len(computes)),
            "cpu_ms_per_game": 1000 * cpu / max(1, played)}


def profile_grpc(path: Path) -> dict[str, float]:
    """Share of the gRPC league's busy Python time by bucket, over the runner's thread, the host's event
    loop thread (which runs the host, the bots' runners and their clients) and that loop's worker threads
    (the policies' decisions); built-in waits (the loop's epoll, the runner waiting for results, a worker
    waiting for a decision to make) are idle, reported apart as `idle_of_all_threads`."""
    import threading

    profiles: list[tuple[str, cProfile.Profile]] = []
    original = threading.Thread.run

    def run_profiled(self: threading.Thread) -> None:
        # The host's loop, and the loop's worker threads, where each policy decides (`Bot.decide_async`
        # is `decide` in `asyncio.to_thread`); gRPC's and SQLite's own helper threads are not the league's.
        if self.name != "league-host" and not self.name.startswith("asyncio_"):
            original(self)
            return
        profile = cProfile.Profile()
        profiles.append((self.name, profile))
        profile.runcall(original, self)

    threading.Thread.run = run_profiled  # type: ignore[method-assign]
    try:
        main = cProfile.Profile()
        profiles.append(("runner", main))
        main.runcall(timed, path, lambda config, specs: play_networked(config, specs, NetworkOptions(bot_processes=0)))
    finally:
        threading.Thread.run = original  # type: ignore[method-assign]
    totals = dict.fromkeys([name for name, _ in BUCKETS] + ["other", "idle"], 0.0)
    for thread, profile in profiles:
        stats = pstats.Stats(profile)
        for (filename, _, function), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
            if filename == "~":
                bucket = builtin_bucket(function, thread)
            else:
                bucket = next((name for name, keys in BUCKETS if any(key in filename for key in keys)), "other")
            totals[bucket] += own
    idle = totals.pop("idle")
    busy = sum(totals.values()) or 1.0
    shares = {name: value / busy for name, value in totals.items()}
    shares["idle_of_all_threads"] = idle / (idle + busy)
    return shares


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="32 games per path instead of 96")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--kind", default="greedy" if "greedy" in BOT_KINDS else "random")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4], help="Dask cluster sizes (default 1 2 4)")
    parser.add_argument("--no-profile", action="store_true", help="skip the gRPC profile")
    parser.add_argument("--no-sprt", action="store_true", help="skip the SPRT figures (bench/league_sprt.py --quick)")
    args = parser.parse_args(argv)
    games = 32 if args.quick else 96
    out: dict[str, Any] = {"bot_kind": args.kind, "games": games}
    with tempfile.TemporaryDirectory(prefix="unonet-bench-league-") as scratch:
        folder = Path(scratch)
        cpu = own_cpu_s()
        played, seconds = timed(league_file(folder, args.kind, games), play_inprocess)
        out["cpu_ms_per_game_inprocess"] = 1000 * (own_cpu_s() - cpu) / played
        out["games_per_s_inprocess"] = played / seconds
        out["inprocess_ms_per_game"] = 1000 * seconds / played
        print(f"{'inprocess':10s} {played} games in {seconds:.2f} s: {played / seconds:.1f} games/s", file=sys.stderr)
        played, seconds, per_game, cpu = timed_grpc(league_file(folder, args.kind, games))
        out["games_per_s_grpc"] = played / seconds
        out["grpc_per_game_ms"] = per_game
        out["cpu_ms_per_game_grpc"] = 1000 * cpu / played
        print(f"{'grpc':10s} {played} games in {seconds:.2f} s: {played / seconds:.1f} games/s", file=sys.stderr)
        print(f"{'':10s} a game's own time on the runner's side (ms, 8 in flight): "
              + ", ".join(f"{part} {value:.0f}" for part, value in per_game.items())
              + f"; in-process a whole game takes {out['inprocess_ms_per_game']:.0f}", file=sys.stderr)
        print(f"{'':10s} CPU per game: gRPC {out['cpu_ms_per_game_grpc']:.0f} ms (host and bots' processes), "
              f"in-process {out['cpu_ms_per_game_inprocess']:.0f} ms", file=sys.stderr)
        played, seconds, _, cpu = timed_grpc(league_file(folder, args.kind, games), bot_processes=0)
        out["games_per_s_grpc_one_process"] = played / seconds
        out["cpu_ms_per_game_grpc_one_process"] = 1000 * cpu / played
        print(f"{'grpc x1':10s} {played} games in {seconds:.2f} s: {played / seconds:.1f} games/s with the bots on the "
              f"host's loop, in one process ({out['cpu_ms_per_game_grpc_one_process']:.0f} ms CPU a game)",
              file=sys.stderr)
        out["grpc_setup_s"] = grpc_setup(league_file(folder, args.kind, games))
        out["grpc_batch_setup_s"] = grpc_setup(league_file(folder, args.kind, games), bot_processes=0)
        print(f"{'':10s} of which {out['grpc_setup_s']:.2f} s start and stop the host and the seats process "
              f"(a Dask batch's host alone: {out['grpc_batch_setup_s']:.2f} s)", file=sys.stderr)
        for workers in args.workers:
            dask = timed_dask(league_file(folder, args.kind, games), workers)
            out[f"games_per_s_dask_{workers}"] = dask["games_per_s"]
            out[f"dask_{workers}_busy_share"] = dask["busy_share"]
            out[f"dask_{workers}_batch_s"] = dask["batch_s"]
            out[f"cpu_ms_per_game_dask_{workers}"] = dask["cpu_ms_per_game"]
            print(f"{f'dask x{workers}':10s} {dask['games']:.0f} games in {dask['seconds']:.2f} s: "
                  f"{dask['games_per_s']:.1f} games/s; workers busy {100 * dask['busy_share']:.0f}% of the time, "
                  f"{dask['batch_s']:.2f} s a batch of 8, {dask['cpu_ms_per_game']:.0f} ms CPU a game", file=sys.stderr)
        if 2 in args.workers:
            out["games_per_s_dask"] = out["games_per_s_dask_2"]  # the figure earlier runs reported
        out["ratio_grpc_to_inprocess"] = out["games_per_s_grpc"] / out["games_per_s_inprocess"]
        for workers in args.workers:
            out[f"ratio_dask_{workers}_to_grpc"] = out[f"games_per_s_dask_{workers}"] / out["games_per_s_grpc"]
        if not args.no_profile:
            shares = profile_grpc(league_file(folder, args.kind, max(16, games // 2)))
            out["grpc_time_share"] = shares
            print("where the gRPC league's busy time goes (profiled own time):", file=sys.stderr)
            for name, share in sorted(shares.items(), key=lambda item: -item[1]):
                print(f"  {name:16s} {100 * share:5.1f}%", file=sys.stderr)
    if not args.no_sprt:
        # The pairing docs/leagues.md justifies: a bot against a close version of itself, with elo1 near
        # their real difference (about 21 normalized Elo), as fishtest tests a patch.
        sprt = league_sprt.run(league_sprt.CLOSE_STRONG, league_sprt.CLOSE_WEAK, league_sprt.QUICK_DEALS,
                               league_sprt.QUICK_RUNS, 0.0, league_sprt.CLOSE_ELO1, 8000, 23,
                               bootstrap=league_sprt.QUICK_BOOTSTRAP, bootstrap_runs=league_sprt.QUICK_BOOTSTRAP_RUNS)
        for key in ("sprt_games_duplicate", "sprt_games_independent"):
            out[key] = sprt[key]
        out["sprt_reduction"] = sprt["reduction"]
        out["sprt_reduction_ci95"] = sprt["reduction_ci95"]
        pile = sprt["pile_draws"]
        assert isinstance(pile, dict)
        out["sprt_reduction_pile_draws"] = pile["reduction"]
        print(f"SPRT(0, {league_sprt.CLOSE_ELO1:g}) {league_sprt.CLOSE_STRONG} vs {league_sprt.CLOSE_WEAK}: "
              f"{out['sprt_games_duplicate']:.0f} games on duplicate pairs, "
              f"{out['sprt_games_independent']:.0f} independent", file=sys.stderr)
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(json.dumps(out, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
