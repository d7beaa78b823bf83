"""Which bot programs a league has running, on disk, so that none outlives whoever started it.

Every `exec` and `launch` program runs in a session of its own (`unonet.bots.sessions`) and is stopped
when its game ends. A supervisor killed before it could stop its programs (the seats process, a Dask
worker, or the runner itself, SIGKILLed) cannot; so while a program runs, a file named by its pid (the
id of its session) and holding its start time sits in a folder of the run (`ProgramRecords.add`), and
is removed once the program is stopped (`discard`). Whoever outlives the supervisor reaps what the
folder still lists (`reap`): the runner when its seats process dies or the league ends, and the next
league on the machine for a runner that died (`network.remove_stale_scratch`).

The start time tells a leftover from an unrelated process that got the same pid since: a recorded
program still running with another start time is not ours, and is left alone. (A record written by the
program's start-up shim, before its supervisor could add the start time, holds none: it is reaped as ours.)
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from unonet.bots.sessions import kill_session, start_time

__all__ = ["ProgramRecords", "reap_folder"]

log = logging.getLogger(__name__)


class ProgramRecords:
    """The programs started from one supervisor, one file each in `folder` (created if missing)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def add(self, pid: int) -> None:
        """Record a program just started (in a session of its own: `pid` is the session's id)."""
        stamp = start_time(pid)
        (self.folder / str(pid)).write_text("" if stamp is None else str(stamp))

    def discard(self, pid: int) -> None:
        """Forget a program its supervisor stopped."""
        (self.folder / str(pid)).unlink(missing_ok=True)

    def reap(self) -> int:
        """Kill what every recorded program left running, and forget them; returns the processes killed."""
        return reap_folder(self.folder)


def reap_folder(folder: Path) -> int:
    """`ProgramRecords.reap` for the records anywhere under `folder` (a dead run's scratch folder)."""
    killed = 0
    for record in sorted(folder.rglob("*")):
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
    return killed
