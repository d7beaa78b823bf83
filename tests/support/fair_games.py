"""Whole matches played by host bots, in-process and synchronously, for the fairness tests.

The host's own driver step (`Host._step`) moves the table; a fake clock jumps to each deadline, so a
match with reaction windows and shuffles takes no wall-clock time. Its deals are not the same on every
run: the host draws its shuffle seeds from `secrets`, as a real host does. A test that needs a match
with something rare in it (a challenge) asks `play_match_with` for one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from unonet.host import journal
from unonet.host.host import Host
from unonet.host.store import MemoryStore, Store
from unonet.host.table import Table, TableSettings

TABLE_ID = "fair-table"


def new_table(seed: int, *, seats: int = 4, preset: str = "standard", store: Store | None = None,
              manual_start: bool = True, **overrides: Any) -> tuple[Host, Table, list[int]]:
    clock = [1_700_000_000_000_000_000]
    store = store if store is not None else MemoryStore()
    settings = TableSettings(name="t", seat_count=seats, preset=preset, overrides=overrides,
                             manual_start=manual_start)
    store.create_table(TABLE_ID, {"settings": dataclasses.asdict(settings), "owner_token": "owner", "seed": seed}, 0)
    host = Host(store, clock_ns=lambda: clock[0])
    table = Table(TABLE_ID, settings, owner_token="owner", seed=seed, created_ns=0, store=store,
                  clock_ns=lambda: clock[0])
    return host, table, clock


def drive(host: Host, table: Table, clock: list[int], *, max_steps: int = 200_000) -> None:
    """Run the table's driver until the match ends, jumping the clock to each deadline."""
    for _ in range(max_steps):
        if table.match is not None and table.match.is_over:
            return
        wait = host._step(table)
        if wait is None:
            raise AssertionError("the table waits for nothing but the match is not over")
        if wait > 0:
            clock[0] += int(wait * 1e9) + 1
    raise AssertionError("the match did not end")


def turn_to_play(host: Host, table: Table, clock: list[int]) -> int | None:
    """The seat whose turn a test may play now; else None, once the driver did one step of what is due
    (the shuffle, a window's ruling, a timeout), the clock jumped to the deadline it waits for."""
    match = table.match
    assert match is not None
    seat = match.game.to_act if match.round_no else None
    if table.shuffle is None and seat is not None and not table.window_deadlines:
        return seat
    wait = host._step(table)
    if wait:
        clock[0] += int(wait * 1e9) + 1
    return None


def play_match(seed: int, *, seats: int = 4, preset: str = "standard", store: Store | None = None,
               **overrides: Any) -> Table:
    """A whole match of host bots from StartTable with fill_with_bots."""
    host, table, clock = new_table(seed, seats=seats, preset=preset, store=store, **overrides)
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    return table


def stream(table: Table, seat: int | None = None) -> list[Any]:
    """Every event of the table's log as `seat` (None: a spectator) receives it."""
    return list(table.events.rendered_since(0, seat))  # the old ones read back from the store


def play_match_with(has: Callable[[list[Any]], bool], what: str, seed: int, *, attempts: int = 20,
                    **options: Any) -> Table:
    """A match (`play_match(seed, **options)`) whose public stream `has` what a test needs: matches
    are played until one has it. A rare thing is still rare: a challenge is missing from about one
    200-point match in twelve, so twenty matches all lack it about once in 10^21 runs."""
    for _ in range(attempts):
        table = play_match(seed, **options)
        if has(stream(table, None)):
            return table
    raise AssertionError(f"none of {attempts} matches had {what}")


def has_kind(name: str) -> Callable[[list[Any]], bool]:
    """Whether a stream holds an event of that payload kind (`challenge_resolved`, ...)."""
    return lambda events: any(event.WhichOneof("payload") == name for event in events)
