"""A bot's program in a session of its own, stopped as a whole: nothing it started outlives it.

A program a bot runs (`unonet.bots.bridge.ExecBot`, `unonet.bots.launch.Launched`) is started with
`start_new_session=True`, so it leads a new session and process group whose id is its pid:

- a Ctrl-C at the terminal, which the terminal sends to its foreground process group, reaches only
  the program's supervisor, which stops the program in order instead of the program dying mid-answer;
- the program and everything it started (a shell script's children, a Node bot's workers) can be
  signalled together. `stop_session` asks the group to stop (SIGTERM), gives it `grace` seconds, then
  kills every process left in the session (SIGKILL: it cannot be ignored), and reaps the program;
- a supervisor that died before it could stop its program (SIGKILL) leaves a session whose id it
  can have recorded; `kill_session` ends that session later (`unonet.league.reaper` does, for a league).

Finding a session's processes reads /proc (Linux). Elsewhere only the process group is signalled, and
only while the program itself is not reaped yet (after that its pid, the group's id, may be reused).

Waiting for a program to exit reads its exit status (`exited`), never `Process.wait()`: asyncio's wait
also waits for the program's pipes to close, which a child it left behind (`sleep 600 &`, holding its
stdout or stderr) keeps open for as long as it lives.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

__all__ = ["TERM_GRACE_S", "exited", "kill_session", "session_members", "start_time", "stop_session"]

#: Seconds a program has to exit after SIGTERM before its whole session is killed.
TERM_GRACE_S = 1.0

_PROC = Path("/proc")


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None for no such process."""
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[-1].split()


def start_time(pid: int) -> int | None:
    """When process `pid` started, in clock ticks since boot (/proc/PID/stat, field 22): with the pid, it
    tells a process from a later one that reuses its pid. None when there is no such process or no /proc."""
    fields = _stat_fields(pid)
    return None if fields is None or len(fields) < 20 else int(fields[19])


def session_members(sid: int) -> list[int]:
    """The pids of the living (not zombie) processes of session `sid`; [] without /proc."""
    members = []
    with contextlib.suppress(OSError):
        for entry in _PROC.iterdir():
            if not entry.name.isdigit():
                continue
            fields = _stat_fields(int(entry.name))
            if fields is not None and len(fields) > 3 and fields[0] != "Z" and int(fields[3]) == sid:
                members.append(int(entry.name))
    return members


def kill_session(sid: int, *, leader_running: bool = False) -> int:
    """SIGKILL every process of session `sid`; returns how many were signalled.

    With /proc, each member found is killed (they keep the session's id alive, so it is not reused while
    they live). Without /proc, the process group `sid` is killed, and only when `leader_running` says the
    leader is not reaped yet (so `sid` is still its)."""
    if not _PROC.is_dir():
        if leader_running:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(sid, signal.SIGKILL)
                return 1
        return 0
    killed = 0
    for pid in session_members(sid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


#: How often `exited` looks at a process's exit status.
_POLL_S = 0.02


async def exited(process: asyncio.subprocess.Process, timeout: float | None = None) -> int | None:
    """The process's exit status once it has exited (whatever still holds its pipes), or None when it is
    still running after `timeout` seconds (None: wait for as long as it takes)."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while process.returncode is None:
        if deadline is not None and loop.time() >= deadline:
            return None
        await asyncio.sleep(_POLL_S)
    return process.returncode


async def stop_session(process: asyncio.subprocess.Process, grace: float = TERM_GRACE_S) -> int:
    """Stop a program started with `start_new_session=True`: SIGTERM to its process group, `grace` seconds
    to exit, then SIGKILL to every process left in its session (the program, if it is still running, and
    whatever it started). Returns the program's exit status."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        await exited(process, grace)
    kill_session(process.pid, leader_running=process.returncode is None)
    status = await exited(process)
    assert status is not None
    return status
