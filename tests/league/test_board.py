"""The board says what happened, per bot (issue 31, point 3): crashes, restarts, timeouts, time losses,
bad and illegal answers, forfeits and stalls, each counted apart, and each bot's decision time (median,
p99, max), in the leaderboard, `--json` and `--csv`; log lines name league game ids."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from league_files import league_file
from rich.console import Console

from unonet.league import config as league_config
from unonet.league import report
from unonet.league.network import NetworkedLeague, NetworkOptions
from unonet.league.results import GameResult, Results
from unonet.league.runner import run_league
from unonet.league.schedule import schedule
from unonet.league.standings import percentile, standings
from unonet.league.tallies import SeatStats

GAME_TIMEOUT = 90.0


def game(index: int, seats: tuple[str, ...], ranks: tuple[int, ...], outcomes: tuple[str, ...],
         stats: tuple[SeatStats, ...] = ()) -> GameResult:
    return GameResult(f"g{index:06d}", index, 0, index, index, 0, seats, ranks, (0,) * len(seats), outcomes, 1,
                      "grpc", 0.0, stats=stats)


def test_each_failure_is_counted_apart_and_decision_times_are_nearest_rank_percentiles():
    times = tuple(range(1000, 101_000, 1000))  # 1 ms to 100 ms, one each
    games = [
        game(1, ("a", "b"), (1, 2), ("played", "forfeit"),
             (SeatStats(decision_us=times), SeatStats(crashes=4, restarts=3, bad_answers=2, illegal=1))),
        game(2, ("b", "a"), (2, 1), ("time_loss", "played"),
             (SeatStats(timeouts=2, decision_us=(5_000_000,)), SeatStats())),
        game(3, ("a", "b"), (1, 1), ("stall", "stall"), (SeatStats(), SeatStats())),
        game(4, ("a", "b"), (2, 1), ("crash", "played")),  # a row from before per-seat stats
    ]
    table = {line.name: line for line in standings(games, ["a", "b"])}
    b = table["b"]
    assert (b.crashes, b.restarts, b.timeouts, b.time_losses, b.bad_answers, b.illegal, b.forfeits, b.stalls) == (
        4, 3, 2, 1, 2, 1, 1, 1)
    assert (b.decisions, b.decision_p50_ms, b.decision_max_ms) == (1, 5000.0, 5000.0)
    a = table["a"]
    assert (a.crashes, a.forfeits, a.stalls, a.decisions) == (1, 0, 1, 100)  # the old row's crash counts
    assert (a.decision_p50_ms, a.decision_p99_ms, a.decision_max_ms) == (50.0, 99.0, 100.0)
    assert percentile([1, 2, 3, 4], 0.5) == 2 and percentile([7], 0.99) == 7
    assert a.losses_by_failure == 2 and b.losses_by_failure == 3


def test_the_board_json_and_csv_carry_the_columns(make_league, tmp_path):
    bots = ('[[bot]]\nname = "crashes"\npython = "league_bots:CrashingBot"\n'
            '[[bot]]\nname = "passes"\npython = "league_bots:PassingBot"\n')
    config = make_league(games=3, size=3, bots=1, bot_lines=bots)  # r0, crashes, passes: one cycle
    run_league(config)
    with Results(config.db) as db:
        results = db.games()
    lines = {line.name: line for line in standings(results, [spec.name for spec in config.bots])}
    assert lines["crashes"].crashes == 3 and lines["crashes"].losses_by_failure == 3  # in-process: each forfeits
    assert lines["passes"].illegal > 0 and lines["passes"].crashes == 0
    assert all(line.decisions > 0 and line.decision_p50_ms <= line.decision_p99_ms <= line.decision_max_ms
               for line in lines.values())
    out = io.StringIO()
    report.leaderboard(config, results, Console(file=out, width=80))
    text = out.getvalue()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    failures = text.split("what went wrong")[1].split("decision times")[0]
    row = next(line for line in failures.splitlines() if line.startswith(" crashes "))
    assert row.split()[1:] == ["3", "0", "0", "0", "0", "0", "0", "0"]
    data = report.summary(config, results)
    entry = next(line for line in data["standings"] if line["name"] == "passes")
    assert entry["illegal"] == lines["passes"].illegal and entry["decision_p99_ms"] > 0
    report.write_csv(tmp_path / "board.csv", standings(results, [spec.name for spec in config.bots]))
    rows = {row["name"]: row for row in csv.DictReader((tmp_path / "board.csv").open())}
    assert rows["crashes"]["crashes"] == "3" and float(rows["passes"]["decision_max_ms"]) > 0
    assert set(report.CSV_FIELDS) <= set(rows["passes"])


def misbehaving(tmp_path: Path) -> str:
    """An exec bot whose first answer is garbage and second a command the legal actions do not list (a Pass
    at the start of a turn); then it plays as the sh example bot does."""
    script = tmp_path / "misbehaves.sh"
    script.write_text("""#!/bin/sh
n=0
while IFS= read -r line; do
  case $line in
    '{"required":true'*)
      n=$((n + 1))
      if [ $n -eq 1 ]; then echo 'not an answer'
      elif [ $n -eq 2 ]; then echo '{"rpc": "Pass", "request": {}}'
      else echo 0; fi ;;
    *) echo null ;;
  esac
done
""")
    script.chmod(0o755)
    return str(script)


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_programs_bad_and_illegal_answers_are_counted_and_its_log_lines_name_the_game(tmp_path, capfd):
    lines = f'[[bot]]\nname = "prog"\nexec = {misbehaving(tmp_path)!r}\n'
    config = league_config.load(league_file(tmp_path, size=3, bots=2, games=3, bot_lines=lines))
    spec = schedule(config)[0]
    async with NetworkedLeague(config, NetworkOptions(turn_time_s=1.0, strikes_before_takeover=0)) as networked:
        result = await asyncio.wait_for(networked.play(spec), GAME_TIMEOUT)
        table_ids = [table.table_id for table in networked.store.tables()]
    seat = spec.seats.index("prog")
    stats = result.stats[seat]
    assert (stats.bad_answers, stats.illegal) == (1, 1)
    assert stats.timeouts == 2  # the clock decided both turns
    assert len(stats.decision_us) >= 3 and max(stats.decision_us) >= 900_000  # the two timed-out turns
    # charged to it alone (the others' clocks are their own: a loaded machine may time one out)
    assert all(other.bad_answers == other.illegal == other.crashes == 0 for other in result.stats if other is not stats)
    err = capfd.readouterr().err  # the seats process's lines, forwarded through the runner's stderr
    said = [line for line in err.splitlines() if "garbage" in line or "illegal" in line]
    assert said and all(f"{spec.game_id} seat {seat} (prog)" in line for line in said), err
    assert table_ids and not any(table_id in err for table_id in table_ids)


def test_cli_board_columns_in_json_and_csv(tmp_path):
    bots = '[[bot]]\nname = "crashes"\npython = "league_bots:CrashingBot"\n'
    path = league_file(tmp_path, games=3, size=3, bots=2, bot_lines=bots)
    support = Path(__file__).resolve().parents[1] / "support"
    command = [sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--inprocess", "--json",
               "--csv", str(tmp_path / "board.csv")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False,
                         env={**os.environ, "PYTHONPATH": str(support)})
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout.strip().splitlines()[-1])
    crashes = next(line for line in data["standings"] if line["name"] == "crashes")
    assert crashes["crashes"] == 3 and crashes["forfeits"] == 0 and crashes["decisions"] > 0
    header = (tmp_path / "board.csv").read_text().splitlines()[0].split(",")
    assert header == list(report.CSV_FIELDS)
