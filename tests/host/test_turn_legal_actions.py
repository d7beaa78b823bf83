"""A seat whose turn starts is sent its legal actions, even when they equal the copy it last received.

Found at host bot seats (issue 29): heads-up, a seat holding two red Reverses played one, got the turn
back at once, and its options were exactly the copy it had just acted on (the other Reverse, a Draw).
The host sent no copy, since nothing had changed, and the seat, waiting for new options, never acted
again; with no clock on a bot seat, the table froze. The journals in `data/stalled_tables.json` are the
two tables of the issue (league seeds 15163757760292373763 and 743854155366363580, written by the host
that froze them), replayed here input by input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from unonet.engine import events as ev
from unonet.host import journal
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings

DATA = Path(__file__).parent / "data" / "stalled_tables.json"
STALLED = json.loads(DATA.read_text())


def _table(table_id: str, record: dict[str, Any]) -> Table:
    store = MemoryStore()
    store.create_table(table_id, record, 0)
    return Table(table_id, TableSettings(**record["settings"]), owner_token=record["owner_token"],
                 seed=record["seed"], created_ns=0, store=store, clock_ns=lambda: 0,
                 fair_shuffle=record["fair_shuffle"])


@pytest.mark.parametrize("seed", sorted(STALLED))
def test_every_turn_that_starts_brings_its_seat_legal_actions(seed: str) -> None:
    table = _table(seed, STALLED[seed]["record"])
    turns = 0
    for item in STALLED[seed]["journal"]:
        produced = table.record(journal.decode(item))
        starting = {entry.event.seat for entry in produced if type(entry.event) is ev.TurnStarted}
        for seat in starting:
            sent = table.render(produced[-1], seat)
            assert sent.HasField("your_legal_actions"), f"seat {seat}'s turn at event {sent.number} brings no options"
            assert sent.your_legal_actions == table.view(seat).legal_actions
            assert sent.your_legal_actions.required
            turns += 1
    assert table.match is not None and turns > 20
    last = STALLED[seed]["journal"][-1]
    assert table.match.game.to_act == last["seat"], "the journal ends where the seat got its turn back"
