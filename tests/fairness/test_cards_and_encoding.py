"""The canonical card bytes and the field encoding every hash uses (docs/fairness.md)."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from unonet.fairness import ALL_CARDS, CardCode, ColorCode, InvalidInput, RankCode, canonical_order, standard_card_codes
from unonet.fairness.encoding import field, tagged_hash, u64


def test_card_bytes_are_colour_then_rank():
    assert CardCode(ColorCode.RED, RankCode.FIVE).to_bytes() == b"\x01\x05"
    assert CardCode(ColorCode.BLUE, RankCode.DRAW_TWO).to_bytes() == b"\x04\x0c"
    assert CardCode(ColorCode.BLACK, RankCode.WILD_DRAW_FOUR).to_bytes() == b"\x05\x0e"
    assert CardCode(ColorCode.BLACK, RankCode.PLUS_TWO).to_bytes() == b"\x05\x12"


def test_every_card_round_trips_through_its_bytes():
    assert len(ALL_CARDS) == 58
    assert len({card.to_bytes() for card in ALL_CARDS}) == 58
    for card in ALL_CARDS:
        assert CardCode.from_bytes(card.to_bytes()) == card


@pytest.mark.parametrize(
    "data", [b"", b"\x01", b"\x01\x05\x00", b"\x00\x05", b"\x06\x01", b"\x01\x13", b"\x01\x0d", b"\x05\x03"]
)
def test_bytes_that_are_no_card_are_refused(data):
    with pytest.raises(InvalidInput):
        CardCode.from_bytes(data)


def test_black_cards_are_exactly_the_wild_family():
    with pytest.raises(InvalidInput):
        CardCode(ColorCode.BLACK, RankCode.SEVEN)
    with pytest.raises(InvalidInput):
        CardCode(ColorCode.GREEN, RankCode.WILD)


def test_standard_deck_is_rule_c1_in_canonical_order():
    deck = standard_card_codes()
    assert len(deck) == 108
    assert deck == sorted(deck, key=CardCode.to_bytes)
    counts = Counter(deck)
    assert counts[CardCode(ColorCode.RED, RankCode.ZERO)] == 1
    assert counts[CardCode(ColorCode.YELLOW, RankCode.NINE)] == 2
    assert counts[CardCode(ColorCode.BLUE, RankCode.SKIP)] == 2
    assert counts[CardCode(ColorCode.BLACK, RankCode.WILD)] == 4
    assert counts[CardCode(ColorCode.BLACK, RankCode.WILD_DRAW_FOUR)] == 4
    assert len(standard_card_codes(blank_cards=True, sound_wilds=True, h2o_wilds=True)) == 108 + 4 + 8 + 4


def test_canonical_order_depends_only_on_contents():
    deck = standard_card_codes()
    assert canonical_order(reversed(deck)) == deck


def test_fields_are_length_prefixed_big_endian():
    assert field(b"") == b"\x00\x00\x00\x00"
    assert field(b"ab") == b"\x00\x00\x00\x02ab"
    assert u64(258, "n") == b"\x00\x00\x00\x00\x00\x00\x01\x02"
    assert tagged_hash("t", b"x") == hashlib.sha256(b"\x00\x00\x00\x01t\x00\x00\x00\x01x").digest()


@pytest.mark.parametrize("value", [-1, 2**64, True])
def test_integers_outside_u64_are_refused(value):
    with pytest.raises(InvalidInput):
        u64(value, "n")


def test_shifting_bytes_between_fields_changes_the_hash():
    assert tagged_hash("t", b"ab", b"c") != tagged_hash("t", b"a", b"bc")
