"""Protobuf wire-format pieces for the bytes the host concatenates itself instead of re-serializing.

A serialized message followed by more serialized fields parses as one message (repeated fields
append, the last value of a singular field wins), so cached renderings can be joined: an event with a
seat's legal actions appended, several events framed as one WatchEventsResponse, an input's public
events kept in the journal as one blob.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.timestamp_pb2 import Timestamp

# Event.your_legal_actions (field 3, length-delimited).
LEGAL_ACTIONS_TAG = b"\x1a"
# WatchEventsResponse.event (field 1) and WatchEventsResponse.events (field 2, repeated).
EVENT_FIELD, EVENTS_FIELD = b"\x0a", b"\x12"


# The varints of 0 to 2,047, built once: nearly every length and number the host frames (an event is a few
# hundred bytes), about 70 KB.
_SMALL_VARINTS = [bytes((value,)) if value < 0x80 else bytes(((value & 0x7F) | 0x80, value >> 7))
                  for value in range(1 << 11)]


def varint(value: int) -> bytes:
    """A protobuf base-128 varint. Up to 35 bits without a loop: every event's time is a Timestamp,
    whose seconds and nanoseconds take five bytes each."""
    if 0 <= value < 1 << 11:
        return _SMALL_VARINTS[value]
    if 0 <= value < 1 << 35:
        if value < 1 << 14:
            return bytes((value & 0x7F | 0x80, value >> 7))
        if value < 1 << 21:
            return bytes((value & 0x7F | 0x80, value >> 7 & 0x7F | 0x80, value >> 14))
        if value < 1 << 28:
            return bytes((value & 0x7F | 0x80, value >> 7 & 0x7F | 0x80, value >> 14 & 0x7F | 0x80, value >> 21))
        return bytes((value & 0x7F | 0x80, value >> 7 & 0x7F | 0x80, value >> 14 & 0x7F | 0x80,
                      value >> 21 & 0x7F | 0x80, value >> 28))
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(data: bytes, position: int) -> tuple[int, int]:
    """The varint at `position` of `data`, and the position after it.

    Raises:
        ValueError: the bytes end inside the varint.
    """
    value = shift = 0
    while True:
        if position >= len(data):
            raise ValueError("the bytes end inside a varint")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    """One length-delimited protobuf field (a message or bytes) with its tag, ready to concatenate."""
    size = len(payload)
    return tag + (_SMALL_VARINTS[size] if size < 1 << 11 else varint(size)) + payload


def events_blob(events: Iterable[bytes]) -> bytes:
    """Serialized events as one serialized WatchEventsResponse (its repeated `events`)."""
    return b"".join(length_delimited(EVENTS_FIELD, event) for event in events)


# ------------------------------------------------------------------ writing messages field by field
# For the encoders that write the commonest messages without building them (event_bytes.py,
# legal_bytes.py): the very bytes protobuf serializes (upb, what the `protobuf` package runs): a proto3
# message's fields in field-number order, a scalar at its default left out, a message field that was
# set written even when empty.

_LENGTH_DELIMITED = (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_STRING)


def field_key(message: Descriptor, name: str) -> bytes:
    """The key of field `name` of `message` (its number and wire type), from the generated descriptor,
    so a renumbered field cannot be missed."""
    field = message.fields_by_name[name]
    return varint(field.number << 3 | (2 if field.type in _LENGTH_DELIMITED else 0))


def bytes_field(tag: bytes, value: bytes) -> bytes:
    """A bytes field, left out when empty (proto3)."""
    return length_delimited(tag, value) if value else b""


def scalar_field(tag: bytes, value: int) -> bytes:
    """A varint field, left out at 0 (proto3); raises ValueError for a negative value (not written here)."""
    if value > 0:
        return tag + varint(value)
    if value < 0:
        raise ValueError("a negative value")
    return b""


SECONDS, NANOS = field_key(Timestamp.DESCRIPTOR, "seconds"), field_key(Timestamp.DESCRIPTOR, "nanos")


@functools.lru_cache(maxsize=256)
def time_fields(ns: int) -> bytes:
    """A Timestamp's or Duration's fields (the same numbers in both) for a non-negative time in
    nanoseconds. Kept for the latest times: a command's events share its time, each receiver's
    rendering of an event its time again, and every turn the same turn time."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    return scalar_field(SECONDS, seconds) + scalar_field(NANOS, nanos)
