"""Settings an organiser sets (issue 31, point 4): games at once, the turn clock, the time bank, strikes
before a takeover, restarts per program and a game's time limit in the league file, each overridable on
the command line, with documented defaults; and the standings printed every so many games or seconds."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from league_files import league_file
from rich.console import Console

from unonet.league.config import LeagueFileError, PlaySettings, Reporting, play_settings
from unonet.league.network import NetworkOptions
from unonet.league.progress import PeriodicStandings
from unonet.league.results import Results, decode_log
from unonet.league.runner import run_league
from unonet.v1 import events_pb2, table_pb2

SETTINGS = """games_at_once = 3
turn_time = 2.5
time_bank = 4.0
strikes = 1
restarts = 5
game_time_limit = 90.0
standings_every = 4
standings_interval = 0"""


def test_the_defaults_are_the_documented_ones(make_league):
    config = make_league(games=4)
    assert config.play == PlaySettings(games_at_once=8, turn_time=10.0, time_bank=0.0, strikes=2, restarts=3,
                                       game_time_limit=300.0)
    assert config.reporting == Reporting(standings_every=0, standings_interval=300.0)
    assert NetworkOptions.from_settings(config.play) == NetworkOptions()  # what the gRPC path always played


def test_the_league_file_sets_them_and_they_reach_the_players(make_league):
    config = make_league(games=4, extra=SETTINGS)
    assert config.play == PlaySettings(3, 2.5, 4.0, 1, 5, 90.0)
    assert config.reporting == Reporting(4, 0.0)
    options = NetworkOptions.from_settings(config.play, bot_processes=0)
    assert (options.concurrency, options.turn_time_s, options.time_bank_s, options.strikes_before_takeover,
            options.max_restarts, options.game_timeout_s, options.bot_processes) == (3, 2.5, 4.0, 1, 5, 90.0, 0)
    # How games are played out is not what the league is: the same database serves both.
    assert config.fingerprint() == make_league(games=4).fingerprint()


@pytest.mark.parametrize(("line", "message"), [
    ("turn_time = 0", "must be positive"),
    ("games_at_once = 0", "at least 1"),
    ("strikes = -1", "cannot be negative"),
    ('restarts = "3"', "must be a whole number"),
    ("time_bank = true", "must be a number"),
    ("standings_every = -2", "cannot be negative"),
])
def test_bad_settings_are_refused_naming_the_key(make_league, line, message):
    with pytest.raises(LeagueFileError, match=message):
        make_league(extra=line)


def test_command_line_values_override_the_files():
    base = PlaySettings(3, 2.5, 4.0, 1, 5, 90.0)
    assert play_settings({"turn_time": 1, "restarts": 0}, "--", base) == PlaySettings(3, 1.0, 4.0, 1, 0, 90.0)
    with pytest.raises(LeagueFileError, match="--game_time_limit"):
        play_settings({"game_time_limit": 0.0}, "--", base)


@pytest.mark.timeout(200)
def test_the_cli_plays_with_the_settings_it_was_given(tmp_path):
    path = league_file(tmp_path, games=3, size=3, bots=3, extra=SETTINGS)
    command = [sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--no-progress", "--json",
               "--turn-time", "7", "--time-bank", "1.5", "--strikes", "3"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    with Results(tmp_path / "league.sqlite") as db:
        games = db.games(with_logs=True)
    assert len(games) == 3
    for game in games:
        started = next(e.match_started for e in map(events_pb2.Event.FromString, decode_log(game.log))
                       if e.HasField("match_started"))
        clock = started.settings.clock
        assert clock.turn_time.ToNanoseconds() == 7_000_000_000  # the flag's, not the file's 2.5
        assert clock.time_bank.ToNanoseconds() == 1_500_000_000
        assert clock.strikes_before_takeover == 3
        assert clock.takeover_policy == table_pb2.TAKEOVER_POLICY_FORFEIT
    bad = subprocess.run([*command[:6], "--turn-time", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--turn_time" in bad.stderr


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_standings_are_printed_every_n_games_and_every_t_seconds(make_league):
    config = make_league(games=12, size=3, bots=3)  # 12 games in-process
    out = io.StringIO()
    clock = Clock()
    every = PeriodicStandings(config, Console(file=out, width=100), Reporting(standings_every=5, standings_interval=0))
    timed = PeriodicStandings(config, Console(file=out, width=100), Reporting(0, 60.0), clock=clock)

    def on_game(result, done, total, leader):
        clock.now += 25.0  # a game every 25 s: the timed one prints after the 3rd, 6th, 9th, ...
        every.advance(result, done, total, leader)
        timed.advance(result, done, total, leader)

    run_league(config, on_start=lambda *args: (every.start(*args), timed.start(*args)), on_game=on_game)
    assert every.printed == 2  # after games 5 and 10 (the 12th is the final board's)
    assert timed.printed == 3  # after games 3, 6 and 9
    text = out.getvalue()
    assert "league 5/12 games, leader: " in text and "(ordinal " in text
    with Results(config.db) as db:
        assert db.count() == 12
    assert text.count("test: ") == 5  # the board's title, each time


@pytest.mark.timeout(120)
def test_the_cli_prints_periodic_standings_to_stderr_leaving_json_on_stdout(tmp_path):
    path = league_file(tmp_path, games=12, size=3, bots=3)
    run = subprocess.run([sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--inprocess", "--json",
                          "--standings-every", "4"], capture_output=True, text=True, timeout=100)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("games, leader: ") == 2  # after 4 and 8
    assert run.stdout.count("\n") == 1  # the JSON object alone

