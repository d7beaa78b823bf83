"""What the machine itself did during a benchmark run: its disk's fsync times, its stolen CPU and its speed.

A latency figure at the tail (a p99 over ~4,400 commands) is set by the worst 1% of a 22 s run, and on a
shared virtual machine that can be the machine, not the program: an acknowledged command waits for its
group's COMMIT, which under `synchronous=FULL` waits for an fsync, so a stretch of slow fsyncs delays
every command in it, and CPU taken by the hypervisor (steal) slows everything alike. bench/host.py runs
this beside each game run so that a p99 comes with what the disk and the CPU were doing meanwhile.

The disk probe writes 8 KiB (about one command's journal row and its WAL frame) and fsyncs it every
`interval_s` in the folder the host's database is in, from a thread of the bench's own process: a few
fsyncs a second beside the host's hundreds, so it measures the disk without loading it. Steal is read
from /proc/stat (Linux; None elsewhere): ticks the hypervisor ran someone else while this machine had
work, as a share of all ticks of the run.

Steal is not all a shared machine can do: the same host code has spent 0.74 ms of CPU a command in one
full run and 1.12 in another twenty minutes later, with no CPU stolen in either (a neighbour's load on the
shared caches, the clock). So after each fsync the thread also times a fixed piece of pure-Python work
(`canary`), by its own CPU time: where the host's CPU a command rises with the canary's, the machine
was slower, not the host.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["MachineProbe", "canary"]

PROBE_BYTES = 8 * 1024
INTERVAL_S = 0.1
# The canary's work: about 0.3 ms of CPU on this machine, 0.3% of one core at INTERVAL_S.
CANARY_ROUNDS = 2_000


def _cpu_ticks() -> tuple[int, int] | None:
    """(steal ticks, all ticks) of every CPU so far, from /proc/stat's first line; None without it."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already in user.
    return (fields[7], sum(fields[:8])) if len(fields) >= 8 else None


def canary(rounds: int = CANARY_ROUNDS) -> float:
    """CPU milliseconds this thread spends on a fixed piece of interpreter work (integer arithmetic, a
    dict and a list, as the host's Python does): time the machine gives it, not time it waits."""
    started = time.thread_time_ns()
    seen: dict[int, int] = {}
    kept: list[int] = []
    for i in range(rounds):
        key = (i * 7919) % 1024
        seen[key] = seen.get(key, 0) + i
        kept.append(key ^ i)
    return (time.thread_time_ns() - started) / 1e6


class MachineProbe:
    """Fsync times of the disk under `folder` and the CPU's steal share, from `start` to `stop`."""

    def __init__(self, folder: Path, interval_s: float = INTERVAL_S) -> None:
        self._path = folder / f"machine-probe-{os.getpid()}-{id(self)}"
        self._interval_s = interval_s
        self._fsync_ms: list[float] = []
        self._canary_ms: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticks: tuple[int, int] | None = None

    def start(self) -> None:
        self._ticks = _cpu_ticks()
        self._thread = threading.Thread(target=self._probe_disk, name="machine-probe", daemon=True)
        self._thread.start()

    def _probe_disk(self) -> None:
        block = os.urandom(PROBE_BYTES)
        fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            while not self._stop.wait(self._interval_s):
                started = time.perf_counter()
                os.pwrite(fd, block, 0)  # rewritten in place: the file stays one block
                os.fsync(fd)
                self._fsync_ms.append((time.perf_counter() - started) * 1e3)
                self._canary_ms.append(canary())
        finally:
            os.close(fd)
            self._path.unlink(missing_ok=True)

    def stop(self) -> dict[str, Any]:
        """End the probe; its figures: fsync p50, p99 and max in ms (with how many were timed), steal share,
        the canary's median CPU ms."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        before, after = self._ticks, _cpu_ticks()
        steal = None
        if before is not None and after is not None and after[1] > before[1]:
            steal = (after[0] - before[0]) / (after[1] - before[1])
        times = sorted(self._fsync_ms)
        return {
            "fsyncs": len(times),
            "fsync_p50_ms": round(statistics.median(times), 2) if times else None,
            "fsync_p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 2) if times else None,
            "fsync_max_ms": round(times[-1], 2) if times else None,
            "steal_share": None if steal is None else round(steal, 4),
            "canary_ms": round(statistics.median(self._canary_ms), 4) if self._canary_ms else None,
        }
