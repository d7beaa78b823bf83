"""The journal's JSON form of engine actions: each under its protocol RPC's name, old names still read."""

from __future__ import annotations

import pytest

from unonet.engine import (
    Action,
    CallUno,
    Card,
    CatchUno,
    Challenge,
    Chat,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.host.actions_json import canonical, dump_action, load_action
from unonet.v1 import chat_service_pb2, play_service_pb2

RED5 = Card.parse("red 5")
EVERY_ACTION: list[Action] = [
    Play(1, (RED5,), call_uno=True), ChooseColor(1, Color.BLUE), Draw(1), Pass(1), CallUno(1),
    CatchUno(1, 2), Challenge(1), ChooseSwapTarget(1, 3), FiveSwap(1, 2, RED5), GiveCard(1, RED5),
    React(1, 4), Chat(1),
]
RPCS = {method.name for service in (play_service_pb2.DESCRIPTOR.services_by_name["PlayService"],
                                    chat_service_pb2.DESCRIPTOR.services_by_name["ChatService"])
        for method in service.methods}


def camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda action: type(action).__name__)
def test_every_action_round_trips_under_the_name_of_the_rpc_that_sends_it(action: Action) -> None:
    data = dump_action(action)
    assert camel(data["type"]) in RPCS
    assert load_action(action.seat, data) == action
    assert canonical([data]) == [data]


@pytest.mark.parametrize(("old", "action"), [
    ({"type": "play", "cards": ["red 5"], "call_uno": False}, Play(2, (RED5,))),
    ({"type": "catch", "target": 0}, CatchUno(2, 0)),
    ({"type": "swap", "target": 3}, ChooseSwapTarget(2, 3)),
    ({"type": "chat"}, Chat(2)),
])
def test_the_names_an_earlier_host_journalled_still_decode(old: dict[str, object], action: Action) -> None:
    assert load_action(2, old) == action
    assert canonical([old]) == [dump_action(action)]  # a retry after a restart matches what was journalled


def test_an_action_no_host_ever_wrote_is_refused() -> None:
    with pytest.raises(KeyError):
        load_action(0, {"type": "slap"})
