"""An infrastructure failure is never a bot's result (issue 31): the seats process SIGKILLed mid-league,
again and again, and the runner (which holds the embedded host) SIGKILLed too. No game is recorded that
its bots did not play out, every scheduled game is eventually recorded once, and a league whose
machinery keeps failing stops with exit status 1 and says why. Real processes: `unonet league run`."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from league_files import league_file
from processes import HAS_PROC, alive, children, cmdline, wait_for

from unonet.league.config import load
from unonet.league.failures import GameAborted, NoProgress, ProgressGuard
from unonet.league.network import NetworkOptions, play_networked
from unonet.league.results import Results, decode_log
from unonet.league.runner import play_inprocess, run_league
from unonet.league.schedule import schedule
from unonet.v1 import events_pb2

RUN_TIMEOUT = 180.0


def cli(path: Path) -> list[str]:
    return [sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--no-progress", "--json"]


def rows(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM league_games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # not created yet


def seats_process(runner: subprocess.Popen[str]) -> int | None:
    return next((pid for pid in children(runner.pid) if "unonet.league.seats" in cmdline(pid)), None)


def assert_only_games_played_out(path: Path, complete: bool) -> None:
    """Every recorded game is the game its bots play: the in-process league's, game for game (random bots
    never race), each log reaching its end, no seat failing; with `complete`, every game once."""
    config = load(path)
    with Results(config.db) as db:
        recorded = db.games(with_logs=True)
        ids = db.game_ids()
    assert len(ids) == len(set(ids))
    straight = {r.game_id: r for r in play_inprocess(config, schedule(config))}
    if complete:
        assert sorted(ids) == sorted(straight)
    for game in recorded:
        twin = straight[game.game_id]
        assert game.outcomes == ("played",) * len(game.seats), game.game_id  # no time losses, no forfeits
        assert (game.ranks, game.points) == (twin.ranks, twin.points), game.game_id
        events = [events_pb2.Event.FromString(blob) for blob in decode_log(game.log)]
        assert any(e.HasField("round_ended") for e in events), game.game_id


@pytest.mark.skipif(not HAS_PROC, reason="reads /proc")
@pytest.mark.timeout(2 * RUN_TIMEOUT + 60)
def test_the_seats_process_and_the_host_killed_mid_league_record_no_game_not_played_out(tmp_path):
    path = league_file(tmp_path, games=30, size=3, bots=3, extra="games_at_once = 2")
    db = tmp_path / "league.sqlite"
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as err:
        runner = subprocess.Popen(cli(path), stdout=subprocess.DEVNULL, stderr=err, text=True)
    try:
        def running() -> None:
            assert runner.poll() is None, f"the runner ended early: {stderr.read_text()[-2000:]}"

        killed = []
        for at_least in (2, 6, 10):  # three times, each after the league made progress again
            wait_for(lambda n=at_least: rows(db) >= n and seats_process(runner) not in (None, *killed),
                     RUN_TIMEOUT, f"{at_least} games and a seats process", check=running)
            pid = seats_process(runner)
            assert pid is not None
            subprocess.run(["kill", "-KILL", str(pid)], check=True, timeout=30)
            killed.append(pid)
        wait_for(lambda: rows(db) >= 14, RUN_TIMEOUT, "14 games after the kills", check=running)
        runner.send_signal(signal.SIGKILL)  # the runner, and the embedded host in it
    finally:
        if runner.poll() is None:
            runner.kill()
        runner.wait(timeout=60)
    log = stderr.read_text()
    assert log.count("was killed by SIGKILL") >= 3, log  # each death noticed and said
    assert "it will be played again" in log, log  # games were in flight, and were aborted, not recorded
    assert 14 <= rows(db) < 30
    assert_only_games_played_out(path, complete=False)
    rerun = subprocess.run(cli(path), capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert rerun.returncode == 0, rerun.stderr
    assert_only_games_played_out(path, complete=True)


@pytest.mark.skipif(not HAS_PROC, reason="reads /proc")
@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_a_league_whose_seats_process_keeps_dying_stops_and_says_why(tmp_path):
    path = league_file(tmp_path, games=12, size=3, bots=3)
    runner = subprocess.Popen(cli(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def kill_every_seats_process() -> None:  # as soon as each appears
        while not done.wait(0.005):
            pid = seats_process(runner)
            if pid is not None:
                subprocess.run(["kill", "-KILL", str(pid)], check=False, timeout=30)

    killer = threading.Thread(target=kill_every_seats_process, daemon=True)
    killer.start()
    try:
        _, err = runner.communicate(timeout=RUN_TIMEOUT)
    finally:
        done.set()
        killer.join(timeout=30)
        if runner.poll() is None:
            runner.kill()
            runner.communicate(timeout=30)
    assert runner.returncode == 1, err
    assert "cannot make progress" in err and "was killed by SIGKILL" in err, err
    assert "Traceback" not in err
    assert_only_games_played_out(path, complete=False)


@pytest.mark.skipif(not HAS_PROC, reason="reads /proc")
@pytest.mark.timeout(RUN_TIMEOUT + 60)
def test_a_seats_process_that_stops_answering_is_killed_and_its_games_played_again(tmp_path, caplog):
    # SIGSTOP: alive, holding its games, answering nothing; left alone, the host's clock would forfeit every
    # seat of its games in turn and "record" them. The runner's watchdog kills it instead.
    path = league_file(tmp_path, games=9, size=3, bots=3, extra="games_at_once = 2")
    config = load(path)
    stopped: list[int] = []

    def stop_the_seats_process(result, done, total, leader) -> None:
        if stopped:
            return
        pid = next(pid for pid in children(os.getpid()) if "unonet.league.seats" in cmdline(pid))
        os.kill(pid, signal.SIGSTOP)
        stopped.append(pid)

    options = NetworkOptions(concurrency=2, seats_silence_s=5.0)
    with caplog.at_level(logging.WARNING):
        summary = run_league(config, lambda c, s: play_networked(c, s, options), on_game=stop_the_seats_process)
    assert stopped and summary.played == 9
    assert not alive(stopped[0])  # killed, not left stopped
    assert any("has answered nothing for 5s: killing it" in record.getMessage() for record in caplog.records)
    assert any("stopped answering" in record.getMessage() and "played again" in record.getMessage()
               for record in caplog.records)  # its games in flight were aborted
    assert_only_games_played_out(path, complete=True)


def test_a_failure_that_takes_several_games_down_counts_once():
    guard = ProgressGuard(limit=3)
    died = RuntimeError("the seats process died")
    for game in ("g000001", "g000002", "g000003", "g000004"):  # four games in flight, one cause
        guard.aborted(GameAborted(game, "the seats process died", died))
    guard.aborted(GameAborted("g000001", "a call to the host failed"))
    guard.finished()  # a game finished: progress, the count starts again
    guard.aborted(GameAborted("g000001", "a"))
    guard.aborted(GameAborted("g000002", "b"))
    with pytest.raises(NoProgress, match=r"cannot make progress: 3 failures .* \(the last: c\)"):
        guard.aborted(GameAborted("g000003", "c"))
