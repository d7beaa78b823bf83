"""`bench/bots.py --host`: the pairings played through a real host's AddBots, as a player meets the kinds.

A host runs in this process on 127.0.0.1 (port 0), as `unonet serve` runs one: its bot seats are played
by its own policies, and a kind that searches (`strong`) by its worker processes (`python -m
unonet.bots` on this interpreter, so `--build compiled` runs them on the compiled engine too). Each game
is one table: league-seeded (CreateTableRequest.league_seed, the deal's seed; heads-up with
`league_seat_draws`, as a heads-up duplicate league deals), the standard rules played for one round
(target score 1), the host's default clock; AddBots seats A at the rotation's seat and B in the others,
StartTable starts it, and the result is its RoundEnded. `tables` games play at once. The one thing the
bench changes: the workers skip a level's human-like pause (`--no-pauses`), which delays a move
without changing it.

The peer, on the very same deals, is the arena (`bots.play_deals(..., league=True)`, in worker
processes of this run): dealt as a league-seeded host table deals, each policy seeded as the host seeds
its seat. Each pairing reports the host's win rate, the arena's, and their difference paired by deal,
each with its 95% interval over deals.

A stall is a table with no new event for `stall_s` seconds: counted, reported and left (its workers
stopped). The worker watch's BotFallback events (`unonet.host.bot_watch`) are counted too: on a machine
so loaded that a worker misses the watch's default grace, each is a decision greedy made, so
`--watch-grace-s` can raise the grace (the figures say which was used). Each worker
writes its bot's figures when its match ends (`--stats`): its decisions, how many it searched, and
each search's CPU time.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unonet.client.table_client import TableClient
from unonet.engine import events as ev
from unonet.host.bot_workers import WorkerSpec, default_command
from unonet.host.host import Host
from unonet.host.server import create_server

__all__ = ["HostGames", "play_host_games"]

CALL_TIMEOUT = 30.0
STALL_S = 300.0
"""Seconds without a new event after which a table counts as stalled: longer than the worker watch
ever waits (a worker's start allowance and grace, `bot_watch`; `--watch-grace-s` when raised)."""


@dataclass
class HostGames:
    """What the host's games of one pairing gave, by deal (a deal's rotations are one sample)."""

    deal_wins: dict[int, float] = field(default_factory=dict)
    deal_points: dict[int, float] = field(default_factory=dict)
    games: int = 0
    stalls: list[str] = field(default_factory=list)  # the stalled tables' ids
    fallbacks: int = 0
    worker_stats: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class _Game:
    key: str
    deal: int
    seed: int
    seats: tuple[str, ...]
    a_seat: int


@dataclass
class _Played:
    winner: int
    points: tuple[int, ...]
    fallbacks: int
    worker_stats: list[dict[str, Any]]


async def _play(address: str, host: Host, game: _Game, stats: Path, stall_s: float) -> _Played | str:
    """One table to its end, or, for a stall, its table id."""
    async with await TableClient.connect(address, timeout=CALL_TIMEOUT) as client:
        created = await client.create_table("standard", {"target_score": 1}, len(game.seats), manual_start=True,
                                            league_seed=game.seed, league_seat_draws=len(game.seats) == 2)
        table_id = created.table_id
        for kind in game.seats:
            await client.add_bots(1, kind, table_id=table_id)
        await client.start_table(table_id=table_id)
    table = host.tables[table_id]
    last, moved = table.last_number, time.monotonic()
    while not (table.match is not None and table.match.is_over):
        await asyncio.sleep(0.1)
        if table.last_number != last:
            last, moved = table.last_number, time.monotonic()
        elif time.monotonic() - moved > stall_s:
            host.workers.stop_table(table_id)
            return table_id
    ended = next(entry.event for entry in reversed(table.log) if isinstance(entry.event, ev.RoundEnded))
    fallbacks = sum(table.render(entry, None).HasField("bot_fallback") for entry in table.log)
    figures = []
    for seat in range(len(game.seats)):  # a worker writes its figures as it stops, once its match ended
        written = stats / f"{table_id}-{seat}.json"
        while not written.exists() and seat in host.workers.processes(table_id):
            await asyncio.sleep(0.05)
        if written.exists():
            data = json.loads(written.read_text())
            if data["bot"]:  # a searching kind's figures, with the wall clock its runner saw per decision
                figures.append({**data["bot"], "decision_seconds": data["runner"].get("decision_seconds", [])})
    return _Played(ended.winner, tuple(ended.points), fallbacks, figures)


def _games(pairings: Sequence[Any], deals: range, seed: int) -> list[_Game]:
    """Every game of every pairing: each deal with A at each seat in turn (`bots.play_deals`' rotations)."""
    out = []
    for pairing in pairings:
        for deal in deals:
            for a_seat in range(pairing.players):
                seats = tuple(pairing.a if s == a_seat else pairing.b for s in range(pairing.players))
                out.append(_Game(pairing.key, deal, seed + deal, seats, a_seat))
    return out


async def _run(pairings: Sequence[Any], deals: range, seed: int, tables: int, stall_s: float,
               progress: bool, watch_grace_s: float | None) -> dict[str, HostGames]:
    results = {pairing.key: HostGames() for pairing in pairings}
    sums: dict[tuple[str, int], list[float]] = {}
    queue: asyncio.Queue[_Game] = asyncio.Queue()
    for game in _games(pairings, deals, seed):
        queue.put_nowait(game)
    with tempfile.TemporaryDirectory(prefix="unonet-bench-host-") as scratch:
        stats = Path(scratch)

        def command(spec: WorkerSpec) -> list[str]:
            return [*default_command(spec), "--no-pauses", "--stats", str(stats / f"{spec.table_id}-{spec.seat}.json")]

        host = Host(keep_finished_s=5.0)
        host.workers.command = command
        if watch_grace_s is not None:
            host.watch.grace_s = watch_grace_s
            host.watch.start_allowance_s = max(host.watch.start_allowance_s, watch_grace_s)
        server, port, _ = await create_server("127.0.0.1:0", host=host)
        await server.start()
        address = f"127.0.0.1:{port}"
        started = time.perf_counter()

        async def table_loop() -> None:
            while not queue.empty():
                game = queue.get_nowait()
                outcome = await _play(address, host, game, stats, stall_s)
                result = results[game.key]
                result.games += 1
                if isinstance(outcome, str):
                    result.stalls.append(outcome)
                    print(f"  {game.key}: table {outcome} STALLED (deal {game.deal}, seats {game.seats})",
                          file=sys.stderr, flush=True)
                    continue
                result.fallbacks += outcome.fallbacks
                result.worker_stats += outcome.worker_stats
                n = len(game.seats)
                deal = sums.setdefault((game.key, game.deal), [0.0, 0.0, 0])
                deal[0] += (outcome.winner == game.a_seat) / n
                deal[1] += outcome.points[game.a_seat] / n
                deal[2] += 1
                if deal[2] == n:
                    result.deal_wins[game.deal], result.deal_points[game.deal] = deal[0], deal[1]
                if progress and result.games % 50 == 0:
                    done = list(result.deal_wins.values())
                    rate = statistics.fmean(done) if done else float("nan")
                    print(f"  {game.key} (host): {result.games} games, {len(result.stalls)} stalls, "
                          f"{result.fallbacks} fallbacks, A wins {rate:.1%} over {len(done)} deals",
                          file=sys.stderr, flush=True)

        try:
            await asyncio.gather(*(table_loop() for _ in range(tables)))
        finally:
            await host.stop()
            await server.stop(None)
        for result in results.values():
            result.seconds = time.perf_counter() - started
    return results


def play_host_games(pairings: Sequence[Any], deals: range, seed: int, *, tables: int = 2, stall_s: float = STALL_S,
                    progress: bool = True, watch_grace_s: float | None = None) -> dict[str, HostGames]:
    """Play the duplicated `deals` of each of `pairings` through a host's AddBots, `tables` at once;
    `watch_grace_s` raises the worker watch's grace (and its start allowance to at least as much) on a
    machine too loaded for its defaults, where a starved worker would be taken for a hung one."""
    return asyncio.run(_run(pairings, deals, seed, tables, stall_s, progress, watch_grace_s))
