"""The GSPRT gives fishtest's numbers: LLRs checked against fishtest's own LLRcalc on known inputs.

The expected values were computed by fishtest's `server/fishtest/stats/LLRcalc.py` (commit of
github.com/official-stockfish/fishtest fetched 2026-12-02, with scipy's brentq), `LLR_normalized(elo0,
elo1, results)`, and are recorded here to the last printed digit.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from unonet.league.results import GameResult, Results
from unonet.league.schedule import GameSpec
from unonet.league.sprt import Decision, Sprt, llr_normalized, pentanomial, trinomial
from unonet.league.sprt_run import run_sprt, sprt_config

FISHTEST = [
    ([10, 20, 40, 20, 10], 0, 5, -0.020709467029953472),
    ([10, 20, 40, 20, 10], 0, 2, -0.0033136588671523),
    ([10, 20, 40, 20, 10], -1.75, 0.25, 0.0024852486542714875),
    ([10, 20, 40, 20, 10], 0, 50, -2.0601895408342696),
    ([5, 30, 60, 40, 15], 0, 5, 0.5856132306948859),
    ([5, 30, 60, 40, 15], 0, 50, 3.0925828397750177),
    ([0, 3, 10, 7, 2], 0, 5, 0.18711784160472833),
    ([0, 3, 10, 7, 2], 0, 50, 1.5161575307999242),
    ([100, 180, 260, 200, 120], 0, 5, 0.8307834168916893),
    ([100, 180, 260, 200, 120], -1.75, 0.25, 0.42484772119241815),
    ([100, 180, 260, 200, 120], 0, 50, -7.572900968369771),
    ([1, 0, 0, 0, 9], 0, 5, 0.16075763911356628),
    ([1, 0, 0, 0, 9], 0, 50, 1.414381443347978),
    ([30, 0, 50], 0, 5, 0.2795315414944276),
    ([120, 10, 150], 0, 5, 0.4106535989544737),
    ([5, 0, 0], 0, 5, -0.07246399355427861),
]


@pytest.mark.parametrize(("results", "elo0", "elo1", "expected"), FISHTEST)
def test_the_llr_is_fishtests(results: list[int], elo0: float, elo1: float, expected: float) -> None:
    assert llr_normalized(elo0, elo1, results) == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_the_bounds_are_fishtests_at_five_percent() -> None:
    sprt = Sprt(0, 5)
    assert sprt.lower == pytest.approx(-2.944438979)
    assert sprt.upper == pytest.approx(2.944438979)
    assert sprt.upper == pytest.approx(math.log(19))


def test_decisions_follow_the_llr() -> None:
    sprt = Sprt(0, 50)
    assert sprt.decide([0, 0, 0, 0, 0]) is Decision.CONTINUE
    assert sprt.decide([5, 30, 60, 40, 15]) is Decision.H1  # LLR 3.09
    assert sprt.decide([100, 180, 260, 200, 120]) is Decision.H0  # LLR -7.57
    assert sprt.decide([10, 20, 40, 20, 10]) is Decision.CONTINUE  # LLR -2.06


def test_pairs_and_games_are_counted_into_fishtests_shapes() -> None:
    assert pentanomial([(0, 0), (1, 0), (0, 1), (1, 1), (0.5, 1), (0.5, 0.5)]) == [1, 0, 3, 1, 1]
    assert trinomial([0, 1, 1, 0.5]) == [1, 1, 2]
    with pytest.raises(ValueError, match="0, 1/2 or 1"):
        trinomial([0.3])
    with pytest.raises(ValueError, match="elo0 must be below elo1"):
        Sprt(5, 0)
    with pytest.raises(ValueError, match=r"3 .* or 5"):
        llr_normalized(0, 5, [1, 2, 3, 4])


def test_twenty_won_pairs_in_a_row_are_fishtests_llr() -> None:
    assert llr_normalized(0, 5, [0, 0, 0, 0, 20]) == pytest.approx(0.4028835633542879, rel=1e-7)
    assert llr_normalized(0, 5, [0, 0, 20]) == pytest.approx(0.28573498610752335, rel=1e-7)


def test_an_sprt_between_real_bots_decides_records_its_games_and_resumes(tmp_path: Path) -> None:
    config = sprt_config("greedy", "random", db=tmp_path / "sprt.sqlite", seed=7, max_games=2_000)
    seen: list[tuple[int, float]] = []
    outcome = run_sprt(config, Sprt(0, 20), on_cycle=lambda games, llr: seen.append((games, llr)))
    assert outcome.decision is Decision.H1
    assert outcome.llr >= Sprt(0, 20).upper and outcome.games == seen[-1][0]
    assert [games for games, _ in seen] == list(range(2, outcome.games + 1, 2))  # one duplicate pair a step
    assert sum(outcome.counts) * 2 == outcome.games  # pentanomial: each count is a pair
    with Results(config.db) as db:
        assert db.count() == outcome.games

    def nothing_left_to_play(spec: GameSpec) -> GameResult:
        raise AssertionError(f"{spec.game_id} was recorded already")

    again = run_sprt(config, Sprt(0, 20), play=nothing_left_to_play)
    assert again == outcome


def test_independent_games_are_scored_one_by_one(tmp_path: Path) -> None:
    config = sprt_config("greedy", "random", db=tmp_path / "sprt.sqlite", seed=7, duplicate=False, max_games=40)
    outcome = run_sprt(config, Sprt(0, 5))
    assert len(outcome.counts) == 3 and sum(outcome.counts) == outcome.games
    with Results(config.db) as db:
        deals = {game.deal for game in db.games()}
    assert len(deals) == outcome.games  # a fresh deal per game


def test_the_command_line_says_which_hypothesis_and_after_how_many_games(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite"
    run = subprocess.run(
        [sys.executable, "-m", "unonet.cli", "league", "sprt", "greedy", "random", "--elo1", "20", "--seed", "3",
         "--db", str(db), "--json"], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["decision"] == "H1" and out["games"] > 0 and out["scoring"].startswith("pentanomial")
    bad = subprocess.run([sys.executable, "-m", "unonet.cli", "league", "sprt", "greedy", "random",
                          "--elo0", "5", "--elo1", "0", "--db", str(db)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "elo0 must be below elo1" in bad.stderr
