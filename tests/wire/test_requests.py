"""Requests back to engine actions (`unonet.wire.requests`): each request becomes its action; malformed ones
are refused with their reasons.
"""

from __future__ import annotations

import pytest
from google.protobuf.message import Message
from wire_faces import (
    B3,
    G2,
    R5,
    SOUND,
    WD4,
    WILD,
    card,
)

from unonet.engine import (
    CallUno,
    Card,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    FiveSwap,
    GiveCard,
    IllegalAction,
    MalformedAction,
    Pass,
    Play,
    React,
)
from unonet.v1 import cards_pb2, play_service_pb2
from unonet.wire import convert


def pb(c: Card) -> cards_pb2.Card:
    return convert.card_to_pb(c)


def test_each_request_becomes_its_action() -> None:
    ps = play_service_pb2
    cases: list[tuple[Message, tuple[object, ...]]] = [
        (ps.PlayCardsRequest(cards=[pb(R5), pb(card("yellow 5"))]), (Play(1, (R5, card("yellow 5"))),)),
        (ps.PlayCardsRequest(cards=[pb(R5)], call_uno=True), (Play(1, (R5,), call_uno=True),)),
        (ps.PlayCardsRequest(cards=[pb(WILD)]), (Play(1, (WILD,)),)),
        (
            ps.PlayCardsRequest(cards=[pb(WD4)], color=cards_pb2.COLOR_GREEN),
            (Play(1, (WD4,)), ChooseColor(1, Color.GREEN)),
        ),
        (ps.ChooseColorRequest(color=cards_pb2.COLOR_YELLOW), (ChooseColor(1, Color.YELLOW),)),
        (ps.DrawRequest(), (Draw(1),)),
        (ps.PassRequest(), (Pass(1),)),
        (ps.CallUnoRequest(), (CallUno(1),)),
        (ps.CatchUnoRequest(target_seat=3), (CatchUno(1, 3),)),
        (ps.ChallengeRequest(), (Challenge(1),)),
        (ps.ReactRequest(reaction_window_id=7), (React(1, 7),)),
        (ps.ChooseSwapTargetRequest(target_seat=0), (ChooseSwapTarget(1, 0),)),
        (ps.FiveSwapRequest(target_seat=2, card=pb(B3)), (FiveSwap(1, 2, B3),)),
        (ps.GiveCardRequest(card=pb(G2)), (GiveCard(1, G2),)),
    ]
    for request, expected in cases:
        assert convert.action_from_request(1, request) == expected


@pytest.mark.parametrize(
    ("request_msg", "reason"),
    [
        (play_service_pb2.PlayCardsRequest(), "NO_CARDS"),
        (play_service_pb2.PlayCardsRequest(cards=[cards_pb2.Card(color=cards_pb2.COLOR_RED)]), "UNSPECIFIED_ENUM"),
        (play_service_pb2.PlayCardsRequest(cards=[cards_pb2.Card(rank=cards_pb2.RANK_SKIP)]), "UNSPECIFIED_ENUM"),
        (play_service_pb2.PlayCardsRequest(cards=[pb(R5), cards_pb2.Card(color=5, rank=6)]), "NO_SUCH_CARD"),
        (play_service_pb2.PlayCardsRequest(cards=[pb(WILD)], color=cards_pb2.COLOR_UNSPECIFIED), "UNSPECIFIED_ENUM"),
        (play_service_pb2.PlayCardsRequest(cards=[pb(WILD)], color=cards_pb2.COLOR_BLACK), "BAD_COLOR"),
        (play_service_pb2.ChooseColorRequest(), "UNSPECIFIED_ENUM"),
        (play_service_pb2.ChooseColorRequest(color=cards_pb2.COLOR_BLACK), "BAD_COLOR"),
        (play_service_pb2.ReactRequest(), "MISSING_FIELD"),
        (play_service_pb2.FiveSwapRequest(target_seat=2), "MISSING_FIELD"),
        (play_service_pb2.FiveSwapRequest(target_seat=2, card=cards_pb2.Card()), "UNSPECIFIED_ENUM"),
        (play_service_pb2.GiveCardRequest(), "MISSING_FIELD"),
        (play_service_pb2.GiveCardRequest(card=cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=1)), "NO_SUCH_CARD"),
    ],
)
def test_malformed_requests_are_refused_with_a_reason(request_msg: Message, reason: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        convert.action_from_request(0, request_msg)
    assert caught.value.reason == reason


@pytest.mark.parametrize("cards", [[R5], [SOUND], [R5, card("yellow 5")]], ids=str)
def test_colour_sent_with_cards_that_name_none_is_refused(cards: list[Card]) -> None:
    request = play_service_pb2.PlayCardsRequest(cards=[pb(c) for c in cards], color=cards_pb2.COLOR_RED)
    with pytest.raises(IllegalAction) as caught:
        convert.action_from_request(0, request)
    assert caught.value.reason == "COLOR_NOT_NEEDED"


def test_non_engine_requests_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        convert.action_from_request(0, play_service_pb2.CommitEntropyRequest())
