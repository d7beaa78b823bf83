"""Group commits paced by load (commit_pacing.py): an idle host commits on the loop's next turn, a busy
one gathers inputs for up to the ceiling, and `unonet serve` paces this way unless told an interval."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from unonet.cli import build_parser
from unonet.host.commit_pacing import DEFAULT_CEILING_S, LoadPacing
from unonet.host.store import JournalEntry, SqliteStore


class ThreadClock:
    """A loop thread's CPU time that a test moves: `run(share, seconds)` spends that share of a core."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.wall = 0.0

    def run(self, share: float, seconds: float) -> float:
        self.cpu += share * seconds
        self.wall += seconds
        return self.wall


def settled(pacing: LoadPacing, clock: ThreadClock, share: float, *, seconds: float = 2.0) -> float:
    """The interval after `seconds` of the loop's thread busy `share` of the time, asked every millisecond."""
    interval = 0.0
    for _ in range(round(seconds / 0.001)):
        interval = pacing.interval_s(clock.run(share, 0.001))
    return interval


def test_an_idle_loop_waits_for_nothing_and_a_busy_one_for_the_ceiling() -> None:
    clock = ThreadClock()
    pacing = LoadPacing(0.015, idle_share=0.4, busy_share=0.7, cpu_s=lambda: clock.cpu)
    assert pacing.interval_s(clock.wall) == 0.0  # nothing measured yet: idle
    assert settled(pacing, clock, 0.25) == 0.0  # ~200 commands/s
    assert settled(pacing, clock, 0.85) == pytest.approx(0.015)  # flat out
    assert settled(pacing, clock, 1.0) == pytest.approx(0.015)  # never beyond the ceiling
    assert settled(pacing, clock, 0.55) == pytest.approx(0.0075, rel=1e-3)  # halfway: half the ceiling
    assert settled(pacing, clock, 0.0) == 0.0


def test_a_short_burst_moves_the_interval_only_by_its_share_of_the_window() -> None:
    clock = ThreadClock()
    pacing = LoadPacing(0.015, idle_share=0.4, busy_share=0.7, window_s=0.1, cpu_s=lambda: clock.cpu)
    settled(pacing, clock, 0.1)
    burst = settled(pacing, clock, 1.0, seconds=0.02)  # 20 ms flat out after a quiet spell
    assert 0.0 < pacing.busy < 0.4 and burst == 0.0  # 1 - e^-0.2 of the way: still idle
    assert settled(pacing, clock, 1.0, seconds=0.5) == pytest.approx(0.015)  # a sustained load is not


def test_the_shares_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="idle_share"):
        LoadPacing(idle_share=0.8, busy_share=0.7)


def journal_rows(path) -> int:
    with sqlite3.connect(path) as other:
        return int(other.execute("SELECT COUNT(*) FROM journal").fetchone()[0])


async def test_a_store_paced_by_load_holds_a_busy_hosts_group_and_commits_an_idle_ones_at_once(tmp_path) -> None:
    path = tmp_path / "p.db"
    busy = [False]
    clock = [0.0]
    loop = asyncio.get_running_loop()

    def cpu() -> float:  # the loop's thread on a core all the time while `busy`, never otherwise
        now = loop.time()
        if busy[0]:
            clock[0] += now - cpu.last  # type: ignore[attr-defined]
        cpu.last = now  # type: ignore[attr-defined]
        return clock[0]

    cpu.last = loop.time()  # type: ignore[attr-defined]
    # A ceiling no test waits for: a held group shows the pacing decided to wait.
    store = SqliteStore(path, commit_interval_s=LoadPacing(3600.0, window_s=0.001, cpu_s=cpu))
    try:
        store.append("a", JournalEntry(1, 0, {"k": "x"}), [])
        await store.durable()  # idle: committed on the loop's next turn
        await asyncio.sleep(0.01)
        store.append("a", JournalEntry(2, 0, {"k": "y"}), [])
        await store.durable()  # still idle, though the last commit was 10 ms ago
        assert journal_rows(path) == 2
        busy[0] = True
        await asyncio.sleep(0.01)
        store.append("a", JournalEntry(3, 0, {"k": "z"}), [])
        with pytest.raises(TimeoutError):  # busy: held for the pacing's interval (an hour), not committed
            await asyncio.wait_for(store.durable(), 0.2)
        assert store.in_transaction
        assert journal_rows(path) == 2
    finally:
        store.close()  # writes what is held
    assert journal_rows(path) == 3


def test_a_store_paces_by_load_unless_told_a_fixed_interval(tmp_path) -> None:
    assert build_parser().parse_args(["serve"]).commit_interval is None  # what serve() passes by default
    paced = SqliteStore(tmp_path / "a.db")  # serve's, and the local, LAN and league hosts' stores
    fixed = SqliteStore(tmp_path / "b.db", commit_interval_s=0.002)  # serve --commit-interval 2
    try:
        assert isinstance(paced.commit_pacing, LoadPacing) and paced.commit_pacing.ceiling_s == DEFAULT_CEILING_S
        assert fixed.commit_pacing == 0.002
    finally:
        paced.close()
        fixed.close()
