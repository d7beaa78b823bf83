"""What the tests of `unonet.wire` share: engine cards by name, and the face accounting that proves a
converted event or view shows exactly the faces the engine lets its receiver see, and nothing else."""

from __future__ import annotations

import dataclasses
import inspect
from collections import Counter
from collections.abc import Iterator

from google.protobuf.message import Message

from unonet.engine import (
    Card,
    Match,
    standard_deck,
)
from unonet.engine import events as ev
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, play_service_pb2, table_pb2
from unonet.wire import convert

SEATS = 4

VIEWERS: tuple[int | None, ...] = (*range(SEATS), None)


def card(text: str) -> Card:
    return Card.parse(text)


R5, R7, B3, G2 = card("red 5"), card("red 7"), card("blue 3"), card("green 2")
WILD, WD4, SOUND = card("wild"), card("wild_draw_four"), card("sound_wild")


def card(text: str) -> Card:
    return Card.parse(text)


def every_card() -> list[Card]:
    return list(dict.fromkeys(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)))


def engine_event_classes() -> list[type[ev.Event]]:
    return [
        cls
        for _, cls in inspect.getmembers(ev, inspect.isclass)
        if issubclass(cls, ev.Event) and cls is not ev.Event and cls.__module__ == ev.__name__
    ]


def engine_faces(obj: object) -> Counter[Card]:
    """Every card face an engine event (or part of one) carries."""
    if obj is None:
        return Counter()
    if isinstance(obj, Card):
        return Counter([obj])
    if isinstance(obj, tuple):
        return sum((engine_faces(item) for item in obj), Counter())
    if dataclasses.is_dataclass(obj):
        return sum((engine_faces(getattr(obj, f.name)) for f in dataclasses.fields(obj)), Counter())
    return Counter()


def pb_faces(msg: Message) -> Counter[Card]:
    """Every card face anywhere in a protobuf message."""
    if isinstance(msg, cards_pb2.Card):
        return Counter([convert.card_from_pb(msg)])
    found: Counter[Card] = Counter()
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        items = [value] if isinstance(value, Message) else value
        for item in items:
            found += pb_faces(item)
    return found


def check_event(event: ev.Event, viewer: int | None) -> events_pb2.Event:
    """Convert for one viewer: exactly the faces the engine lets that viewer see, and nothing else."""
    msg = convert.event_to_pb(event, viewer)
    assert msg.WhichOneof("payload") is not None
    assert not msg.HasField("your_legal_actions") and msg.number == 0, "the caller sets these"
    visible = event.visible_to(viewer)
    assert pb_faces(msg) == engine_faces(visible), f"{event!r} for {viewer}: {msg}"
    return msg


def settings_for(match: Match) -> table_pb2.TableSettings:
    return table_pb2.TableSettings(name="t", seat_count=SEATS, ruleset=convert.ruleset_to_pb(match.ruleset))


def seat_states() -> list[table_pb2.SeatState]:
    return [table_pb2.SeatState(seat=seat, occupied=True, name=f"p{seat}") for seat in range(SEATS)]


def requests_for(seat: int, legal: actions_pb2.LegalActions) -> Iterator[Message]:
    """Every request a client could build from its LegalActions, one per listed option."""
    for option in legal.plays:
        yield play_service_pb2.PlayCardsRequest(cards=option.cards, reaction_window_id=option.reaction_window_id)
    if legal.choose_color:
        yield play_service_pb2.ChooseColorRequest(color=cards_pb2.COLOR_BLUE)
    if legal.HasField("draw"):
        yield play_service_pb2.DrawRequest()
    if legal.pass_turn:
        yield play_service_pb2.PassRequest()
    if legal.call_uno:
        yield play_service_pb2.CallUnoRequest()
    for target in legal.catch_uno_targets:
        yield play_service_pb2.CatchUnoRequest(target_seat=target)
    if legal.challenge:
        yield play_service_pb2.ChallengeRequest()
    for window in legal.react_window_ids:
        yield play_service_pb2.ReactRequest(reaction_window_id=window)
    for target in legal.swap_target_seats:
        yield play_service_pb2.ChooseSwapTargetRequest(target_seat=target)
    for target in legal.five_swap.target_seats:
        for given in legal.five_swap.cards:
            yield play_service_pb2.FiveSwapRequest(target_seat=target, card=given)
    for given in legal.give_cards:
        yield play_service_pb2.GiveCardRequest(card=given)
