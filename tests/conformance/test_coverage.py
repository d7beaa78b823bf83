"""What `set_fields` counts as filled (unonet.client.conformance.coverage): the FieldsSuite's verdicts rest on it."""

from __future__ import annotations

from unonet.client.conformance.coverage import FieldCoverage, set_fields, universe
from unonet.v1 import cards_pb2, errors_pb2, events_pb2

V1 = "unonet.v1."


def names(message: object) -> set[str]:
    return {name.removeprefix(V1) for name in set_fields(message)}  # type: ignore[arg-type]


def test_plain_scalars_count_when_not_their_default() -> None:
    assert names(events_pb2.CardsDrawn(seat=0, count=0)) == set()
    assert names(events_pb2.CardsDrawn(seat=2, forgiven=1)) == {"CardsDrawn.seat", "CardsDrawn.forgiven"}


def test_a_field_with_presence_counts_when_set_even_to_zero() -> None:
    assert names(events_pb2.ReactionWindowClosed()) == set()
    assert names(events_pb2.ReactionWindowClosed(winner_seat=0)) == {"ReactionWindowClosed.winner_seat"}


def test_repeated_fields_count_with_an_element_and_their_messages_are_walked() -> None:
    assert names(events_pb2.CardsDrawn(cards=[])) == set()
    drawn = events_pb2.CardsDrawn(cards=[cards_pb2.CardRef(), cards_pb2.CardRef(deck_number=3)])
    assert names(drawn) == {"CardsDrawn.cards", "CardRef.deck_number"}


def test_a_message_field_counts_when_present_even_empty_and_oneof_members_likewise() -> None:
    event = events_pb2.Event(cards_drawn=events_pb2.CardsDrawn())
    assert names(event) == {"Event.cards_drawn"}
    event.cards_drawn.hand_size = 4
    assert names(event) == {"Event.cards_drawn", "CardsDrawn.hand_size"}


def test_a_map_counts_as_one_field_and_its_entries_are_not_fields() -> None:
    detail = errors_pb2.ErrorDetail(reason="NOT_OWNER")
    assert names(detail) == {"ErrorDetail.reason"}
    detail.metadata["field"] = "seat"
    assert names(detail) == {"ErrorDetail.reason", "ErrorDetail.metadata"}


def test_what_a_run_observes_is_named_as_the_universe_names_it() -> None:
    coverage = FieldCoverage()
    coverage.observe(events_pb2.Event(number=1, cards_drawn=events_pb2.CardsDrawn(seat=1)))
    assert coverage.fields == {V1 + "Event.number", V1 + "Event.cards_drawn", V1 + "CardsDrawn.seat"}
    assert coverage.fields <= universe()
