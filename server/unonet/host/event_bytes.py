"""The wire bytes of the commonest events, written directly: the very bytes protobuf serializes.

A command renders two or three events, nearly all of them a CardsPlayed, a CardsDrawn, a TurnStarted
or (once a round per seat) a CardsDealt, each once per visibility class (eventlog.py). Building the
message (`convert.event_to_pb`, its committed cards filled in) and serializing it was the largest
piece of the host's own work per command: 40 of its 55 us of rendering a command at 20 tables went on
those four kinds (issue 33). These encoders write the same bytes from the engine event without a
message: a play with its committed card in 3.8 us against 7.7 in a micro-benchmark (a new time each
call).

The bytes must be exactly what `SerializeToString` gives for the message `EventLog` would build: the
renderings are stored and linked into the log's head chain (loghead.py), and a restart renders them
again and checks them against the chain. tests/host/test_event_bytes.py compares both for every event
of matches under every preset and house rule, fair and league-seeded, for each receiver; a kind or a
value these do not write (a negative number, a card list that does not match its committed cards)
gives None, and the caller builds the message.

Protobuf's serialization of a proto3 message (upb, what the `protobuf` package runs): fields in
field-number order, a scalar at its default left out, a message field that was set written even when
empty. Field numbers come from the generated descriptors, so a renumbered field cannot be missed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.timestamp_pb2 import Timestamp

from unonet.engine import events as ev
from unonet.engine.cards import Card
from unonet.host.framing import length_delimited, varint
from unonet.v1 import actions_pb2, cards_pb2, events_pb2
from unonet.wire.cards import COLOR_TO_PB, RANK_TO_PB
from unonet.wire.enums import draw_reason_to_pb
from unonet.wire.refs import EventRefs, Ref

_LENGTH_DELIMITED = (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_STRING)


def _tag(message: Descriptor, name: str) -> bytes:
    """The key of field `name` of `message` (its number and wire type), from the generated descriptor."""
    field = message.fields_by_name[name]
    return varint(field.number << 3 | (2 if field.type in _LENGTH_DELIMITED else 0))


_EVENT = events_pb2.Event.DESCRIPTOR
EVENT_NUMBER, EVENT_TIME = _tag(_EVENT, "number"), _tag(_EVENT, "time")
# A Timestamp's and a Duration's fields (the same numbers in both).
SECONDS, NANOS = _tag(Timestamp.DESCRIPTOR, "seconds"), _tag(Timestamp.DESCRIPTOR, "nanos")

_CARD, _REF, _HAND = cards_pb2.Card.DESCRIPTOR, cards_pb2.CardRef.DESCRIPTOR, cards_pb2.SeatHand.DESCRIPTOR
CARD_COLOR, CARD_RANK = _tag(_CARD, "color"), _tag(_CARD, "rank")
REF_CARD, REF_COMMITMENT, REF_SALT = _tag(_REF, "card"), _tag(_REF, "commitment"), _tag(_REF, "salt")
REF_DECK, REF_POSITION = _tag(_REF, "deck_number"), _tag(_REF, "position")
HAND_SEAT, HAND_COUNT, HAND_CARDS = _tag(_HAND, "seat"), _tag(_HAND, "count"), _tag(_HAND, "cards")

_PLAYED = events_pb2.CardsPlayed.DESCRIPTOR
PLAYED = _tag(_EVENT, "cards_played")
PLAYED_SEAT, PLAYED_CARDS, PLAYED_KIND = _tag(_PLAYED, "seat"), _tag(_PLAYED, "cards"), _tag(_PLAYED, "kind")
PLAYED_WINDOW, PLAYED_HAND_SIZE = _tag(_PLAYED, "reaction_window_id"), _tag(_PLAYED, "hand_size")
PLAYED_UNO = _tag(_PLAYED, "called_uno")

_DRAWN = events_pb2.CardsDrawn.DESCRIPTOR
DRAWN = _tag(_EVENT, "cards_drawn")
DRAWN_SEAT, DRAWN_COUNT, DRAWN_REASON = _tag(_DRAWN, "seat"), _tag(_DRAWN, "count"), _tag(_DRAWN, "reason")
DRAWN_CARDS, DRAWN_HAND_SIZE = _tag(_DRAWN, "cards"), _tag(_DRAWN, "hand_size")
DRAWN_FORGIVEN = _tag(_DRAWN, "forgiven")

_DEALT = events_pb2.CardsDealt.DESCRIPTOR
DEALT = _tag(_EVENT, "cards_dealt")
DEALT_DEALER, DEALT_HANDS = _tag(_DEALT, "dealer_seat"), _tag(_DEALT, "hands")
DEALT_PILE = _tag(_DEALT, "draw_pile_size")

_TURN = events_pb2.TurnStarted.DESCRIPTOR
TURN = _tag(_EVENT, "turn_started")
TURN_SEAT, TURN_DEADLINE, TURN_TIME = _tag(_TURN, "seat"), _tag(_TURN, "deadline"), _tag(_TURN, "turn_time")
TURN_BANK = _tag(_TURN, "time_bank_remaining")

# Card.color and Card.rank of every face, one field pair per card (both enums are never 0 for a card).
_FACES: dict[Card, bytes] = {}


def _face(card: Card) -> bytes:
    """A CardRef's `card` field: the face, as card_to_pb gives it."""
    face = _FACES.get(card)
    if face is None:
        body = CARD_COLOR + varint(COLOR_TO_PB[card.color]) + CARD_RANK + varint(RANK_TO_PB[card.rank])
        face = _FACES[card] = length_delimited(REF_CARD, body)
    return face


def _bytes(tag: bytes, value: bytes) -> bytes:
    """A bytes field, left out when empty (proto3)."""
    return tag + varint(len(value)) + value if value else b""


def _scalar(tag: bytes, value: int) -> bytes:
    """A varint field, left out at 0 (proto3); raises ValueError for a negative value (not written here)."""
    if value > 0:
        return tag + varint(value)
    if value < 0:
        raise ValueError("a negative value")
    return b""


@functools.lru_cache(maxsize=256)
def _seconds_nanos(ns: int) -> bytes:
    """A Timestamp's or Duration's fields for a non-negative time in nanoseconds. Kept for the latest
    times: a command's events share its time, each receiver's rendering of an event its time again,
    and every turn the same turn time."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    return _scalar(SECONDS, seconds) + _scalar(NANOS, nanos)


def _card_refs(tag: bytes, shown: Sequence[Card], group: Sequence[Ref] | None) -> bytes:
    """A repeated CardRef field, as the converters and `_fill_refs` make it: the faces `shown` (none for
    a receiver who may not see them), each with its opening from `group` when the table commits to
    its cards; a hidden list then gets one commitment per card of the group."""
    if group is None:
        return b"".join([length_delimited(tag, _face(card)) for card in shown])
    if shown:
        if len(shown) != len(group):
            raise ValueError("the shown cards are not the committed ones")
        return b"".join([length_delimited(tag, _face(ref.card) + _bytes(REF_COMMITMENT, ref.commitment)
                                + _bytes(REF_SALT, ref.salt) + _scalar(REF_DECK, ref.deck_no)
                                + _scalar(REF_POSITION, ref.position)) for ref in group])
    return b"".join([length_delimited(tag, _bytes(REF_COMMITMENT, ref.commitment) + _scalar(REF_DECK, ref.deck_no)
                            + _scalar(REF_POSITION, ref.position)) for ref in group])


def _group(refs: EventRefs | None) -> Sequence[Ref] | None:
    return None if refs is None else refs.groups[0]


def _played(event: ev.Played, refs: EventRefs | None) -> bytes:
    kind = (actions_pb2.PLAY_KIND_RUN_CUT if event.run_cut else
            actions_pb2.PLAY_KIND_JUMP_IN if event.jump_in else actions_pb2.PLAY_KIND_TURN)
    return length_delimited(PLAYED, _scalar(PLAYED_SEAT, event.seat)
                            + _card_refs(PLAYED_CARDS, event.cards, _group(refs))
                            + _scalar(PLAYED_KIND, kind) + _scalar(PLAYED_WINDOW, event.window)
                            + _scalar(PLAYED_HAND_SIZE, event.hand_size)
                            + (PLAYED_UNO + b"\x01" if event.called_uno else b""))


def _drew(event: ev.Drew, seat: int | None, refs: EventRefs | None) -> bytes:
    shown = event.cards if seat == event.seat else ()
    return length_delimited(DRAWN, _scalar(DRAWN_SEAT, event.seat) + _scalar(DRAWN_COUNT, event.count)
                            + _scalar(DRAWN_REASON, draw_reason_to_pb(event.reason))
                            + _card_refs(DRAWN_CARDS, shown, _group(refs))
                            + _scalar(DRAWN_HAND_SIZE, event.hand_size) + _scalar(DRAWN_FORGIVEN, event.forgiven))


def _dealt(event: ev.Dealt, seat: int | None, refs: EventRefs | None) -> bytes:
    shown = event.cards if seat == event.seat else ()
    hand = (_scalar(HAND_SEAT, event.seat) + _scalar(HAND_COUNT, event.count)
            + _card_refs(HAND_CARDS, shown, _group(refs)))
    return length_delimited(DEALT, _scalar(DEALT_DEALER, event.dealer) + length_delimited(DEALT_HANDS, hand)
                            + _scalar(DEALT_PILE, event.draw_pile))


def event_bytes(event: ev.Event, seat: int | None, refs: EventRefs | None, *, number: int, time_ns: int,
                turn: tuple[int, int, int] | None = None) -> bytes | None:
    """The serialized Event that `EventLog._payload(entry, seat)` builds for an engine event, numbered
    `number` at `time_ns`, with `refs` its committed cards; for a TurnStarted, `turn` is its clock
    (deadline, turn time and time bank left, in nanoseconds). None: not written here, build the message.
    """
    try:
        if type(event) is ev.TurnStarted:
            started = _scalar(TURN_SEAT, event.seat)
            if turn is not None:
                deadline, turn_time, bank = turn
                started += (length_delimited(TURN_DEADLINE, _seconds_nanos(deadline))
                            + length_delimited(TURN_TIME, _seconds_nanos(turn_time))
                            + length_delimited(TURN_BANK, _seconds_nanos(bank)))
            payload = length_delimited(TURN, started)
        elif turn is not None:  # a clock belongs to a TurnStarted: anything else is the message's to build
            return None
        elif type(event) is ev.Played:
            payload = _played(event, refs)
        elif type(event) is ev.Drew:
            payload = _drew(event, seat, refs)
        elif type(event) is ev.Dealt:
            payload = _dealt(event, seat, refs)
        else:
            return None
        return _scalar(EVENT_NUMBER, number) + length_delimited(EVENT_TIME, _seconds_nanos(time_ns)) + payload
    except ValueError:
        return None
