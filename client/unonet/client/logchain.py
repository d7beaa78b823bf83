"""Each receiver's copy of the public event log, hash-chained (docs/fairness.md section 8.2).

`public_form` turns any receiver's copy of an event into the public one (what a spectator receives):
the receiver's legal actions go, and so do the faces only some receivers see: in the kinds listed in
`PRIVATE_FACES`, a card keeps only its commitment and slot (the commitment binds the face, so nothing
public is lost), and in a list a card without a commitment goes; a HandRevealed keeps its count.
`canonical` encodes a message from its fields, not its protobuf bytes (which no two libraries need to
write alike). `LogChain` links them.

It imports only the generated protocol and `unonet.fairness`, as the Verifier does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from unonet.fairness.chain import log_genesis, log_link
from unonet.fairness.encoding import field
from unonet.v1 import cards_pb2, events_pb2

__all__ = ["PRIVATE_FACES", "LogChain", "canonical", "parse_head", "public_form"]

PRIVATE_FACES = frozenset({
    "cards_dealt", "cards_drawn", "hands_rotated", "hands_swapped", "five_swap_offered", "cards_exchanged",
    "hand_revealed",
})
"""The event kinds whose card faces some receivers see and others do not."""

_SIGNED = frozenset({
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_ENUM,
})
_UNSIGNED = frozenset({
    FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_FIXED64,
})


def canonical(message: Message) -> bytes:
    """The canonical encoding of `message` (8.2): for each present field in ascending field number,
    `field(u64(number)) || field(value)`; a repeated field's value is `field(element)` per element.

    `ListFields` lists the present fields in field-number order (protobuf's documented order)."""
    parts = []
    for descriptor, value in message.ListFields():
        prefix, scalar = _FIELDS.get(descriptor) or _field_codec(descriptor)
        encoded = b"".join([_framed(scalar(e)) for e in value]) if descriptor.is_repeated else scalar(value)
        parts.append(prefix)
        parts.append(len(encoded).to_bytes(4, "big"))
        parts.append(encoded)
    return b"".join(parts)


def _framed(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


_Scalar = Callable[[Any], bytes]
_FIELDS: dict[FieldDescriptor, tuple[bytes, _Scalar]] = {}
"""Per field: `field(u64(number))` and the encoder of one value, found once."""


def _field_codec(descriptor: FieldDescriptor) -> tuple[bytes, _Scalar]:
    kind = descriptor.type
    scalar: _Scalar
    if kind == FieldDescriptor.TYPE_MESSAGE:
        scalar = canonical
    elif kind == FieldDescriptor.TYPE_BOOL:
        scalar = _bool
    elif kind == FieldDescriptor.TYPE_STRING:
        scalar = _text
    elif kind == FieldDescriptor.TYPE_BYTES:
        scalar = bytes
    elif kind in _SIGNED:
        scalar = _signed
    elif kind in _UNSIGNED:
        scalar = _unsigned
    else:
        raise TypeError(f"field {descriptor.full_name} has a type the canonical encoding does not define")
    codec = _FIELDS[descriptor] = (field(descriptor.number.to_bytes(8, "big")), scalar)
    return codec


def _bool(value: bool) -> bytes:
    return b"\x01" if value else b"\x00"


def _text(value: str) -> bytes:
    return value.encode("utf-8")


def _signed(value: int) -> bytes:
    return value.to_bytes(8, "big", signed=True)


def _unsigned(value: int) -> bytes:
    return value.to_bytes(8, "big")


def public_form(event: events_pb2.Event) -> events_pb2.Event:
    """The event as a spectator receives it, from any receiver's copy: `event` itself when it is
    already public (never change what it returns), else a new message."""
    kind = event.WhichOneof("payload")
    if kind not in PRIVATE_FACES and not event.HasField("your_legal_actions"):
        return event
    public = events_pb2.Event()
    public.CopyFrom(event)
    public.ClearField("your_legal_actions")
    if kind == "hand_revealed":
        del public.hand_revealed.hand.cards[:]  # only the challenger sees the hand; everyone its count
    elif kind in PRIVATE_FACES:
        _hide_faces(getattr(public, kind))
    return public


def _hide_faces(message: Message) -> None:
    """Every CardRef inside `message` loses its face and salt; in a list, one without a commitment goes."""
    for descriptor, value in message.ListFields():
        if descriptor.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        is_ref = descriptor.message_type is cards_pb2.CardRef.DESCRIPTOR
        if descriptor.is_repeated:
            if is_ref:
                kept = [ref for ref in value if ref.commitment]
                del value[:]
                value.extend(kept)
                for ref in value:
                    ref.ClearField("card")
                    ref.ClearField("salt")
            else:
                for element in value:
                    _hide_faces(element)
        elif is_ref:  # a single card stays, as a commitment and slot or (without one) empty
            value.ClearField("card")
            value.ClearField("salt")
        else:
            _hide_faces(value)


class LogChain:
    """The chain of one receiver's copy, fed every event from number 1 in order."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.heads = [log_genesis(table_id)]  # heads[n] is the head after event n

    @property
    def number(self) -> int:
        """The number of the last event linked (0 before any)."""
        return len(self.heads) - 1

    @property
    def head(self) -> bytes:
        return self.heads[-1]

    def feed(self, event: events_pb2.Event) -> bytes:
        """Link the next event; returns the new head. Raises ValueError for an event out of order."""
        if event.number != len(self.heads):
            raise ValueError(f"event {event.number} cannot follow event {self.number} in the chain")
        head = log_link(self.heads[-1], event.number, canonical(public_form(event)))
        self.heads.append(head)
        return head

    def head_at(self, number: int) -> bytes | None:
        """The head after event `number`, if the chain got that far."""
        return self.heads[number] if 0 <= number < len(self.heads) else None


def parse_head(text: str) -> tuple[int, bytes]:
    """`N:HEX` (as `unonet verify` prints a head) as a number and 32 bytes. Raises ValueError."""
    number, _, digest = text.partition(":")
    head = bytes.fromhex(digest)
    if not number.isdigit() or len(head) != 32:
        raise ValueError(f"a head is EVENT_NUMBER:64 hex digits, not {text!r}")
    return int(number), head
