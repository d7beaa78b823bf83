"""A host in a process of its own for the benches that time races (bench/fairness.py, bench/races.py):
so the bench's clients and the host do not share an event loop, and the host's timing is its own.

The bench runs its own script again with `--serve` (and whatever says how the host is made); that
process calls `serve_until_stdin_closes(host)`, prints ``PORT n`` and serves until its stdin closes.
`host_process` starts it and yields the port, and stops it on the way out, on error too.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

LOOPBACK = "127.0.0.1"
READY_TIMEOUT_S = 30.0


async def serve_until_stdin_closes(host: Any) -> None:
    """Serve `host` (a `unonet.host.host.Host`) on loopback, say ``PORT n`` and stop when stdin closes."""
    from unonet.host.server import create_server

    server, port, _ = await create_server(f"{LOOPBACK}:0", host=host)
    await server.start()
    print(f"PORT {port}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the bench closes our stdin
    await server.stop(grace=None)
    await host.stop()


@contextlib.asynccontextmanager
async def host_process(script: str, *args: str, started: dict[str, int] | None = None) -> AsyncIterator[int]:
    """The port of `script --serve *args` once it serves; `started` (if given) gets its "pid"."""
    process = await asyncio.create_subprocess_exec(sys.executable, script, "--serve", *args,
                                                   stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    if started is not None:
        started["pid"] = process.pid
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), READY_TIMEOUT_S)).decode()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the host did not start: {line!r}")
        yield int(line.split()[1])
    finally:
        if process.returncode is None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 5)
            except TimeoutError:
                process.kill()
                await process.wait()
