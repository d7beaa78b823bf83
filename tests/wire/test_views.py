"""Seat views on the wire (`unonet.wire.views`, `unonet.wire.enums`): the phase and direction tables, a
spectator's view.
"""

from __future__ import annotations

import random

import pytest
from wire_faces import (
    SEATS,
    seat_states,
    settings_for,
)

from unonet.engine import (
    Match,
    WindowKind,
    find_ruleset,
)
from unonet.engine.events import DrawReason
from unonet.v1 import events_pb2, table_pb2, views_pb2
from unonet.wire import convert


def test_phase_and_direction_tables_cover_the_engine() -> None:
    from unonet.engine import Phase

    assert len({convert.phase_to_pb(phase) for phase in Phase}) == len(Phase)
    assert {convert.direction_to_pb(1), convert.direction_to_pb(-1)} == {
        views_pb2.DIRECTION_CLOCKWISE,
        views_pb2.DIRECTION_COUNTERCLOCKWISE,
    }
    assert {convert.window_kind_to_pb(kind) for kind in WindowKind} == set(views_pb2.ReactionWindowKind.values()) - {0}
    assert {convert.draw_reason_to_pb(reason) for reason in DrawReason} == set(events_pb2.DrawReason.values()) - {0}
    with pytest.raises(ValueError):
        convert.direction_to_pb(0)


def test_spectator_view_has_no_hand_and_no_actions() -> None:
    match = Match(find_ruleset("standard"), SEATS, random.Random(4))
    match.start()
    spectator = convert.view_to_pb(
        match.view_for(None),
        table_id="t",
        event_number=3,
        seats=seat_states(),
        settings=settings_for(match),
        status=table_pb2.TABLE_STATUS_PLAYING,
    )
    assert spectator.is_spectator and not spectator.hand and not spectator.HasField("legal_actions")
    assert (spectator.table_id, spectator.event_number, spectator.status) == ("t", 3, table_pb2.TABLE_STATUS_PLAYING)
    assert spectator.settings.ruleset.preset == "standard"
    to_act = match.game.to_act
    assert to_act is not None
    player = convert.view_to_pb(
        match.view_for(to_act),
        table_id="t",
        event_number=3,
        seats=seat_states(),
        settings=settings_for(match),
        status=table_pb2.TABLE_STATUS_PLAYING,
    )
    assert not player.is_spectator and player.seat == to_act and len(player.hand) == len(match.game.hands[to_act])
    assert player.seat_to_act == to_act and player.legal_actions.required
    assert player.phase in (views_pb2.PHASE_TURN, views_pb2.PHASE_CHOOSE_COLOR)
