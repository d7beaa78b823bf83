"""Each table's log head: a hash chain over the public events the host lets out, kept beside the sent mark.

The sent mark (store.py) says how far a table's log reached when its events left; the head says what
that log *was*: `head_n = H("unonet/v1/host-log", head_{n-1}, n, public_n)` from `head_0 =
H("unonet/v1/host-log-genesis", table_id)`, section 2's `H` of docs/fairness.md, where `public_n` is
event n's public rendering exactly as the host journals and streams it (its serialized bytes: the host
renders an event to the very same bytes on every replay, so it needs no canonical form, which would
cost more than the rendering). It is built as the audit's chain of 8.2 is, under tags of its own, since
it hashes other bytes: the host's own check, not the head `unonet verify` prints. On start the host
replays each table's journal, links the replayed public renderings up to the mark and compares: a
journal that gives back other events under numbers clients may have seen (a row altered into another
input that still replays, a rendering or a mark from another copy of the database) no longer goes
unnoticed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from unonet.fairness.encoding import exact_bytes, tag_field, tagged_hash, text, u64
from unonet.fairness.errors import InvalidInput

__all__ = ["ChainHead", "check", "genesis", "head_over", "in_words", "link", "ranges"]

GENESIS_TAG = "unonet/v1/host-log-genesis"
LINK_TAG = "unonet/v1/host-log"

# A table's log as far as its head reaches: (the last event number linked, the head after it).
ChainHead = tuple[int, bytes]


def genesis(table_id: str) -> ChainHead:
    """The head of a table with no event yet."""
    return 0, tagged_hash(GENESIS_TAG, text(table_id))


# `tagged_hash(LINK_TAG, digest, u64(number), public)`'s bytes but `public`'s, built once: the store links
# every event the host records (about 2 us an event instead of 5, bench/host.py's hot path).
_LINK_PREFIX = tag_field(LINK_TAG) + (32).to_bytes(4, "big")
_NUMBER_FIELD = (8).to_bytes(4, "big")


def link(head: ChainHead, events: Iterable[tuple[int, bytes]]) -> ChainHead:
    """`head` extended by the events (number, public rendering), which must follow it in order: each
    step is `tagged_hash(LINK_TAG, previous head, u64(number), public)`.

    Raises:
        ValueError: an event's number is not the next one.
        InvalidInput: the head is not a hash, or a number or rendering does not fit its field.
    """
    number, digest = head
    exact_bytes(digest, "the previous head")
    for event_number, public in events:
        if event_number != number + 1:
            raise ValueError(f"event {event_number} cannot follow event {number} in the log's chain")
        size = len(public)
        if size > 0xFFFFFFFF:
            raise InvalidInput(f"a field of {size} bytes does not fit a 4-byte length prefix")
        digest = hashlib.sha256(b"".join((_LINK_PREFIX, digest, _NUMBER_FIELD, u64(event_number, "an event number"),
                                          size.to_bytes(4, "big"), public))).digest()
        number = event_number
    return number, digest


def head_over(table_id: str, events: Iterable[tuple[int, bytes]]) -> ChainHead:
    """The head of a whole log, from event 1."""
    return link(genesis(table_id), events)


def check(table_id: str, replayed: Iterable[tuple[int, bytes]], mark: ChainHead | None,
          stored: Callable[[int], dict[int, bytes]]) -> tuple[ChainHead, list[tuple[int, int]]]:
    """A replayed table's log against its sent mark's head: the head after its last event, and the
    ranges (first, last) of numbers whose events are not the ones the host sent, if any.

    `replayed`: every event of the replayed log, from 1, as (number, public rendering). `mark`: the
    mark with its head (None: no head was stored, nothing to check). `stored(last)`: the public
    renderings stored for events 1 to `last`, by number (what the streams sent). When the heads differ,
    the numbers whose stored rendering is not the replayed one (or is missing) are the events that
    differ, each run of them one range: an event replayed as sent between two that differ is not
    named. If every stored rendering agrees, nothing says where, and every number up to the mark is
    suspect (a damaged mark, or renderings altered with the journal).
    """
    events = list(replayed)
    end = len(events)
    if mark is None or mark[0] > end:  # nothing to check, or a journal short of the mark (EventsLost)
        return head_over(table_id, events), []
    at_mark = head_over(table_id, events[:mark[0]])
    head = link(at_mark, events[mark[0]:])
    if at_mark == mark:
        return head, []
    sent = stored(mark[0])
    differing = [number for number, public in events[:mark[0]] if sent.get(number) != public]
    return head, ranges(differing) if differing else [(1, mark[0])]


def ranges(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Ascending numbers as runs of consecutive ones, (first, last) each."""
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def in_words(runs: list[tuple[int, int]]) -> str:
    """Runs of event numbers as the subject of a sentence: "event 5 is", "events 5 to 9 are",
    "events 5, 7 to 9 and 12 are"."""
    words = [str(first) if first == last else f"{first} to {last}" for first, last in runs]
    if len(words) == 1:
        return f"event {words[0]} is" if runs[0][0] == runs[0][1] else f"events {words[0]} are"
    return f"events {', '.join(words[:-1])} and {words[-1]} are"
