"""A real host on 127.0.0.1:0 for the bot tests that play whole games, stopped after each test."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from bot_tables import CALL_TIMEOUT

from unonet.host.host import Host
from unonet.host.server import create_server


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
