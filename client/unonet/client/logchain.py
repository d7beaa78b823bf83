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
    `field(u64(number)) || field(value)`; a repeated field's value is `field(element)` per element."""
    parts = []
    for descriptor, value in sorted(message.ListFields(), key=lambda item: item[0].number):
        if descriptor.is_repeated:
            encoded = b"".join(field(_scalar(descriptor, element)) for element in value)
        else:
            encoded = _scalar(descriptor, value)
        parts.append(field(descriptor.number.to_bytes(8, "big")) + field(encoded))
    return b"".join(parts)


def _scalar(descriptor: FieldDescriptor, value: object) -> bytes:
    kind = descriptor.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        assert isinstance(value, Message)
        return canonical(value)
    if kind == FieldDescriptor.TYPE_BOOL:
        return b"\x01" if value else b"\x00"
    if kind == FieldDescriptor.TYPE_STRING:
        assert isinstance(value, str)
        return value.encode("utf-8")
    if kind == FieldDescriptor.TYPE_BYTES:
        assert isinstance(value, bytes)
        return value
    if kind in _SIGNED:
        assert isinstance(value, int)
        return value.to_bytes(8, "big", signed=True)
    if kind in _UNSIGNED:
        assert isinstance(value, int)
        return value.to_bytes(8, "big")
    raise TypeError(f"field {descriptor.full_name} has a type the canonical encoding does not define")


def public_form(event: events_pb2.Event) -> events_pb2.Event:
    """The event as a spectator receives it, from any receiver's copy (a new message)."""
    public = events_pb2.Event()
    public.CopyFrom(event)
    public.ClearField("your_legal_actions")
    kind = public.WhichOneof("payload")
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
