"""A dead runner's folders are reaped by the next run even when its pid now belongs to another process:
the folders are named by the runner's pid and start time, and a pid alive with another start time is
not the runner (a busy machine wraps pids within minutes: a rerun once left a killed runner's program
running for good because some other process had the dead runner's pid)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import HAS_PROC, alive, wait_for

from unonet.bots.sessions import start_time
from unonet.league import network
from unonet.league.reaper import ProgramRecords

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="start times come from /proc")


@pytest.fixture(autouse=True)
def own_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folders in a temporary directory of this test's own: a league run by another test at the same
    time reaps stale-looking folders in the shared one (this test's first one, once)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture
def orphan() -> Iterator[subprocess.Popen[bytes]]:
    """A program in a session of its own, as a league starts one."""
    program = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        yield program
    finally:
        program.kill()
        program.wait(timeout=10)


def runner_folder(owner: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=f"{network.PROGRAMS_PREFIX}{owner}-"))


def test_a_folder_whose_runner_pid_was_reused_is_reaped(orphan: subprocess.Popen[bytes]) -> None:
    # Named after a runner with a live pid (this test's own parent) but another start time: that runner is gone.
    pid = os.getppid()
    folder = runner_folder(f"{pid}.{(start_time(pid) or 0) + 1}")
    ProgramRecords(folder).add(orphan.pid)
    network.remove_stale_scratch()
    wait_for(lambda: orphan.poll() is not None or not alive(orphan.pid), 10, "the orphan to be killed")
    assert not folder.exists()


def test_a_folder_of_a_running_runner_is_left_alone(orphan: subprocess.Popen[bytes]) -> None:
    pid = os.getppid()
    folder = runner_folder(f"{pid}.{start_time(pid)}")
    try:
        ProgramRecords(folder).add(orphan.pid)
        network.remove_stale_scratch()
        assert folder.exists() and orphan.poll() is None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
