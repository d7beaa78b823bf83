"""Bot seats of a kind that searches are played by worker processes the host supervises: started when
the seat needs them, restarted after a crash, stopped with the host. The kind here is greedy flagged
`in_worker` (the registry's `strong` will be one), so the real worker entry point plays it.

A crashed worker is started again only while its seat still wants it (`BotWorkers.wanted`): a crash
seen once the match is over is not restarted. The crash in the table test is therefore made on cue,
while the match provably goes on: the other seat's player is held at its own turn (no jump-in in
`standard`, and a turn clock far longer than the hold), so nobody can end the match until the test lets
it go."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import signal
import sys
from collections.abc import Callable
from types import MappingProxyType

import pytest
from bot_tables import clock
from polling import poll_until

from unonet.bots import kinds
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient
from unonet.host.bot_workers import BotWorkers, WorkerSpec, default_command
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.table import Table

TIMEOUT = 10.0
MATCH_TIMEOUT = 90.0


@pytest.fixture
def worker_kind(monkeypatch):
    """`greedy` marked in_worker under the name `workergreedy`; its workers are started as greedy."""
    worker = dataclasses.replace(kinds.BOT_KINDS["greedy"], name="workergreedy", in_worker=True)
    monkeypatch.setattr(kinds, "BOT_KINDS", MappingProxyType({**kinds.BOT_KINDS, "workergreedy": worker}))

    def command(spec: WorkerSpec) -> list[str]:
        return default_command(dataclasses.replace(spec, kind=spec.kind.replace("workergreedy", "greedy")))

    return command


@pytest.fixture
async def served(worker_kind):
    host = Host(fair_shuffle=False)
    host.workers.command = worker_kind
    host.workers.restart_delays = (0.1,)
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await asyncio.wait_for(server.start(), TIMEOUT)
    yield f"127.0.0.1:{port}", host
    await asyncio.wait_for(host.stop(), TIMEOUT + 5)
    await asyncio.wait_for(server.stop(None), TIMEOUT)


_wait_for = functools.partial(poll_until, timeout=MATCH_TIMEOUT)


class HeldGreedy(GreedyBot):
    """Greedy, except that once `hold()` is true it waits at its next decision until `release` is set.
    While it waits its seat owes the decision, so (no jump-in, a long turn clock) the match cannot end."""

    def __init__(self, hold: Callable[[], bool]) -> None:
        super().__init__(seed=2)
        self.hold = hold
        self.parked = asyncio.Event()
        self.release = asyncio.Event()

    async def decide_async(self, view, state):
        if self.hold() and not self.release.is_set():
            self.parked.set()
            await self.release.wait()
        return await super().decide_async(view, state)


def _where(host: Host, table: Table) -> str:
    """Where a stalled table stands: whose move, each seat's commands and streams, the workers."""
    match = table.match
    game = None if match is None or match.is_over else match.game
    commands = [sum(1 for key in table.commands if key[0] == seat.index) for seat in table.seats]
    return (f"to act {None if game is None else game.to_act}, phase {None if game is None else game.phase}, "
            f"round {None if match is None else match.round_no}, commands by seat {commands}, "
            f"streams by seat {[seat.connected for seat in table.seats]}, "
            f"workers {sorted(host.workers.processes(table.table_id))}, "
            f"starts {host.workers.starts(table.table_id, 1)}")


def _recording(workers: BotWorkers) -> asyncio.Queue[bool]:
    """The supervisor's answers to `wanted` (asked after every crash), in order."""
    answers: asyncio.Queue[bool] = asyncio.Queue()
    asked = workers.wanted

    def wanted(table_id: str, seat: int, kind: str) -> bool:
        answer = asked(table_id, seat, kind)
        answers.put_nowait(answer)
        return answer

    workers.wanted = wanted
    return answers


@pytest.mark.timeout(MATCH_TIMEOUT * 2 + 30)
async def test_a_worker_plays_the_seat_is_restarted_after_a_crash_and_stops_with_the_host(served):
    address, host = served
    answers = _recording(host.workers)
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        # A turn clock far longer than the hold (which lasts until the restart, a fraction of a second), never
        # taking a seat over: it only moves the table on if a runner ever waited for nothing.
        created = await client.create_table("standard", {"target_score": 30}, 2, name="w", manual_start=True,
                                            clock=clock(10.0, strikes=0))
        joined = await client.join(created.table_id, "me", seat=0)
        assert await client.add_bots(1, "workergreedy") == [1]
        await client.start_table()
        table = host.tables[created.table_id]

        def worker_acted() -> bool:  # the clock's own entries are not commands: these are the worker's
            return any(key[0] == 1 and not key[1].startswith("bot-") for key in table.commands)

        me = HeldGreedy(hold=worker_acted)
        playing = asyncio.create_task(BotRunner(me).run(client, created.table_id, joined.seat))
        try:
            await _wait_for(lambda: 1 in host.workers.processes(created.table_id), "a worker process")
            first = host.workers.processes(created.table_id)[1]
            # The worker acts through the protocol; then seat 0 is held at its own turn, the match going on.
            await asyncio.wait_for(me.parked.wait(), MATCH_TIMEOUT)
            assert worker_acted() and table.match is not None and not table.match.is_over
            first.send_signal(signal.SIGKILL)  # a crash, while the seat certainly still wants its worker
            assert await asyncio.wait_for(answers.get(), MATCH_TIMEOUT) is True
            await _wait_for(lambda: host.workers.starts(created.table_id, 1) >= 2, "a restart")
            me.release.set()
            try:
                ended = await asyncio.wait_for(playing, MATCH_TIMEOUT)
            except TimeoutError:  # once seen in a full suite (not reproduced alone): say who stalled
                raise AssertionError(f"the match never ended after the restart: {_where(host, table)}") from None
        finally:
            playing.cancel()
    assert ended is not None and ended.winner_seats
    assert table.seats[1].bot_kind == "workergreedy:3"
    assert not any(key[0] == 1 and key[1].startswith("bot-") for key in table.commands), "never played in-process"
    await _wait_for(lambda: not host.workers.processes(created.table_id), "the worker exits with the match")


async def test_a_crash_seen_once_the_seat_no_longer_wants_its_worker_is_not_restarted():
    """The ordering that lost the table test's restart when its crash came at a moment of its choosing:
    the match ended first (a match to 30 is often one round), so the supervisor rightly let the worker go.
    Here the crashes come on cue, against a worker that only waits for its signal."""
    match_over = False
    workers = BotWorkers(command=lambda spec: [sys.executable, "-c", "import signal; signal.pause()"],
                         restart_delays=(0.0,))
    workers.address = "127.0.0.1:1"  # never dialled: the worker only waits
    workers.wanted = lambda table_id, seat, kind: not match_over
    answers = _recording(workers)
    try:
        assert workers.ensure("t", 1, "k", "token")
        await _wait_for(lambda: 1 in workers.processes("t"), "a worker process")
        workers.processes("t")[1].send_signal(signal.SIGKILL)  # the match goes on: restarted
        assert await asyncio.wait_for(answers.get(), TIMEOUT) is True
        await _wait_for(lambda: workers.starts("t", 1) == 2 and 1 in workers.processes("t"), "a restart")
        match_over = True
        workers.processes("t")[1].send_signal(signal.SIGKILL)  # seen once the match is over: let go
        assert await asyncio.wait_for(answers.get(), TIMEOUT) is False
        await _wait_for(lambda: not workers.processes("t"), "the worker gone")
        assert workers.starts("t", 1) == 2
    finally:
        await asyncio.wait_for(workers.close(), TIMEOUT)


@pytest.mark.parametrize("code", [0, 1])
async def test_a_worker_that_exits_cleanly_while_its_seat_still_plays_is_restarted(tmp_path, code):
    """A worker's exit 0 or 1 is its own verdict (it saw the match end, its seat lost); when the seat
    still wants it, the verdict was wrong (a round's end taken for the match's once did exactly that)
    and the supervisor starts it again rather than leave a table with no clock waiting forever. The
    first start exits with `code` at once, the second waits."""
    started = tmp_path / "started"
    script = (f"import pathlib, signal, sys\np = pathlib.Path({str(started)!r})\n"
              f"if not p.exists():\n    p.touch()\n    sys.exit({code})\nsignal.pause()")
    match_over = False
    workers = BotWorkers(command=lambda spec: [sys.executable, "-c", script], restart_delays=(0.0,))
    workers.address = "127.0.0.1:1"  # never dialled
    workers.wanted = lambda table_id, seat, kind: not match_over
    answers = _recording(workers)
    try:
        assert workers.ensure("t", 1, "k", "token")
        assert await asyncio.wait_for(answers.get(), TIMEOUT) is True
        await _wait_for(lambda: workers.starts("t", 1) == 2 and 1 in workers.processes("t"), "a restart")
        match_over = True
        workers.processes("t")[1].send_signal(signal.SIGKILL)
        assert await asyncio.wait_for(answers.get(), TIMEOUT) is False
        await _wait_for(lambda: not workers.processes("t"), "the worker gone")
        assert workers.starts("t", 1) == 2
    finally:
        await asyncio.wait_for(workers.close(), TIMEOUT)


async def test_host_stop_ends_a_running_worker(served):
    address, host = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {}, 2, name="w", manual_start=True)
        await client.join(created.table_id, "me", seat=0)  # seat 0 never plays: the match stays on
        await client.add_bots(1, "workergreedy")
        await client.start_table()
        await _wait_for(lambda: 1 in host.workers.processes(created.table_id), "a worker process")
        process = host.workers.processes(created.table_id)[1]
        await asyncio.wait_for(host.stop(), TIMEOUT + 5)
        assert process.returncode is not None
