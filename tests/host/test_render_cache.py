"""The serialized event copies WatchEvents sends (`Table.render_bytes`, cached per visibility class) are
exactly `Table.render` for every seat and for spectators: no seat gets another's cards or legal actions."""

from __future__ import annotations

import pytest
from played_tables import RULES, played_table

from unonet.host import eventlog, journal
from unonet.host.framing import EVENTS_FIELD, length_delimited
from unonet.v1 import events_pb2


@pytest.mark.parametrize(("preset", "overrides"), RULES)
@pytest.mark.parametrize("seed", [1, 2])
async def test_cached_bytes_equal_the_rendered_event_for_every_seat(preset, overrides, seed) -> None:
    table = await played_table(preset, overrides, seed)
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
    table = await played_table(preset, overrides, 4)
    shared = [entry for entry in table.log if entry.shared is not None]
    # Plays and their like; a command's last event carries legal actions, and draws hide cards. How
    # many depends on the deal, which the host's entropy varies run to run: 25 to 175 in 900 tables,
    # so ten only says the check below is not vacuous.
    assert len(shared) >= 10
    for entry in shared:
        for seat in (None, 0, 1, 2, 3):
            assert entry.shared == length_delimited(EVENTS_FIELD, table.render_bytes(entry, seat)), (entry.number, seat)
    # What differs between receivers is never shared: an event with legal actions, or one hiding cards.
    differing = [entry for entry in table.log
                 if len({table.render_bytes(entry, seat) for seat in (None, 0, 1, 2, 3)}) > 1]
    assert differing and all(entry.shared is None for entry in differing)


async def test_only_recent_entries_keep_their_serialized_copies(monkeypatch) -> None:
    monkeypatch.setattr(eventlog, "WIRE_CACHE_ENTRIES", 16)
    table = await played_table("house", {}, 3)
    for entry in table.log:
        for seat in (None, 0, 1):
            table.render_bytes(entry, seat)
    table.record(journal.Chat(0, "p0", "hi"))
    cached = [entry.number for entry in table.log if entry.wire is not None]
    assert cached and len(cached) <= 16 < table.last_number
    assert len([entry for entry in table.log if entry.shared is not None]) <= 16
