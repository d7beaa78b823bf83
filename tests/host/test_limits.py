"""The host's limits on load, each refused with its reason and changing nothing: real gRPC on 127.0.0.1:0.

Rates are timed by the host's injectable clock, held still here, so a bucket's burst is exact and
moving the clock refills it: no test depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from host_stubs import PLAYER, SPECTATOR, TIMEOUT, expect_error

from unonet.host.host import Host
from unonet.host.limits import BURST_SECONDS, Limits, RateLimiter, peer_address
from unonet.host.server import create_server
from unonet.host.store import MemoryStore
from unonet.v1 import (
    chat_service_pb2,
    chat_service_pb2_grpc,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

START_NS = 1_800_000_000 * 10**9
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED


@dataclass
class Limited:
    host: Host
    clock: list[int]
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    chat: chat_service_pb2_grpc.ChatServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub

    def advance(self, seconds: float) -> None:
        self.clock[0] += int(seconds * 1e9)

    async def create(self, seat_count: int = 2) -> str:
        created = await self.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name="t", seat_count=seat_count, manual_start=True), timeout=TIMEOUT)
        return created.table.table_id

    async def join(self, table_id: str, name: str, role: int = PLAYER) -> str:
        joined = await self.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=name, role=role), timeout=TIMEOUT)
        return joined.token


@pytest.fixture
async def limited(request: pytest.FixtureRequest) -> AsyncIterator[Limited]:
    clock = [START_NS]
    host = Host(MemoryStore(), clock_ns=lambda: clock[0], limits=request.param)
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Limited(host, clock, lobby_service_pb2_grpc.LobbyServiceStub(channel),
                      play_service_pb2_grpc.PlayServiceStub(channel), chat_service_pb2_grpc.ChatServiceStub(channel),
                      watch_service_pb2_grpc.WatchServiceStub(channel))
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)


def only(**changed: float) -> Limits:
    """Every limit off but the ones named."""
    return dataclasses.replace(Limits.off(), **changed)


@pytest.mark.parametrize("limited", [only(max_tables=2)], indirect=True)
async def test_tables_beyond_the_limit_are_too_many_tables(limited: Limited) -> None:
    await limited.create()
    await limited.create()
    await expect_error(limited.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(name="t", seat_count=2),
                                                 timeout=TIMEOUT), EXHAUSTED, "TOO_MANY_TABLES")
    listed = await limited.lobby.ListTables(lobby_service_pb2.ListTablesRequest(), timeout=TIMEOUT)
    assert len(listed.tables) == 2 == len(limited.host.tables)  # the refusal created nothing


@pytest.mark.parametrize("limited", [only(max_subscribers=2)], indirect=True)
async def test_streams_beyond_the_limit_are_too_many_subscribers(limited: Limited) -> None:
    table_id = await limited.create()
    token = await limited.join(table_id, "ann")
    watching = await limited.join(table_id, "eve", SPECTATOR)
    request = watch_service_pb2.WatchEventsRequest(table_id=table_id, token=token)
    streams = [limited.watch.WatchEvents(request, timeout=TIMEOUT),
               limited.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=watching),
                                         timeout=TIMEOUT)]
    async with asyncio.timeout(TIMEOUT):
        for stream in streams:
            assert (await stream.read()).event.number == 1  # subscribed: its backlog comes
    third = limited.watch.WatchEvents(request, timeout=TIMEOUT)
    await expect_error(third.read(), EXHAUSTED, "TOO_MANY_SUBSCRIBERS")
    assert len(limited.host.tables[table_id].subscribers) == 2
    streams[0].cancel()
    async with asyncio.timeout(TIMEOUT):
        while len(limited.host.tables[table_id].subscribers) > 1:
            await asyncio.sleep(0.01)
        again = limited.watch.WatchEvents(request, timeout=TIMEOUT)
        assert (await again.read()).event.number == 1  # a place came free
    again.cancel()
    streams[1].cancel()


@pytest.mark.parametrize("limited", [only(commands_per_s_token=5)], indirect=True)
async def test_commands_beyond_a_tokens_rate_are_rate_limited(limited: Limited) -> None:
    table_id = await limited.create(seat_count=3)
    ann, bob = await limited.join(table_id, "ann"), await limited.join(table_id, "bob")
    burst = int(5 * BURST_SECONDS)

    async def call_uno(token: str, n: int) -> None:  # refused by the rules (not started): it still counts
        await expect_error(limited.play.CallUno(play_service_pb2.CallUnoRequest(
            table_id=table_id, token=token, command_id=f"c{n}"), timeout=TIMEOUT),
            grpc.StatusCode.FAILED_PRECONDITION, "NOT_STARTED")

    for n in range(burst):
        await call_uno(ann, n)
    await expect_error(limited.play.CallUno(play_service_pb2.CallUnoRequest(
        table_id=table_id, token=ann, command_id="over"), timeout=TIMEOUT), EXHAUSTED, "RATE_LIMITED")
    await expect_error(limited.chat.SendChat(chat_service_pb2.SendChatRequest(
        table_id=table_id, token=ann, command_id="chat", text="hi"), timeout=TIMEOUT), EXHAUSTED, "RATE_LIMITED")
    await call_uno(bob, 0)  # another token has its own bucket
    limited.advance(1.0)  # five more for ann
    for n in range(5):
        await call_uno(ann, 100 + n)
    await expect_error(limited.play.CallUno(play_service_pb2.CallUnoRequest(
        table_id=table_id, token=ann, command_id="over2"), timeout=TIMEOUT), EXHAUSTED, "RATE_LIMITED")


@pytest.mark.parametrize("limited", [only(commands_per_s_peer=3)], indirect=True)
async def test_commands_beyond_a_peers_rate_are_rate_limited_whatever_the_token(limited: Limited) -> None:
    table_id = await limited.create(seat_count=6)
    tokens = [await limited.join(table_id, f"p{n}") for n in range(6)]
    for n in range(int(3 * BURST_SECONDS)):
        await expect_error(limited.play.Draw(play_service_pb2.DrawRequest(
            table_id=table_id, token=tokens[n], command_id="d"), timeout=TIMEOUT),
            grpc.StatusCode.FAILED_PRECONDITION, "NOT_STARTED")
    error = await expect_error(limited.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=tokens[-1], command_id="d"), timeout=TIMEOUT), EXHAUSTED, "RATE_LIMITED")
    assert "ipv4:127.0.0.1" in (error.details() or "")


@pytest.mark.parametrize("limited", [only(joins_per_s_peer=2)], indirect=True)
async def test_joins_beyond_a_peers_rate_are_rate_limited(limited: Limited) -> None:
    table_id = await limited.create(seat_count=10)  # one of the burst of four
    for n in range(3):
        await limited.join(table_id, f"p{n}")
    await expect_error(limited.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="late", role=PLAYER), timeout=TIMEOUT), EXHAUSTED, "RATE_LIMITED")
    await expect_error(limited.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", seat_count=2), timeout=TIMEOUT), EXHAUSTED, "RATE_LIMITED")
    assert sum(seat.is_occupied for seat in limited.host.tables[table_id].seats) == 3
    limited.advance(0.5)
    await limited.join(table_id, "later")


def test_a_rate_limiter_refills_at_its_rate_and_forgets_idle_keys() -> None:
    now = [0.0]
    limiter = RateLimiter(10.0, clock=lambda: now[0])
    assert sum(limiter.allow("a") for _ in range(50)) == 20  # the burst: two seconds' worth
    now[0] = 0.5
    assert sum(limiter.allow("a") for _ in range(50)) == 5
    assert limiter.allow("b")
    now[0] = 1000.0
    limiter.allow("c")
    assert len(limiter) == 1  # a and b were idle for a minute: dropped (their buckets were full again)


def test_no_rate_is_no_limit() -> None:
    limiter = RateLimiter(0.0)
    assert all(limiter.allow("a") for _ in range(10_000))


@pytest.mark.parametrize(("peer", "address"), [("ipv4:10.0.0.7:51234", "ipv4:10.0.0.7"),
                                               ("ipv6:[fe80::1]:51234", "ipv6:[fe80::1]"),
                                               ("ipv6:[::1]", "ipv6:[::1]"), ("unix:/tmp/s", "unix:/tmp/s")])
def test_a_peer_is_its_address_without_the_port(peer: str, address: str) -> None:
    assert peer_address(peer) == address


def test_the_defaults_are_the_documented_ones() -> None:
    default = Limits()
    assert (default.max_tables, default.max_subscribers) == (2_000, 256)
    assert (default.commands_per_s_token, default.commands_per_s_peer, default.joins_per_s_peer) == (100, 1_000, 50)
