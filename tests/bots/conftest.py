"""A real host on 127.0.0.1:0 for the bot tests that play whole games, and an RPC counter.

`served_host` starts `unonet.host` in this process and stops it; `CountingInterceptor` counts the
unary calls a channel makes, by method, so a test can prove a bot needs no GetView per decision.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from unonet.host.host import Host
from unonet.host.server import create_server

CALL_TIMEOUT = 10.0


class CountingInterceptor(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Counts every unary call by its method's short name (GetView, PlayCards, ...)."""

    def __init__(self) -> None:
        self.calls: collections.Counter[str] = collections.Counter()

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        method = client_call_details.method
        self.calls[(method.decode() if isinstance(method, bytes) else method).rsplit("/", 1)[-1]] += 1
        return await continuation(client_call_details, request)


@dataclass
class Served:
    address: str
    host: Host
    port: int


@pytest.fixture
async def served_host() -> AsyncIterator[Served]:
    server, port, host = await create_server("127.0.0.1:0", host=Host(write_timeout_s=5.0))
    await asyncio.wait_for(server.start(), CALL_TIMEOUT)
    try:
        yield Served(f"127.0.0.1:{port}", host, port)
    finally:
        await asyncio.wait_for(host.stop(), CALL_TIMEOUT)
        await asyncio.wait_for(server.stop(None), CALL_TIMEOUT)
