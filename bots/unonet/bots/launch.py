"""The launch convention for a bot in any language, in one place: what a program is told and how it is run.

A bot that speaks gRPC itself (the Node bot, a Rust or Go bot) is started for one seat it already holds
(docs/bots.md, "The launch convention"):

- arguments ``--address HOST:PORT --table ID --seat N``, appended to its command;
- the environment ``UNONET_ADDRESS``, ``UNONET_TABLE``, ``UNONET_SEAT`` with the same values, and
  ``UNONET_TOKEN``, the seat's token. The token travels in the environment only, never as an
  argument, where every user of the machine could read it in the process list; a program may still
  accept ``--token`` for use by hand;
- when whoever starts it has one, ``UNONET_SEED``: the seed for the program's own random choices, a
  decimal integer from 0 to 2**64 - 1 (a league gives every bot a seed per game, the same a Python
  policy gets), so a program that seeds its generator with it plays the same game again on a rerun.
  Unset means no seed: choose freely. An `exec` program (`unonet.bots.bridge.ExecBot`) gets the same
  variable, the only part of this convention that applies to it.

It attaches to the seat with the token (no JoinTable), plays until the match ends, and exits 0; any
other status means it could not play the match to its end. `Launched` starts such a program and
supervises it: it restarts one that crashed (with back-off, a bounded number of times), and stops it
when asked: it runs in a session of its own (`unonet.bots.sessions`), whose process group gets SIGTERM
and, after a grace, whose every process SIGKILL, so nothing it started outlives it. The leagues use it;
`unonet bot play --exec` is a different thing (the runner speaks gRPC and the program only JSON lines).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from unonet.bots.sessions import exited, kill_session, stop_session

__all__ = [
    "ENV_ADDRESS", "ENV_SEAT", "ENV_SEED", "ENV_TABLE", "ENV_TOKEN", "Launched", "SeatGrant", "launch_argv",
    "launch_env", "seed_env",
]

log = logging.getLogger(__name__)

ENV_ADDRESS = "UNONET_ADDRESS"
ENV_TABLE = "UNONET_TABLE"
ENV_SEAT = "UNONET_SEAT"
ENV_TOKEN = "UNONET_TOKEN"
ENV_SEED = "UNONET_SEED"


@dataclass(frozen=True, slots=True)
class SeatGrant:
    """A seat someone already holds, for a program to play: the host, the table, the seat, its token."""

    address: str
    table_id: str
    seat: int
    token: str

    def __repr__(self) -> str:  # never print the token
        return f"SeatGrant({self.address!r}, {self.table_id!r}, seat={self.seat})"


def launch_argv(command: Sequence[str], grant: SeatGrant) -> list[str]:
    """`command` with the convention's arguments appended (the token is not among them)."""
    return [*command, "--address", grant.address, "--table", grant.table_id, "--seat", str(grant.seat)]


def seed_env(seed: int | None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with UNONET_SEED set to `seed`; unchanged for None
    (a seed set by hand, `UNONET_SEED=7 unonet bot play --exec ...`, still reaches the program).
    Raises ValueError for a seed outside 0 .. 2**64 - 1."""
    env = dict(os.environ if base is None else base)
    if seed is not None:
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"a seed is an integer from 0 to 2**64 - 1, not {seed}")
        env[ENV_SEED] = str(seed)
    return env


def launch_env(grant: SeatGrant, base: Mapping[str, str] | None = None, seed: int | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with the convention's variables set (UNONET_SEED
    only with a `seed`)."""
    env = seed_env(seed, base)
    env.update(
        {ENV_ADDRESS: grant.address, ENV_TABLE: grant.table_id, ENV_SEAT: str(grant.seat), ENV_TOKEN: grant.token}
    )
    return env


class Launched:
    """One program started for one seat by the convention, supervised until it exits 0 or is stopped.

    Args:
        command: the program and its own arguments (the convention's are appended).
        grant: the seat it plays.
        max_restarts: how many times a program that exited with a failure is started again.
        backoff: seconds before the first restart, doubled for each next one.
        seed: the seed it gets as UNONET_SEED (a restart gets the same one), or None for none.
        on_start: told the pid of every start (the id of its session too), e.g. to record it so that a
            supervisor killed before it could stop the program can have it reaped later.
    """

    def __init__(
        self,
        command: Sequence[str],
        grant: SeatGrant,
        *,
        max_restarts: int = 3,
        backoff: float = 0.5,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stderr: int | IO[Any] | None = None,
        seed: int | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> None:
        if not command:
            raise ValueError("the program to run is missing")
        self.on_start = on_start
        self.argv = launch_argv(command, grant)
        self.env = launch_env(grant, env, seed)
        self.cwd = cwd
        self.stderr = stderr  # where its stderr goes (default: ours)
        self.max_restarts = max_restarts
        self.backoff = backoff
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.statuses: list[int] = []
        self._stopping = False

    async def _start(self) -> asyncio.subprocess.Process:
        self.starts += 1
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            env=self.env,
            cwd=self.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stderr=self.stderr,
            start_new_session=True,
        )
        if self.on_start is not None:
            self.on_start(self.process.pid)
        return self.process

    async def run(self) -> int:
        """Start the program and wait for it, restarting it after a failure; returns its last status."""
        delay = self.backoff
        while True:
            process = await self._start()
            status = await exited(process)  # not wait(): a child it left may hold its stderr
            assert status is not None
            kill_session(process.pid)  # whatever it started and left behind ends with it
            self.statuses.append(status)
            if status == 0 or self._stopping or self.starts > self.max_restarts:
                return status
            log.warning("%s exited with status %d; starting it again in %.1fs", self.argv[0], status, delay)
            await asyncio.sleep(delay)
            delay *= 2

    async def stop(self, grace: float = 2.0) -> None:
        """SIGTERM the program's process group, then after `grace` seconds SIGKILL every process left in
        its session (also when the program exited by itself but left children behind)."""
        self._stopping = True
        if self.process is not None:
            await stop_session(self.process, grace)
