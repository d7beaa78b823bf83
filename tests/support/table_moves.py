"""A table moved on one input at a time, as its players and its driver would, in process (no driver, no
clock): for the tests and benches that play whole matches through `Table.record` and `Table.command`."""

from __future__ import annotations

import random

from unonet.engine import legal_actions
from unonet.host import journal
from unonet.host.bots import choose_action, reaction_for
from unonet.host.table import Table


def move_on(table: Table, rng: random.Random, command_id: str) -> bool | None:
    """One input: what the driver records when its deadline passes (the shuffle's entropy nobody sends,
    a reaction window's close, the round's hold), else a command by the host's own bot policy, `command_id`
    its id: the seat to act's, or with nobody to act the first seat with a reaction. True when a seat's
    command was applied, False for the driver's inputs, None when nothing moves the table (no match, or
    an open window nobody answers)."""
    if table.shuffle is not None:
        table.record(journal.EntropyTimeout(table.shuffle.round_no, table.shuffle.phase))
        return False
    if table.window_deadlines:
        table.record(journal.Close(min(table.window_deadlines)))
        return False
    if table.holds.current is not None:  # the round's first turn waits for its hold to run out
        table.record(journal.Release(table.holds.current.round_no))
        return False
    if table.match is None:
        return None
    game = table.match.game
    seat = game.to_act
    if seat is None:
        answers = ((other, reaction_for(game, other, legal_actions(game, other))) for other in range(len(table.seats)))
        seat, action = next(((s, a) for s, a in answers if a is not None), (None, None))
        if seat is None or action is None:
            return None
    else:
        action = choose_action(game, seat, legal_actions(game, seat), rng)
    table.command(seat, command_id, (action,))
    return True
