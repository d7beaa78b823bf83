"""`bench/host.py --json` keeps its contract (issue 3, "Speed"): the last line is one JSON object with
the figures the issue names, both game runs and both relay runs, and no errors. A tiny run (2 tables,
1 s windows) so the suite stays fast; the figures themselves are the benchmark's business, not a test's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from unonet.host.event_loop import default_event_loop

BENCH = Path(__file__).resolve().parents[2] / "bench" / "host.py"
REQUIRED = ("commands_per_s", "ceiling_per_s", "ratio", "p50_ms", "p99_ms", "mem_mb_1000_tables")


def test_a_tiny_host_bench_run_prints_every_figure_the_issue_names_as_its_last_line() -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH), "--json", "--tables", "2", "--duration", "1", "--warmup", "0.3",
         "--latency-tables", "2", "--latency-think-ms", "20", "--idle-tables", "8",
         "--stall-streams", "10", "--stall-events", "100",
         "--flood-token-rate", "10",  # so a 1 s flood outruns the token's rate on any machine
         "--flood-repeats", "2",
         "--ceiling-helper-threads", "batch"],  # the like-for-like ceiling's path too
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for key in REQUIRED:
        assert isinstance(out[key], int | float) and out[key] > 0, key
    assert out["errors"] == 0
    # The flooded run: the other tables' latency beside it, and the flood refused by its token's rate.
    assert out["flood_p99_ms"] > 0 and out["flood_calls_per_s"] > 0
    assert out["flood_by_status"].get("RESOURCE_EXHAUSTED", 0) > 0
    # Two pairs of an unflooded and a flooded run: the ratio is the median of the ratios within them.
    assert out["flood_repeats"] == 2 and len(out["flood_p99_ratio_runs"]) == 2
    assert out["flood_p99_ratio"] == pytest.approx(sum(out["flood_p99_ratio_runs"]) / 2, abs=0.01)
    # Latency: the medians over every unflooded paced run (the two pairs' calm runs), each run's listed
    # with the machine's probe, and all their samples pooled.
    assert out["latency_runs"] == 2 and len(out["p99_ms_runs"]) == len(out["latency_machine_runs"]) == 2
    assert out["p99_ms"] == pytest.approx(sum(out["p99_ms_runs"]) / 2, abs=0.01)
    assert out["p50_ms"] == pytest.approx(sum(out["p50_ms_runs"]) / 2, abs=0.01)
    assert out["p99_ms_pooled"] > 0
    for machine in [*out["latency_machine_runs"], *out["ratio_machine_runs"]]:
        assert machine["fsyncs"] > 0 and machine["canary_ms"] > 0
        assert 0 < machine["fsync_p50_ms"] <= machine["fsync_p99_ms"] <= machine["fsync_max_ms"]
    assert out["stall_streams"] == 10 and isinstance(out["stall_kb_per_stream"], int | float)
    assert (out["helper_threads"], out["ceiling_helper_threads"]) == ("batch", "batch")
    assert out["event_loop"] == default_event_loop()  # the host's: unonet serve's default
    assert len(out["commands_per_s_runs"]) == len(out["ceiling_per_s_runs"]) == len(out["ratio_runs"]) == 2
    assert len(out["ratio_machine_runs"]) == 4  # the machine during games, relay, relay, games again
    # Each run's server CPU a command; the host's figure is the mean of its two.
    assert len(out["host_cpu_ms_per_command_runs"]) == len(out["ceiling_cpu_ms_per_command_runs"]) == 2
    assert out["host_cpu_ms_per_command"] == pytest.approx(sum(out["host_cpu_ms_per_command_runs"]) / 2, abs=0.002)
    # The ratio is of the means, each side the mean of its two runs (figures rounded as printed).
    assert out["ceiling_per_s"] == pytest.approx(sum(out["ceiling_per_s_runs"]) / 2, abs=0.1)
    assert out["commands_per_s"] == pytest.approx(sum(out["commands_per_s_runs"]) / 2, abs=0.1)
    assert out["ratio"] == pytest.approx(out["commands_per_s"] / out["ceiling_per_s"], abs=0.002)
