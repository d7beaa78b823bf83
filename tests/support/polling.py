"""Waiting in a test for a condition the event loop makes true, with a bound, never a bare sleep."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def poll_until(condition: Callable[[], bool], what: str, *, timeout: float) -> None:
    """Wait for `condition` (checked after each turn of the loop), failing after `timeout` seconds."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(poll(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None
