"""The one byte encoding every fairness hash uses (docs/fairness.md, "Encoding").

Every hash in the scheme is `SHA-256(field(tag) || field(f1) || ... || field(fk))`, where
`field(b) = len(b) as 4 bytes big-endian || b`. Length-prefixing every field, the tag included, makes
the encoding injective: no two different lists of fields hash the same bytes, so a commitment cannot
be reinterpreted with its fields shifted ("table 'ab', round 1" vs "table 'a', ..."). The tag names
the purpose and version, so a hash made for one purpose can never be replayed as another
(domain separation). Integers are 8 bytes big-endian unsigned; text is UTF-8.
"""

from __future__ import annotations

import hashlib

from unonet.fairness.base_errors import InvalidInput

HASH_BYTES = 32
"""Every digest, salt, seed and entropy value in the scheme is 32 bytes."""

_MAX_FIELD = 2**32 - 1
_MAX_U64 = 2**64 - 1

U64_PREFIX = (8).to_bytes(4, "big")
"""The length prefix of every integer field: `field(u64(n))` is `U64_PREFIX + u64(n)`."""

_MAX_CACHED_TAGS = 256
_TAG_FIELDS: dict[str, bytes] = {}


def field(value: bytes) -> bytes:
    """`value` with its length as a 4-byte big-endian prefix. Raises InvalidInput if it is too long."""
    if len(value) > _MAX_FIELD:
        raise InvalidInput(f"a field of {len(value)} bytes does not fit a 4-byte length prefix")
    return len(value).to_bytes(4, "big") + value


def u64(value: int, what: str) -> bytes:
    """`value` as 8 bytes big-endian. Raises InvalidInput outside 0 .. 2**64-1 (or for a bool)."""
    if isinstance(value, bool) or not 0 <= value <= _MAX_U64:
        raise InvalidInput(f"{what} must be an integer in 0..2**64-1, got {value!r}")
    return value.to_bytes(8, "big")


def text(value: str) -> bytes:
    """`value` as UTF-8 (no normalisation: the host sends ids as it stores them)."""
    return value.encode("utf-8")


def exact_bytes(value: bytes, what: str, length: int = HASH_BYTES) -> bytes:
    """`value` unchanged if it is exactly `length` bytes; raises InvalidInput otherwise."""
    if not isinstance(value, bytes | bytearray) or len(value) != length:
        size = len(value) if isinstance(value, bytes | bytearray) else type(value).__name__
        raise InvalidInput(f"{what} must be exactly {length} bytes, got {size}")
    return bytes(value)


def tag_field(tag: str) -> bytes:
    """`field(text(tag))`: the bytes every hash for this purpose starts with (cached; tags are few)."""
    prefix = _TAG_FIELDS.get(tag)
    if prefix is None:
        prefix = field(text(tag))
        if len(_TAG_FIELDS) < _MAX_CACHED_TAGS:
            _TAG_FIELDS[tag] = prefix
    return prefix


def encode(tag: str, *fields: bytes) -> bytes:
    """`field(tag) || field(f1) || ... || field(fk)`: the bytes `tagged_hash` hashes.

    Also the common prefix a caller hashes many times with different last fields (a pile's commitments,
    the DRBG's blocks): hashing `encode(tag, f1) + field(f2)` is `tagged_hash(tag, f1, f2)`.
    """
    parts = [tag_field(tag)]
    for value in fields:
        size = len(value)
        if size > _MAX_FIELD:
            raise InvalidInput(f"a field of {size} bytes does not fit a 4-byte length prefix")
        parts += (size.to_bytes(4, "big"), value)
    return b"".join(parts)


def tagged_hash(tag: str, *fields: bytes) -> bytes:
    """SHA-256 over the length-prefixed tag followed by each length-prefixed field."""
    return hashlib.sha256(encode(tag, *fields)).digest()
