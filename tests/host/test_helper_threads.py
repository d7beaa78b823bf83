"""gRPC's helper threads run under SCHED_BATCH so they do not preempt the event loop's thread (threads.py).

Linux only: elsewhere `HelperThreads.start` does nothing and says so.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from unonet.host.threads import HelperThreads, batch_other_threads, supported

pytestmark = pytest.mark.skipif(not supported(), reason="SCHED_BATCH and /proc/self/task are Linux's")
START_TIMEOUT = 30
LISTENING = re.compile(r"unonet host listening on 127\.0\.0\.1:(\d+)")


@contextmanager
def parked_thread() -> Iterator[int]:
    """A thread that waits until the block ends; yields its native id."""
    release, started = threading.Event(), threading.Event()
    native: list[int] = []

    def park() -> None:
        native.append(threading.get_native_id())
        started.set()
        release.wait()

    thread = threading.Thread(target=park, daemon=True)
    thread.start()
    started.wait()
    try:
        yield native[0]
    finally:
        release.set()
        thread.join()


def _policies(pid: int) -> dict[int, int]:
    """The scheduling policy of each thread of process `pid` (a thread that ends meanwhile is left out)."""
    policies = {}
    for entry in os.listdir(f"/proc/{pid}/task"):
        try:
            policies[int(entry)] = os.sched_getscheduler(int(entry))
        except ProcessLookupError:
            continue
    return policies


@contextmanager
def restored_policies() -> Iterator[None]:
    """Whatever a test moves to SCHED_BATCH goes back to SCHED_OTHER afterwards (the rest of the run)."""
    before = _policies(os.getpid())
    try:
        yield
    finally:
        for tid, policy in before.items():
            try:
                if os.sched_getscheduler(tid) != policy:
                    os.sched_setscheduler(tid, policy, os.sched_param(0))
            except ProcessLookupError:
                continue


def test_every_thread_but_the_one_kept_moves_to_sched_batch_once() -> None:
    me = threading.get_native_id()
    with restored_policies(), parked_thread() as helper:
        assert os.sched_getscheduler(helper) == os.SCHED_OTHER
        moved = batch_other_threads(keep=me)
        assert helper in moved and me not in moved
        assert os.sched_getscheduler(helper) == os.SCHED_BATCH
        assert os.sched_getscheduler(me) == os.SCHED_OTHER
        assert batch_other_threads(keep=me) == []  # nothing left to move


async def test_a_thread_started_later_is_moved_by_the_next_look() -> None:
    helpers = HelperThreads(interval_s=0.01)
    with restored_policies():
        assert helpers.start()
        try:
            with parked_thread() as late:
                async with asyncio.timeout(5):
                    while os.sched_getscheduler(late) != os.SCHED_BATCH:
                        await asyncio.sleep(0.01)  # polling for the rescan's effect, bounded above
                assert os.sched_getscheduler(threading.get_native_id()) == os.SCHED_OTHER
        finally:
            helpers.stop()


# Policies by name: os.SCHED_BATCH does not exist off Linux, where this module is collected and skipped.
@pytest.mark.parametrize(("option", "helpers_policy"), [([], "SCHED_BATCH"),
                                                        (["--helper-threads", "default"], "SCHED_OTHER")])
async def test_unonet_serve_runs_its_helper_threads_under_sched_batch_unless_told_not_to(
    tmp_path: Path, option: list[str], helpers_policy: str,
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "unonet.cli", "serve", "--listen", "127.0.0.1:0", "--db", str(tmp_path / "h.db"),
        *option, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)).decode()
        assert LISTENING.search(line), line  # printed once the server runs and the policy is set
        policies = _policies(process.pid)
        assert policies.pop(process.pid) == os.SCHED_OTHER  # the event loop's thread (the main one)
        assert policies, "gRPC started no helper threads"
        assert set(policies.values()) == {getattr(os, helpers_policy)}
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)
