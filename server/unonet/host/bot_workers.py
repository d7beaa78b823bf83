"""Bot worker processes: the host's bot seats whose kind searches (`BotKind.in_worker`), each played by
a process of its own that speaks the protocol over loopback, so no search ever runs on the host's
event loop.

`BotWorkers` is the supervisor. When the driver finds such a seat it calls `ensure(table, seat)`: the
seat gets a worker token (in memory only, never journalled; `Seat.worker_token`, which the table
accepts for that seat even when it was taken over), and a worker is started:
``python -m unonet.bots --address 127.0.0.1:PORT --table ID --seat N --kind KIND`` with the token in
`UNONET_TOKEN` (not on the command line, where other users could read it), and ``--human-pace S`` on a
host that paces its bots for people (host/pace.py). The worker is a plain `BotRunner`: it follows the
seat's events and answers from its views like any networked bot, timing itself by the host's pace.

A worker is done once its seat no longer wants it (the match is over, the seat changed hands or kinds),
whatever its exit status. One that exits while its seat still wants it is started again, after 0.5 s,
then 1, 2, 5, 10 and 30 s between further attempts; the seat's turn clock covers the gap, as for any
player. That covers a clean exit too (0, the worker saw the match end; 1, it saw its seat lost): a
worker that misread the table and left a seat that still plays would otherwise hold a table with no
clock forever, with nothing left to wake its driver. `stop_table`
ends a table's workers, `close` (the host stopping) all of them: SIGTERM, then SIGKILL after 5 s.

The address is the host's own insecure port (`create_server` sets it). A TLS-only host has none: its
worker seats are logged and left to their clocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["BotWorkers", "WorkerSpec", "default_command"]

log = logging.getLogger(__name__)

RESTART_DELAYS_S = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
STOP_GRACE_S = 5.0
_DONE_CODES = frozenset({0, 1})  # a worker's own verdict: the match ended; its seat can no longer act


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """What a worker is started for."""

    address: str
    table_id: str
    seat: int
    kind: str
    token: str
    human_pace: float | None = None  # the host's pace at a table with a person (host/pace.py); None: instant


def default_command(spec: WorkerSpec) -> list[str]:
    """The command line of a worker: the bots' own entry point, this interpreter."""
    paced = [] if spec.human_pace is None else ["--human-pace", f"{spec.human_pace:g}"]
    return [sys.executable, "-m", "unonet.bots", "--address", spec.address, "--table", spec.table_id,
            "--seat", str(spec.seat), "--kind", spec.kind, "--reaction-delay", "0", "--ping-interval", "1", *paced]


@dataclass
class _Worker:
    spec: WorkerSpec
    task: asyncio.Task[None] | None = None
    process: asyncio.subprocess.Process | None = None
    starts: int = 0

    @property
    def is_running(self) -> bool:
        return self.task is not None and not self.task.done()


class BotWorkers:
    """The worker processes of one host's bot seats.

    Args:
        command: the command line for a worker (tests start another kind through it).
        restart_delays: the pauses before each restart of a crashed worker, the last one repeated.

    Attributes:
        address: the host's loopback address, HOST:PORT, once it listens (None: no workers).
        human_pace: how workers pace themselves at a table with a person (``--human-pace``; None: not at all).
        wanted: ``wanted(table_id, seat, kind)``, whether that seat still wants its worker (still that
            kind's, the match not over); asked before every restart.
    """

    def __init__(self, command: Callable[[WorkerSpec], list[str]] = default_command,
                 restart_delays: tuple[float, ...] = RESTART_DELAYS_S) -> None:
        self.address: str | None = None
        self.command = command
        self.restart_delays = restart_delays
        self.wanted: Callable[[str, int, str], bool] = lambda table_id, seat, kind: True
        self.human_pace: float | None = None  # given to every worker (`WorkerSpec.human_pace`)
        self._workers: dict[tuple[str, int], _Worker] = {}
        self._warned = False

    def ensure(self, table_id: str, seat: int, kind: str, token: str) -> bool:
        """Make sure a worker plays `seat` of `table_id` as `kind` with `token`. False when it cannot."""
        key = (table_id, seat)
        worker = self._workers.get(key)
        if worker is not None and worker.spec.kind == kind and worker.is_running:
            return True
        if worker is not None:
            self._stop(worker)
        if self.address is None:
            if not self._warned:
                log.error("no loopback address for bot workers (a TLS-only host): %s seats wait for their clocks",
                          kind)
                self._warned = True
            return False
        worker = _Worker(WorkerSpec(self.address, table_id, seat, kind, token, self.human_pace))
        worker.task = asyncio.get_running_loop().create_task(self._supervise(worker))
        self._workers[key] = worker
        return True

    def processes(self, table_id: str) -> dict[int, asyncio.subprocess.Process]:
        """The running worker processes of a table, by seat."""
        return {seat: worker.process for (tid, seat), worker in self._workers.items()
                if tid == table_id and worker.process is not None and worker.process.returncode is None}

    def starts(self, table_id: str, seat: int) -> int:
        """How many times the worker of that seat was started (1 + its restarts)."""
        worker = self._workers.get((table_id, seat))
        return worker.starts if worker is not None else 0

    def stop_table(self, table_id: str) -> None:
        """End the workers of a table (it was archived)."""
        for key in [key for key in self._workers if key[0] == table_id]:
            self._stop(self._workers.pop(key))

    async def close(self) -> None:
        """End every worker, waiting for each to exit."""
        workers = list(self._workers.values())
        self._workers.clear()
        for worker in workers:
            self._stop(worker)
        for worker in workers:
            if worker.task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await worker.task

    @staticmethod
    def new_token() -> str:
        """A fresh worker token, as unguessable as a player's."""
        return secrets.token_urlsafe(24)

    def _stop(self, worker: _Worker) -> None:
        if worker.task is not None:
            worker.task.cancel()

    async def _supervise(self, worker: _Worker) -> None:
        spec = worker.spec
        failures = 0
        try:
            while True:
                env = {**os.environ, "UNONET_TOKEN": spec.token}
                worker.process = await asyncio.create_subprocess_exec(
                    *self.command(spec), env=env, stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL, stderr=None)
                worker.starts += 1
                code = await worker.process.wait()
                if not self.wanted(spec.table_id, spec.seat, spec.kind):
                    return
                delay = self.restart_delays[min(failures, len(self.restart_delays) - 1)]
                failures += 1
                why = "left a seat that still plays" if code in _DONE_CODES else "crashed"
                log.warning("bot worker for seat %d of table %s (%s) exited %s (%s); restarting in %g s",
                            spec.seat, spec.table_id, spec.kind, code, why, delay)
                await asyncio.sleep(delay)
        finally:
            await _end(worker.process)


async def _end(process: asyncio.subprocess.Process | None) -> None:
    """SIGTERM, then SIGKILL after the grace period (shielded: it runs while the task is cancelled)."""
    if process is None or process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    try:
        await asyncio.shield(asyncio.wait_for(process.wait(), STOP_GRACE_S))
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
