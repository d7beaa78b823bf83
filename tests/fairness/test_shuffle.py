"""The commit-reveal shuffle: seed commitments, combination, DRBG, Fisher-Yates, derived piles."""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import permutations

import pytest

from unonet.fairness import (
    CardOpening,
    Drbg,
    EntropyMismatch,
    InvalidInput,
    SeedMismatch,
    combine_seed,
    commit_host_seed,
    commit_seat_entropy,
    derive_deck,
    derive_salts,
    derive_seed,
    inclusion_proof,
    merkle_root,
    shuffled,
    standard_card_codes,
    uniform_below,
    verified_combined_seed,
    verify_host_seed,
    verify_inclusion,
    verify_opening,
    verify_seat_entropy,
)

TABLE = "table-1"
HOST_SEED = bytes([1]) * 32
VALUES = {0: bytes([2]) * 32, 1: bytes([3]) * 32}


def lp(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def u64(n: int) -> bytes:
    return lp(n.to_bytes(8, "big"))


def sha(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


# A second implementation written from docs/fairness.md alone, as a verifier in another language would.
def reference_shuffle(items: list[int], seed: bytes) -> list[int]:
    stream = bytearray()
    counter = 0

    def read(n: int) -> bytes:
        nonlocal counter
        while len(stream) < n:
            stream.extend(sha(lp(b"unonet/v1/drbg"), lp(seed), u64(counter)))
            counter += 1
        out = bytes(stream[:n])
        del stream[:n]
        return out

    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = 2**32 - 2**32 % bound
        while (draw := int.from_bytes(read(4), "big")) >= limit:
            pass
        j = draw % bound
        out[i], out[j] = out[j], out[i]
    return out


def test_commitments_are_the_documented_hash_inputs():
    assert commit_host_seed(HOST_SEED, table_id=TABLE, round_no=3) == sha(
        lp(b"unonet/v1/host-seed"), lp(TABLE.encode()), u64(3), lp(HOST_SEED)
    )
    assert commit_seat_entropy(1, VALUES[1], table_id=TABLE, round_no=3) == sha(
        lp(b"unonet/v1/seat-entropy"), lp(TABLE.encode()), u64(3), u64(1), lp(VALUES[1])
    )
    assert combine_seed(HOST_SEED, VALUES) == sha(
        lp(b"unonet/v1/combine"), lp(HOST_SEED), u64(2), u64(0), lp(VALUES[0]), u64(1), lp(VALUES[1])
    )
    assert derive_seed(HOST_SEED, "deck-order", 2) == sha(
        lp(b"unonet/v1/derive"), lp(HOST_SEED), lp(b"deck-order"), u64(2)
    )


def test_known_answers():
    """The vectors printed in docs/fairness.md."""
    assert Drbg(bytes(32)).read(32).hex() == "1d2eceadc6a3d1ec6955a0f56c984ca959253609e5b97b7a4807ef1ee6922a97"
    assert shuffled(list(range(10)), bytes(32)) == [0, 1, 7, 2, 4, 6, 3, 5, 8, 9]
    seed = combine_seed(HOST_SEED, VALUES)
    assert seed.hex() == "5395f3acd122ac00a6abfe646b4ec8b24981ee1c4e87530b16fa495e3df71b19"
    assert (
        commit_host_seed(HOST_SEED, table_id=TABLE, round_no=3).hex()
        == "c8b291507a959392bea4921019b960e084f154935507381001c06346df15c242"
    )
    assert (
        commit_seat_entropy(1, VALUES[1], table_id=TABLE, round_no=3).hex()
        == "0ac2946dced380a6cfa823d5ddd0a550928a60ee59cf40120a82c0c52acf1d5f"
    )
    assert (
        derive_seed(seed, "deck-order", 0).hex() == "05239577775fbe31ffc7668f5c7d023f2fec0350e906a63aee9cb94ab5b21276"
    )
    deck = derive_deck(TABLE, 3, standard_card_codes(), seed)
    assert [c.to_bytes().hex() for c in deck.cards[:8]] == [
        "0409",
        "0103",
        "0105",
        "0207",
        "0101",
        "0200",
        "0407",
        "0202",
    ]
    assert deck.salts[0].hex() == "4f19ec37649fd9dbdaa2f23d8bb361235e90e3c2a91187d4d3ea82900ec00d96"
    assert deck.commitments[0].hex() == "e53c52ec04072f06e31adfa42f527eaf8cd3fdbd33d526679d80e5b58b1d02aa"
    assert deck.root.hex() == "31a7af650e1de031e0ba7aa5b66750a5500d5e086097290aa29ede066f1b6beb"


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 108])
def test_shuffle_matches_an_independent_implementation_of_the_document(n):
    for k in range(20):
        seed = hashlib.sha256(bytes([n, k])).digest()
        assert shuffled(list(range(n)), seed) == reference_shuffle(list(range(n)), seed)


def test_host_seed_reveal_is_checked_against_its_commitment():
    c = commit_host_seed(HOST_SEED, table_id=TABLE, round_no=3)
    assert verify_host_seed(c, HOST_SEED, table_id=TABLE, round_no=3)
    assert not verify_host_seed(c, bytes(32), table_id=TABLE, round_no=3)
    assert not verify_host_seed(c, HOST_SEED, table_id=TABLE, round_no=4)
    assert not verify_host_seed(c, b"short", table_id=TABLE, round_no=3)


def test_seat_entropy_reveal_is_checked_against_its_commitment_and_seat():
    c = commit_seat_entropy(1, VALUES[1], table_id=TABLE, round_no=3)
    assert verify_seat_entropy(c, 1, VALUES[1], table_id=TABLE, round_no=3)
    assert not verify_seat_entropy(c, 1, VALUES[0], table_id=TABLE, round_no=3)
    assert not verify_seat_entropy(c, 0, VALUES[1], table_id=TABLE, round_no=3), "a copied commitment"


def _reveal(**changes):
    args = {
        "table_id": TABLE,
        "round_no": 3,
        "host_seed_commitment": commit_host_seed(HOST_SEED, table_id=TABLE, round_no=3),
        "host_seed": HOST_SEED,
        "seat_commitments": {s: commit_seat_entropy(s, v, table_id=TABLE, round_no=3) for s, v in VALUES.items()},
        "seat_values": dict(VALUES),
    }
    args.update(changes)
    return verified_combined_seed(**args)


def test_an_honest_reveal_gives_the_combined_seed():
    assert _reveal() == combine_seed(HOST_SEED, VALUES)


def test_a_host_seed_not_matching_its_commitment_is_caught():
    with pytest.raises(SeedMismatch):
        _reveal(host_seed=bytes([9]) * 32)


def test_seat_entropy_not_matching_its_commitment_is_caught():
    with pytest.raises(EntropyMismatch):
        _reveal(seat_values={0: VALUES[0], 1: bytes([9]) * 32})


def test_a_seat_that_did_not_reveal_or_did_not_commit_is_caught():
    with pytest.raises(EntropyMismatch):
        _reveal(seat_values={0: VALUES[0]})
    with pytest.raises(EntropyMismatch):
        _reveal(seat_values={**VALUES, 2: bytes(32)})


def test_combination_uses_seat_order_not_mapping_order_and_every_value_counts():
    assert combine_seed(HOST_SEED, {1: VALUES[1], 0: VALUES[0]}) == combine_seed(HOST_SEED, VALUES)
    assert combine_seed(HOST_SEED, {0: VALUES[1], 1: VALUES[0]}) != combine_seed(HOST_SEED, VALUES)
    assert combine_seed(HOST_SEED, {0: VALUES[0]}) != combine_seed(HOST_SEED, VALUES)
    with pytest.raises(InvalidInput):
        combine_seed(HOST_SEED, {0: b"short"})


def test_uniform_below_rejects_draws_that_would_bias_the_result():
    """bound 3 * 2**30: draws at or above 3 * 2**30 must be thrown away, not wrapped."""
    draws = iter([(2**32 - 1).to_bytes(4, "big"), (3 * 2**30).to_bytes(4, "big"), (5).to_bytes(4, "big")])
    assert uniform_below(3 * 2**30, lambda n: next(draws)) == 5
    assert uniform_below(1, lambda n: b"\x00\x00\x00\x07") == 0
    with pytest.raises(InvalidInput):
        uniform_below(0, lambda n: bytes(n))


def test_drbg_reads_are_one_continuous_stream():
    seed = bytes(range(32))
    whole = Drbg(seed).read(100)
    pieces = Drbg(seed)
    assert pieces.read(3) + pieces.read(60) + pieces.read(37) == whole


def test_shuffle_is_deterministic_and_a_permutation():
    deck = standard_card_codes()
    seed = derive_seed(bytes(32), "deck-order")
    assert shuffled(deck, seed) == shuffled(deck, seed)
    assert Counter(shuffled(deck, seed)) == Counter(deck)
    assert shuffled(deck, seed) != shuffled(deck, derive_seed(bytes(32), "deck-order", 1))


def test_every_permutation_of_four_is_about_equally_likely():
    """2400 seeds, 24 permutations, 100 expected each; sd ~9.8, so [60, 140] is a 4-sigma bound."""
    counts = Counter(tuple(shuffled([0, 1, 2, 3], hashlib.sha256(k.to_bytes(4, "big")).digest())) for k in range(2400))
    assert set(counts) == set(permutations(range(4)))
    assert all(60 <= c <= 140 for c in counts.values()), counts


def test_every_card_lands_on_top_about_equally_often():
    """2000 shuffles of 10 items: each should be first ~200 times (sd ~13.4; bound at 4.5 sigma)."""
    firsts = Counter(shuffled(list(range(10)), derive_seed(bytes(32), "uniformity", k))[0] for k in range(2000))
    assert all(140 <= firsts[item] <= 260 for item in range(10)), firsts


def test_salts_are_drbg_blocks():
    seed = derive_seed(bytes(32), "card-salts")
    salts = derive_salts(seed, 3)
    assert salts == [Drbg(seed).read(96)[i * 32 : (i + 1) * 32] for i in range(3)]
    assert len(set(salts)) == 3


def test_a_derived_deck_is_recomputed_exactly_and_every_card_verifies():
    seed = combine_seed(HOST_SEED, VALUES)
    deck = derive_deck(TABLE, 3, reversed(standard_card_codes()), seed)
    again = derive_deck(TABLE, 3, standard_card_codes(), seed)
    assert deck == again
    assert Counter(deck.cards) == Counter(standard_card_codes())
    assert deck.root == merkle_root(list(deck.commitments))
    for position in (0, 1, 50, 107):
        opening = deck.opening(position)
        assert verify_opening(deck.commitments[position], TABLE, 3, opening)
        assert verify_inclusion(deck.root, deck.commitments[position], position, 108, deck.proof(position))
        assert deck.proof(position) == inclusion_proof(list(deck.commitments), position)


def test_a_reshuffle_is_an_independent_pile():
    seed = combine_seed(HOST_SEED, VALUES)
    first = derive_deck(TABLE, 3, standard_card_codes(), seed)
    second = derive_deck(TABLE, 3, standard_card_codes(), seed, deck_no=1)
    assert first.cards != second.cards
    assert not set(first.salts) & set(second.salts)
    opening = second.opening(0)
    assert opening == CardOpening(second.cards[0], second.salts[0], 0, deck_no=1)
    assert not verify_opening(first.commitments[0], TABLE, 3, CardOpening(first.cards[0], first.salts[0], 0, 1))


def test_a_different_seat_value_gives_a_different_deck():
    a = derive_deck(TABLE, 3, standard_card_codes(), combine_seed(HOST_SEED, VALUES))
    b = derive_deck(TABLE, 3, standard_card_codes(), combine_seed(HOST_SEED, {**VALUES, 1: bytes([4]) * 32}))
    assert a.cards != b.cards and a.root != b.root
