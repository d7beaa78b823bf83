"""A league on a Dask cluster: a LocalCluster of two worker processes on 127.0.0.1 (no dashboard),
one worker killed with SIGKILL mid-batch; its batch is rerun elsewhere and nothing counts twice."""

from __future__ import annotations

import os
import signal

import pytest

from unonet.league.cluster import batches, dask_player
from unonet.league.results import Results
from unonet.league.runner import play_inprocess, run_league
from unonet.league.schedule import schedule

distributed = pytest.importorskip("distributed")


def test_batches_keep_schedule_order(make_league):
    specs = schedule(make_league(games=24, size=3))
    chunks = batches(specs, 5)
    assert [spec for chunk in chunks for spec in chunk] == specs
    assert [len(chunk) for chunk in chunks] == [5, 5, 5, 5, 4]


@pytest.mark.timeout(180)
def test_a_league_on_a_local_cluster_survives_a_killed_worker(make_league):
    config = make_league(games=12, size=3)
    expected = {r.game_id: r for r in play_inprocess(config, schedule(config))}
    assert len(expected) == 12
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                 dashboard_address=None) as cluster,
        distributed.Client(cluster, timeout=60) as client,
    ):
        pids = client.run(os.getpid)
        killed: list[str] = []

        def kill_a_busy_worker(result, done, total, leader):
            if killed:
                return
            for address, keys in client.processing().items():
                if keys and address in pids:
                    os.kill(pids[address], signal.SIGKILL)  # mid-batch: it is running a batch now
                    killed.append(address)
                    return

        summary = run_league(config, dask_player(cluster.scheduler_address, batch=2), on_game=kill_a_busy_worker)
    assert killed, "no worker was busy when the first batch came back"
    assert summary.played == 12
    with Results(config.db) as db:
        recorded = db.games(with_logs=True)
    assert sorted(r.game_id for r in recorded) == sorted(expected)
    for result in recorded:
        assert result.path == "grpc"
        twin = expected[result.game_id]
        assert (result.ranks, result.points, result.outcomes) == (twin.ranks, twin.points, twin.outcomes)
