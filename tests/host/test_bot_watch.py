"""A host bot seat can never stop its table (issue 29): the worker watch (`unonet.host.bot_watch`).

Each test seats `strong:1` (a kind the host plays in a worker process) against `random` heads-up, with
a real worker process that fails on purpose (`faulty_worker.py`): one that hangs on its decisions, one
that crashes at every start, one that answers with commands its legal actions do not list, one that
crashes once and is slow to come back. Nothing here waits for the watch's time to pass: its grace and
start allowance are an hour, the host runs on a clock the test moves on (`Clock`), and a test moves
it only once the fault provably happened (the worker marked the decision it hung on or answered
wrongly, or the watch is timing a decision of a seat whose worker is down)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from polling import poll_until

from unonet.client.table_client import TableClient
from unonet.host.bot_workers import WorkerSpec
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.table import Table
from unonet.v1 import events_pb2

TIMEOUT = 10.0
MATCH_TIMEOUT = 90.0
HOUR_S = 3600.0
FAULTY = Path(__file__).parent.parent / "support" / "faulty_worker.py"


class Clock:
    """The host's clock: this machine's, plus whatever the test moved it on by."""

    def __init__(self) -> None:
        self.offset_ns = 0

    def __call__(self) -> int:
        return time.time_ns() + self.offset_ns

    def move_on(self, seconds: float) -> None:
        self.offset_ns += int(seconds * 1e9)


def faulty(mode: str, marks: Path) -> Callable[[WorkerSpec], list[str]]:
    def command(spec: WorkerSpec) -> list[str]:
        return [sys.executable, str(FAULTY), mode, str(marks), "--address", spec.address, "--table", spec.table_id,
                "--seat", str(spec.seat)]

    return command


async def _until(predicate: Callable[[], bool], what: str, timeout: float = MATCH_TIMEOUT) -> None:
    await poll_until(predicate, what, timeout=timeout)


def fallbacks(table: Table) -> list[tuple[int, events_pb2.BotFallback]]:
    """Every BotFallback of the table's log, with its event number."""
    out = []
    for entry in table.log:
        event = table.render(entry, None)
        if event.HasField("bot_fallback"):
            out.append((event.number, event.bot_fallback))
    return out


@pytest.fixture
async def served(tmp_path):
    clock = Clock()
    host = Host(fair_shuffle=False, clock_ns=clock)
    host.workers.restart_delays = (0.0,)
    host.watch.grace_s = host.watch.start_allowance_s = HOUR_S
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}", host, clock
    await asyncio.wait_for(host.stop(), TIMEOUT + 5)
    await asyncio.wait_for(server.stop(None), TIMEOUT)


async def _seat(address: str, host: Host) -> Table:
    """A one-round heads-up table: the worker kind at seat 0, `random` at seat 1, started."""
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {"target_score": 1}, 2, manual_start=True)
        assert await client.add_bots(1, "strong:1", table_id=created.table_id) == [0]
        assert await client.add_bots(1, "random", table_id=created.table_id) == [1]
        await client.start_table(table_id=created.table_id)
    return host.tables[created.table_id]


def _over(table: Table) -> bool:
    return table.match is not None and table.match.is_over


async def _fail_by_silence(host: Host, clock: Clock, table: Table, marks: Path, times: int) -> None:
    """`times` times: once the worker marked a decision it hung on or answered wrongly, and the watch
    times it, move the clock past its allowance and wait for the fallback's decision."""
    for failure in range(1, times + 1):
        await _until(lambda n=failure: len(list(marks.iterdir())) >= n
                     and host.watch.owed_since(table.table_id, 0) is not None,
                     f"failure {failure}: a decision the worker failed, timed by the watch")
        clock.move_on(3 * HOUR_S)
        table.wake_driver(force=True)
        await _until(lambda n=failure: len(fallbacks(table)) >= n, f"fallback {failure}")


@pytest.mark.timeout(MATCH_TIMEOUT * 2)
@pytest.mark.parametrize("mode", ["hang", "illegal"])
async def test_a_worker_that_does_not_decide_is_restarted_then_replaced_for_the_rest_of_the_match(
        served, tmp_path, mode):
    address, host, clock = served
    marks = tmp_path / "marks"
    marks.mkdir()
    host.workers.command = faulty(mode, marks)
    table = await _seat(address, host)
    await _fail_by_silence(host, clock, table, marks, host.workers.max_failures)
    await _until(lambda: _over(table), "the match ends, played by the fallback")
    seen = fallbacks(table)
    assert [fallback.reason for _, fallback in seen] == [events_pb2.BOT_FALLBACK_REASON_WORKER_SILENT] * 3
    assert [fallback.rest_of_match for _, fallback in seen] == [False, False, True]
    for number, fallback in seen:
        assert (fallback.seat, fallback.bot_kind, fallback.fallback_kind) == (0, "strong:1", "greedy:3")
        assert fallback.allowed.ToSeconds() >= 2 * HOUR_S  # the grace and the start allowance
        assert (0, f"bot-{number}") in table.commands, "the fallback's decision follows its event at once"
    assert host.workers.starts(table.table_id, 0) == 3, "started, restarted after each failure but the last"
    assert len(list(marks.iterdir())) >= 3
    await _until(lambda: not host.workers.processes(table.table_id), "the retired worker stopped")
    assert table.fallback_kinds == {0: "greedy:3"}


@pytest.mark.timeout(MATCH_TIMEOUT * 2)
async def test_a_worker_that_crashes_at_every_start_is_replaced_for_the_rest_of_the_match(served, tmp_path):
    address, host, _ = served
    host.workers.command = faulty("crash", tmp_path)
    table = await _seat(address, host)
    await _until(lambda: _over(table), "the match ends, played by the fallback")
    [(_, fallback)] = fallbacks(table)
    assert fallback.reason == events_pb2.BOT_FALLBACK_REASON_WORKER_DOWN and fallback.rest_of_match
    assert fallback.fallback_kind == "greedy:3"
    assert host.workers.starts(table.table_id, 0) == host.workers.max_failures == 3
    assert table.fallback_kinds == {0: "greedy:3"}
    # The journal says so: a host restored from the same store plays the seat by its fallback too.
    again = Host(store=host.store, fair_shuffle=False)
    assert again.restore() >= 1
    restored = again.table(table.table_id)
    assert restored.fallback_kinds == {0: "greedy:3"}
    assert [f for _, f in fallbacks(restored)] == [fallback]


@pytest.mark.timeout(MATCH_TIMEOUT * 2)
async def test_while_a_crashed_worker_waits_to_restart_its_fallback_makes_the_seats_decisions(served, tmp_path):
    """A worker that crashed once and is slow to come back (its restart an hour away): each decision the
    seat owes meanwhile is the fallback's, once its allowance is over, and is no further failure."""
    address, host, clock = served
    host.workers.command = faulty("crash", tmp_path)
    host.workers.restart_delays = (2 * HOUR_S,)  # by this machine's time: not within the test
    table = await _seat(address, host)
    await _until(lambda: host.workers.starts(table.table_id, 0) == 1 and not host.workers.processes(table.table_id)
                 and host.workers.state(table.table_id, 0) is not None
                 and not host.workers.state(table.table_id, 0).running, "the worker crashed")
    decided = 0
    while not _over(table):
        await _until(lambda: _over(table) or host.watch.owed_since(table.table_id, 0) is not None,
                     "the seat owes a decision")
        if _over(table):
            break
        clock.move_on(3 * HOUR_S)
        table.wake_driver(force=True)
        decided += 1
        await _until(lambda n=decided: len(fallbacks(table)) >= n, f"fallback {decided}")
    seen = [fallback for _, fallback in fallbacks(table)]
    assert seen and all(f.reason == events_pb2.BOT_FALLBACK_REASON_WORKER_DOWN and not f.rest_of_match
                        for f in seen)
    assert host.workers.starts(table.table_id, 0) == 1 and not table.fallback_kinds
