"""`bench/bots.py --json` keeps its contract: the last line is one JSON object with the figures the
issue names, and a kind registered later gets its pairings and decision times without any change to
the bench (the `strong` slot). Tiny runs (a few deals, search kinds at their `--quick` budget), so the
suite stays fast: the contract is the same in both modes, and strong's full budget only costs time."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType

import pytest

from unonet.bots import kinds

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bots.py"
REQUIRED = ("greedy_vs_random_2p", "greedy_vs_basic_2p", "oracle_vs_greedy_2p", "games",
            "greedy_decision_p99_ms")


def _bench_module():
    spec = importlib.util.spec_from_file_location("bots_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_tiny_run_prints_the_named_figures_last() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--json", "--quick", "--deals", "3"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for key in REQUIRED:
        assert isinstance(out[key], int | float), key
    assert out["games"] == 6 and out["games_by_pairing"]["strong_vs_random_4p"] == 12
    assert out["mode"] == "quick" and out["engine_build"] in ("pure", "compiled")
    assert sorted(out["pairings"]) == sorted(_bench_module().QUICK_PAIRINGS)  # the quick run: the targets' pairings
    lo, hi = out["greedy_vs_random_2p_ci95"]
    assert lo <= out["greedy_vs_random_2p"] <= hi
    # `strong` is registered: its pairings and decision times come from the registry like every kind's.
    assert {"strong_vs_random_2p", "strong_vs_random_4p", "strong_vs_greedy_2p", "strong_decision_p99_ms"} <= out.keys()
    assert out["strong_seated_as"] == kinds.BOT_KINDS["strong"].quick_level  # the budget its registry entry gives


def test_a_tiny_host_run_plays_through_addbots_and_says_so() -> None:
    """`--host`: the same JSON contract, from games a real host's AddBots seated (its worker plays strong),
    with the arena on the same deals beside each figure, and no table stalled."""
    run = subprocess.run([sys.executable, str(BENCH), "--host", "--json", "--deals", "1", "--seat", "strong:1",
                          "--pairings", "greedy_vs_random_2p,strong_vs_random_2p"],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["mode"] == "host (full)" and out["host_games"] == 4 and out["stalls"] == 0
    for key in ("greedy_vs_random_2p", "strong_vs_random_2p"):
        assert out[f"{key}_games"] == 2 and out[f"{key}_deals_complete"] == 1
        for figure in (key, f"{key}_arena", f"{key}_host_minus_arena"):
            assert isinstance(out[figure], float) and len(out[f"{figure}_ci95"]) == 2
    assert out["strong_seated_as"] == "strong:1"
    assert out["strong_host_searches"] > 0 and out["strong_host_unsearchable"] == out["strong_host_ahead"] == 0
    assert out["strong_host_search_budget_reached"] == 1.0 and out["strong_arena_searches"] > 0


def test_a_kind_registered_later_is_measured_like_the_others(monkeypatch) -> None:
    strong = dataclasses.replace(kinds.BOT_KINDS["greedy"], name="strong")
    monkeypatch.setattr(kinds, "BOT_KINDS", MappingProxyType({**kinds.BOT_KINDS, "strong": strong}))
    bench = _bench_module()
    keys = {pairing.key for pairing in bench.pairings(kinds.bench_kinds(quick=True))}
    assert {"strong_vs_random_2p", "strong_vs_random_4p", "strong_vs_greedy_2p"} <= keys
    times: dict[str, list[int]] = {}
    outcomes = [bench.play_pairing(bench.Pairing("strong", "greedy", 2), 2, times),
                bench.play_pairing(bench.Pairing("oracle", "greedy", 2), 2, times)]
    data = bench.figures(outcomes, times, 2, "quick")
    assert data["strong_decision_p99_ms"] >= data["strong_decision_p50_ms"] > 0
    assert "strong_vs_greedy_2p" in data


@pytest.mark.parametrize(("samples", "expected"), [([1.0, 0.0, 1.0, 0.0], (0.5, 0.5 - 1.96 * 0.57735 / 2))])
def test_the_interval_is_the_normal_one_over_deals(samples, expected) -> None:
    mean, lo, hi = _bench_module().interval(samples)
    assert mean == expected[0]
    assert lo == pytest.approx(expected[1], abs=1e-3) and hi == pytest.approx(1 - expected[1], abs=1e-3)


def test_jobs_split_the_deals_and_give_the_same_games() -> None:
    bench = _bench_module()
    pairing = bench.Pairing("greedy", "random", 2)
    alone = bench.play_pairing(pairing, 3, {})
    split = bench.play_pairing(pairing, 3, {}, jobs=2)
    assert split.deal_wins == alone.deal_wins and split.deal_points == alone.deal_points
    assert split.games == alone.games == 6
