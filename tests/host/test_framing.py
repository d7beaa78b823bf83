"""framing.py's varints, written from a table for small values, byte by byte up to 35 bits and by the
loop beyond, are protobuf's: what the protobuf runtime itself writes and reads back, at every size
boundary."""

from __future__ import annotations

import pytest
from google.protobuf import wrappers_pb2

from unonet.host.framing import read_varint, varint

BOUNDARIES = [0, 1, 127, 128, 2047, 2048, 16383, 16384, 2**21 - 1, 2**21, 2**28 - 1, 2**28, 999_999_999,
              1_765_000_000, 2**35 - 1, 2**35, 2**63 - 1, 2**64 - 1]


@pytest.mark.parametrize("value", BOUNDARIES)
def test_a_varint_is_the_one_protobuf_writes_and_reads_back(value: int) -> None:
    written = wrappers_pb2.UInt64Value(value=value).SerializeToString()  # tag 0x08, then the varint
    assert varint(value) == (written[1:] if value else b"\x00")  # a zero field is not written at all
    assert read_varint(b"xx" + varint(value) + b"yy", 2) == (value, 2 + len(varint(value)))


def test_every_small_value_round_trips() -> None:
    for value in range(5000):
        assert read_varint(varint(value), 0) == (value, len(varint(value)))


def test_bytes_that_end_inside_a_varint_are_refused() -> None:
    with pytest.raises(ValueError, match="end inside a varint"):
        read_varint(varint(300)[:1], 0)
