"""Bot seats of a kind that searches are played by worker processes the host supervises: started when
the seat needs them, restarted after a crash, stopped with the host. The kind here is greedy flagged
`in_worker` (the registry's `strong` will be one), so the real worker entry point plays it."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
from types import MappingProxyType

import pytest

from unonet.bots import kinds
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient
from unonet.host.bot_workers import WorkerSpec, default_command
from unonet.host.host import Host
from unonet.host.server import create_server

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


async def _wait_for(predicate, what: str) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(poll(), MATCH_TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"never: {what}") from None


@pytest.mark.timeout(MATCH_TIMEOUT * 2 + 30)
async def test_a_worker_plays_the_seat_is_restarted_after_a_crash_and_stops_with_the_host(served):
    address, host = served
    async with await TableClient.connect(address, timeout=TIMEOUT) as client:
        created = await client.create_table("standard", {"target_score": 30}, 2, name="w", manual_start=True)
        joined = await client.join(created.table_id, "me", seat=0)
        assert await client.add_bots(1, "workergreedy") == [1]
        await client.start_table()
        table = host.tables[created.table_id]
        playing = asyncio.create_task(BotRunner(GreedyBot(seed=2)).run(client, created.table_id, joined.seat))
        try:
            await _wait_for(lambda: 1 in host.workers.processes(created.table_id), "a worker process")
            first = host.workers.processes(created.table_id)[1]
            # The worker acts through the protocol: some command of seat 1's is journalled as its own.
            await _wait_for(lambda: any(key[0] == 1 and not key[1].startswith("bot-") for key in table.commands),
                            "a command from the worker")
            first.send_signal(signal.SIGKILL)  # a crash
            await _wait_for(lambda: host.workers.starts(created.table_id, 1) >= 2, "a restart")
            ended = await asyncio.wait_for(playing, MATCH_TIMEOUT)
        finally:
            playing.cancel()
    assert ended is not None and ended.winner_seats
    assert table.seats[1].bot_kind == "workergreedy:3"
    assert not any(key[0] == 1 and key[1].startswith("bot-") for key in table.commands), "never played in-process"
    await _wait_for(lambda: not host.workers.processes(created.table_id), "the worker exits with the match")


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
