"""The hash chain over a table's public event log (docs/fairness.md section 8.2).

Every receiver of a table's events (each seat from its own copy, every spectator from theirs) links
the public form of each event into one chain of SHA-256 heads. Two receivers who compare their heads
at the same event number detect a host that showed them different histories; `unonet verify` prints a
log's head and checks it against one another copy showed (`--expect-head N:HASH`).

This module is the hashing only, on bytes: the canonical encoding of an event, which needs the
protocol's messages, is `unonet.client.logchain`'s.
"""

from __future__ import annotations

from unonet.fairness.encoding import exact_bytes, tagged_hash, text, u64

GENESIS_TAG = "unonet/v1/log-genesis"
LINK_TAG = "unonet/v1/log"


def log_genesis(table_id: str) -> bytes:
    """`head_0 = H("unonet/v1/log-genesis", table_id)`: the head before event 1."""
    return tagged_hash(GENESIS_TAG, text(table_id))


def log_link(previous: bytes, number: int, encoded_event: bytes) -> bytes:
    """`head_n = H("unonet/v1/log", head_{n-1}, n, canonical(public_form(event_n)))`.

    Raises InvalidInput for a previous head that is not 32 bytes or a number outside 0..2**64-1.
    """
    return tagged_hash(LINK_TAG, exact_bytes(previous, "the previous head"), u64(number, "an event number"),
                       encoded_event)
