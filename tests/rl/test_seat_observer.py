"""A seat playing over the protocol reads the very observation the environments give (`SeatObserver`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from unonet.engine import find_ruleset
from unonet.rl.seat_observer import SeatObserver
from unonet.rl.table import LearningTable
from unonet.v1 import table_pb2
from unonet.wire import convert


@pytest.mark.parametrize(("preset", "players"), [("standard", 2), ("standard", 4), ("house", 3), ("russian", 3)])
def test_the_protocol_seat_sees_what_the_environment_shows(preset, players):
    ruleset = find_ruleset(preset)
    layout_checked = 0
    for seed in range(4):
        table = LearningTable(ruleset, players)
        observer = SeatObserver(players)
        table.listeners.append(_feeder(observer))
        table.reset(seed)
        settings = table_pb2.TableSettings(ruleset=convert.ruleset_to_pb(ruleset), seat_count=players)
        seats = [table_pb2.SeatState(seat=s, occupied=True, connected=True) for s in range(players)]
        rng = random.Random(seed)
        while not table.is_over:
            if table.seat == 0 and table.required:
                view = convert.view_to_pb(
                    table.match.view_for(0),
                    table_id="t",
                    event_number=0,
                    seats=seats,
                    settings=settings,
                    status=table_pb2.TABLE_STATUS_PLAYING,
                )
                seen, _game, legal = observer.observe(view)
                shown = table.history and _environment_view(table)
                different = [
                    f.name
                    for f in observer.layout.fields
                    if not np.array_equal(seen[f.offset : f.offset + f.size], shown[f.offset : f.offset + f.size])
                ]
                assert not different, f"seed {seed}, step {table.steps}: {different}"
                assert set(legal) == set(table.legal)
                layout_checked += 1
            plays = [i for i in table.legal if i < 116]
            table.act(rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(list(table.legal)))
    assert layout_checked > 20


def _feeder(observer: SeatObserver):
    def feed(events):
        for event in events:
            observer.follow(convert.event_to_pb(event, 0))

    return feed


def _environment_view(table: LearningTable):
    from unonet.rl.observation import ObservationLayout

    return ObservationLayout(table.players).encode(table.game, table.history, 0, offer=False)
