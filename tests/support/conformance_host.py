"""The host the conformance suites run against here: $UNONET_CONFORMANCE_ADDRESS, else our own on 127.0.0.1:0."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

ADDRESS_VARIABLE = "UNONET_CONFORMANCE_ADDRESS"


@contextlib.asynccontextmanager
async def serve_conformance_host() -> AsyncIterator[str]:
    """The address of the host under test: the one the variable names (left running), or a fresh host of
    ours in this process on a free loopback port, stopped on exit."""
    address = os.environ.get(ADDRESS_VARIABLE)
    if address:
        yield address
        return
    from unonet.host.host import Host
    from unonet.host.server import create_server

    server, port, host = await create_server("127.0.0.1:0", host=Host())
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await host.stop()
        await server.stop(grace=None)
