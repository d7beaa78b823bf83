"""A real `unonet serve` process on 127.0.0.1:0 over a database file, and the calls that drive it:
shared by the tests that kill, restart or damage a host (test_kill_and_restart, test_damaged_store), or
watch its bot worker processes (test_bot_workers_at_shutdown, test_serve_console).

Each host runs as a subprocess (`python -m unonet.cli serve --listen 127.0.0.1:0`); its port is read
from the first line it prints, and it is killed at exit if the test has not ended it.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
from polling import poll_until
from processes import children, cmdline, describe

from unonet.client.table_client import TableClient
from unonet.v1 import (
    cards_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

# Generous: each wait ends when its call answers or its event arrives, so these only bound a host that
# never does; a loaded machine (a host process starting beside others) is slow, not wrong.
TIMEOUT = 60
START_TIMEOUT = 120
LISTENING = re.compile(r"unonet host listening on 127\.0\.0\.1:(\d+) \((\d+) tables restored\)")


@dataclass
class Running:
    process: asyncio.subprocess.Process
    port: int
    restored: int
    channel: grpc.aio.Channel
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub


@asynccontextmanager
async def host_process(db: Path, log: Path, *options: str) -> AsyncIterator[Running]:
    """A host process on 127.0.0.1:0 serving `db` (with `unonet serve`'s `options`); killed at exit if
    the test has not ended it."""
    with log.open("ab") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "unonet.cli", "serve", "--listen", "127.0.0.1:0", "--db", str(db),
            "--bot-delay", "0", *options, stdout=asyncio.subprocess.PIPE, stderr=stderr,
        )
    channel = None
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)).decode()
        found = LISTENING.search(line)
        assert found, f"unexpected first line {line!r}; host log:\n{log.read_text(errors='replace')}"
        port, restored = int(found.group(1)), int(found.group(2))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        yield Running(
            process, port, restored, channel,
            lobby_service_pb2_grpc.LobbyServiceStub(channel),
            play_service_pb2_grpc.PlayServiceStub(channel),
            watch_service_pb2_grpc.WatchServiceStub(channel),
        )
    finally:
        if channel is not None:
            await channel.close()
        if process.returncode is None:
            process.kill()
            await asyncio.wait_for(process.wait(), TIMEOUT)


async def view(host: Running, table_id: str, token: str):
    response = await host.watch.GetView(
        watch_service_pb2.GetViewRequest(table_id=table_id, token=token), timeout=TIMEOUT)
    return response.view


async def a_legal_command(host: Running, table_id: str, tokens: list[str], command_id: str):
    """The (rpc, request) for one legal move of the seat to act, chosen from its legal actions."""
    v = await view(host, table_id, tokens[0])
    assert v.HasField("seat_to_act"), "a two-seat table without reactions always has a seat to act"
    token = tokens[v.seat_to_act]
    legal = (await view(host, table_id, token)).legal_actions
    common = {"table_id": table_id, "token": token, "command_id": command_id}
    if legal.choose_color:
        return host.play.ChooseColor, play_service_pb2.ChooseColorRequest(**common, color=cards_pb2.COLOR_RED)
    if legal.pass_turn:
        return host.play.Pass, play_service_pb2.PassRequest(**common)
    if legal.HasField("draw"):
        return host.play.Draw, play_service_pb2.DrawRequest(**common)
    option = legal.plays[0]
    request = play_service_pb2.PlayCardsRequest(**common, cards=option.cards)
    if option.needs_color:
        request.color = cards_pb2.COLOR_RED
    return host.play.PlayCards, request


async def play_one(host: Running, table_id: str, tokens: list[str], command_id: str):
    rpc, request = await a_legal_command(host, table_id, tokens, command_id)
    response = await rpc(request, timeout=TIMEOUT)
    return rpc, request, response.result


async def read_until(stream, last: int, into: list) -> None:
    """Read events from `stream` into `into` until event `last` has arrived."""
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            into.append(response.event)
            if response.event.number == last:
                return
    raise AssertionError(f"the stream ended before event {last}")


async def new_table(host: Running) -> tuple[str, list[str]]:
    created = await host.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="survivor", preset="standard", seat_count=2), timeout=TIMEOUT)
    table_id = created.table.table_id
    tokens = []
    for name in ("ann", "bob"):
        joined = await host.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)
        tokens.append(joined.token)
    return table_id, tokens


def bot_worker_pids(host: Running) -> list[int]:
    """The bot worker processes the host process runs (its children playing `python -m unonet.bots`)."""
    return [pid for pid in children(host.process.pid) if "unonet.bots" in cmdline(pid)]


async def seat_bot_workers(host: Running, client: TableClient, kind: str, timeout: float = START_TIMEOUT) -> str:
    """A table of two `kind` bots (a kind that searches: each a worker process of the host), started and
    to 500 points; returns its id once both workers run."""
    created = await client.create_table("standard", {"target_score": 500}, 2, name="w", manual_start=True)
    await client.add_bots(2, kind, table_id=created.table_id)
    await client.start_table(table_id=created.table_id)
    await poll_until(lambda: len(bot_worker_pids(host)) == 2, "both bot workers started", timeout=timeout,
                     state=lambda: describe(children(host.process.pid)))
    return created.table_id
