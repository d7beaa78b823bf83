"""`--inprocess` leagues: deterministic games, forfeits, idempotent results, replayable logs, and a
runner killed with SIGKILL that resumes without losing or doubling a game."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from league_files import league_file

from unonet.bots import Bot, RandomBot
from unonet.client.replay import Replay
from unonet.league import cli as league_cli
from unonet.league.entrants import EntrantError, factory
from unonet.league.inprocess import play_game
from unonet.league.results import Results, decode_log, stored_events
from unonet.league.runner import check_entrants, play_inprocess, run_league
from unonet.league.schedule import schedule
from unonet.v1 import events_pb2


def factories(config):
    built = check_entrants(config)
    return lambda spec: [built[name] for name in spec.seats]


def test_the_same_game_plays_the_same_every_time(make_league):
    config = make_league()
    spec = schedule(config)[5]
    first = play_game(config, spec, factories(config)(spec))
    again = play_game(config, spec, factories(config)(spec))
    assert first.same_play(again) and first.log == again.log
    assert sorted(first.ranks)[0] == 1 and first.outcomes == ("played",) * 4
    assert first.points[first.ranks.index(1)] == 0  # the winner holds no cards


def test_duplicate_deals_deal_the_same_cards_from_every_seat(make_league):
    config = make_league()
    games = [spec for spec in schedule(config) if spec.deal == 1]
    assert len(games) == 4
    dealt = []
    for spec in games:
        played = play_game(config, spec, factories(config)(spec))
        log = [events_pb2.Event.FromString(blob) for blob in decode_log(played.log)]
        dealt.append(next(e.cards_dealt for e in log if e.HasField("cards_dealt")))
    # the same deal: the same seats get the same number of cards and the same first card is turned
    assert len({d.SerializeToString() for d in dealt}) == 1


class Crashing(Bot):
    kind = "crashing"

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomBot(seed)
        self.decisions = 0

    def decide(self, view, state):
        self.decisions += 1
        if self.decisions > 3:
            raise RuntimeError("a policy bug")
        return self.inner.decide(view, state)


def test_a_policy_that_raises_forfeits_its_seat(make_league):
    config = make_league(size=3, bots=3)
    spec = schedule(config)[0]
    built = [factory(config.bot(name)) for name in spec.seats]
    built[1] = Crashing
    result = play_game(config, spec, built)
    assert result.outcomes[1] == "crash"
    assert result.ranks[1] == 3


def test_python_bots_and_sources_inprocess_cannot_play(tmp_path, make_league):
    config = make_league(bot_lines='[[bot]]\nname = "py"\npython = "unonet.bots.random_bot:RandomBot"\n')
    assert isinstance(factory(config.bot("py"))(1), RandomBot)
    for source in ("exec", "launch"):
        bad = make_league(bot_lines=f'[[bot]]\nname = "x"\n{source} = "./mybot --fast"\n')
        with pytest.raises(EntrantError, match=f"{source} = './mybot --fast' is a program of its own"):
            check_entrants(bad)
    with pytest.raises(EntrantError, match="unknown kind"):
        check_entrants(make_league(bot_lines='[[bot]]\nname = "x"\nkind = "nope"\n'))


def test_cli_refuses_an_unplayable_league_before_playing(tmp_path, capsys):
    path = league_file(tmp_path, bot_lines='[[bot]]\nname = "x"\nlaunch = "./bot"\n')
    from unonet.cli import main

    assert main(["league", "run", str(path), "--inprocess"]) == 2
    assert "launch = './bot' is a program of its own, which plays only over gRPC" in capsys.readouterr().err
    assert not (tmp_path / "league.sqlite").exists() or Results(tmp_path / "league.sqlite").count() == 0
    assert league_cli.__doc__


def test_results_are_idempotent_and_refuse_another_league(make_league, tmp_path):
    config = make_league(games=4)
    summary = run_league(config)
    assert (summary.scheduled, summary.played) == (4, 4)
    again = run_league(config)
    assert (again.already_done, again.played) == (4, 0)
    with Results(config.db) as db:
        first = db.games(with_logs=True)[0]
        assert not db.add(first)
        assert db.count() == 4
    other = make_league(games=4, extra="duplicate = false")
    from unonet.league.results import ResultsMismatch

    with pytest.raises(ResultsMismatch):
        run_league(other)


def test_stored_games_replay_from_their_seeds_and_open_in_unonet_replay(make_league):
    config = make_league(games=8)
    run_league(config)
    specs = {spec.game_id: spec for spec in schedule(config)}
    built = check_entrants(config)
    with Results(config.db) as db:
        stored = db.games(with_logs=True)
    for result in stored:
        spec = specs[result.game_id]
        again = next(iter(play_inprocess(config, [spec])))
        assert again.log == result.log, result.game_id  # bit for bit from the seed and the bots
        assert again.same_play(result)
        events = stored_events(config.db, result.game_id)
        replay = Replay(result.game_id, events)
        assert len(replay.snapshots(None)) == len(events)
        assert replay.names == list(spec.seats)
    assert built


def _rows(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM league_games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # the runner has not created the table yet


def test_sigkill_mid_league_then_rerun_loses_and_doubles_nothing(tmp_path):
    path = league_file(tmp_path, games=96)
    db = tmp_path / "league.sqlite"
    command = [sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--inprocess", "--no-progress", "--json"]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    runner = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while _rows(db) < 10:  # wait for some games to be recorded, then kill the runner mid-league
            assert runner.poll() is None, runner.stderr.read() if runner.stderr else ""
            assert time.monotonic() < deadline, "the runner recorded no games in 60 s"
            time.sleep(0.02)
        runner.send_signal(signal.SIGKILL)
    finally:
        runner.wait(timeout=30)
    assert runner.returncode == -signal.SIGKILL
    killed_at = _rows(db)
    assert 10 <= killed_at < 96
    rerun = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    with sqlite3.connect(db) as conn:
        ids = [row[0] for row in conn.execute("SELECT game_id FROM league_games")]
    assert len(ids) == len(set(ids)) == 96
    # the resumed league holds exactly the games an uninterrupted one plays
    from unonet.league.config import load

    config = load(path)
    with Results(db) as results:
        recorded = {r.game_id: r for r in results.games(with_logs=True)}
    straight = {r.game_id: r for r in play_inprocess(config, schedule(config))}
    assert recorded.keys() == straight.keys()
    assert all(recorded[key].same_play(straight[key]) and recorded[key].log == straight[key].log for key in straight)


def test_the_readme_example_league_runs(tmp_path):
    import dataclasses

    from unonet.league.config import load

    example = Path(__file__).resolve().parents[2] / "examples" / "league.toml"
    config = dataclasses.replace(load(example), db=tmp_path / "example.sqlite", games=4)
    summary = run_league(config)
    assert summary.played == 4
    assert [bot.name for bot in config.bots] == ["greedy", "greedy-1", "basic", "random"]


def test_cli_json_csv_and_plot(tmp_path, capsys):
    import csv
    import json

    from unonet.cli import main

    path = league_file(tmp_path, games=8, size=3)
    board, plot = tmp_path / "board.csv", tmp_path / "ratings.png"
    assert main(["league", "run", str(path), "--inprocess", "--json", "--csv", str(board), "--plot", str(plot)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    data = json.loads(last)
    assert data["games"] == 12 and len(data["standings"]) == 4
    assert {line["name"] for line in data["standings"]} == {"r0", "r1", "r2", "r3"}
    assert data["head_to_head"]["r0"]["r1"]["games"] > 0
    rows = list(csv.DictReader(board.open()))
    assert [row["name"] for row in rows] == [line["name"] for line in data["standings"]]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unonet_replay_and_verify_open_a_league_game(make_league, capsys):
    from unonet.cli import main

    config = make_league(games=4)
    run_league(config)
    assert main(["replay", "--db", str(config.db), "--table-id", "g000002", "--step", "12"]) == 0
    shown = capsys.readouterr().out
    assert "table g000002, step 12 of" in shown and "r0" in shown
    assert main(["verify", "--db", str(config.db), "--table-id", "g000002"]) == 0
    assert "LEAGUE-SEEDED" in capsys.readouterr().out
