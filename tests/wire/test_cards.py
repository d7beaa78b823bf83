"""Cards on the wire (`unonet.wire.cards`): every card round-trips; impossible cards and colours are
refused with their reasons.
"""

from __future__ import annotations

import pytest
from wire_faces import (
    every_card,
)

from unonet.engine import (
    Card,
    Color,
    MalformedAction,
    Rank,
)
from unonet.v1 import cards_pb2
from unonet.wire import convert


@pytest.mark.parametrize("engine_card", every_card(), ids=str)
def test_every_card_round_trips(engine_card: Card) -> None:
    msg = convert.card_to_pb(engine_card)
    assert convert.card_from_pb(msg) is engine_card
    assert convert.card_ref(engine_card).card == msg
    assert cards_pb2.Color.Name(msg.color).removeprefix("COLOR_").lower() == engine_card.color.value


def test_number_ranks_are_face_value_plus_one() -> None:
    for value in range(10):
        assert convert.rank_to_pb(Rank(str(value))) == value + 1


def test_card_ref_without_a_card_is_hidden() -> None:
    assert not convert.card_ref(None).HasField("card")


@pytest.mark.parametrize(
    ("color", "rank", "reason"),
    [
        (cards_pb2.COLOR_UNSPECIFIED, cards_pb2.RANK_FIVE, "UNSPECIFIED_ENUM"),
        (cards_pb2.COLOR_RED, cards_pb2.RANK_UNSPECIFIED, "UNSPECIFIED_ENUM"),
        (cards_pb2.COLOR_UNSPECIFIED, cards_pb2.RANK_UNSPECIFIED, "UNSPECIFIED_ENUM"),
        (cards_pb2.COLOR_BLACK, cards_pb2.RANK_FIVE, "NO_SUCH_CARD"),
        (cards_pb2.COLOR_RED, cards_pb2.RANK_WILD, "NO_SUCH_CARD"),
        (cards_pb2.COLOR_BLUE, cards_pb2.RANK_WILD_DRAW_FOUR, "NO_SUCH_CARD"),
        (99, cards_pb2.RANK_FIVE, "UNSPECIFIED_ENUM"),  # a number Color does not define: no colour
        (cards_pb2.COLOR_RED, 99, "UNSPECIFIED_ENUM"),
    ],
)
def test_impossible_cards_are_refused(color: int, rank: int, reason: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        convert.card_from_pb(cards_pb2.Card(color=color, rank=rank))  # type: ignore[arg-type]
    assert caught.value.reason == reason


def test_named_colours() -> None:
    assert [convert.color_from_pb(convert.color_to_pb(c)) for c in (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)]
    assert convert.color_to_pb(None) == cards_pb2.COLOR_UNSPECIFIED


@pytest.mark.parametrize(
    ("value", "reason"),
    [(cards_pb2.COLOR_UNSPECIFIED, "UNSPECIFIED_ENUM"), (cards_pb2.COLOR_BLACK, "BAD_COLOR"), (42, "BAD_COLOR")],
)
def test_colour_that_cannot_be_named_is_refused(value: int, reason: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        convert.color_from_pb(value)
    assert caught.value.reason == reason
