"""Bot worker processes: the host's bot seats whose kind searches (`BotKind.in_worker`), each played by
a process of its own that speaks the protocol over loopback, so no search ever runs on the host's
event loop.

`BotWorkers` is the supervisor. When the driver finds such a seat it calls `ensure(table, seat)`: the
seat gets a worker token (in memory only, never journalled; `Seat.worker_token`, which the table
accepts for that seat even when it was taken over), and a worker is started:
``python -m unonet.bots --address 127.0.0.1:PORT --table ID --seat N --kind KIND`` with the token in
`UNONET_TOKEN` (not on the command line, where other users could read it) and its policy's seed in
`UNONET_SEED`, the seed the host gives an in-process bot seat (so a fixed budget plays the same
decisions wherever the kind sits), and ``--human-pace S`` on a host that paces its bots for people
(host/pace.py). The worker is a plain `BotRunner`: it follows the seat's events and answers from its
views like any networked bot, timing itself by the host's pace.

A worker is done once its seat no longer wants it (the match is over, the seat changed hands or kinds),
whatever its exit status. One that exits while its seat still wants it has failed, and is started
again, after 0.5 s, then 1, 2, 5, 10 and 30 s between further attempts. That covers a clean exit too
(0, the worker saw the match end; 1, it saw its seat lost): a worker that misread the table and left a
seat that still plays would otherwise hold a table with no clock forever.

The host's worker watch (`unonet.host.bot_watch`) adds the other failure, a worker that does not
decide in time (hung, or sending only refused commands): `failed` counts it and restarts the worker
at once. `answered` (a decision the worker made in time) clears the count. After `max_failures`
failures in a row the worker is retired: stopped, never started again for that seat, and `changed`
tells the host, whose fallback kind then plays the seat for the rest of the match. `stop_table` ends a
table's workers, `close` (the host stopping) all of them: SIGTERM, then SIGKILL after 5 s. A closed
supervisor starts no worker again: the host closes it while it still serves (`Host.stop_bot_workers`,
the first step of the shutdown order), so no worker is mid-move when its host stops answering, and
none is started again by a driver that still runs in between.

A worker's stdout is discarded (its lines are for a person running a bot by hand). Its stderr, where
its warnings, faults and tracebacks go, is the host's own by default: beside a console host's log
lines (`unonet serve`). A host whose terminal is a full screen (`unonet local`, `unonet host` with its
game screen) logs to a file instead, and gives it as `stderr_path`: each worker appends to that file,
so nothing a worker says scribbles over the screen.

The address is the host's own insecure port (`create_server` sets it). A TLS-only host has none: its
worker seats are logged, and the watch has their fallback kind decide for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["MAX_FAILURES", "BotWorkers", "WorkerSpec", "WorkerState", "default_command"]

log = logging.getLogger(__name__)

RESTART_DELAYS_S = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
MAX_FAILURES = 3
"""Failures in a row (exits while wanted, decisions not made in time) after which a worker is retired."""
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
    seed: int | None = None  # its policy's seed (UNONET_SEED): the one an in-process bot seat gets
    human_pace: float | None = None  # the host's pace at a table with a person (host/pace.py); None: instant


def default_command(spec: WorkerSpec) -> list[str]:
    """The command line of a worker: the bots' own entry point, this interpreter. Timed by the host's pace
    (`--human-pace`) on a host that paces its bots for people; on an instant host with no pause at all
    (`--no-pauses`: a level's human-like pause before each turn is for a person, and an instant host
    has its bots act as soon as they may, as its in-process seats do)."""
    paced = ["--no-pauses"] if spec.human_pace is None else ["--human-pace", f"{spec.human_pace:g}"]
    return [sys.executable, "-m", "unonet.bots", "--address", spec.address, "--table", spec.table_id,
            "--seat", str(spec.seat), "--kind", spec.kind, "--reaction-delay", "0", "--ping-interval", "1", *paced]


@dataclass(frozen=True, slots=True)
class WorkerState:
    """What the watch needs to know of a seat's worker.

    Attributes:
        running: its process is alive now (not crashed, not waiting to be started again).
        started_ns: when its process was last started, by the host's clock (0: never yet).
        retired: it failed `max_failures` times in a row and is never started again for the seat.
    """

    running: bool
    started_ns: int
    retired: bool


@dataclass
class _Worker:
    spec: WorkerSpec
    task: asyncio.Task[None] | None = None
    process: asyncio.subprocess.Process | None = None
    starts: int = 0
    started_ns: int = 0
    failures: int = 0  # in a row
    recycling: bool = False  # its process was killed by `failed`, to be started again at once
    retired: bool = False

    @property
    def is_running(self) -> bool:
        return self.task is not None and not self.task.done()


class BotWorkers:
    """The worker processes of one host's bot seats.

    Args:
        command: the command line for a worker (tests start another kind through it).
        restart_delays: the pauses before each restart of a crashed worker, the last one repeated.
        clock_ns: the host's clock, for `WorkerState.started_ns`.
        max_failures: failures in a row after which a worker is retired.
        stderr_path: the file every worker's stderr is appended to; None: the host's own stderr.

    Attributes:
        address: the host's loopback address, HOST:PORT, once it listens (None: no workers).
        human_pace: how workers pace themselves at a table with a person (``--human-pace``; None: not at all).
        wanted: ``wanted(table_id, seat, kind)``, whether that seat still wants its worker (still that
            kind's, the match not over); asked before every restart.
        changed: ``changed(table_id)``, called when a worker of the table was retired or exited, so the
            host looks at the table again.
    """

    def __init__(self, command: Callable[[WorkerSpec], list[str]] = default_command,
                 restart_delays: tuple[float, ...] = RESTART_DELAYS_S, *,
                 clock_ns: Callable[[], int] = time.time_ns, max_failures: int = MAX_FAILURES,
                 stderr_path: Path | None = None) -> None:
        self.address: str | None = None
        self.command = command
        self.restart_delays = restart_delays
        self.clock_ns = clock_ns
        self.max_failures = max_failures
        self.stderr_path = stderr_path
        self.wanted: Callable[[str, int, str], bool] = lambda table_id, seat, kind: True
        self.changed: Callable[[str], None] = lambda table_id: None
        self.human_pace: float | None = None  # given to every worker (`WorkerSpec.human_pace`)
        self._workers: dict[tuple[str, int], _Worker] = {}
        self._warned = False
        self._stderr_failed = False
        self._closed = False

    def ensure(self, table_id: str, seat: int, kind: str, token: str, seed: int | None = None) -> bool:
        """Make sure a worker plays `seat` of `table_id` as `kind` with `token`. False when it cannot
        (no loopback address, that seat's worker of that kind was retired, or the supervisor is closed:
        the host is stopping, and a worker started now would see it vanish)."""
        if self._closed:
            return False
        key = (table_id, seat)
        worker = self._workers.get(key)
        if worker is not None and worker.spec.kind == kind and (worker.is_running or worker.retired):
            return not worker.retired
        if worker is not None:
            self._stop(worker)
        if self.address is None:
            if not self._warned:
                log.error("no loopback address for bot workers (a TLS-only host): %s seats are played by their "
                          "fallback kind once the worker watch gives up on them", kind)
                self._warned = True
            return False
        worker = _Worker(WorkerSpec(self.address, table_id, seat, kind, token, seed, self.human_pace))
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

    def state(self, table_id: str, seat: int) -> WorkerState | None:
        """The seat's worker as the watch sees it; None when it has none."""
        worker = self._workers.get((table_id, seat))
        if worker is None:
            return None
        process = worker.process
        running = process is not None and process.returncode is None and not worker.recycling
        return WorkerState(running and worker.is_running, worker.started_ns, worker.retired)

    def answered(self, table_id: str, seat: int) -> None:
        """The seat's worker made a decision in time: its failures in a row start again from none."""
        worker = self._workers.get((table_id, seat))
        if worker is not None:
            worker.failures = 0

    def failed(self, table_id: str, seat: int) -> bool:
        """The seat's running worker did not make a decision in time: a failure. It is restarted at
        once, or retired once it failed `max_failures` times in a row. A worker that is not running
        (its exit was counted already) is left to its restart. Returns whether it is retired."""
        worker = self._workers.get((table_id, seat))
        if worker is None or worker.retired:
            return worker is not None
        state = self.state(table_id, seat)
        if state is None or not state.running:
            return False
        if self._count_failure(worker):
            return True
        worker.recycling = True
        if worker.process is not None:
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()
        return False

    def stop_table(self, table_id: str) -> None:
        """End the workers of a table (it was archived)."""
        for key in [key for key in self._workers if key[0] == table_id]:
            self._stop(self._workers.pop(key))

    async def close(self) -> None:
        """End every worker, waiting for each to exit, and start none from now on (`ensure` says False).
        Closing again is harmless."""
        self._closed = True
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

    def _open_stderr(self) -> IO[bytes] | int | None:
        """Where the next worker's stderr goes: `stderr_path` opened to append (each write lands whole
        at its end, between the host's own lines when it is the host's log), None to inherit the host's.
        A file that cannot be opened is logged once and the worker's stderr discarded: on a full screen
        the terminal is no place for it either."""
        if self.stderr_path is None:
            return None
        try:
            return self.stderr_path.open("ab")
        except OSError as error:
            if not self._stderr_failed:
                log.error("bot workers' stderr discarded: cannot append to %s (%s)", self.stderr_path, error)
                self._stderr_failed = True
            return asyncio.subprocess.DEVNULL

    def _count_failure(self, worker: _Worker) -> bool:
        """One more failure in a row; at `max_failures` the worker is retired (True). Not logged here:
        the caller says what failed (an exit is logged by `_supervise`, a decision not made in time by
        the host with its fallback's decision)."""
        worker.failures += 1
        if worker.failures < self.max_failures:
            return False
        worker.retired = True
        if worker.task is not None and worker.task is not asyncio.current_task():
            worker.task.cancel()
        self.changed(worker.spec.table_id)
        return True

    async def _supervise(self, worker: _Worker) -> None:
        spec = worker.spec
        crashes = 0  # exits while wanted: the restart delays' index
        try:
            while True:
                env = {**os.environ, "UNONET_TOKEN": spec.token}
                if spec.seed is not None:
                    env["UNONET_SEED"] = str(spec.seed)
                stderr = self._open_stderr()
                try:
                    worker.process = await asyncio.create_subprocess_exec(
                        *self.command(spec), env=env, stdin=asyncio.subprocess.DEVNULL,
                        stdout=asyncio.subprocess.DEVNULL, stderr=stderr)
                finally:
                    if stderr is not None and not isinstance(stderr, int):
                        stderr.close()  # the worker has its own copy
                worker.starts += 1
                worker.started_ns = self.clock_ns()
                code = await worker.process.wait()
                if worker.recycling:  # killed by `failed`, which counted the failure: start it again now
                    worker.recycling = False
                    continue
                if not self.wanted(spec.table_id, spec.seat, spec.kind):
                    return
                self.changed(spec.table_id)
                why = "left a seat that still plays" if code in _DONE_CODES else "crashed"
                if self._count_failure(worker):
                    log.error("bot worker for seat %d of table %s (%s) exited %s (%s; failure %d in a row): retired, "
                              "its fallback plays the seat for the rest of the match", spec.seat, spec.table_id,
                              spec.kind, code, why, worker.failures)
                    return
                delay = self.restart_delays[min(crashes, len(self.restart_delays) - 1)]
                crashes += 1
                log.warning("bot worker for seat %d of table %s (%s) exited %s (%s; failure %d of %d); restarting "
                            "in %g s", spec.seat, spec.table_id, spec.kind, code, why, worker.failures,
                            self.max_failures, delay)
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
