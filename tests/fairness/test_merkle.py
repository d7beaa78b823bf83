"""RFC 6962 Merkle trees against the Certificate Transparency reference vectors, and tampering."""

from __future__ import annotations

import pytest

from unonet.fairness import MerkleMismatch, inclusion_proof, merkle_root, verify_deck_root, verify_inclusion
from unonet.fairness.merkle import split_point

# The RFC 6962 reference leaves and the root of each prefix 0..8 (Certificate Transparency test data).
LEAVES = [
    bytes.fromhex(h)
    for h in ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]
]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (index, tree size, audit path) from the same test data (there 1-based leaf numbers).
PROOFS = [
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]


@pytest.mark.parametrize("size", range(9))
def test_roots_match_rfc6962_reference(size):
    assert merkle_root(LEAVES[:size]).hex() == ROOTS[size]


def test_the_split_is_the_largest_power_of_two_below_n():
    assert [split_point(n) for n in (2, 3, 4, 5, 8, 9, 108)] == [1, 2, 2, 4, 4, 8, 64]


@pytest.mark.parametrize(("index", "size", "path"), PROOFS)
def test_inclusion_proofs_match_reference(index, size, path):
    proof = inclusion_proof(LEAVES[:size], index)
    assert [p.hex() for p in proof] == path
    assert verify_inclusion(bytes.fromhex(ROOTS[size]), LEAVES[index], index, size, proof)


def test_every_proof_in_every_size_verifies_and_only_for_its_leaf():
    leaves = [bytes([i, i * 7 % 256]) for i in range(40)]
    for size in range(1, len(leaves) + 1):
        tree = leaves[:size]
        root = merkle_root(tree)
        for index in range(size):
            proof = inclusion_proof(tree, index)
            assert verify_inclusion(root, tree[index], index, size, proof)
            if size > 1:
                other = (index + 1) % size
                assert not verify_inclusion(root, tree[other], index, size, proof)


@pytest.mark.parametrize(("index", "size", "path"), PROOFS)
def test_tampered_inclusion_proofs_are_rejected(index, size, path):
    root = bytes.fromhex(ROOTS[size])
    leaf = LEAVES[index]
    proof = [bytes.fromhex(p) for p in path]
    flipped = [bytes([proof[0][0] ^ 8]) + proof[0][1:], *proof[1:]]
    probes = [
        (root, leaf, index - 1, size, proof),
        (root, leaf, index + 1, size, proof),
        (root, leaf, index ^ 2, size, proof),
        (root, leaf, index, size * 2, proof),
        (root, leaf, index, size // 2, proof),
        (root, b"WrongLeaf", index, size, proof),
        (bytes.fromhex(ROOTS[0]), leaf, index, size, proof),
        (root, leaf, index, size, flipped),
        (root, leaf, index, size, proof[:-1]),
        (root, leaf, index, size, [*proof, root]),
        (root, leaf, index, size, [root, *proof]),
        (root, leaf, index, size, [*proof, b""]),
    ]
    for probe in probes:
        assert not verify_inclusion(*probe), probe[2:4]


def test_a_wrong_published_root_is_caught():
    verify_deck_root(bytes.fromhex(ROOTS[8]), LEAVES)
    with pytest.raises(MerkleMismatch):
        verify_deck_root(bytes.fromhex(ROOTS[7]), LEAVES)
    with pytest.raises(MerkleMismatch):
        verify_deck_root(bytes.fromhex(ROOTS[8]), [*LEAVES[:7], b"swapped"])


def test_out_of_range_indexes_have_no_proof():
    with pytest.raises(ValueError):
        inclusion_proof(LEAVES, 8)
    assert not verify_inclusion(bytes.fromhex(ROOTS[0]), b"", 0, 0, [])
