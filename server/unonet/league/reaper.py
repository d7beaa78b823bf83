"""Which bot programs a league has running, on disk, so that none outlives whoever started it.

Every `exec` and `launch` program runs in a session of its own (`unonet.bots.sessions`) and is stopped
when its game ends. A supervisor killed before it could stop its programs (the seats process, a Dask
worker, or the runner itself, SIGKILLed) cannot; so while a program runs, a file named by its pid (the
id of its session) and holding its start time sits in a folder of the run (`ProgramRecords.add`), and
is removed once the program is stopped (`discard`). Whoever outlives the supervisor reaps what the
folder still lists (`reap`): the runner when its seats process dies or the league ends, and the next
league on the machine for a runner that died (`network.remove_stale_scratch`).

A program is started through a shim (`ProgramRecords.command`) that writes its record before the program
runs a single instruction, and starts it only if that record was written. Reaping moves the folder aside
first, so no record can be written into it any more: a program whose supervisor is being reaped was
either recorded before (and is killed) or never starts. (Before, a program whose shim ran a moment after
a reaper had listed the folder, or after another league on the machine had reaped a dead runner's folder
and removed it, ran unrecorded for good: seen in a test, a killed runner's program alive after the rerun.)

The start time tells a leftover from an unrelated process that got the same pid since: a recorded
program still running with another start time is not ours, and is left alone. (A record written by the
program's start-up shim, before its supervisor could add the start time, holds none: it is reaped as ours.)
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path

from unonet.bots.sessions import kill_session, start_time

__all__ = ["ProgramRecords", "reap_folder"]

log = logging.getLogger(__name__)


#: The shim a recorded program is started through: its pid (its session's id) into the records folder ($0),
#: and only then, if that worked, the program. A folder a reaper moved aside (or removed) starts nothing.
RECORD_THEN_EXEC = 'echo > "$0/$$" && exec "$@"'


class ProgramRecords:
    """The programs started from one supervisor, one file each in `folder` (created if missing)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def command(self, argv: Sequence[str]) -> list[str]:
        """`argv` started through the recording shim: recorded here before it runs, or not run at all once
        this folder was reaped (the shim then exits with a failure status)."""
        return ["/bin/sh", "-c", RECORD_THEN_EXEC, str(self.folder), *argv]

    def add(self, pid: int) -> None:
        """Record a program just started (in a session of its own: `pid` is the session's id) with its
        start time. A folder already reaped is left so: the shim started nothing into it."""
        stamp = start_time(pid)
        with contextlib.suppress(FileNotFoundError):
            (self.folder / str(pid)).write_text("" if stamp is None else str(stamp))

    def discard(self, pid: int) -> None:
        """Forget a program its supervisor stopped."""
        (self.folder / str(pid)).unlink(missing_ok=True)

    def reap(self) -> int:
        """Kill what every recorded program left running, and remove the folder, after which no program
        starts through it (`command`); returns the processes killed."""
        return reap_folder(self.folder)


def reap_folder(folder: Path) -> int:
    """`ProgramRecords.reap` for the records anywhere under `folder` (a dead run's scratch folder): the
    folder is moved aside first (see the module), then every record in it reaped, then it is removed.
    A folder that is gone already (reaped by someone else) reaps nothing."""
    closing = folder.with_name(f"{folder.name}.reaping-{secrets.token_hex(4)}")
    try:
        folder.rename(closing)
    except FileNotFoundError:
        return 0
    killed = 0
    for record in sorted(closing.rglob("*")):
        if not record.is_file() or not record.name.isdigit():
            continue
        pid = int(record.name)
        with contextlib.suppress(OSError):
            recorded = record.read_text().strip()
            now = start_time(pid)
            if not (now is not None and recorded and int(recorded) != now):  # same program, or its leftovers
                count = kill_session(pid)
                if count:
                    log.warning("killed %d process(es) left by bot program %d", count, pid)
                killed += count
            record.unlink(missing_ok=True)
    shutil.rmtree(closing, ignore_errors=True)
    return killed
