"""What a long match's in-memory event log costs, and how fast a stream resumes from an old number.

One in-process host (a SQLite store in a temporary directory, real gRPC on 127.0.0.1:0), one table of
four host bots playing a long match (`target_score` 100,000, so rounds follow rounds) with no delay,
and a spectator. Run three times in the same process: with the whole log and every command record in
memory (the window unbounded, as hosts before the window kept it), with the host's window
(`eventlog.WINDOW_EVENTS`, older numbers read back from the store) but every command record in memory
(as hosts before `commandbook.py` kept them), and as the host runs now: the window and only the
latest `commandbook.RECENT_COMMANDS` records of each table in memory, older ones in the store.
Measured for each:

* memory: tracemalloc's traced bytes after every 1,000 events the table logs, up to `--events`; the
  figure is the growth per 1,000 events (a least-squares slope over the samples), the host's own
  Python allocations only;
* resume latency: `--resumes` WatchEvents streams opened by the spectator after random old numbers
  (anywhere in the log), each timed from the call to its first event, p50 and p99, while the bots play
  on flat out (tracemalloc stopped first).

    .venv/bin/python bench/eventlog.py                # 20,000 events, 200 resumes, each way
    .venv/bin/python bench/eventlog.py --json         # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import grpc

from unonet.host import commandbook, eventlog
from unonet.host.host import Host
from unonet.host.limits import Limits
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.v1 import (
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    rules_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT_S = 30.0


def slope(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


async def run(args: argparse.Namespace, db: Path, window: int, records: int) -> dict[str, object]:
    eventlog.WINDOW_EVENTS = window
    commandbook.RECENT_COMMANDS = records
    tracemalloc.start()
    host = Host(SqliteStore(db), limits=Limits.off())
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name="long", seat_count=4, manual_start=True, overrides=rules_pb2.Ruleset(target_score=100_000)),
            timeout=TIMEOUT_S)
        table_id = created.table.table_id
        spectator = (await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name="eve", role=lobby_service_pb2.JOIN_ROLE_SPECTATOR), timeout=TIMEOUT_S)).token
        await lobby.StartTable(lobby_service_pb2.StartTableRequest(
            table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=TIMEOUT_S)
        table = host.tables[table_id]
        counts: list[float] = []
        traced: list[float] = []
        next_sample = 1000
        deadline = time.monotonic() + args.max_seconds
        while table.last_number < args.events and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
            if table.last_number >= next_sample:
                counts.append(table.last_number)
                traced.append(tracemalloc.get_traced_memory()[0])
                next_sample += 1000
        events = table.last_number
        tracemalloc.stop()  # its bookkeeping would be timed with the resumes
        rng = random.Random(args.seed)
        latencies = []
        for _ in range(args.resumes):
            after = rng.randrange(0, max(1, events - 10))
            started = time.perf_counter()
            stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=spectator, after_event_number=after, batch=64), timeout=TIMEOUT_S)
            await asyncio.wait_for(stream.read(), TIMEOUT_S)
            latencies.append(time.perf_counter() - started)
            stream.cancel()
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        if tracemalloc.is_tracing():
            tracemalloc.stop()
    latencies.sort()
    return {
        "window": window,
        "records_in_memory": records,
        "events": events,
        "bytes_per_1000_events": round(slope(counts, traced) * 1000) if len(counts) >= 2 else None,
        "traced_mb_at_end": round(traced[-1] / 1e6, 1) if traced else None,
        "resumes": len(latencies),
        "resume_p50_ms": round(latencies[len(latencies) // 2] * 1e3, 2),
        "resume_p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3, 2),
    }


def ratio(a: dict[str, object], b: dict[str, object]) -> float | None:
    """`a`'s memory growth per 1,000 events over `b`'s."""
    x, y = a["bytes_per_1000_events"], b["bytes_per_1000_events"]
    return round(x / y, 3) if isinstance(x, int) and isinstance(y, int) and y else None


async def main(args: argparse.Namespace) -> dict[str, object]:
    window, records = eventlog.WINDOW_EVENTS, commandbook.RECENT_COMMANDS
    with tempfile.TemporaryDirectory() as directory:
        whole = await run(args, Path(directory) / "whole.db", 10**12, 10**12)
        windowed = await run(args, Path(directory) / "window.db", window, 10**12)
        bounded = await run(args, Path(directory) / "bounded.db", window, records)
    return {"whole_log": whole, "window": windowed, "bounded": bounded,
            "memory_ratio": ratio(windowed, whole),  # the window against the whole log in memory
            "records_ratio": ratio(bounded, windowed),  # bounded command records against all in memory
            "bounded_ratio": ratio(bounded, whole)}


def describe(name: str, figures: dict[str, object]) -> None:
    print(f"{name}: {figures['events']} events: {figures['bytes_per_1000_events']} traced bytes per 1,000 events "
          f"({figures['traced_mb_at_end']} MB traced at the end)")
    print(f"{name}: resume from an old number: p50 {figures['resume_p50_ms']} ms, p99 {figures['resume_p99_ms']} ms "
          f"over {figures['resumes']} resumes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--resumes", type=int, default=200)
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        print(json.dumps(figures))
    else:
        describe("whole log in memory", figures["whole_log"])  # type: ignore[arg-type]
        describe(f"window of {eventlog.WINDOW_EVENTS}, every command record", figures["window"])  # type: ignore[arg-type]
        describe(f"window and {commandbook.RECENT_COMMANDS} command records", figures["bounded"])  # type: ignore[arg-type]
        print(f"memory per 1,000 events, window / whole log: {figures['memory_ratio']}, bounded records / every "
              f"record: {figures['records_ratio']}, now / whole log: {figures['bounded_ratio']}")
