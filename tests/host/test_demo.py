"""`make demo`: bots play a whole match on an embedded host, narrated and verified by a spectator."""

from __future__ import annotations

import asyncio

from unonet.demo import run_demo


async def test_the_demo_plays_a_verified_match_to_the_end() -> None:
    winners = await asyncio.wait_for(run_demo(quiet=True, target_score=50), 60)
    assert winners
