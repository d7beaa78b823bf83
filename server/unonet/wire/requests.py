"""PlayService requests back into engine actions, refused precisely: input that can never be valid raises
`MalformedAction` with its reason before the engine sees it.
"""

from __future__ import annotations

from google.protobuf.message import Message

from unonet.engine.actions import (
    Action,
    CallUno,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.engine.cards import Card
from unonet.engine.errors import IllegalAction, MalformedAction
from unonet.v1 import (
    cards_pb2,
    play_service_pb2,
)
from unonet.wire.cards import card_from_pb, color_from_pb
from unonet.wire.legal import needs_color


def action_from_request(seat: int, request: Message) -> tuple[Action, ...]:
    """The engine actions a PlayService request from `seat` asks for, in the order to apply them.

    Usually one action. A PlayCards that names the colour with its black card is two: the Play, then the
    ChooseColor, which the caller applies together (refusing both if either is refused). The token, table
    and command id are the caller's business; so is `reaction_window_id` on a play, which the engine
    does not need (it knows which window a jump-in or cut answers).

    Raises MalformedAction for input that can never be valid (reasons NO_CARDS, MISSING_FIELD and those of
    `card_from_pb` and `color_from_pb`), IllegalAction with reason COLOR_NOT_NEEDED for a colour sent with
    cards that name none, and TypeError for a message that is not a PlayService command (CommitEntropy
    and RevealEntropy are the host's, not the engine's).
    """
    if isinstance(request, play_service_pb2.PlayCardsRequest):
        return _play_from_request(seat, request)
    if isinstance(request, play_service_pb2.ChooseColorRequest):
        return (ChooseColor(seat, color_from_pb(request.color)),)
    if isinstance(request, play_service_pb2.DrawRequest):
        return (Draw(seat),)
    if isinstance(request, play_service_pb2.PassRequest):
        return (Pass(seat),)
    if isinstance(request, play_service_pb2.CallUnoRequest):
        return (CallUno(seat),)
    if isinstance(request, play_service_pb2.CatchUnoRequest):
        return (CatchUno(seat, request.target_seat),)
    if isinstance(request, play_service_pb2.ChallengeRequest):
        return (Challenge(seat),)
    if isinstance(request, play_service_pb2.ReactRequest):
        if request.reaction_window_id == 0:
            raise MalformedAction("a reaction must name its window (reaction_window_id)", reason="MISSING_FIELD")
        return (React(seat, request.reaction_window_id),)
    if isinstance(request, play_service_pb2.ChooseSwapTargetRequest):
        return (ChooseSwapTarget(seat, request.target_seat),)
    if isinstance(request, play_service_pb2.FiveSwapRequest):
        return (FiveSwap(seat, request.target_seat, _required_card(request, "card")),)
    if isinstance(request, play_service_pb2.GiveCardRequest):
        return (GiveCard(seat, _required_card(request, "card")),)
    raise TypeError(f"not a PlayService command: {type(request).__name__}")


def _required_card(request: Message, field: str) -> Card:
    if not request.HasField(field):
        raise MalformedAction(f"{type(request).__name__}.{field} must name a card", reason="MISSING_FIELD")
    card: cards_pb2.Card = getattr(request, field)
    return card_from_pb(card)


def _play_from_request(seat: int, request: play_service_pb2.PlayCardsRequest) -> tuple[Action, ...]:
    if not request.cards:
        raise MalformedAction("PlayCards needs at least one card", reason="NO_CARDS")
    cards = tuple(card_from_pb(card) for card in request.cards)
    play = Play(seat, cards, call_uno=request.call_uno)
    if not request.HasField("color"):
        return (play,)
    color = color_from_pb(request.color)
    if len(cards) != 1 or not needs_color(cards[0]):
        raise IllegalAction(
            f"{', '.join(map(str, cards))} names no colour; send PlayCards without `color`",
            reason="COLOR_NOT_NEEDED",
        )
    return (play, ChooseColor(seat, color))
