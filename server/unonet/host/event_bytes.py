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
gives None, and the caller builds the message. The pieces (a field's key from the descriptors, a
scalar left out at 0, a Timestamp's fields) are framing.py's, shared with legal_bytes.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from unonet.engine import events as ev
from unonet.engine.cards import Card
from unonet.host.framing import bytes_field, field_key, length_delimited, scalar_field, time_fields, varint
from unonet.v1 import actions_pb2, cards_pb2, events_pb2
from unonet.wire.cards import COLOR_TO_PB, RANK_TO_PB
from unonet.wire.enums import draw_reason_to_pb
from unonet.wire.refs import EventRefs, Ref

_EVENT = events_pb2.Event.DESCRIPTOR
EVENT_NUMBER, EVENT_TIME = field_key(_EVENT, "number"), field_key(_EVENT, "time")

_CARD, _REF, _HAND = cards_pb2.Card.DESCRIPTOR, cards_pb2.CardRef.DESCRIPTOR, cards_pb2.SeatHand.DESCRIPTOR
CARD_COLOR, CARD_RANK = field_key(_CARD, "color"), field_key(_CARD, "rank")
REF_CARD, REF_COMMITMENT, REF_SALT = field_key(_REF, "card"), field_key(_REF, "commitment"), field_key(_REF, "salt")
REF_DECK, REF_POSITION = field_key(_REF, "deck_number"), field_key(_REF, "position")
HAND_SEAT, HAND_COUNT, HAND_CARDS = field_key(_HAND, "seat"), field_key(_HAND, "count"), field_key(_HAND, "cards")

_PLAYED = events_pb2.CardsPlayed.DESCRIPTOR
PLAYED = field_key(_EVENT, "cards_played")
PLAYED_SEAT, PLAYED_CARDS = field_key(_PLAYED, "seat"), field_key(_PLAYED, "cards")
PLAYED_KIND = field_key(_PLAYED, "kind")
PLAYED_WINDOW, PLAYED_HAND_SIZE = field_key(_PLAYED, "reaction_window_id"), field_key(_PLAYED, "hand_size")
PLAYED_UNO = field_key(_PLAYED, "called_uno")

_DRAWN = events_pb2.CardsDrawn.DESCRIPTOR
DRAWN = field_key(_EVENT, "cards_drawn")
DRAWN_SEAT, DRAWN_COUNT = field_key(_DRAWN, "seat"), field_key(_DRAWN, "count")
DRAWN_REASON = field_key(_DRAWN, "reason")
DRAWN_CARDS, DRAWN_HAND_SIZE = field_key(_DRAWN, "cards"), field_key(_DRAWN, "hand_size")
DRAWN_FORGIVEN = field_key(_DRAWN, "forgiven")

_DEALT = events_pb2.CardsDealt.DESCRIPTOR
DEALT = field_key(_EVENT, "cards_dealt")
DEALT_DEALER, DEALT_HANDS = field_key(_DEALT, "dealer_seat"), field_key(_DEALT, "hands")
DEALT_PILE = field_key(_DEALT, "draw_pile_size")

_TURN = events_pb2.TurnStarted.DESCRIPTOR
TURN = field_key(_EVENT, "turn_started")
TURN_SEAT, TURN_DEADLINE = field_key(_TURN, "seat"), field_key(_TURN, "deadline")
TURN_TIME = field_key(_TURN, "turn_time")
TURN_BANK = field_key(_TURN, "time_bank_remaining")

_CARDS: dict[Card, bytes] = {}  # `card_bytes` of every face met
_FACES: dict[Card, bytes] = {}  # `_face` of every face met


def card_bytes(card: Card) -> bytes:
    """A Card message's bytes, as card_to_pb gives it: its color and rank (both enums are never 0 for a card)."""
    body = _CARDS.get(card)
    if body is None:
        body = _CARDS[card] = CARD_COLOR + varint(COLOR_TO_PB[card.color]) + CARD_RANK + varint(RANK_TO_PB[card.rank])
    return body


def _face(card: Card) -> bytes:
    """A CardRef's `card` field: the face, as card_to_pb gives it."""
    face = _FACES.get(card)
    if face is None:
        face = _FACES[card] = length_delimited(REF_CARD, card_bytes(card))
    return face


def _card_refs(tag: bytes, shown: Sequence[Card], group: Sequence[Ref] | None) -> bytes:
    """A repeated CardRef field, as the converters and `_fill_refs` make it: the faces `shown` (none for
    a receiver who may not see them), each with its opening from `group` when the table commits to
    its cards; a hidden list then gets one commitment per card of the group."""
    if group is None:
        return b"".join([length_delimited(tag, _face(card)) for card in shown])
    if shown:
        if len(shown) != len(group):
            raise ValueError("the shown cards are not the committed ones")
        return b"".join([length_delimited(tag, _face(ref.card) + bytes_field(REF_COMMITMENT, ref.commitment)
                                          + bytes_field(REF_SALT, ref.salt) + scalar_field(REF_DECK, ref.deck_no)
                                          + scalar_field(REF_POSITION, ref.position)) for ref in group])
    return b"".join([length_delimited(tag, bytes_field(REF_COMMITMENT, ref.commitment)
                                      + scalar_field(REF_DECK, ref.deck_no)
                                      + scalar_field(REF_POSITION, ref.position)) for ref in group])


def _group(refs: EventRefs | None) -> Sequence[Ref] | None:
    return None if refs is None else refs.groups[0]


def _played(event: ev.Played, refs: EventRefs | None) -> bytes:
    kind = (actions_pb2.PLAY_KIND_RUN_CUT if event.run_cut else
            actions_pb2.PLAY_KIND_JUMP_IN if event.jump_in else actions_pb2.PLAY_KIND_TURN)
    return length_delimited(PLAYED, scalar_field(PLAYED_SEAT, event.seat)
                            + _card_refs(PLAYED_CARDS, event.cards, _group(refs))
                            + scalar_field(PLAYED_KIND, kind) + scalar_field(PLAYED_WINDOW, event.window)
                            + scalar_field(PLAYED_HAND_SIZE, event.hand_size)
                            + (PLAYED_UNO + b"\x01" if event.called_uno else b""))


def _drew(event: ev.Drew, seat: int | None, refs: EventRefs | None) -> bytes:
    shown = event.cards if seat == event.seat else ()
    return length_delimited(DRAWN, scalar_field(DRAWN_SEAT, event.seat) + scalar_field(DRAWN_COUNT, event.count)
                            + scalar_field(DRAWN_REASON, draw_reason_to_pb(event.reason))
                            + _card_refs(DRAWN_CARDS, shown, _group(refs))
                            + scalar_field(DRAWN_HAND_SIZE, event.hand_size)
                            + scalar_field(DRAWN_FORGIVEN, event.forgiven))


def _dealt(event: ev.Dealt, seat: int | None, refs: EventRefs | None) -> bytes:
    shown = event.cards if seat == event.seat else ()
    hand = (scalar_field(HAND_SEAT, event.seat) + scalar_field(HAND_COUNT, event.count)
            + _card_refs(HAND_CARDS, shown, _group(refs)))
    return length_delimited(DEALT, scalar_field(DEALT_DEALER, event.dealer) + length_delimited(DEALT_HANDS, hand)
                            + scalar_field(DEALT_PILE, event.draw_pile))


def event_bytes(event: ev.Event, seat: int | None, refs: EventRefs | None, *, number: int, time_ns: int,
                turn: tuple[int, int, int] | None = None) -> bytes | None:
    """The serialized Event that `EventLog._payload(entry, seat)` builds for an engine event, numbered
    `number` at `time_ns`, with `refs` its committed cards; for a TurnStarted, `turn` is its clock
    (deadline, turn time and time bank left, in nanoseconds). None: not written here, build the message.
    """
    try:
        if type(event) is ev.TurnStarted:
            started = scalar_field(TURN_SEAT, event.seat)
            if turn is not None:
                deadline, turn_time, bank = turn
                started += (length_delimited(TURN_DEADLINE, time_fields(deadline))
                            + length_delimited(TURN_TIME, time_fields(turn_time))
                            + length_delimited(TURN_BANK, time_fields(bank)))
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
        return scalar_field(EVENT_NUMBER, number) + length_delimited(EVENT_TIME, time_fields(time_ns)) + payload
    except ValueError:
        return None
