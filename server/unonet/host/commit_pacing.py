"""How long a group commit gathers inputs: nothing while the host has time to spare, up to a ceiling
while its event loop is busy.

A group commit costs about the same whatever it holds (the BEGIN and COMMIT, an fsync on the helper
thread, a wake-up of the loop when it is done), and the replies and stream writes it releases together
leave in fewer socket writes per connection. So a loaded host buys CPU per command, and so throughput,
by letting more inputs gather before each commit; an idle host buys nothing with that wait and pays it
in every reply's latency. A fixed interval pays the wait at any load: measured with bench/host.py
(quick runs, each setting twice, the pure build), 100 tables flat out used 0.911 ms of host CPU a
command at 5 ms, 0.850 at 10 ms and 0.825 at 15 ms (1,072, 1,122 and 1,140 commands/s), while the
same intervals at 100 tables with ~500 ms of thinking (200 commands/s) gave p50 / p99 latencies of
4.6-4.9 / 9.0-9.4 ms, 7.9-8.0 / 13.6-13.7 ms and 11.0-11.2 / 18.8-19.1 ms.

`LoadPacing` reads how busy the loop's thread has been, its CPU time over wall-clock time smoothed
over about `window_s`, and waits nothing below `idle_share` of a core, the ceiling above
`busy_share`, and in proportion between. A host flat out keeps its loop's thread on a core about 80%
of the time (the rest it waits for the interpreter lock and for a core); at 200 commands/s it is
about 25%.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

# Above this share of a core the loop's thread counts as busy: the ceiling applies.
BUSY_SHARE = 0.7
# Below this share it counts as idle: a group commits on the loop's next turn.
IDLE_SHARE = 0.4
# The busy share is smoothed over about this long (an exponential moving average over time).
WINDOW_S = 0.1
# The longest a group gathers on a busy host: 15 ms measured best flat out (above), and the latency it
# adds is paid only under load, where queueing already dominates it.
DEFAULT_CEILING_S = 0.015


class LoadPacing:
    """The least time between two group commits, from how busy the event loop's thread has been.

    `interval_s` must be called on the loop's thread (it reads that thread's CPU time), with the loop's
    clock: `SqliteStore` calls it each time it schedules a group's commit."""

    def __init__(self, ceiling_s: float = DEFAULT_CEILING_S, *, idle_share: float = IDLE_SHARE,
                 busy_share: float = BUSY_SHARE, window_s: float = WINDOW_S,
                 cpu_s: Callable[[], float] = time.thread_time) -> None:
        if not 0 <= idle_share < busy_share:
            raise ValueError(f"idle_share must be in [0, busy_share), not {idle_share} with busy_share {busy_share}")
        self.ceiling_s = ceiling_s
        self.idle_share = idle_share
        self.busy_share = busy_share
        self.window_s = window_s
        self._cpu_s = cpu_s
        self._last_wall: float | None = None
        self._last_cpu = 0.0
        self.busy = 0.0  # the smoothed share of a core the loop's thread used

    def interval_s(self, now: float) -> float:
        """Measure the loop's thread since the last call (`now` on the loop's clock) and say how long
        the next group may gather after the last commit began."""
        cpu = self._cpu_s()
        if self._last_wall is not None:
            elapsed = now - self._last_wall
            if elapsed > 0:
                share = (cpu - self._last_cpu) / elapsed
                self.busy += (1 - math.exp(-elapsed / self.window_s)) * (share - self.busy)
        self._last_wall, self._last_cpu = now, cpu
        load = (self.busy - self.idle_share) / (self.busy_share - self.idle_share)
        return self.ceiling_s * min(1.0, max(0.0, load))
