"""A table's clocks: the turn clock of the seat to act (with its time bank), and the deadlines of
the blocking reaction windows.

The table tells its clocks what changed (`arm`, `charge`, `stop`) and reads when things are due; the
driver (host.py) records a timeout or a ruling when a deadline passes. Time past the turn allowance
comes out of the seat's time bank, which the table keeps with the seat.
"""

from __future__ import annotations

from collections.abc import Iterable

from unonet.engine import Window


class Clocks:
    """The turn clock and window deadlines of one table, in host-clock nanoseconds."""

    __slots__ = ("_reaction_ns", "_started_ns", "_turn_s", "timed_seat", "turn_deadline_ns", "window_deadlines")

    def __init__(self, *, turn_time_s: float, reaction_time_s: float) -> None:
        self._turn_s = turn_time_s
        self._reaction_ns = int(reaction_time_s * 1e9)
        self.turn_deadline_ns: int | None = None
        # The seat whose decision the turn clock is timing, and since when (time beyond the turn
        # allowance comes out of that seat's time bank).
        self.timed_seat: int | None = None
        self._started_ns = 0
        # Blocking windows' deadlines by window id; the race book moves a race's to its ruling time.
        # Never rebound: the table and its race book hold this very dict.
        self.window_deadlines: dict[int, int] = {}

    def stop(self) -> None:
        """The match is over or waits for a deal: nothing is timed."""
        self.turn_deadline_ns = None
        self.window_deadlines.clear()

    def arm(self, windows: Iterable[Window], to_act: int | None, bank_s: float, now: int) -> None:
        """After a change: forget the windows that closed, give newly opened blocking ones their
        deadline, and time `to_act` (None: nobody's decision is timed, as for a bot or untimed
        table) with its allowance, the turn time plus `bank_s`. A seat still deciding keeps the
        clock it started with."""
        open_windows = {window.id: window for window in windows}
        for window_id in list(self.window_deadlines):
            if window_id not in open_windows:
                del self.window_deadlines[window_id]
        for window in open_windows.values():
            if window.is_blocking and window.id not in self.window_deadlines:
                self.window_deadlines[window.id] = now + self._reaction_ns
        if to_act is None or not self._turn_s:
            self.turn_deadline_ns = None
            self.timed_seat = None
            return
        if to_act != self.timed_seat:
            self.timed_seat, self._started_ns = to_act, now
        self.turn_deadline_ns = self._started_ns + int((self._turn_s + bank_s) * 1e9)

    def charge(self, seat: int, now: int) -> float:
        """The seat the clock was timing decided: the seconds it took past its turn allowance (to come
        out of its bank; 0 for any other seat). Its next decision gets a fresh turn clock."""
        if seat != self.timed_seat:
            return 0.0
        self.timed_seat = None
        over = (now - self._started_ns) / 1e9 - self._turn_s
        return over if over > 0 else 0.0

    def restart(self, bank_s: float, now: int) -> None:
        """The host restarted: the seat being timed gets its turn again from `now`, with `bank_s` of bank
        (it was away with the host, not late). Window deadlines keep theirs."""
        if self.timed_seat is not None and self._turn_s:
            self._started_ns = now
            self.turn_deadline_ns = now + int((self._turn_s + bank_s) * 1e9)

    def forget_seat(self) -> None:
        """The timed seat's clock ran out (its timeout was recorded): its next decision starts afresh."""
        self.timed_seat = None

    def legal_deadline(self, seat: int, *, required: bool, window_ids: Iterable[int]) -> int | None:
        """When `seat`'s listed options run out: its turn clock when it must act, else the soonest
        blocking window among `window_ids` it may answer; None when nothing it may do is timed."""
        if seat == self.timed_seat and self.turn_deadline_ns is not None and required:
            return self.turn_deadline_ns
        windows = [self.window_deadlines[w] for w in window_ids if w in self.window_deadlines]
        return min(windows) if windows else None

    def next_deadline_ns(self) -> int | None:
        """The soonest of the windows' deadlines and the turn clock, if any."""
        deadlines = [*self.window_deadlines.values()]
        if self.turn_deadline_ns is not None:
            deadlines.append(self.turn_deadline_ns)
        return min(deadlines) if deadlines else None
