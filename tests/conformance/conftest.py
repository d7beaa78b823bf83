"""Where the conformance suite runs: the host at $UNONET_CONFORMANCE_ADDRESS, else our own on 127.0.0.1:0.

The tests only speak the wire protocol (the `unonet.v1` services), so any implementation of it, a
reimplementation or a bot author's mock, can be checked by pointing the variable at its address.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
import pytest_asyncio

from unonet.v1 import lobby_service_pb2_grpc, play_service_pb2_grpc, watch_service_pb2_grpc

ADDRESS_VARIABLE = "UNONET_CONFORMANCE_ADDRESS"


@dataclass
class Remote:
    """Stubs for one host address; the suite needs nothing else."""

    address: str
    channel: grpc.aio.Channel
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub


@contextlib.asynccontextmanager
async def _remote() -> AsyncIterator[Remote]:
    address = os.environ.get(ADDRESS_VARIABLE)
    server = host = None
    if not address:
        from unonet.host.host import Host
        from unonet.host.server import create_server

        server, port, host = await create_server("127.0.0.1:0", host=Host())
        await server.start()
        address = f"127.0.0.1:{port}"
    channel = grpc.aio.insecure_channel(address)
    try:
        yield Remote(
            address, channel,
            lobby_service_pb2_grpc.LobbyServiceStub(channel),
            play_service_pb2_grpc.PlayServiceStub(channel),
            watch_service_pb2_grpc.WatchServiceStub(channel),
        )
    finally:
        await channel.close()
        if host is not None:
            await host.stop()
        if server is not None:
            await server.stop(grace=None)


@pytest.fixture
async def remote() -> AsyncIterator[Remote]:
    async with _remote() as connected:
        yield connected


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_remote() -> AsyncIterator[Remote]:
    """One host for a whole module, for tests that share what one long run observed."""
    async with _remote() as connected:
        yield connected
