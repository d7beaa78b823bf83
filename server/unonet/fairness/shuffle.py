"""A provably fair shuffle: commit-reveal seeds, a SHA-256 counter DRBG, and Fisher-Yates.

Nobody, the host included, can choose the deck. The host commits to a secret seed first; then every
seat commits to its own random value; only when all commitments are in do the seats reveal. The deck is
derived from all of them, so one honest seat makes it unpredictable to everyone else, and the host
cannot steer it either, because it committed before seeing any seat's value. After the round the host
reveals its seed and anyone recomputes the deck. Everything here is specified byte by byte in
docs/fairness.md so that a verifier in another language gets the same deck.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from unonet.fairness.encoding import HASH_BYTES, U64_PREFIX, encode, exact_bytes, tagged_hash, text, u64
from unonet.fairness.errors import EntropyMismatch, InvalidInput, SeedMismatch

HOST_SEED_TAG = "unonet/v1/host-seed"
SEAT_ENTROPY_TAG = "unonet/v1/seat-entropy"
COMBINE_TAG = "unonet/v1/combine"
DERIVE_TAG = "unonet/v1/derive"
DRBG_TAG = "unonet/v1/drbg"
SEED_BYTES = HASH_BYTES

T = TypeVar("T")


def commit_host_seed(host_seed: bytes, *, table_id: str, round_no: int) -> bytes:
    """The commitment the host publishes before the seats contribute: binds its seed to this round."""
    return tagged_hash(HOST_SEED_TAG, text(table_id), u64(round_no, "round_no"), exact_bytes(host_seed, "host seed"))


def commit_seat_entropy(seat: int, value: bytes, *, table_id: str, round_no: int) -> bytes:
    """A seat's commitment to its 32-byte random value. The seat number is hashed in, so a seat cannot
    copy another seat's commitment and later reveal that seat's value as its own."""
    return tagged_hash(
        SEAT_ENTROPY_TAG,
        text(table_id),
        u64(round_no, "round_no"),
        u64(seat, "seat"),
        exact_bytes(value, f"entropy of seat {seat}"),
    )


def verify_host_seed(commitment: bytes, host_seed: bytes, *, table_id: str, round_no: int) -> bool:
    """Whether the revealed host seed opens the host's commitment."""
    try:
        expected = commit_host_seed(host_seed, table_id=table_id, round_no=round_no)
    except InvalidInput:
        return False
    return hmac.compare_digest(expected, commitment)


def verify_seat_entropy(commitment: bytes, seat: int, value: bytes, *, table_id: str, round_no: int) -> bool:
    """Whether a seat's revealed value opens its commitment."""
    try:
        expected = commit_seat_entropy(seat, value, table_id=table_id, round_no=round_no)
    except InvalidInput:
        return False
    return hmac.compare_digest(expected, commitment)


def combine_seed(host_seed: bytes, seat_values: Mapping[int, bytes]) -> bytes:
    """The round's shuffle seed: one hash over the host seed and every seat's value, in seat order.

    `SHA-256(field("unonet/v1/combine") || field(host_seed) || field(u64 count) ||
    for each seat ascending: field(u64 seat) || field(value))`. Raises InvalidInput for a seed or value
    that is not 32 bytes.
    """
    fields = [exact_bytes(host_seed, "host seed"), u64(len(seat_values), "seat count")]
    for seat in sorted(seat_values):
        fields += [u64(seat, "seat"), exact_bytes(seat_values[seat], f"entropy of seat {seat}")]
    return tagged_hash(COMBINE_TAG, *fields)


def verified_combined_seed(
    *,
    table_id: str,
    round_no: int,
    host_seed_commitment: bytes,
    host_seed: bytes,
    seat_commitments: Mapping[int, bytes],
    seat_values: Mapping[int, bytes],
) -> bytes:
    """`combine_seed` after checking every reveal against its commitment: what an auditor calls.

    Raises SeedMismatch if the host seed does not open its commitment, EntropyMismatch if a seat's value
    does not open its commitment or the seats that revealed are not exactly the seats that committed.
    """
    if not verify_host_seed(host_seed_commitment, host_seed, table_id=table_id, round_no=round_no):
        raise SeedMismatch(
            f"host seed {host_seed.hex()} does not open commitment {host_seed_commitment.hex()} "
            f"for table {table_id!r} round {round_no}"
        )
    if set(seat_commitments) != set(seat_values):
        raise EntropyMismatch(
            f"seats that committed {sorted(seat_commitments)} differ from seats that revealed {sorted(seat_values)}"
        )
    for seat in sorted(seat_values):
        if not verify_seat_entropy(
            seat_commitments[seat], seat, seat_values[seat], table_id=table_id, round_no=round_no
        ):
            raise EntropyMismatch(
                f"seat {seat} revealed {seat_values[seat].hex()}, which does not open its commitment "
                f"{seat_commitments[seat].hex()}"
            )
    return combine_seed(host_seed, seat_values)


def derive_seed(seed: bytes, label: str, index: int = 0) -> bytes:
    """An independent 32-byte seed for one purpose: `SHA-256(field(tag) || field(seed) || field(label)
    || field(u64 index))`. One combined seed feeds the deck order, the salts and the tie-breaks, and
    none of them can be predicted from the others."""
    return tagged_hash(DERIVE_TAG, exact_bytes(seed, "seed"), text(label), u64(index, "index"))


class Drbg:
    """SHA-256 in counter mode: block i is `SHA-256(field(tag) || field(seed) || field(u64 i))`.

    The output stream is block 0, block 1, ... concatenated; `read(n)` consumes the next n bytes of it.
    Deterministic from the seed and trivial to reimplement, which is the point: it is not meant to
    stretch a weak seed, only to turn a strong 32-byte seed into as many bytes as a shuffle needs.
    """

    __slots__ = ("_buffer", "_counter", "_offset", "_prefix", "_seed")

    def __init__(self, seed: bytes) -> None:
        self._seed = exact_bytes(seed, "DRBG seed")
        self._prefix = _drbg_prefix(self._seed)
        self._counter = 0
        self._buffer = b""
        self._offset = 0  # bytes of `_buffer` already read

    def _block(self) -> bytes:
        block = hashlib.sha256(self._prefix + u64(self._counter, "DRBG counter")).digest()
        self._counter += 1
        return block

    def read(self, n: int) -> bytes:
        """The next n bytes of the stream."""
        if n < 0:
            raise InvalidInput(f"cannot read {n} bytes")
        start = self._offset
        end = start + n
        if end > len(self._buffer):
            buffer = self._buffer[start:]
            while len(buffer) < n:
                buffer += self._block()
            self._buffer, start, end = buffer, 0, n
        self._offset = end
        return self._buffer[start:end]

    def uniform_below(self, bound: int) -> int:
        """A uniform integer in [0, bound), see `uniform_below`."""
        return uniform_below(bound, self.read)


def uniform_below(bound: int, read: Callable[[int], bytes]) -> int:
    """A uniform integer in [0, bound) by rejection sampling on 4-byte big-endian draws.

    Plain `draw % bound` would favour small results whenever 2**32 is not a multiple of `bound`, so a
    draw at or above the largest multiple of `bound` that fits is discarded and another is read.
    Raises InvalidInput unless 1 <= bound <= 2**32.
    """
    if not 1 <= bound <= 2**32:
        raise InvalidInput(f"bound must be in 1..2**32, got {bound}")
    limit = 2**32 - (2**32 % bound)
    while True:
        draw = int.from_bytes(read(4), "big")
        if draw < limit:
            return draw % bound


def shuffled(items: Sequence[T], seed: bytes) -> list[T]:
    """A copy of `items` in the order the seed determines (Fisher-Yates, Durstenfeld's form).

    For i from n-1 down to 1: j = uniform_below(i + 1) from `Drbg(seed)`; swap positions i and j. The
    caller passes the pile in canonical order (`cards.canonical_order`) so that the order depends only
    on the pile's contents and the seed.
    """
    out = list(items)
    # `Drbg(seed).uniform_below` inlined: a fresh stream read 4 bytes at a time never straddles a
    # 32-byte block, so each block is eight big-endian draws.
    prefix = _drbg_prefix(exact_bytes(seed, "DRBG seed"))
    sha256, unpack = hashlib.sha256, _EIGHT_DRAWS.unpack
    counter = 0
    draws: tuple[int, ...] = ()
    k = 0
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = _TWO_32 - _TWO_32 % bound
        while True:
            if k == len(draws):
                draws = unpack(sha256(prefix + counter.to_bytes(8, "big")).digest())
                counter += 1
                k = 0
            draw = draws[k]
            k += 1
            if draw < limit:
                break
        j = draw % bound
        out[i], out[j] = out[j], out[i]
    return out


def derive_salts(seed: bytes, n: int) -> list[bytes]:
    """n salts from one secret seed: salt k is block k of `Drbg(seed)` (32 bytes each).

    Deriving the salts from the round's seed means revealing the host seed after the round lets anyone
    recompute every commitment and the Merkle root; during the round the salts stay secret because
    the host seed does.
    """
    if n < 0:
        raise InvalidInput(f"cannot derive {n} salts")
    prefix = _drbg_prefix(exact_bytes(seed, "DRBG seed"))
    sha256 = hashlib.sha256
    return [sha256(prefix + counter.to_bytes(8, "big")).digest() for counter in range(n)]


_TWO_32 = 2**32
_EIGHT_DRAWS = struct.Struct(">8I")


def _drbg_prefix(seed: bytes) -> bytes:
    """What every DRBG block of `seed` hashes before its counter: block i is SHA-256(prefix || u64 i)."""
    return encode(DRBG_TAG, seed) + U64_PREFIX
