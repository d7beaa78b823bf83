"""The demo's narration: a draw reads naturally whether or not the reader may see the drawn faces."""

from __future__ import annotations

from unonet.client.narrate import describe
from unonet.v1 import cards_pb2, events_pb2


def drew(*refs: cards_pb2.CardRef) -> events_pb2.Event:
    return events_pb2.Event(number=7, cards_drawn=events_pb2.CardsDrawn(
        seat=1, count=len(refs), reason=events_pb2.DRAW_REASON_TURN, cards=list(refs)))


def test_a_hidden_draw_names_no_faces() -> None:
    hidden = cards_pb2.CardRef(commitment=b"\x01" * 32)  # what a spectator gets: the commitment only
    assert describe(drew(hidden), ["ann", "bob"]) == "bob draws 1 (turn)"


def test_a_shown_draw_names_its_faces() -> None:
    face = cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_SEVEN)
    text = describe(drew(cards_pb2.CardRef(card=face)), ["ann", "bob"])
    assert text is not None and text.startswith("bob draws 1 (turn): ") and len(text) > len("bob draws 1 (turn): ")


def test_a_kept_card_and_a_seat_coming_and_going_read_naturally() -> None:
    names = ["ann", "bob"]
    kept = events_pb2.Event(drawn_card_kept=events_pb2.DrawnCardKept(seat=1))
    away = events_pb2.Event(seat_connection_changed=events_pb2.SeatConnectionChanged(seat=0, connected=False))
    back = events_pb2.Event(seat_connection_changed=events_pb2.SeatConnectionChanged(seat=0, connected=True))
    assert [describe(e, names) for e in (kept, away, back)] == ["bob keeps the card", "ann is away", "ann is back"]
