"""Card commitments: the hash input byte by byte, openings, and every field binding the slot."""

from __future__ import annotations

import hashlib
import random

import pytest

from unonet.fairness import (
    CardCode,
    CardOpening,
    ColorCode,
    InvalidInput,
    RankCode,
    commit,
    commit_cards,
    new_salt,
    verify_opening,
)

RED_FIVE = CardCode(ColorCode.RED, RankCode.FIVE)
SALT = bytes(range(32))


def lp(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def test_commitment_is_the_documented_hash_input():
    """Built by hand from docs/fairness.md, so code and document cannot drift apart."""
    expected = hashlib.sha256(
        lp(b"unonet/v1/card")
        + lp(b"table-1")
        + lp((3).to_bytes(8, "big"))
        + lp((0).to_bytes(8, "big"))
        + lp((17).to_bytes(8, "big"))
        + lp(b"\x01\x05")
        + lp(SALT)
    ).digest()
    assert commit("table-1", 3, 17, RED_FIVE, SALT) == expected


def test_known_answer():
    """Pinned so any change to the encoding is a deliberate, versioned one (docs/fairness.md vectors)."""
    assert (
        commit("table-1", 3, 17, RED_FIVE, SALT).hex()
        == "a1525065fda4e3142eb7342393cd36ad30193a182c3a762466e2fab9d9337405"
    )


def test_a_correct_opening_verifies():
    c = commit("t", 1, 4, RED_FIVE, SALT)
    assert verify_opening(c, "t", 1, CardOpening(RED_FIVE, SALT, 4))


@pytest.mark.parametrize(
    ("table", "round_no", "opening"),
    [
        ("u", 1, CardOpening(RED_FIVE, SALT, 4)),
        ("t", 2, CardOpening(RED_FIVE, SALT, 4)),
        ("t", 1, CardOpening(RED_FIVE, SALT, 5)),
        ("t", 1, CardOpening(RED_FIVE, SALT, 4, deck_no=1)),
        ("t", 1, CardOpening(CardCode(ColorCode.RED, RankCode.SIX), SALT, 4)),
        ("t", 1, CardOpening(RED_FIVE, bytes(32), 4)),
    ],
    ids=["other table", "other round", "other position", "other deck", "other card", "other salt"],
)
def test_an_opening_for_any_other_slot_or_card_fails(table, round_no, opening):
    c = commit("t", 1, 4, RED_FIVE, SALT)
    assert not verify_opening(c, table, round_no, opening)


def test_a_malformed_commitment_is_simply_not_opened():
    assert not verify_opening(b"short", "t", 1, CardOpening(RED_FIVE, SALT, 4))


@pytest.mark.parametrize("salt", [b"", bytes(31), bytes(33)])
def test_salts_must_be_32_bytes(salt):
    with pytest.raises(InvalidInput):
        commit("t", 1, 0, RED_FIVE, salt)
    with pytest.raises(InvalidInput):
        CardOpening(RED_FIVE, salt, 0)


def test_negative_positions_are_refused():
    with pytest.raises(InvalidInput):
        CardOpening(RED_FIVE, SALT, -1)


def test_new_salt_takes_32_bytes_from_the_injected_source():
    assert new_salt(random.Random(7).randbytes) == random.Random(7).randbytes(32)
    with pytest.raises(InvalidInput):
        new_salt(lambda n: b"\x00" * (n - 1))


def test_commit_cards_numbers_positions_from_zero():
    cards = [RED_FIVE, CardCode(ColorCode.BLACK, RankCode.WILD)]
    salts = [SALT, bytes(32)]
    assert commit_cards("t", 1, cards, salts) == [
        commit("t", 1, 0, cards[0], salts[0]),
        commit("t", 1, 1, cards[1], salts[1]),
    ]
    with pytest.raises(InvalidInput):
        commit_cards("t", 1, cards, salts[:1])
