"""A table's numbered event log, and each event rendered and serialized once per visibility class.

Every event a table produces gets the next number and never changes. Streams send the same events to
many receivers, so the log keeps each recent event's serialized renderings on the entry
(`LogEntry.wire`, `legal_wire`, `shared`): a public event is rendered once for everyone, an event with
hidden cards once per distinct `visible_to` result, and a seat's legal actions once per seat.

Only the last `window` events stay in memory (what live streams and the host's bots read). Every
event's renderings are also journalled with the input that produced it (`Store.append`'s
`renderings`: the public one, and each seat's own where it differs), so an older number (a resume
from far back, a stream from event 1) is read back from the store as the very bytes its stream would
have sent, and a long match holds a bounded log however long it runs.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from unonet.engine import Event
from unonet.host.event_bytes import event_bytes
from unonet.host.framing import EVENTS_FIELD, LEGAL_ACTIONS_TAG, length_delimited
from unonet.host.store import PUBLIC_VIEWER, Rendering, Store
from unonet.v1 import events_pb2
from unonet.wire import convert

# Keys of LogEntry.wire for the rendering every subscriber shares, and for "the engine hides it all".
_PUBLIC = object()
_HIDDEN = object()
# How many of a table's latest log entries keep their serialized copies (LogEntry.wire).
WIRE_CACHE_ENTRIES = 256
# How many of a table's latest events stay in memory; older ones are read back from the store. A
# stream more than this far behind reads from SQLite, a few hundred microseconds per message.
WINDOW_EVENTS = 1024


class RenderingMissing(LookupError):
    """The store has no rendering of an event that left the window: its database was damaged."""


@dataclass(slots=True)
class LogEntry:
    """One numbered event: an engine event (rendered per seat) or a host event (the same for all).

    `wire` and `legal_wire` cache serialized renderings (see `EventLog.render_bytes`); an entry never
    changes once appended, so neither do they. `shared` is the entry framed as one of a
    WatchEventsResponse's `events` when every receiver reads it alike (public, no legal actions, as a
    play is), which each of a table's streams then sends without rendering or framing it again.
    """

    number: int
    time_ns: int
    event: Event | events_pb2.Event
    # Each seat's legal actions where they changed, serialized: bytes, not messages, because a window
    # entry lives long and every tracked object in it is traversed by each full garbage collection.
    legal: dict[int, bytes] | None = None
    refs: Any = None  # the committed cards of an engine event (`unonet.host.shuffles.EventRefs`), for convert
    deadline_ns: int | None = None  # a TurnStarted's: when the turn clock it starts runs out
    bank_ns: int = 0  # with `deadline_ns`: the seat's time bank left as its turn starts
    wire: dict[Any, bytes] | None = field(default=None, repr=False, compare=False)
    legal_wire: dict[int, bytes] | None = field(default=None, repr=False, compare=False)
    shared: bytes | None = field(default=None, repr=False, compare=False)


class EventLog:
    """The events of one table, numbered from 1, and their serialized renderings: the last `window`
    in memory, every one in the store."""

    def __init__(self, *, turn_time_s: float, store: Store, table_id: str, seat_count: int,
                 window: int | None = None) -> None:
        self.entries: list[LogEntry] = []  # the window: the latest events, oldest first (never rebound)
        self.count = 0  # the last event's number
        self.holding = False  # while a replay rebuilds the log: nothing leaves the window yet (`release`)
        self.window = WINDOW_EVENTS if window is None else window
        self._times = array("q")  # every event's host time, by number - 1 (the spectator delay reads it)
        self._store, self._table_id, self._seat_count = store, table_id, seat_count
        self._turn_time_ns = int(turn_time_s * 1e9)  # what every TurnStarted says of the turn clock

    def add(self, event: Event | events_pb2.Event, now: int) -> LogEntry:
        """Append the event under the next number."""
        self.count += 1
        entry = LogEntry(self.count, now, event)
        self.entries.append(entry)
        self._times.append(now)
        return entry

    def trim(self, added: int) -> None:
        """After `added` new entries: only the recent entries' serialized copies are kept, and only the
        last `window` entries (their renderings are in the store since their input was journalled)."""
        log = self.entries
        for old in log[max(0, len(log) - WIRE_CACHE_ENTRIES - added):-WIRE_CACHE_ENTRIES]:
            old.wire = old.legal_wire = old.shared = None
        if not self.holding and len(log) > self.window:
            del log[:len(log) - self.window]

    def release(self, *, backfill: bool) -> None:
        """After a replay: store the renderings of the events a host before them did not store (with
        `backfill`; a check of the database writes nothing), then keep only the window."""
        if backfill:
            through = self._store.rendered_through(self._table_id)
            rows = [row for entry in self.entries if entry.number > through
                    for row in self.renderings(entry, self.render_bytes(entry, None, cache=False), cache=False)]
            if rows:
                self._store.add_renderings(self._table_id, rows)
        self.holding = False
        self.trim(0)

    def entry(self, number: int) -> LogEntry | None:
        """The entry numbered `number` if it is still in memory (None: read it from the store)."""
        index = number - (self.count - len(self.entries) + 1)
        return self.entries[index] if 0 <= index < len(self.entries) else None

    def time_ns(self, number: int) -> int:
        """When the event numbered `number` happened (host clock), in memory or not."""
        return self._times[number - 1]

    def renderings(self, entry: LogEntry, public: bytes, *, cache: bool) -> list[Rendering]:
        """The rows the store keeps for `entry` (`public`: its public rendering): the public one, and
        each seat's own where it differs (a card only it sees, its legal actions)."""
        rows: list[Rendering] = [(entry.number, PUBLIC_VIEWER, public)]
        event, legal = entry.event, entry.legal
        hider = event if _hides_something(event) else None  # an engine event some receivers see less of
        if legal is None and hider is None:
            return rows
        shown = hider.visible_to(None) if hider is not None else None
        for seat in range(self._seat_count):
            if (legal is None or seat not in legal) and (hider is None or hider.visible_to(seat) == shown):
                continue  # rendered as the public one (render_bytes' key for it): no row, and no bytes built
            wire = self.render_bytes(entry, seat, cache=cache)
            if wire != public:
                rows.append((entry.number, seat, wire))
        return rows

    def framed(self, numbers: list[int], seat: int | None, tag: bytes) -> bytes:
        """The events `numbers` (consecutive, ascending) as `seat`'s stream sends them, each framed as
        field `tag` of a WatchEventsResponse: from memory, or the store for those left the window."""
        first = numbers[0] - (self.count - len(self.entries) + 1)
        # A live stream's every write: all in memory, one slice and no look-up per number.
        if first >= 0 and first + len(numbers) <= len(self.entries):
            window = self.entries[first:first + len(numbers)]
            if tag is EVENTS_FIELD:
                return b"".join([entry.shared if entry.shared is not None
                                 else length_delimited(tag, self.render_bytes(entry, seat)) for entry in window])
            return b"".join([length_delimited(tag, self.render_bytes(entry, seat)) for entry in window])
        entries = [self.entry(number) for number in numbers]
        old = [number for number, entry in zip(numbers, entries, strict=True) if entry is None]
        stored = self._stored(old[0], old[-1], seat) if old else {}
        parts = []
        for number, entry in zip(numbers, entries, strict=True):
            if entry is None:
                parts.append(length_delimited(tag, stored[number]))
            elif tag is EVENTS_FIELD and entry.shared is not None:
                parts.append(entry.shared)
            else:
                parts.append(length_delimited(tag, self.render_bytes(entry, seat)))
        return b"".join(parts)

    def rendered_since(self, after: int, seat: int | None) -> Iterator[events_pb2.Event]:
        """Every event after number `after`, as `seat` receives it (the host's bot seats follow these)."""
        first_kept = self.count - len(self.entries) + 1
        if after + 1 < first_kept:
            stored = self._stored(after + 1, first_kept - 1, seat)
            for number in range(after + 1, first_kept):
                yield events_pb2.Event.FromString(stored[number])
        for entry in self.entries[max(0, after + 1 - first_kept):]:
            yield self.render(entry, seat)

    def stored_public(self, number: int) -> events_pb2.Event | None:
        """Event `number` as the store kept it when it was sent, publicly rendered; None if the store
        has no rendering of it (a store written before renderings were)."""
        stored = self._store.renderings(self._table_id, number, number, PUBLIC_VIEWER).get(number)
        return None if stored is None else events_pb2.Event.FromString(stored)

    def _stored(self, first: int, last: int, seat: int | None) -> dict[int, bytes]:
        """Events `first` to `last` read back from the store; a missing one is a damaged store."""
        stored = self._store.renderings(self._table_id, first, last, PUBLIC_VIEWER if seat is None else seat)
        if len(stored) != last - first + 1:
            missing = next(n for n in range(first, last + 1) if n not in stored)
            raise RenderingMissing(f"table {self._table_id}: the store has no rendering of event {missing}")
        return stored

    def share(self, entry: LogEntry, payload: bytes) -> None:
        """Keep `payload` (the entry's public rendering) framed for a batch, when every receiver reads
        the entry alike (public, no legal actions): each stream then sends those same bytes."""
        if entry.legal is None and not _hides_something(entry.event):
            entry.shared = length_delimited(EVENTS_FIELD, payload)

    def render(self, entry: LogEntry, seat: int | None) -> events_pb2.Event:
        """The event as `seat` may see it (None: a spectator)."""
        out = self._payload(entry, seat)
        if entry.legal is not None and seat is not None and seat in entry.legal:
            out.your_legal_actions.MergeFromString(entry.legal[seat])
        return out

    def _payload(self, entry: LogEntry, seat: int | None) -> events_pb2.Event:
        """The event as `seat` may see it, without legal actions."""
        if isinstance(entry.event, events_pb2.Event):
            out = events_pb2.Event()
            out.CopyFrom(entry.event)
        else:
            out = convert.event_to_pb(entry.event, seat, refs=entry.refs)
        out.number = entry.number
        convert.set_timestamp(out.time, entry.time_ns)
        if entry.deadline_ns is not None:
            started = out.turn_started
            convert.set_timestamp(started.deadline, entry.deadline_ns)
            started.turn_time.FromNanoseconds(self._turn_time_ns)
            started.time_bank_remaining.FromNanoseconds(entry.bank_ns)
        return out

    def _payload_bytes(self, entry: LogEntry, seat: int | None) -> bytes:
        """`_payload(entry, seat)` serialized: written directly for the commonest events
        (event_bytes.py), else the message built and serialized."""
        event = entry.event
        if not isinstance(event, events_pb2.Event):
            turn = None if entry.deadline_ns is None else (entry.deadline_ns, self._turn_time_ns, entry.bank_ns)
            wire = event_bytes(event, seat, entry.refs, number=entry.number, time_ns=entry.time_ns, turn=turn)
            if wire is not None:
                return wire
        return self._payload(entry, seat).SerializeToString()

    def render_bytes(self, entry: LogEntry, seat: int | None, *, cache: bool = True) -> bytes:
        """`render(entry, seat)` serialized, from a cache on the entry: a protobuf message equal to it.

        The payload (with number and time) is rendered and serialized once per visibility class: once
        for a public event or a host event, shared by every seat and spectator; for an event with hidden
        parts, once per distinct `visible_to` result (the owner of a Dealt or Drew, and everyone else).
        The converters see only that result, never the seat. A seat's legal actions are serialized once
        and appended as the `your_legal_actions` field (protobuf parses concatenated fields as one
        message), so no seat's copy ever holds another seat's hidden cards or legal actions. Only the
        last WIRE_CACHE_ENTRIES entries of a table keep their cache (`trim` drops older ones); with
        `cache=False` nothing new is kept (the journal's public copy of a table nobody watches).
        """
        event = entry.event
        if _hides_something(event):
            key: Any = event.visible_to(seat)
            key = _HIDDEN if key is None else key
        else:
            key = _PUBLIC
        wire = entry.wire
        base = wire.get(key) if wire is not None else None
        if base is None:
            base = self._payload_bytes(entry, seat)
            if cache and entry.number > self.count - WIRE_CACHE_ENTRIES:
                if wire is None:
                    wire = entry.wire = {}
                wire[key] = base
        legal = entry.legal
        if legal is None or seat is None or seat not in legal:
            return base
        legal_wire = entry.legal_wire
        field_bytes = legal_wire.get(seat) if legal_wire is not None else None
        if field_bytes is None:
            field_bytes = length_delimited(LEGAL_ACTIONS_TAG, legal[seat])
            if entry.number > self.count - WIRE_CACHE_ENTRIES:
                if legal_wire is None:
                    legal_wire = entry.legal_wire = {}
                legal_wire[seat] = field_bytes
        return base + field_bytes


def _hides_something(event: Event | events_pb2.Event) -> TypeGuard[Event]:
    """An engine event that some receivers see less of (else every receiver gets the same rendering).
    Asked of each event several times for each receiver, so answered once per class."""
    kind = type(event)
    hides = _HIDING_KINDS.get(kind)
    if hides is None:
        hides = _HIDING_KINDS[kind] = kind is not events_pb2.Event and kind.visible_to is not Event.visible_to
    return hides


_HIDING_KINDS: dict[type, bool] = {}  # `_hides_something` by the event's class
