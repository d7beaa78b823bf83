"""Tables played to their end in process, by the host's own bot policy, for the host's tests that
read a whole log (the render cache, the legal actions each event carries)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from table_moves import move_on

from unonet.host.host import Host
from unonet.host.table import Table, TableSettings

RULES = [
    ("standard", {}),
    ("house", {}),  # hidden cards move around: seven-o swaps, zero rotations, five-swaps, reveals
    ("standard", {"seven_o": True, "five_swap": True, "jump_in": True, "bluffing": True}),
]


async def played_table(preset: str, overrides: dict, seed: int, *, turn_time_s: float = 600,
                       seats: int = 4, league: bool = False,
                       each_step: Callable[[Table], None] | None = None) -> Table:
    """A table of `seats` seats, `preset` with `overrides`, played to its match's end by the host's own
    bot policy, moved by the test itself (no driver), with a subscriber watching so every copy is cached.
    `turn_time_s` 0 plays it with no clock (no deadline in any legal actions). `league`: dealt from `seed`
    as a league's table is (no fair shuffle, so no committed cards); else the host's fair shuffle. The
    target of 1 point usually ends the match with its first round, but not always: a loser holding only
    zeros scores 0 (about 1 deal in 150 heads-up), so the test moves the table between rounds as the
    driver would, recording the deadlines of the next round's shuffle and of its first turn's hold.
    `each_step` looks at the table after each move."""
    host = Host()
    settings = TableSettings(name="t", seat_count=seats, preset=preset, overrides={"target_score": 1, **overrides},
                             turn_time_s=turn_time_s, league_seed=seed if league else None)
    try:
        table = host.create_table(settings, seed=seed)
    except Exception as error:  # an option this engine does not have: nothing to check
        await host.stop()
        pytest.skip(str(error))
    await host.stop()  # no driver: this test moves the table itself
    for i in range(seats):
        table.join(f"p{i}", None, False)
    watcher = table.subscribe(0)  # someone watches, so the journal's public copy is cached too
    rng = random.Random(seed)
    steps = 0
    while table.match is not None and not table.match.is_over and steps < 3000:
        steps += 1
        if move_on(table, rng, f"c{steps}") is None:
            break
        if each_step is not None:
            each_step(table)
    table.unsubscribe(watcher)
    return table
