"""The event loop `unonet serve` runs its host on: uvloop where it is installed, else asyncio's own.

The host's Python runs on one thread, and flat out that thread is its bound (bench/README.md). asyncio's
own loop is Python: its `_run_once`, its selector and `call_soon` were 10-12% of that thread's samples
(py-spy `--gil`, bench/host.py at 20 and 100 tables), about 0.1 ms of the host's ~1 ms of CPU per
command, spent waking the tasks of each call and each stream. uvloop runs the same loop in C (libuv) and
is a drop-in for grpc.aio, which only needs `add_reader` and `call_soon_threadsafe` of it. Measured on
the shared machine, eight runs each, alternated: host CPU per command 1.09 -> 1.00 ms (bench/README.md).

Only the `unonet serve` process chooses: a host embedded in a caller's process (tests, leagues, `unonet
host`) runs on the caller's loop. uvloop has no Windows build; there (or wherever it is not installed) the
default is asyncio's loop, which runs the same host.
"""

from __future__ import annotations

import asyncio
import importlib.util

__all__ = ["EVENT_LOOPS", "default_event_loop", "runner"]

EVENT_LOOPS = ("uvloop", "asyncio")


def default_event_loop() -> str:
    """uvloop where it can be imported, else asyncio."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def runner(name: str) -> asyncio.Runner:
    """An `asyncio.Runner` on the loop named (one of EVENT_LOOPS). Raises ValueError for another name and
    ImportError for uvloop where it is not installed."""
    if name == "asyncio":
        return asyncio.Runner()
    if name == "uvloop":
        import uvloop  # only where chosen: it has no Windows build

        return asyncio.Runner(loop_factory=uvloop.new_event_loop)
    raise ValueError(f"no event loop named {name!r}: one of {', '.join(EVENT_LOOPS)}")
