"""The serialized event copies WatchEvents sends (`Table.render_bytes`, cached per visibility class) are
exactly `Table.render` for every seat and for spectators: no seat gets another's cards or legal actions."""

from __future__ import annotations

import random

import pytest

from unonet.engine import legal_actions
from unonet.host import eventlog, journal
from unonet.host.bots import choose_action, reaction_for
from unonet.host.framing import EVENTS_FIELD, length_delimited
from unonet.host.host import Host
from unonet.host.table import TableSettings
from unonet.v1 import events_pb2

RULES = [
    ("standard", {}),
    ("house", {}),  # hidden cards move around: seven-o swaps, zero rotations, five-swaps, reveals
    ("standard", {"seven_o": True, "five_swap": True, "jump_in": True, "bluffing": True}),
]


async def _played_table(preset: str, overrides: dict, seed: int):
    host = Host()
    settings = TableSettings(name="t", seat_count=4, preset=preset, overrides={"target_score": 1, **overrides},
                             turn_time_s=600)
    try:
        table = host.create_table(settings, seed=seed)
    except Exception as error:  # an option this engine does not have: nothing to check
        await host.stop()
        pytest.skip(str(error))
    await host.stop()  # no driver: this test moves the table itself
    for i in range(4):
        table.join(f"p{i}", None, False)
    watcher = table.subscribe(0)  # someone watches, so the journal's public copy is cached too
    rng = random.Random(seed)
    steps = 0
    while table.match is not None and not table.match.is_over and steps < 3000:
        steps += 1
        if table.window_deadlines:
            table.record(journal.Close(min(table.window_deadlines)))
            continue
        game = table.match.game
        seat = game.to_act
        if seat is None:
            reacted = False
            for other in range(4):
                action = reaction_for(game, other, legal_actions(game, other))
                if action is not None:
                    table.command(other, f"r{steps}", (action,))
                    reacted = True
                    break
            if not reacted:
                break
            continue
        action = choose_action(game, seat, legal_actions(game, seat), rng)
        table.command(seat, f"c{steps}", (action,))
    table.unsubscribe(watcher)
    return table


@pytest.mark.parametrize(("preset", "overrides"), RULES)
@pytest.mark.parametrize("seed", [1, 2])
async def test_cached_bytes_equal_the_rendered_event_for_every_seat(preset, overrides, seed) -> None:
    table = await _played_table(preset, overrides, seed)
    assert table.last_number > 20
    for entry in table.log:
        for seat in (None, 0, 1, 2, 3):
            expected = table.render(entry, seat)
            for _ in range(2):  # the first call fills the cache, the second reads it
                got = events_pb2.Event.FromString(table.render_bytes(entry, seat))
                assert got == expected, (entry.number, seat)
            if seat is None:
                assert not got.HasField("your_legal_actions")


@pytest.mark.parametrize(("preset", "overrides"), RULES)
async def test_an_entry_framed_once_for_every_stream_is_what_each_receiver_would_get(preset, overrides) -> None:
    table = await _played_table(preset, overrides, 4)
    shared = [entry for entry in table.log if entry.shared is not None]
    # Plays and their like; a command's last event carries legal actions, and draws hide cards.
    assert len(shared) > table.last_number // 4
    for entry in shared:
        for seat in (None, 0, 1, 2, 3):
            assert entry.shared == length_delimited(EVENTS_FIELD, table.render_bytes(entry, seat)), (entry.number, seat)
    # What differs between receivers is never shared: an event with legal actions, or one hiding cards.
    differing = [entry for entry in table.log
                 if len({table.render_bytes(entry, seat) for seat in (None, 0, 1, 2, 3)}) > 1]
    assert differing and all(entry.shared is None for entry in differing)


async def test_only_recent_entries_keep_their_serialized_copies(monkeypatch) -> None:
    monkeypatch.setattr(eventlog, "WIRE_CACHE_ENTRIES", 16)
    table = await _played_table("house", {}, 3)
    for entry in table.log:
        for seat in (None, 0, 1):
            table.render_bytes(entry, seat)
    table.record(journal.Chat(0, "p0", "hi"))
    cached = [entry.number for entry in table.log if entry.wire is not None]
    assert cached and len(cached) <= 16 < table.last_number
    assert len([entry for entry in table.log if entry.shared is not None]) <= 16
