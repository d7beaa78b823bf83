"""An RFC 6962 (Certificate Transparency) Merkle tree over a pile's card commitments.

The host publishes one root over the commitments of the whole shuffled deck before the deal, so it
cannot later swap a card's commitment: each dealt card's commitment comes with an inclusion proof
against that root, and after the round anyone can recompute the root from the revealed seeds. We use
RFC 6962 exactly (leaf hash `SHA-256(0x00 || leaf)`, node hash `SHA-256(0x01 || left || right)`, the
split at the largest power of two smaller than n, empty tree = SHA-256 of nothing) because it has
independent implementations and published test vectors in every language; the prefixes stop a leaf
from being passed off as an inner node (second-preimage attacks).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from unonet.fairness.base_errors import InvalidInput
from unonet.fairness.encoding import HASH_BYTES


def leaf_hash(leaf: bytes) -> bytes:
    """RFC 6962 leaf hash: SHA-256(0x00 || leaf)."""
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split_point(n: int) -> int:
    """The largest power of two strictly smaller than n (n >= 2): where RFC 6962 splits a tree."""
    if n < 2:
        raise InvalidInput(f"only a tree of 2 or more leaves is split, got {n}")
    return 1 << ((n - 1).bit_length() - 1)


def _root_of_hashes(hashes: Sequence[bytes]) -> bytes:
    n = len(hashes)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashes[0]
    k = split_point(n)
    return node_hash(_root_of_hashes(hashes[:k]), _root_of_hashes(hashes[k:]))


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """The RFC 6962 Merkle Tree Hash of `leaves` (raw leaf data: here, the commitments in deck order).

    Computed level by level, pairing neighbours and carrying an odd last hash up unchanged: the same
    tree as RFC 6962's split at the largest power of two (its left subtrees are always complete), in
    one loop instead of a recursion that slices the list at every node.
    """
    sha256 = hashlib.sha256
    level = [sha256(b"\x00" + leaf).digest() for leaf in leaves]
    if not level:
        return sha256(b"").digest()
    while len(level) > 1:
        paired = [sha256(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)]
        if len(level) & 1:
            paired.append(level[-1])
        level = paired
    return level[0]


def _path(index: int, hashes: Sequence[bytes]) -> list[bytes]:
    n = len(hashes)
    if n == 1:
        return []
    k = split_point(n)
    if index < k:
        return [*_path(index, hashes[:k]), _root_of_hashes(hashes[k:])]
    return [*_path(index - k, hashes[k:]), _root_of_hashes(hashes[:k])]


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The RFC 6962 audit path for leaf `index`, bottom-up. Raises InvalidInput for an index out of range."""
    if isinstance(index, bool) or not 0 <= index < len(leaves):
        raise InvalidInput(f"leaf index {index!r} is not in a tree of {len(leaves)} leaves")
    return _path(index, [leaf_hash(leaf) for leaf in leaves])


def root_from_inclusion_proof(leaf: bytes, index: int, size: int, proof: Sequence[bytes]) -> bytes:
    """The root that `proof` implies for `leaf` at `index` in a tree of `size` leaves (RFC 9162 2.1.3.2).

    Raises InvalidInput when the proof cannot belong to such a tree at all: index out of range, an
    element that is not 32 bytes, or a proof of the wrong length for that index and size.
    """
    if isinstance(index, bool) or isinstance(size, bool) or not 0 <= index < size:
        raise InvalidInput(f"leaf index {index!r} is not in a tree of {size!r} leaves")
    fn, sn = index, size - 1
    result = leaf_hash(leaf)
    for element in proof:
        if len(element) != HASH_BYTES:
            raise InvalidInput(f"a proof element must be {HASH_BYTES} bytes, got {len(element)}")
        if sn == 0:
            raise InvalidInput(f"the proof is longer than a tree of {size} leaves allows at index {index}")
        if fn & 1 or fn == sn:
            result = node_hash(element, result)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            result = node_hash(result, element)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise InvalidInput(f"the proof is shorter than a tree of {size} leaves needs at index {index}")
    return result


def verify_inclusion(root: bytes, leaf: bytes, index: int, size: int, proof: Sequence[bytes]) -> bool:
    """Whether `leaf` is leaf number `index` of the `size`-leaf tree whose root is `root`.

    Never raises: a malformed proof is simply not a proof.
    """
    try:
        computed = root_from_inclusion_proof(leaf, index, size, proof)
    except InvalidInput:
        return False
    return len(root) == HASH_BYTES and hmac.compare_digest(computed, root)
