"""What a spectator or an anonymous caller may see of a table with a spectator delay: its state as of
`spectator_delay` ago, never newer.

The delayed event stream holds each event back until it is that old (service.py); every other read
open to someone without a seat (GetView and a stream's snapshot as a spectator, GetTable and
ListTables for anyone) must not get ahead of it, or the delay hides nothing. So a delayed table keeps
the public view and the TableInfo as they were after each of its inputs, numbered and timed by the
input's last event, and answers those reads from the newest one that is due. Only the ones a reader
may still need are kept: those not yet due, and the newest due one.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

from unonet.v1 import table_pb2, views_pb2


@dataclass(frozen=True, slots=True)
class PublicState:
    """The table as a spectator saw it after the input whose last event is `number`."""

    number: int
    time_ns: int
    view: views_pb2.SeatView
    info: table_pb2.TableInfo


class DelayedState:
    """A delayed table's public states, oldest first, from which the due one is read."""

    def __init__(self, delay_ns: int) -> None:
        self.delay_ns = delay_ns
        self._states: collections.deque[PublicState] = collections.deque()

    def record(self, state: PublicState) -> None:
        self._states.append(state)

    def due(self, now_ns: int) -> PublicState:
        """The newest state at least `delay_ns` old (the oldest kept if none is yet: the table as it
        was created), dropping the older ones nobody can be shown any more."""
        states, horizon = self._states, now_ns - self.delay_ns
        while len(states) > 1 and states[1].time_ns <= horizon:
            states.popleft()
        return states[0]

    def __len__(self) -> int:
        return len(self._states)
