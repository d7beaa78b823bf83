"""The statistics organisers expect (issue 31, point 5): the Elo difference of every heads-up pairing
with its 95% interval and likelihood of superiority, as fishtest computes it, from duplicate pairs
(pentanomial) where the deals were duplicated and from games (trinomial) otherwise; and `unonet league
sprt` printing it, for any entrant, an `exec` program included."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from unonet.league.elo import elo_estimate, heads_up, logistic_elo
from unonet.league.results import GameResult

# fishtest's published figures (tests.stockfishchess.org, as quoted in Stockfish's pull requests): the
# counts, and "Elo: E ± H (95%) LOS: L%" to the digits printed.
PUBLISHED = [
    # official-stockfish/Stockfish#6255 ("Passed Stalemate 10k"): pentanomial
    ([1, 137, 4659, 203, 0], 2.22, 1.3, 100.0),
    # official-stockfish/Stockfish#4160 (fixed games at 180+1.8): pentanomial
    ([39, 5335, 18992, 5622, 12], 1.35, 1.2, 98.6),
    # official-stockfish/Stockfish#3867 (fixed number of games, 8moves_v3): pentanomial
    ([44, 1194, 7566, 1150, 46], -0.69, 1.8, 22.1),
    # official-stockfish/Stockfish#311 (W 8711 L 8160 D 23253): trinomial [L, D, W]
    ([8160, 23253, 8711], 4.77, 2.2, 100.0),
    # mcostalba/Stockfish#263 (W 8312 L 7980 D 23708): trinomial
    ([7980, 23708, 8312], 2.88, 2.2, 99.5),
]


@pytest.mark.parametrize(("counts", "elo", "half", "los"), PUBLISHED)
def test_the_estimate_is_fishtests_to_the_published_digits(counts, elo, half, los):
    estimate = elo_estimate(counts)
    assert round(estimate.elo, 2) == elo
    assert round(estimate.half_width, 1) == half
    assert round(100 * estimate.los, 1) == los
    assert estimate.low < estimate.elo < estimate.high
    assert estimate.games == (2 * sum(counts) if len(counts) == 5 else sum(counts))


def test_edges_and_shapes():
    assert logistic_elo(0.5) == 0.0 and logistic_elo(1.0) == pytest.approx(1199.83, abs=0.01)  # clamped at 0.999
    even = elo_estimate([0, 0, 10, 0, 0])  # ten drawn pairs: no difference, and no spread but the 1/1000s
    assert abs(even.elo) < 1e-9 and even.los == pytest.approx(0.5)
    assert "Elo: +0.00 ± " in even.describe() and "LOS: 50.0%" in even.describe()
    for bad in ([1, 2], [0, 0, 0]):
        with pytest.raises(ValueError):
            elo_estimate(bad)


def result(game_id: str, deal: int, rotation: int, seats: tuple[str, ...], ranks: tuple[int, ...]) -> GameResult:
    index = int(game_id[1:])
    return GameResult(game_id, index, 0, deal, deal, rotation, seats, ranks, (0,) * len(seats),
                      ("played",) * len(seats), 1, "inprocess", 0.0)


def test_heads_up_pairings_read_duplicate_pairs_pentanomially_and_lone_games_trinomially():
    games = [
        # a and b on duplicate deals: deal 1 won twice by a (WW), deal 2 split (LW+WL), deal 3 half recorded
        result("g1", 1, 0, ("a", "b"), (1, 2)), result("g2", 1, 1, ("b", "a"), (2, 1)),
        result("g3", 2, 0, ("a", "b"), (2, 1)), result("g4", 2, 1, ("b", "a"), (2, 1)),
        result("g5", 3, 0, ("a", "b"), (1, 2)),
        # b and c on deals of their own: two games, c wins one, one draw
        result("g6", 4, 0, ("b", "c"), (2, 1)), result("g7", 5, 0, ("c", "b"), (1, 1)),
        # a four-seat table: OpenSkill's, not a heads-up pairing
        result("g8", 6, 0, ("a", "b", "c", "d"), (1, 2, 3, 4)),
    ]
    pairings = {(p.first, p.second): p.estimate for p in heads_up(games, ["a", "b", "c", "d"])}
    assert set(pairings) == {("a", "b"), ("b", "c")}
    assert pairings["a", "b"].counts == (0, 0, 1, 0, 1) and pairings["a", "b"].model == "pentanomial"
    assert pairings["b", "c"].counts == (1, 1, 0) and pairings["b", "c"].model == "trinomial"
    assert pairings["a", "b"].elo > 0 > pairings["b", "c"].elo


SEEDED_BOT = Path(__file__).with_name("seeded_exec_bot.py")


@pytest.mark.timeout(240)
def test_sprt_takes_an_exec_entrant_and_ends_with_the_elo_estimate(tmp_path):
    program = f"mine=exec:{shlex.quote(sys.executable)} {shlex.quote(str(SEEDED_BOT))}"
    command = [sys.executable, "-m", "unonet.cli", "league", "sprt", program, "random", "--elo1", "20",
               "--max-games", "4", "--db", str(tmp_path / "sprt.sqlite"), "--games-at-once", "4"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=200)
    assert run.returncode == 3, run.stderr  # undecided after 4 games: the limit came first
    assert "after 4 games" in run.stdout
    line = next(line for line in run.stdout.splitlines() if line.startswith("mine against random: Elo: "))
    assert "(95%) LOS: " in line and "pentanomial" in line
    as_json = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=200)  # resumed: no games
    data = json.loads(as_json.stdout.strip().splitlines()[-1])
    assert data["games"] == 4 and sum(data["counts"]) == 2
    estimate = elo_estimate(data["counts"])
    assert data["elo_estimate"]["elo"] == pytest.approx(estimate.elo)
    assert data["elo_estimate"]["low"] == pytest.approx(estimate.low)
