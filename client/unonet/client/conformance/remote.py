"""The host under test, as the suites see it: one plaintext address and a stub for each service.

Nothing here (or anywhere in `unonet.client.conformance`) imports a host: only the generated
`unonet.v1` messages and stubs, so the suites hold any implementation of the protocol to it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from unonet.v1 import (
    chat_service_pb2_grpc,
    errors_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2_grpc,
    time_service_pb2_grpc,
    watch_service_pb2_grpc,
)
from unonet.v1.trailers import ERROR_DETAIL_KEY

__all__ = ["CALL_TIMEOUT", "Remote", "open_remote", "reason_of"]

CALL_TIMEOUT = 10.0
"""Seconds every call the suites make may take."""


@dataclass
class Remote:
    """Every service of one host address; the suites need nothing else."""

    address: str
    channel: grpc.aio.Channel
    lobby: lobby_service_pb2_grpc.LobbyServiceAsyncStub
    play: play_service_pb2_grpc.PlayServiceAsyncStub
    watch: watch_service_pb2_grpc.WatchServiceAsyncStub
    chat: chat_service_pb2_grpc.ChatServiceAsyncStub
    time: time_service_pb2_grpc.TimeServiceAsyncStub

    @classmethod
    def on(cls, address: str, channel: grpc.aio.Channel) -> Remote:
        return cls(
            address, channel,
            lobby_service_pb2_grpc.LobbyServiceStub(channel),
            play_service_pb2_grpc.PlayServiceStub(channel),
            watch_service_pb2_grpc.WatchServiceStub(channel),
            chat_service_pb2_grpc.ChatServiceStub(channel),
            time_service_pb2_grpc.TimeServiceStub(channel),
        )


@contextlib.asynccontextmanager
async def open_remote(address: str) -> AsyncIterator[Remote]:
    """A plaintext channel to `address` and its stubs, closed on exit."""
    channel = grpc.aio.insecure_channel(address)
    try:
        yield Remote.on(address, channel)
    finally:
        await channel.close()


def reason_of(error: grpc.aio.AioRpcError) -> str:
    """The reason of the ErrorDetail in the refusal's `unonet-error-bin` trailer; empty without one."""
    for key, value in error.trailing_metadata() or ():
        if key == ERROR_DETAIL_KEY:
            return errors_pb2.ErrorDetail.FromString(value).reason  # type: ignore[arg-type]
    return ""
