"""A real host on 127.0.0.1:0 per test, stopped by the fixture; stubs for every service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest

from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import (
    chat_service_pb2_grpc,
    lobby_service_pb2_grpc,
    play_service_pb2_grpc,
    time_service_pb2_grpc,
    watch_service_pb2_grpc,
)


@dataclass
class Stubs:
    address: str
    host: Host
    channel: grpc.aio.Channel
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub
    chat: chat_service_pb2_grpc.ChatServiceStub
    time: time_service_pb2_grpc.TimeServiceStub


@pytest.fixture
async def stubs() -> AsyncIterator[Stubs]:
    # A stream cut off as too slow keeps its connection while a test reads its status, however loaded
    # the machine: the hang-up (hangup.py) has its own tests.
    server, port, host = await create_server("127.0.0.1:0", host=Host(write_timeout_s=2.0, hang_up_after_s=60.0))
    await server.start()
    address = f"127.0.0.1:{port}"
    channel = grpc.aio.insecure_channel(address)
    try:
        yield Stubs(
            address, host, channel,
            lobby_service_pb2_grpc.LobbyServiceStub(channel),
            play_service_pb2_grpc.PlayServiceStub(channel),
            watch_service_pb2_grpc.WatchServiceStub(channel),
            chat_service_pb2_grpc.ChatServiceStub(channel),
            time_service_pb2_grpc.TimeServiceStub(channel),
        )
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
