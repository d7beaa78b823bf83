"""A human pace for the screen: other seats' moves shown one at a time, this seat's never held back.

Three bot moves can arrive within a second of a player's own; shown as they come, a person sees only
where they ended. `Pacer` holds the events a seat received and releases them so that two moves of
other seats land at least `pace` seconds apart on screen, each with its banner, the turn that comes
back to the player included. It never delays the player (STYLE.md, "Pace is part of the rules of a
mixed table"):

- any key the player presses first shows everything held (`flush`), then acts on the table as it is;
- a race this seat is in (a catch, a slap, a jump-in, its own UNO call to make) or a shuffle share
  the host waits for is released at once, with everything before it;
- this seat's own moves, and the events that are no move (a turn starting, a window, a chat line),
  are released as soon as everything before them is;
- no event is held more than `max_lag` seconds, so a spectator of a fast table never falls behind;
- a Snapshot flushes everything.

Clocks stay true: every deadline on screen is the host's, whatever is still held (a turn shown a
second late shows a clock a second shorter). The pacer is a pure function of what was pushed and the
times given (no clock, no I/O): the session calls `due(now)` and sleeps until `next_time()`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Final

from unonet.v1 import actions_pb2, events_pb2

__all__ = ["MAX_LAG", "Pacer", "is_move", "is_race"]

#: The most an event is held, in seconds.
MAX_LAG: Final = 4.0

#: Events that are a move a person should see land: each takes a beat of its own.
_MOVES: Final = frozenset({
    "cards_played", "cards_drawn", "drawn_card_kept", "uno_caught", "false_catch", "challenge_resolved",
    "hands_rotated", "hands_swapped", "cards_exchanged", "wrong_jump_in", "illegal_play", "round_ended",
})


def is_race(legal: actions_pb2.LegalActions, *, my_turn: bool) -> bool:
    """True when the legal actions put this seat in a race, or owe the host a shuffle share: what a
    paced screen must never hold back."""
    out_of_turn = any(option.kind != actions_pb2.PLAY_KIND_TURN for option in legal.plays)
    return bool(legal.react_window_ids or legal.catch_uno_targets or legal.call_uno or legal.commit_entropy
                or legal.reveal_entropy or (out_of_turn and not my_turn))


def is_move(event: events_pb2.Event) -> bool:
    """True for an event that is a move of its own (a play, a draw, a catch, a swap, a round's end)."""
    return event.WhichOneof("payload") in _MOVES


def _mover(event: events_pb2.Event) -> int | None:
    kind = event.WhichOneof("payload")
    if kind is None:
        return None
    payload = getattr(event, kind)
    for name in ("seat", "catcher_seat", "challenger_seat"):
        if payload.DESCRIPTOR.fields_by_name.get(name) is not None:
            return int(getattr(payload, name))
    return None


@dataclass(slots=True)
class _Held:
    event: events_pb2.Event
    arrived: float


class Pacer:
    """Holds a seat's events and releases them at a pace a person can follow (see the module docstring).

    Args:
        seat: this client's seat (None for a spectator, whose every move is someone else's).
        pace: the least time between two moves of other seats on screen, in seconds (0: no holding).
        max_lag: the most an event is held, in seconds.
    """

    def __init__(self, seat: int | None, pace: float, max_lag: float = MAX_LAG) -> None:
        self.seat = seat
        self.pace = max(0.0, pace)
        self.max_lag = max_lag
        self._held: deque[_Held] = deque()
        self._last_move = float("-inf")

    def __len__(self) -> int:
        return len(self._held)

    def push(self, event: events_pb2.Event, now: float) -> None:
        """An event arrived at host time `now`."""
        self._held.append(_Held(event, now))

    def due(self, now: float) -> list[events_pb2.Event]:
        """The events to show at host time `now`, in order (and no longer held)."""
        urgent = -1
        for index, held in enumerate(self._held):
            if self._is_urgent(held.event):
                urgent = index
        out: list[events_pb2.Event] = []
        while self._held:
            held = self._held[0]
            if len(out) > urgent and is_move(held.event) and _mover(held.event) != self.seat:
                when = self._move_time(held)
                if when > now:
                    break
                self._last_move = now
            elif is_move(held.event):
                self._last_move = now
            out.append(self._held.popleft().event)
        return out

    def flush(self) -> list[events_pb2.Event]:
        """Everything held, in order (the player pressed a key: the screen catches up first)."""
        out = [held.event for held in self._held]
        self._held.clear()
        return out

    def next_time(self) -> float | None:
        """When the next held event is due (host seconds), or None when nothing is held."""
        return self._move_time(self._held[0]) if self._held else None

    def _move_time(self, held: _Held) -> float:
        return min(max(held.arrived, self._last_move + self.pace), held.arrived + self.max_lag)

    def _is_urgent(self, event: events_pb2.Event) -> bool:
        if event.WhichOneof("payload") == "snapshot" or not self.pace:
            return True
        my_turn = event.HasField("turn_started") and event.turn_started.seat == self.seat
        return bool(event.HasField("your_legal_actions") and is_race(event.your_legal_actions, my_turn=my_turn))
