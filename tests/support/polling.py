"""Waiting in a test for a condition the event loop makes true, with a bound, never a bare sleep."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def poll_until(condition: Callable[[], bool], what: str, *, timeout: float,
                     state: Callable[[], str] | None = None) -> None:
    """Wait for `condition` (checked after each turn of the loop), failing after `timeout` seconds; the
    failure says `state()` when given (what the test's parties saw, so a rare failure can be read)."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(poll(), timeout)
    except TimeoutError:
        seen = f": {state()}" if state is not None else ""
        raise AssertionError(f"timed out waiting for {what}{seen}") from None
