"""A card drawn for the turn ends the turn at once when it cannot be played (T3), as the protocol says
(PlayService.Draw, PHASE_AFTER_DRAW, DrawnCardKept, docs/protocol.md "Drawing for your turn"): the
CardsDrawn is followed straight by the next TurnStarted, with no Pass to send and no DrawnCardKept.
Only a playable drawn card leaves the seat in PHASE_AFTER_DRAW with `pass_turn` offered.
"""

from __future__ import annotations

from collections import Counter

from fair_games import new_table, turn_to_play

from unonet.engine import Draw, Pass, legal_actions
from unonet.host import journal
from unonet.v1 import views_pb2


def test_an_unplayable_drawn_card_ends_the_turn_and_a_playable_one_waits_for_a_pass() -> None:
    host, table, clock = new_table(4, seats=3, target_score=500)
    for seat in range(3):
        table.join(f"p{seat}", None, False)
    table.record(journal.Start())
    seen: Counter[str] = Counter()
    for step in range(4000):
        match = table.match
        assert match is not None
        if match.is_over or min(seen["ended"], seen["waits"]) >= 20:
            break
        seat = turn_to_play(host, table, clock)
        if seat is None:
            continue
        game = match.game
        draw = next((a for a in legal_actions(game, seat) if isinstance(a, Draw)), None)
        if draw is None or game.obligation is not None:  # a colour to name, or an obligation to take
            table.command(seat, f"c{step}", (legal_actions(game, seat)[0],))
            continue
        before = table.last_number
        table.command(seat, f"d{step}", (draw,))
        kinds = [table.render(entry, None).WhichOneof("payload") for entry in table.log if entry.number > before]
        view = table.view(seat)
        assert "drawn_card_kept" not in kinds
        if view.phase == views_pb2.PHASE_AFTER_DRAW and view.seat_to_act == seat:
            assert kinds == ["cards_drawn"] and view.legal_actions.pass_turn
            assert [option.cards[0] for option in view.legal_actions.plays] == [view.hand[-1].card]
            kept = table.last_number
            table.command(seat, f"p{step}", (Pass(seat),))
            kept_entry = table.events.entry(kept + 1)
            assert kept_entry is not None and table.render(kept_entry, None).HasField("drawn_card_kept")
            seen["waits"] += 1
        else:
            assert kinds[:2] == ["cards_drawn", "turn_started"], kinds
            assert not view.legal_actions.pass_turn
            seen["ended"] += 1
    assert seen["ended"] >= 20 and seen["waits"] >= 20, seen
