"""Event.your_legal_actions as events.proto promises it: set only in the copy of a seat whose options
the event changed (never the same LegalActions twice in a row, but where the seat's turn starts again:
a seat that acted on a copy must be told its new turn's options, the same or not), the turn of every
seat that starts brings them, and the event that ends the match clears every seat's (set but empty), so
the last copy a seat received is always what GetView says. With a clock at four seats, and heads-up
without one, as a host's bot seats play, where no copy has a deadline to tell it from the one before
(test_turn_legal_actions.py replays the two tables where that froze a seat)."""

from __future__ import annotations

import pytest
from played_tables import RULES, played_table

from unonet.engine import events as ev
from unonet.v1 import actions_pb2


@pytest.mark.parametrize(("turn_time_s", "seats"), [(600, 4), (0, 2)])  # the second as a host's bot seats play
@pytest.mark.parametrize(("preset", "overrides"), RULES)
async def test_legal_actions_are_sent_only_when_they_change_and_cleared_when_the_match_ends(
        preset, overrides, turn_time_s, seats) -> None:
    table = await played_table(preset, overrides, seed=7, turn_time_s=turn_time_s, seats=seats)
    assert table.match is not None and table.match.is_over
    for seat in range(len(table.seats)):
        last: actions_pb2.LegalActions | None = None
        turn_started: int | None = None  # the number of this seat's TurnStarted not yet followed by a copy
        for entry in table.log:
            if type(entry.event) is ev.TurnStarted:
                assert turn_started is None, f"seat {seat}'s turn at event {turn_started} brought no options"
                turn_started = entry.number if entry.event.seat == seat else None
            event = table.render(entry, seat)
            if not event.HasField("your_legal_actions"):
                continue
            repeated = event.your_legal_actions == last
            assert not repeated or turn_started is not None, f"seat {seat}: event {event.number} repeats its options"
            turn_started = None
            last = event.your_legal_actions
        assert last == actions_pb2.LegalActions(), f"seat {seat} keeps {last} after the match ended"
        assert table.view(seat).legal_actions == last
