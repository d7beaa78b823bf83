"""A program started through its records folder's shim is recorded before it runs, or never runs: a
folder reaped (by its own runner, or by another league on the machine reaping a dead runner's folders)
starts nothing any more. Before, the shim started its program whatever became of its record, so a
program whose shim ran a moment after its folder was reaped lived on unrecorded, for good (a killed
runner's program alive after the rerun, in a clean checkout's `make test`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from processes import HAS_PROC, alive, wait_for

from unonet.league.reaper import ProgramRecords, reap_folder

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="sessions are read from /proc")


def test_a_program_is_recorded_before_it_runs_and_killed_by_the_reap(tmp_path: Path) -> None:
    records = ProgramRecords(tmp_path / "records")
    program = subprocess.Popen(records.command(["sleep", "600"]), start_new_session=True)
    try:
        wait_for(lambda: (records.folder / str(program.pid)).exists(), 10, "the shim's record")
        records.add(program.pid)
        assert records.reap() == 1
        assert program.wait(timeout=10) == -9
        assert not records.folder.exists() and not list(tmp_path.iterdir())  # moved aside, then removed
    finally:
        program.kill()
        program.wait(timeout=10)


@pytest.mark.parametrize("reaped_by", ["its own supervisor", "another league"])
def test_a_program_whose_folder_was_reaped_before_its_shim_ran_never_starts(tmp_path: Path, reaped_by: str) -> None:
    records = ProgramRecords(tmp_path / "programs" / "seats-1")
    if reaped_by == "its own supervisor":
        records.reap()
    else:  # a dead runner's folder: the next league reaps all of it (network.remove_stale_scratch)
        reap_folder(tmp_path / "programs")
    marker = tmp_path / "ran"
    shim = subprocess.run(records.command(["sh", "-c", f"touch {marker}"]), capture_output=True, text=True,
                          timeout=30, start_new_session=True, check=False)
    assert shim.returncode != 0 and not marker.exists(), shim.stderr
    records.add(12345678)  # its supervisor records a program that never started: nothing is written
    assert not records.folder.exists()


def test_reaping_a_folder_that_is_gone_reaps_nothing(tmp_path: Path) -> None:
    assert reap_folder(tmp_path / "never made") == 0


def test_a_recorded_program_left_alone_by_another_start_time_is_not_killed(tmp_path: Path) -> None:
    """The pid of a recorded program now belongs to a process started later: not ours, left running."""
    records = ProgramRecords(tmp_path / "records")
    other = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        (records.folder / str(other.pid)).write_text("1")  # a start time long before this process's
        assert records.reap() == 0
        assert alive(other.pid)
    finally:
        other.kill()
        other.wait(timeout=10)
