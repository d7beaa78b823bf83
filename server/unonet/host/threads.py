"""Keep the host's helper threads from preempting the thread that runs its event loop (Linux).

The host's Python runs on one thread: the event loop, which holds the interpreter lock for nearly all
of its work. gRPC runs helper threads beside it (the completion poller that tells the loop an
operation finished, the EventEngine pool that does socket I/O), and each wakes up for a few
microseconds thousands of times a second. Under Linux's default policy a thread that wakes may
preempt the one running: on a two-core machine that is mostly the loop thread, which was measured at
about 15,000 involuntary context switches a second at 100 tables flat out, runnable but waiting for
a core 12% of the time. SCHED_BATCH tells the kernel a thread is throughput work: it keeps its fair
share of the CPU but does not preempt on wake-up. With every helper on SCHED_BATCH the loop thread
keeps its core: bench/host.py measured 8-10% less host CPU per command and 4-10% more commands per
second (bench/README.md).

Threads are created lazily (gRPC's pool grows under load, and a new thread inherits the policy of the
thread that made it, which may be the loop's), so `HelperThreads` looks again now and then. It needs
no privilege: any process may move its own threads between SCHED_OTHER and SCHED_BATCH.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)

TASKS = Path("/proc/self/task")
# How often new helper threads are looked for: a listing of /proc/self/task and a system call per
# thread, a few microseconds.
RESCAN_INTERVAL_S = 1.0


def supported() -> bool:
    """True where threads can be listed and given SCHED_BATCH (Linux)."""
    return hasattr(os, "SCHED_BATCH") and hasattr(os, "sched_setscheduler") and TASKS.is_dir()


def batch_other_threads(keep: int) -> list[int]:
    """Move every thread of this process but `keep` (a native thread id) that runs under the default
    policy to SCHED_BATCH; return the ids of those moved. A thread that ends meanwhile is skipped."""
    moved = []
    for entry in os.listdir(TASKS):
        tid = int(entry)
        if tid == keep:
            continue
        try:
            if os.sched_getscheduler(tid) == os.SCHED_OTHER:
                os.sched_setscheduler(tid, os.SCHED_BATCH, os.sched_param(0))
                moved.append(tid)
        except ProcessLookupError:
            continue
    return moved


class HelperThreads:
    """While started, every thread of the process except the event loop's runs under SCHED_BATCH."""

    def __init__(self, interval_s: float = RESCAN_INTERVAL_S) -> None:
        self.interval_s = interval_s
        self._loop_thread = 0
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> bool:
        """Call from the event loop's thread. False (and nothing done) where this cannot work."""
        if not supported():
            return False
        self._loop_thread = threading.get_native_id()
        return self._scan()

    def _scan(self) -> bool:
        try:
            batch_other_threads(self._loop_thread)
        except OSError as error:  # a sandbox that forbids it: leave the threads as they are
            log.info("helper threads keep the default scheduling policy: %s", error)
            return False
        self._timer = asyncio.get_running_loop().call_later(self.interval_s, self._scan)
        return True

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
