"""`bench/gc_pauses.py --json` keeps its contract: the last line is one JSON object with a run per
threshold asked for, each counting the commands played, its collections by generation and what a full
collection walked. A tiny run (two tables, 60 commands each); the figures are the benchmark's business."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gc_pauses.py"


@pytest.mark.timeout(200)
def test_a_tiny_gc_bench_run_prints_a_run_per_threshold_as_its_last_line() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--json", "--tables", "2", "--commands", "60",
                          "--thresholds", "10000,200"], capture_output=True, text=True, timeout=180, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["tables"] == 2 and [r["threshold"] for r in out["runs"]] == [10000, 200]
    for r in out["runs"]:
        assert r["commands"] >= 120 and r["loop_cpu_ms_per_command"] > 0
        assert r["tracked_objects_kept"] > 0 and r["full_collection_ms"] > 0
        assert set(r["collections"]) == set(r["longest_pause_ms"]) == {"0", "1", "2"}
    # A threshold of 200 collects the young generation far more often than one of 10,000 over the same play.
    assert out["runs"][1]["collections"]["0"] > out["runs"][0]["collections"]["0"]
