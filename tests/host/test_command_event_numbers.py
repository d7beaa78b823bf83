"""The numbers the protocol promises a client: CommandResult.event_number and HandRevealed.played_event_number.

- `CommandResult.event_number` is the command's own first event (actions.proto, play_service.proto):
  the CardsPlayed of a PlayCards, the CardsDrawn of a Draw (or the PileReshuffled of a draw that
  rebuilt the pile first), the DrawnCardKept of a Pass, the ColorChosen of a ChooseColor. At a table
  with jump-ins most turns begin by closing the jump-in window the last card opened (H6): that
  ReactionWindowClosed comes first, and is not the command's own. A table an earlier host stored
  (event format 1) keeps the numbers it answered with then, so a retry after a restart gets its first
  result.
- `HandRevealed.played_event_number` names the CardsPlayed of the challenged Wild Draw Four at every
  table, league-seeded ones (dealt without commitments) included.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter

import pytest
from fair_games import new_table, turn_to_play

from unonet.engine import Challenge, ChooseColor, Draw, Pass, Play, UnoError, legal_actions
from unonet.host import journal
from unonet.host.bots import choose_action
from unonet.host.errors import HostError
from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import EVENT_FORMAT, Table, TableSettings
from unonet.v1 import cards_pb2, events_pb2

OWN_FIRST = {
    Play: {"cards_played"},
    Draw: {"cards_drawn", "pile_reshuffled"},
    Pass: {"drawn_card_kept"},
    ChooseColor: {"color_chosen"},
    Challenge: {"hand_revealed", "challenge_resolved"},
}


def _play_turns(host: Host, table: Table, clock: list[int], seed: int, turns: int,
                *, challenge: bool = False) -> list[tuple[type, list[str], int, int]]:
    """Turn commands played by the host's bot policy (challenging every Wild Draw Four with `challenge`),
    as PlayService routes them; for each applied at once: its action's type, the kinds of the events it
    produced, and how far into them its result's event_number and last_event_number point."""
    rng = random.Random(seed)
    applied = []
    for step in range(turns * 20):
        match = table.match
        assert match is not None
        if match.is_over or len(applied) >= turns:
            break
        seat = turn_to_play(host, table, clock)
        if seat is None:
            continue
        game = match.game
        options = legal_actions(game, seat)
        challenges = [action for action in options if isinstance(action, Challenge)]
        action = challenges[0] if challenge and challenges else choose_action(game, seat, options, rng)
        before, cid = table.last_number, f"c{step}"
        try:
            if table.races.submit(table, seat, cid, (action,), arrived_ns=clock[0]) is not None:
                continue
            result = table.command(seat, cid, (action,))
        except (HostError, UnoError):
            continue
        kinds = [table.render(entry, None).WhichOneof("payload") for entry in table.log if entry.number > before]
        applied.append((type(action), kinds, result.event_number - before - 1, result.last_event_number - before - 1))
    return applied


def _jump_in_table(seed: int, *, event_format: int | None = None) -> tuple[Host, Table, list[int]]:
    host, table, clock = new_table(seed, seats=4, jump_in=True, target_score=500)
    if event_format is not None:
        table.event_format = event_format
    for seat in range(4):
        table.join(f"p{seat}", None, False)
    table.record(journal.Start())
    return host, table, clock


@pytest.mark.parametrize("seed", [1, 2])
def test_a_turn_command_s_event_number_is_its_own_first_event_at_a_jump_in_table(seed: int) -> None:
    host, table, clock = _jump_in_table(seed)
    applied = _play_turns(host, table, clock, seed, 150)
    closed_first = Counter()
    for action, kinds, first, last in applied:
        assert kinds[first] in OWN_FIRST[action], (action.__name__, kinds, first)
        assert set(kinds[:first]) <= {"reaction_window_closed"}, "only the windows its arrival closed come before"
        assert first <= last < len(kinds)
        closed_first[action.__name__] += first > 0
    assert closed_first["Play"] >= 10 and closed_first["Draw"] >= 5, closed_first  # before: their closing


def test_a_table_stored_before_keeps_the_event_numbers_it_answered_with() -> None:
    host, table, clock = _jump_in_table(3, event_format=1)
    applied = _play_turns(host, table, clock, 3, 80)
    assert any(kinds[0] == "reaction_window_closed" for _, kinds, _, _ in applied)
    assert all(first == 0 for _, _, first, _ in applied)


def _revealed_hands(table: Table) -> list[tuple[events_pb2.HandRevealed, events_pb2.Event]]:
    """Each HandRevealed in the log as its challenger received it, with the event it names as played."""
    public = {event.number: event for event in table.events.rendered_since(0, None)}
    out = []
    for event in public.values():
        if event.HasField("hand_revealed"):
            challenger = event.hand_revealed.challenger_seat
            mine = next(e for e in table.events.rendered_since(event.number - 1, challenger))
            out.append((mine.hand_revealed, public.get(mine.hand_revealed.played_event_number, events_pb2.Event())))
    return out


@pytest.mark.parametrize("fair_shuffle", [True, False], ids=["committed", "league-seeded"])
def test_a_revealed_hand_names_the_wild_draw_four_it_was_played_with(fair_shuffle: bool) -> None:
    host, table, clock = new_table(5, seats=3, bluffing=True, target_score=500)
    if not fair_shuffle:  # as a league-seeded table is dealt: the engine's shuffle, no commitments
        table.fair_shuffle = False
    for seat in range(3):
        table.join(f"p{seat}", None, False)
    table.record(journal.Start())
    _play_turns(host, table, clock, 5, 400, challenge=True)
    revealed = _revealed_hands(table)
    assert len(revealed) >= 2
    for hand, played in revealed:
        assert played.HasField("cards_played"), f"event {hand.played_event_number} is no CardsPlayed"
        assert played.cards_played.seat == hand.hand.seat
        assert played.cards_played.cards[0].card.rank == cards_pb2.RANK_WILD_DRAW_FOUR


async def test_the_event_format_is_the_one_the_table_was_created_with(tmp_path) -> None:
    """A new table's record says its event format; a table stored before it existed replays as format 1."""
    store = SqliteStore(tmp_path / "host.db")
    host = Host(store)
    created = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={}))
    assert created.event_format == EVENT_FORMAT == 2
    await host.stop()
    store.close()
    restored = Host(SqliteStore(tmp_path / "host.db"))
    restored.restore()
    assert restored.tables[created.table_id].event_format == EVENT_FORMAT
    restored.store.close()
    with sqlite3.connect(tmp_path / "host.db") as connection:  # the record an earlier host wrote
        connection.execute("UPDATE tables SET record = json_remove(record, '$.event_format')")
    older = Host(SqliteStore(tmp_path / "host.db"))
    older.restore()
    assert older.tables[created.table_id].event_format == 1
    older.store.close()
