"""A table's numbered event log, and each event rendered and serialized once per visibility class.

Every event a table produces gets the next number and stays in the log unchanged. Streams send the
same events to many receivers, so the log keeps each recent event's serialized renderings on the entry
(`LogEntry.wire`, `legal_wire`, `shared`): a public event is rendered once for everyone, an event with
hidden cards once per distinct `visible_to` result, and a seat's legal actions once per seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

from unonet.engine import Event
from unonet.host.framing import EVENTS_FIELD, LEGAL_ACTIONS_TAG, length_delimited
from unonet.v1 import actions_pb2, events_pb2
from unonet.wire import convert

# Keys of LogEntry.wire for the rendering every subscriber shares, and for "the engine hides it all".
_PUBLIC = object()
_HIDDEN = object()
# How many of a table's latest log entries keep their serialized copies (LogEntry.wire).
WIRE_CACHE_ENTRIES = 256


@dataclass
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
    legal: dict[int, actions_pb2.LegalActions] | None = None
    refs: Any = None  # the committed cards of an engine event (`unonet.host.shuffles.EventRefs`), for convert
    deadline_ns: int | None = None  # a TurnStarted's: when the turn clock it starts runs out
    bank_ns: int = 0  # with `deadline_ns`: the seat's time bank left as its turn starts
    wire: dict[Any, bytes] | None = field(default=None, repr=False, compare=False)
    legal_wire: dict[int, bytes] | None = field(default=None, repr=False, compare=False)
    shared: bytes | None = field(default=None, repr=False, compare=False)


class EventLog:
    """The events of one table, numbered from 1, and their serialized renderings."""

    def __init__(self, *, turn_time_s: float) -> None:
        self.entries: list[LogEntry] = []
        self._turn_time_ns = int(turn_time_s * 1e9)  # what every TurnStarted says of the turn clock

    def add(self, event: Event | events_pb2.Event, now: int) -> LogEntry:
        """Append the event under the next number."""
        entry = LogEntry(len(self.entries) + 1, now, event)
        self.entries.append(entry)
        return entry

    def trim(self, added: int) -> None:
        """After `added` new entries: only the recent entries' serialized copies are kept."""
        log = self.entries
        for old in log[max(0, len(log) - WIRE_CACHE_ENTRIES - added):-WIRE_CACHE_ENTRIES]:
            old.wire = old.legal_wire = old.shared = None

    def share(self, entry: LogEntry, payload: bytes) -> None:
        """Keep `payload` (the entry's public rendering) framed for a batch, when every receiver reads
        the entry alike (public, no legal actions): each stream then sends those same bytes."""
        if entry.legal is None and not _hides_something(entry.event):
            entry.shared = length_delimited(EVENTS_FIELD, payload)

    def render(self, entry: LogEntry, seat: int | None) -> events_pb2.Event:
        """The event as `seat` may see it (None: a spectator)."""
        out = self._payload(entry, seat)
        if entry.legal is not None and seat is not None and seat in entry.legal:
            out.your_legal_actions.CopyFrom(entry.legal[seat])
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
            base = self._payload(entry, seat).SerializeToString()
            if cache and entry.number > len(self.entries) - WIRE_CACHE_ENTRIES:
                if wire is None:
                    wire = entry.wire = {}
                wire[key] = base
        legal = entry.legal
        if legal is None or seat is None or seat not in legal:
            return base
        legal_wire = entry.legal_wire
        field_bytes = legal_wire.get(seat) if legal_wire is not None else None
        if field_bytes is None:
            field_bytes = length_delimited(LEGAL_ACTIONS_TAG, legal[seat].SerializeToString())
            if entry.number > len(self.entries) - WIRE_CACHE_ENTRIES:
                if legal_wire is None:
                    legal_wire = entry.legal_wire = {}
                legal_wire[seat] = field_bytes
        return base + field_bytes


def _hides_something(event: Event | events_pb2.Event) -> TypeGuard[Event]:
    """An engine event that some receivers see less of (else every receiver gets the same rendering)."""
    return not isinstance(event, events_pb2.Event) and type(event).visible_to is not Event.visible_to
