"""Speed of the terminal client's screen: event arrival to finished redraw, at 100x30 (issue 13, "Speed").

First a whole 10-player match is recorded as one seat receives it: an in-process host on 127.0.0.1
(`--bot-delay 0`) with nine host bots and one seat played by the SDK's `BotRunner` (a `BasicBot`);
when the match is over the seat's whole log is read back from event 1 through `TableClient.events`,
legal actions and hidden faces as that seat got them.

Then the log is replayed into the client's own `GameModel` and `GameScreen` (the card table of
`layout.py`, its banners shown as they would be live), whose prompt-toolkit
application writes real VT100 output (`Vt100_Output`, 256 colours) into an OS pipe that a thread
drains, at a fixed 100x30 size. For every event: apply it to the model, `invalidate()`, and wait for
the application's `after_render`; the time from before the apply to after the render is one sample.
Target: p99 at most 16 ms (one frame at 60 Hz).

On a shared machine that wall-clock time is as much the machine's as the client's (a process that gets
a third of a core waits for it), so each sample also records the CPU time the event loop's thread spent
on it (`time.thread_time`: the model, the layout, the VT100 diff; the pipe's reader is another thread),
and the JSON gives the load average beside the figures.

    .venv/bin/python bench/client.py                  # a whole match (to 500 points), a readable report
    .venv/bin/python bench/client.py --quick --json   # one round's match; the last line is one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import threading
import time
from typing import TextIO

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from unonet.bots.basic_bot import BasicBot
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient
from unonet.client.tui.model import GameModel
from unonet.client.tui.play import calm_garbage_collector
from unonet.client.tui.screen import GameScreen
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import events_pb2

SIZE = Size(rows=30, columns=100)
PLAYERS = 10


async def record_match(target_score: int, seed: int) -> list[events_pb2.Event]:
    """Every event of a 10-player match as the BotRunner's seat received it (read back from event 1)."""
    server, port, host = await create_server("127.0.0.1:0", host=Host())
    await server.start()
    try:
        async with await TableClient.connect(f"127.0.0.1:{port}") as client:
            created = await client.create_table("house", {"target_score": target_score}, PLAYERS, manual_start=True)
            joined = await client.join(created.table_id, "bench", 0)
            await client.add_bots(PLAYERS - 1)
            runner = BotRunner(BasicBot(seed))
            play = asyncio.create_task(runner.run(client, created.table_id, 0))
            await asyncio.sleep(0)
            await client.start_table()
            await asyncio.wait_for(play, 600)
            async with await TableClient.connect(f"127.0.0.1:{port}") as reader:
                reader.attach(created.table_id, joined.token, 0)
                events: list[events_pb2.Event] = []
                async with contextlib.aclosing(reader.events(after=0)) as stream:
                    async for event in stream:
                        events.append(event)
                        if event.HasField("match_ended"):
                            break
                return events
    finally:
        await host.stop()
        await server.stop(grace=None)


def drain(fd: int, counted: list[int]) -> threading.Thread:
    """Read and drop (counting the bytes) everything written to the pipe, so the screen's writes never block."""

    def run() -> None:
        while chunk := os.read(fd, 65536):
            counted[0] += len(chunk)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


async def replay(events: list[events_pb2.Event]) -> tuple[list[float], list[float], int]:
    """Apply each event and wait for its redraw; returns the wall-clock and the CPU samples (seconds)
    and the bytes written."""
    read_fd, write_fd = os.pipe()
    written = [0]
    reader = drain(read_fd, written)
    stdout: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", buffering=1 << 16)
    output = Vt100_Output(stdout, lambda: SIZE, term="xterm-256color")
    model = GameModel(seat=0)
    samples: list[float] = []
    cpu: list[float] = []
    clock = [0.0]  # the host's time as of the event being shown: its banners are on the table, as live
    with create_pipe_input() as pipe:
        screen = GameScreen(model, input=pipe, output=output, host_clock=lambda: clock[0])
        rendered = asyncio.Event()
        screen.application.after_render += lambda _app: rendered.set()
        running = asyncio.create_task(screen.application.run_async())
        await asyncio.wait_for(rendered.wait(), 10)
        for event in events:
            rendered.clear()
            start, start_cpu = time.perf_counter(), time.thread_time()
            clock[0] = event.time.seconds + event.time.nanos / 1e9
            model.apply(event, at=clock[0])
            screen.invalidate()
            await asyncio.wait_for(rendered.wait(), 10)
            samples.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
        screen.application.exit()
        await asyncio.wait_for(running, 10)
    stdout.close()
    reader.join(timeout=10)
    return samples, cpu, written[0]


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a one-round match instead of one to 500 points")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the replay (to stderr)")
    args = parser.parse_args(argv)
    events = asyncio.run(record_match(1 if args.quick else 500, args.seed))
    calm_garbage_collector()  # as `unonet play` does at start-up
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
    load_before = os.getloadavg()[0]
    samples, cpu, written = asyncio.run(replay(events))
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
    result = {
        "events": len(samples),
        "players": PLAYERS,
        "size": f"{SIZE.columns}x{SIZE.rows}",
        "render_p50_ms": round(statistics.median(samples) * 1000, 3),
        "render_p99_ms": round(percentile(samples, 0.99) * 1000, 3),
        "render_max_ms": round(max(samples) * 1000, 3),
        "render_cpu_p50_ms": round(statistics.median(cpu) * 1000, 3),
        "render_cpu_p99_ms": round(percentile(cpu, 0.99) * 1000, 3),
        "load_average": round((load_before + os.getloadavg()[0]) / 2, 2),
        "vt100_bytes": written,
        "target_p99_ms": 16.0,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
