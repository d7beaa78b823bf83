"""What synchronous=FULL costs next to NORMAL, with the host's group commit (store.py's choice).

The host's SqliteStore on a temporary file, driven as the host drives it: C concurrent "clients" on
one event loop, each appending a journal row the size of a real command's and then awaiting
`durable()` (the host answers nobody before that), over and over for D seconds. Both modes run in
alternating slices in the same process, so the machine's drift moves both sides of the ratio. Printed
per mode: acknowledged inputs/s, group commits/s, and the latency from append to acknowledgement
(p50 and p99); then FULL's throughput and p99 as ratios to NORMAL's.

    .venv/bin/python bench/durability.py               # 64 clients, 4 slices of 3 s per mode
    .venv/bin/python bench/durability.py --json        # the last line is one JSON object

Writes only under a temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from unonet.host.store import JournalEntry, SqliteStore

# A PlayCards command as the journal holds it, and its public events (a WatchEventsResponse blob).
ENTRY = {"k": "cmd", "seat": 2, "cid": "c-000123", "actions": [{"play": [{"c": 3, "r": 7}], "uno": True}]}
PUBLIC = [(1, b"\x08\x01" + b"e" * 120), (2, b"\x08\x02" + b"t" * 60)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def run_slice(store: SqliteStore, clients: int, seconds: float, first_seq: dict[str, int]) -> dict[str, float]:
    latencies: list[float] = []
    commits = [0]
    deadline = time.perf_counter() + seconds

    async def client(index: int) -> None:
        table_id = f"t{index}"
        while time.perf_counter() < deadline:
            first_seq[table_id] = seq = first_seq.get(table_id, 0) + 1
            started = time.perf_counter()
            store.append(table_id, JournalEntry(seq, time.time_ns(), ENTRY), PUBLIC)
            await store.durable()
            latencies.append(time.perf_counter() - started)

    def count(_: bool) -> None:
        commits[0] += 1

    async def commit_counter() -> None:
        while time.perf_counter() < deadline:
            store.when_durable(count)
            await store.durable()
            await asyncio.sleep(0)

    began = time.perf_counter()
    await asyncio.gather(commit_counter(), *(client(i) for i in range(clients)))
    elapsed = time.perf_counter() - began
    return {"acks": len(latencies), "elapsed": elapsed, "commits": commits[0],
            "p50_ms": percentile(latencies, 0.5) * 1e3, "p99_ms": percentile(latencies, 0.99) * 1e3}


async def main(args: argparse.Namespace) -> dict[str, object]:
    results: dict[str, list[dict[str, float]]] = {"NORMAL": [], "FULL": []}
    with tempfile.TemporaryDirectory(prefix="unonet-durability-") as folder:
        stores = {mode: SqliteStore(Path(folder) / f"{mode}.db", synchronous=mode) for mode in results}
        seqs: dict[str, dict[str, int]] = {mode: {} for mode in results}
        for store in stores.values():
            for i in range(args.clients):
                store.create_table(f"t{i}", {"settings": {}}, 0)
        await run_slice(stores["NORMAL"], args.clients, 0.5, seqs["NORMAL"])  # warm-up
        for _ in range(args.slices):
            for mode in ("NORMAL", "FULL"):
                results[mode].append(await run_slice(stores[mode], args.clients, args.seconds, seqs[mode]))
        for store in stores.values():
            store.close()
    report: dict[str, object] = {"clients": args.clients, "slices": args.slices, "seconds": args.seconds}
    for mode, slices in results.items():
        elapsed = sum(s["elapsed"] for s in slices)
        report[mode] = {
            "acks_per_s": sum(s["acks"] for s in slices) / elapsed,
            "commits_per_s": sum(s["commits"] for s in slices) / elapsed,
            "p50_ms": statistics.median(s["p50_ms"] for s in slices),
            "p99_ms": max(s["p99_ms"] for s in slices),
        }
    normal, full = report["NORMAL"], report["FULL"]
    assert isinstance(normal, dict) and isinstance(full, dict)
    report["full_throughput_ratio"] = full["acks_per_s"] / normal["acks_per_s"]
    report["full_p99_ratio"] = full["p99_ms"] / normal["p99_ms"]
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--slices", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        print(json.dumps(figures))
    else:
        for name in ("NORMAL", "FULL"):
            row = figures[name]
            assert isinstance(row, dict)
            print(f"synchronous={name:<6} {row['acks_per_s']:9.0f} acknowledged inputs/s  "
                  f"{row['commits_per_s']:6.0f} commits/s  p50 {row['p50_ms']:.2f} ms  p99 {row['p99_ms']:.2f} ms")
        print(f"FULL / NORMAL: throughput {figures['full_throughput_ratio']:.2f}, p99 {figures['full_p99_ratio']:.2f}")
