"""How long the garbage collector stops the host, and what it has to walk.

A collection stops the event loop, so every table at once: its pause is added to every command in
flight. A young collection walks the objects made since the last one; a full one walks every tracked
object the host keeps (each table's event window and recent command records), so its pause grows with
the tables and the length of their matches, whatever the thresholds. This bench plays `--tables`
tables of four in one process, through `Table.command` on a real SqliteStore as the host does (each
seat's batch framed as its stream would, group commits awaited after each pass), `--commands` commands
a table (1,000 by default: enough to fill each table's window of `eventlog.WINDOW_EVENTS` events;
matches to 100,000 points, so none ends), with the collector tuned as `unonet serve` tunes it
(`server.tune_garbage_collector`) and its callbacks timing every collection. Then it counts the tracked
objects left and times one full collection.

It runs once per young-generation threshold in `--thresholds`, in the same process, each on a fresh
host: the host's own (`server.GC_YOUNG_THRESHOLD`) against the others, the peer being the threshold
before it (10,000); the other two thresholds as `server.gc_thresholds` sets them for each.

    .venv/bin/python bench/gc_pauses.py                          # 100 tables, 1,000 commands each
    .venv/bin/python bench/gc_pauses.py --tables 20 --json       # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from table_moves import move_on

from unonet.host.framing import EVENTS_FIELD
from unonet.host.host import Host
from unonet.host.server import GC_YOUNG_THRESHOLD, gc_thresholds, tune_garbage_collector
from unonet.host.store import SqliteStore
from unonet.host.table import Table, TableSettings

SEATS = 4


@dataclass
class Pauses:
    """Every collection's duration by generation, from `gc.callbacks`."""

    by_generation: dict[int, list[float]] = field(default_factory=lambda: {0: [], 1: [], 2: []})
    _started: float = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.by_generation[info["generation"]].append((time.perf_counter() - self._started) * 1e3)


def step(table: Table, subscribers: list[Any], rng: random.Random, number: int) -> bool:
    """Move `table` on by one input (`table_moves.move_on`), each stream's batch framed as it would be
    sent; True if it was a seat's command."""
    moved = move_on(table, rng, f"c{number}")
    for subscriber in subscribers:
        numbers = subscriber.queue.take()
        if numbers:
            table.events.framed(numbers, subscriber.seat, EVENTS_FIELD)
    return bool(moved)


async def run(threshold: int, tables: int, commands: int, seed: int) -> dict[str, Any]:
    """One fresh host played to `commands` commands a table with the young threshold `threshold`."""
    with tempfile.TemporaryDirectory(prefix="unonet-gc-") as tmp:
        store = SqliteStore(Path(tmp) / "host.db")
        host = Host(store)
        rng = random.Random(seed)
        played: list[tuple[Table, list[Any]]] = []
        for _ in range(tables):
            settings = TableSettings(name="gc", seat_count=SEATS, preset="standard",
                                     overrides={"target_score": 100_000}, turn_time_s=600)
            table = host.create_table(settings, seed=rng.randrange(1 << 60))
            for seat in range(SEATS):
                table.join(f"p{seat}", None, False)
            played.append((table, [table.subscribe(seat) for seat in range(SEATS)]))
        await store.durable()
        tune_garbage_collector()
        gc.set_threshold(*gc_thresholds(threshold))
        pauses = Pauses()
        gc.callbacks.append(pauses)
        cpu0, done, number = time.thread_time(), 0, 0
        try:
            while done < commands * tables:
                for table, subscribers in played:
                    number += 1
                    done += step(table, subscribers, rng, number)
                await store.durable()
            cpu = time.thread_time() - cpu0
        finally:
            gc.callbacks.remove(pauses)
        gc.collect(1)  # what is young now is kept: the full collection below walks only the kept
        tracked = len(gc.get_objects())
        started = time.perf_counter()
        gc.collect()
        full_ms = (time.perf_counter() - started) * 1e3
        await host.stop()
        del played, host, store
    gc.unfreeze()
    gc.collect()
    gc_ms = sum(sum(p) for p in pauses.by_generation.values())
    return {
        "threshold": threshold,
        "commands": done,
        "loop_cpu_ms_per_command": cpu * 1e3 / done,
        "gc_share_of_cpu": gc_ms / 1e3 / cpu,
        "collections": {str(g): len(p) for g, p in pauses.by_generation.items()},
        "longest_pause_ms": {str(g): max(p, default=0.0) for g, p in pauses.by_generation.items()},
        "mean_pause_ms": {str(g): sum(p) / len(p) if p else 0.0 for g, p in pauses.by_generation.items()},
        "tracked_objects_kept": tracked,
        "tracked_objects_per_table": tracked / tables,
        "full_collection_ms": full_ms,
    }


def report(runs: list[dict[str, Any]], tables: int) -> None:
    print(f"garbage collection in a host of {tables} tables of {SEATS}, {runs[0]['commands']:,} commands")
    print(f"{'young threshold':>16} {'loop ms/cmd':>12} {'GC share':>9} {'collections 0/1/2':>18} "
          f"{'longest pause 0/1/2 ms':>24} {'full ms':>8} {'kept objects':>13}")
    for r in runs:
        counts = "/".join(str(r["collections"][g]) for g in "012")
        longest = "/".join(f"{r['longest_pause_ms'][g]:.1f}" for g in "012")
        mark = " (the host's)" if r["threshold"] == GC_YOUNG_THRESHOLD else ""
        print(f"{r['threshold']:>16,} {r['loop_cpu_ms_per_command']:>12.3f} {r['gc_share_of_cpu']:>9.1%} "
              f"{counts:>18} {longest:>24} {r['full_collection_ms']:>8.0f} {r['tracked_objects_kept']:>13,}{mark}")
    base = runs[0]
    for r in runs[1:]:
        mine, theirs = r["longest_pause_ms"]["1"], base["longest_pause_ms"]["1"]
        ratio = f"x{mine / theirs:.2f}" if mine and theirs else "not comparable (a run had none)"
        print(f"{r['threshold']:,} against {base['threshold']:,}: longest middle-generation pause {ratio}, "
              f"GC share {r['gc_share_of_cpu'] - base['gc_share_of_cpu']:+.1%} of the loop's CPU")
    per_object = base["full_collection_ms"] * 1e3 / max(1, base["tracked_objects_kept"])
    print(f"a full collection: {per_object:.2f} us per kept object, "
          f"{base['tracked_objects_per_table']:,.0f} kept objects a table")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--commands", type=int, default=1000, help="commands a table (default 1,000)")
    parser.add_argument("--thresholds", default=f"10000,{GC_YOUNG_THRESHOLD}",
                        help="young-generation thresholds, the first the peer (default: 10000 and the host's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = parser.parse_args(argv)
    thresholds = [int(t) for t in args.thresholds.split(",")]
    runs = [asyncio.run(run(t, args.tables, args.commands, args.seed)) for t in thresholds]
    report(runs, args.tables)
    if args.json:
        print(json.dumps({"tables": args.tables, "runs": runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
