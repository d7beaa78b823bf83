"""The entropy commit-reveal test vector of docs/protocol.md, recomputed with the host's own functions.

The vector is read out of the document itself, so the page a bot author in another language codes
from cannot drift from what the host checks (`ShuffleRound.check_reveal` uses `verify_seat_entropy`).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from unonet.fairness import commit_seat_entropy, verify_seat_entropy
from unonet.fairness.encoding import encode, text, u64
from unonet.fairness.shuffle import SEAT_ENTROPY_TAG

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def documented_vector() -> dict[str, str]:
    """The `key = value` lines of the vector block; continuation lines (indented) join the key above."""
    blocks = re.findall(r"```text\n(.*?)```", PROTOCOL.read_text(encoding="utf-8"), re.S)
    block = next(b for b in blocks if b.lstrip().startswith("table_id") and "preimage" in b)
    vector: dict[str, str] = {}
    key = ""
    for line in block.splitlines():
        if "=" in line and not line.startswith(" "):
            key, value = (part.strip() for part in line.split("=", 1))
            vector[key] = value
        elif line.strip():
            vector[key] += " " + line.strip()
    return vector


def test_the_documented_preimage_and_commitment_are_what_the_host_computes() -> None:
    vector = documented_vector()
    table_id = vector["table_id"].strip('"')
    round_no, seat = int(vector["round_number"]), int(vector["seat"])
    value = bytes.fromhex(vector["value"])
    preimage = bytes.fromhex(vector["preimage"].replace(" ", ""))
    commitment = bytes.fromhex(vector["commitment"])

    assert preimage == encode(SEAT_ENTROPY_TAG, text(table_id), u64(round_no, "round"), u64(seat, "seat"), value)
    assert hashlib.sha256(preimage).digest() == commitment
    assert commit_seat_entropy(seat, value, table_id=table_id, round_no=round_no) == commitment
    assert verify_seat_entropy(commitment, seat, value, table_id=table_id, round_no=round_no)
    assert base64.b64decode(vector["commitment (base64)"], validate=True) == commitment
    assert base64.b64decode(vector["entropy (base64)"], validate=True) == value


def test_the_documented_preimage_is_five_length_prefixed_fields() -> None:
    """The field-by-field layout the page shows: each group is a 4-byte length, then that many bytes."""
    groups = documented_vector()["preimage"].split()
    pairs = list(zip(groups[::2], groups[1::2], strict=True))
    assert len(pairs) == 5
    assert bytes.fromhex(pairs[0][1]) == SEAT_ENTROPY_TAG.encode("ascii")
    for length, data in pairs:
        assert int(length, 16) == len(bytes.fromhex(data)) and len(length) == 8


def test_the_vector_opens_only_its_own_seat_round_and_table() -> None:
    vector = documented_vector()
    commitment, value = bytes.fromhex(vector["commitment"]), bytes.fromhex(vector["value"])
    assert not verify_seat_entropy(commitment, 3, value, table_id="table-1", round_no=1)
    assert not verify_seat_entropy(commitment, 2, value, table_id="table-1", round_no=2)
    assert not verify_seat_entropy(commitment, 2, value, table_id="table-2", round_no=1)
