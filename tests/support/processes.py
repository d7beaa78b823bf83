"""Looking at real processes from a test: children, liveness, sessions (Linux /proc), and waiting on them."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

PROC = Path("/proc")
HAS_PROC = (PROC / "self" / "task").is_dir()


def stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state first), or None when the process is gone."""
    try:
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[-1].split()
    except OSError:
        return None


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (a zombie has exited; only its parent's wait is missing)."""
    fields = stat(pid)
    return fields is not None and fields[0] != "Z"


def children(pid: int) -> list[int]:
    """The child processes of `pid`, whichever of its threads started them."""
    out: list[int] = []
    try:
        for task in (PROC / str(pid) / "task").iterdir():
            out += [int(child) for child in (task / "children").read_text().split()]
    except OSError:
        pass
    return out


def cmdline(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def session_members(sids: Iterable[int]) -> list[int]:
    """Living processes whose session is one of `sids` (a bot program's session is its pid)."""
    wanted = set(sids)
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = stat(int(entry.name))
            if fields is not None and fields[0] != "Z" and int(fields[3]) in wanted:
                found.append(int(entry.name))
    return found


def wait_for(
    condition: Callable[[], bool], timeout: float, what: str, *, check: Callable[[], None] | None = None,
    explain: Callable[[], str] | None = None,
) -> None:
    """Poll `condition` until it holds; fail with `what` after `timeout` seconds, and what `explain` says
    then (the state the condition was waiting on). `check` runs each time (to fail early, say when a
    process that should be running exited)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if check is not None:
            check()
        if time.monotonic() >= deadline:
            detail = f": {explain()}" if explain is not None else ""
            raise AssertionError(f"timed out after {timeout}s waiting for {what}{detail}")
        time.sleep(0.02)


def describe(pids: Iterable[int]) -> str:
    """Each process as a failure message wants it: pid, state, parent, session and command line."""
    lines = []
    for pid in pids:
        fields = stat(pid)
        if fields is None:
            lines.append(f"{pid} (gone)")
        else:
            lines.append(f"{pid} state {fields[0]} parent {fields[1]} session {fields[3]}: {cmdline(pid)!r}")
    return "; ".join(lines) or "nothing"


def read_pids(path: Path) -> list[int]:
    """The pids a test program appended to `path`, one a line."""
    try:
        return [int(line) for line in path.read_text().split()]
    except FileNotFoundError:
        return []
