"""Export and verify (issue 31, point 7): `unonet export --db LEAGUE.sqlite --game g000001` writes a league
game's log as it writes a host table's, `--all DIR` every game's, and `unonet verify` accepts each export
(LEAGUE-SEEDED), replaying it from the seed its header carries with `--replay`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from league_files import league_file

from unonet.cli import main
from unonet.client.audit import read_log
from unonet.league.results import Results, stored_events


def league_run(*args: str) -> subprocess.CompletedProcess[str]:
    """The league in a process of its own, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "unonet.cli", "league", "run", *args, "--json"],
                          capture_output=True, text=True, timeout=200)


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def unonet(capsys):
    """`unonet ARGS` in this process (export and verify change no process-wide setting)."""

    def run(*args: str) -> Ran:
        capsys.readouterr()
        status = main(list(args))
        out = capsys.readouterr()
        return Ran(status, out.out, out.err)

    return run


@pytest.mark.timeout(240)
@pytest.mark.parametrize("path", ["--inprocess", "--no-progress"], ids=["inprocess", "grpc"])
def test_a_league_game_exports_and_verifies(tmp_path, path, unonet):
    league = league_file(tmp_path, games=3, size=3, bots=3)
    db = tmp_path / "league.sqlite"
    assert league_run(str(league), path).returncode == 0
    exported = unonet("export", "--db", str(db), "--game", "g000002")
    assert exported.returncode == 0, exported.stderr
    header = json.loads(exported.stdout.splitlines()[0])
    with Results(db) as results:
        game = results.game("g000002")
    assert game is not None
    assert header == {"format": "unonet-events", "version": 1, "table_id": "g000002", "league_seed": str(game.seed)}
    log = tmp_path / "g000002.jsonl"
    log.write_text(exported.stdout)
    with log.open("rb") as stream:
        table_id, events = read_log(stream)
    assert table_id == "g000002" and events == stored_events(db, "g000002")  # every event, as recorded
    verified = unonet("verify", str(log))
    assert verified.returncode == 0, verified.stdout
    assert "LEAGUE-SEEDED" in verified.stdout
    replayed = unonet("verify", "--replay", str(log))
    assert replayed.returncode == 0, replayed.stdout
    assert "replayed through the engine from its league seed" in replayed.stdout
    # a forged seed in the header is caught against the log's commitment to it
    forged = tmp_path / "forged.jsonl"
    forged.write_text(exported.stdout.replace(f'"league_seed": "{game.seed}"', f'"league_seed": "{game.seed + 1}"', 1))
    refused = unonet("verify", "--replay", str(forged))
    assert refused.returncode == 1 and "not the one the log commits to" in refused.stdout


def test_export_all_writes_every_game_and_refuses_what_is_not_there(tmp_path, unonet):
    league = league_file(tmp_path, games=3, size=3, bots=3)
    db = tmp_path / "league.sqlite"
    assert league_run(str(league), "--inprocess").returncode == 0
    folder = tmp_path / "logs"
    written = unonet("export", "--db", str(db), "--all", str(folder))
    assert written.returncode == 0 and "wrote 3 logs" in written.stderr
    assert sorted(path.name for path in folder.iterdir()) == ["g000001.jsonl", "g000002.jsonl", "g000003.jsonl"]
    for path in folder.iterdir():
        assert unonet("verify", str(path)).returncode == 0
    missing = unonet("export", "--db", str(db), "--game", "g000099")
    assert missing.returncode == 1 and "no game 'g000099'" in missing.stderr
    assert unonet("export", "--db", str(tmp_path / "none.sqlite"), "--game", "g000001").returncode == 2
    assert not (tmp_path / "none.sqlite").exists()
    assert unonet("export", "--db", str(db)).returncode == 2  # neither --game nor --all
