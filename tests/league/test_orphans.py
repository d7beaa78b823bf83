"""Every program of a game ends with it (issue 31): an `exec` entrant that ignores its input closing,
SIGTERM, SIGINT and SIGHUP, and leaves a child that ignores them too, leaves no process behind after
its game, after the league, after a Ctrl-C, nor (once the next run has reaped it) after its runner and
seats process were SIGKILLed. Real processes throughout: the league's own runner and seats process."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from league_files import league_file
from processes import HAS_PROC, alive, cmdline, describe, read_pids, session_members, wait_for
from processes import children as process_children

from unonet.league import config as league_config
from unonet.league.failures import GameAborted
from unonet.league.network import NetworkedLeague, NetworkOptions
from unonet.league.schedule import schedule

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="reads /proc")

GAME_TIMEOUT = 90.0


def stubborn(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A sh exec bot that will not stop by itself; it writes its pid (its session's id) to `programs` and
    its child's to `children` when it starts."""
    programs, children = tmp_path / "programs", tmp_path / "children"
    script = tmp_path / "stubborn.sh"
    script.write_text(f"""#!/bin/sh
trap '' TERM INT HUP
echo $$ >> {programs}
sleep 600 &
echo $! >> {children}
while IFS= read -r line; do
  case $line in
    '{{"required":true'*) echo 0 ;;
    *) echo null ;;
  esac
done
while :; do sleep 1; done
""")
    script.chmod(0o755)
    return script, programs, children


def league(tmp_path: Path, script: Path, *, games: int = 3, **kwargs: object) -> Path:
    """Two seeded random bots and the stubborn program at a 3-seat table: 3 games a cycle."""
    lines = f'[[bot]]\nname = "prog"\nexec = "{script}"\n'
    return league_file(tmp_path, size=3, bots=2, games=games, bot_lines=lines, **kwargs)  # type: ignore[arg-type]


def left_behind(programs: Path, children: Path) -> list[int]:
    """Every process the stubborn programs started that is still running: the programs, their children,
    anything else in their sessions."""
    started = read_pids(programs)
    return sorted({*session_members(started), *(pid for pid in read_pids(children) + started if alive(pid))})


def still_running(programs: Path, children: Path) -> str:
    """What `left_behind` finds, each process described, beside every pid the programs recorded."""
    return (f"left behind: {describe(left_behind(programs, children))} (programs started: "
            f"{read_pids(programs)}, their children: {read_pids(children)})")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--no-progress", "--json", *extra]


@pytest.mark.timeout(GAME_TIMEOUT + 60)
@pytest.mark.parametrize("bot_processes", [1, 0], ids=["seats-process", "on-the-host-loop"])
async def test_a_program_that_will_not_stop_ends_with_its_game(tmp_path, bot_processes):
    script, programs, children = stubborn(tmp_path)
    config = league_config.load(league(tmp_path, script))
    spec = schedule(config)[0]
    options = NetworkOptions(turn_time_s=5.0, bot_processes=bot_processes)
    async with NetworkedLeague(config, options) as networked:
        result = await asyncio.wait_for(networked.play(spec), GAME_TIMEOUT)
        assert result.outcomes == ("played",) * 3  # it played the game out
        assert read_pids(programs) and read_pids(children)
        # The league is still up, other games could follow: the game's end alone ended its program (its
        # session was sent SIGKILL; the kernel finishes the kill a moment later on a loaded machine).
        await asyncio.to_thread(wait_for, lambda: left_behind(programs, children) == [], 10, "the program to die",
                                explain=lambda: still_running(programs, children))


@pytest.mark.timeout(2 * GAME_TIMEOUT + 60)
async def test_programs_of_a_killed_seats_process_are_killed_at_once_and_the_game_played_again(tmp_path):
    script, programs, children = stubborn(tmp_path)
    config = league_config.load(league(tmp_path, script, extra="turn_time = 30.0"))
    spec = schedule(config)[0]
    async with NetworkedLeague(config) as networked:
        game = asyncio.ensure_future(networked.play(spec))
        await asyncio.wait_for(asyncio.to_thread(wait_for, lambda: read_pids(children), 60, "the program"), 70)
        [seats] = [pid for pid in process_children(os.getpid()) if "unonet.league.seats" in cmdline(pid)]
        os.kill(seats, signal.SIGKILL)
        with pytest.raises(GameAborted, match="was killed by SIGKILL"):
            await asyncio.wait_for(game, GAME_TIMEOUT)
        # the runner killed what its seats process left (SIGKILL: gone within moments), before playing on
        await asyncio.to_thread(wait_for, lambda: left_behind(programs, children) == [], 10, "the orphans to die",
                                explain=lambda: still_running(programs, children))
        result = await asyncio.wait_for(networked.play(spec), GAME_TIMEOUT)  # a new seats process
        assert result.outcomes == ("played",) * 3
    assert left_behind(programs, children) == []


@pytest.mark.timeout(GAME_TIMEOUT + 60)
def test_a_league_with_a_program_that_will_not_stop_ends_and_leaves_nothing(tmp_path):
    script, programs, children = stubborn(tmp_path)
    path = league(tmp_path, script)
    # Output captured through pipes: a program left behind would keep the runner's stderr open, and this
    # would time out (a league piped into `tee` hung until its orphans exited).
    run = subprocess.run(cli(path), capture_output=True, text=True, timeout=GAME_TIMEOUT)
    assert run.returncode == 0, run.stderr
    assert len(read_pids(programs)) == 3  # one per game
    assert left_behind(programs, children) == []


@pytest.mark.timeout(GAME_TIMEOUT + 60)
def test_ctrl_c_stops_the_league_and_every_program(tmp_path):
    # 60 games, so the league is still being played at the Ctrl-C.
    script, programs, children = stubborn(tmp_path)
    path = league(tmp_path, script, games=60, extra="turn_time = 30.0")
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:
        # With Ctrl-C's default action, as a terminal's foreground command has it: a suite started in the
        # background of a non-interactive shell (`make test &`) hands its children SIGINT ignored, and the
        # runner would then play its league to the end (exit 0).
        runner = subprocess.Popen(cli(path), stdout=subprocess.DEVNULL, stderr=err, text=True,
                                  preexec_fn=_default_sigint)
    try:
        wait_for(lambda: len(read_pids(children)) >= 1, 60, "a program to start",
                 check=lambda: runner.poll() is None or pytest.fail(log.read_text()))
        runner.send_signal(signal.SIGINT)  # Ctrl-C, to the runner alone
        try:
            runner.wait(timeout=90)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the runner did not stop within 90 s of a Ctrl-C: {log.read_text()}")
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait(timeout=30)
    assert runner.returncode == 130, log.read_text()
    assert "interrupted" in log.read_text()
    assert left_behind(programs, children) == [], log.read_text()


@pytest.mark.timeout(2 * GAME_TIMEOUT + 60)
def test_programs_of_a_killed_runner_are_reaped_by_the_next_run(tmp_path):
    script, programs, children = stubborn(tmp_path)
    path = league(tmp_path, script, extra="turn_time = 30.0")
    # Its own session: the SIGKILL takes the runner and its seats process at once, as a crash of the
    # machine's session would; nothing is left to stop the programs.
    runner = subprocess.Popen(cli(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: len(read_pids(children)) >= 1, 60, "a program to start",
                 check=lambda: runner.poll() is None or pytest.fail("the runner exited"))
    finally:
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait(timeout=30)
    orphans = left_behind(programs, children)
    assert orphans, "nothing was left running: this test proves nothing"
    rerun = subprocess.run(cli(path), capture_output=True, text=True, timeout=GAME_TIMEOUT)
    assert rerun.returncode == 0, rerun.stderr
    # The rerun kills the orphans with SIGKILL, but they are not its children, so it cannot wait for them:
    # the kernel ends them a moment later (seen still running right after the rerun's exit once under load).
    wait_for(lambda: not any(alive(pid) for pid in orphans) and left_behind(programs, children) == [], 10,
             "the orphans the rerun killed to be gone",
             explain=lambda: f"{describe(orphans)}; {still_running(programs, children)}")
