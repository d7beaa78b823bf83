"""Event.your_legal_actions as events.proto promises it: set only in the copy of a seat whose options
the event changed (never the same LegalActions twice in a row), and the event that ends the match
clears every seat's (set but empty), so the last copy a seat received is always what GetView says."""

from __future__ import annotations

import pytest
from played_tables import RULES, played_table

from unonet.v1 import actions_pb2


@pytest.mark.parametrize(("preset", "overrides"), RULES)
async def test_legal_actions_are_sent_only_when_they_change_and_cleared_when_the_match_ends(preset, overrides) -> None:
    table = await played_table(preset, overrides, seed=7)
    assert table.match is not None and table.match.is_over
    for seat in range(len(table.seats)):
        last: actions_pb2.LegalActions | None = None
        for entry in table.log:
            event = table.render(entry, seat)
            if not event.HasField("your_legal_actions"):
                continue
            assert event.your_legal_actions != last, f"seat {seat}: event {event.number} repeats its legal actions"
            last = event.your_legal_actions
        assert last == actions_pb2.LegalActions(), f"seat {seat} keeps {last} after the match ended"
        assert table.view(seat).legal_actions == last
