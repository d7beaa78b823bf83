"""The hold of a round's first turn while the players read the scores of the round before.

A round ends with its scores on every player's screen, and the next round is dealt at once (its
shuffle takes a moment): a turn clock that ran from that deal would run for a person still reading. So
at a table whose `round_start_hold` is above zero, the deal of every round after the first is held
(`RoundHeld`): nobody acts, no turn clock runs and host bots wait, until every seat the hold waits for
has closed the scores (CloseScores) or has gone (left, or closed its last event stream), or until the
hold's time runs out (the driver records `journal.Release`). It waits for the players' seats with a
stream open (`Seat.is_player`, `shown_connected`) that had not closed those scores yet: a seat may
close them before the deal, and then the hold does not wait for it; with nobody to wait for, or a
deal that opens a blocking reaction window (whose deadline runs from the deal), there is no hold.

Everything here follows journalled inputs and their journalled times (the deal's entry, each
`journal.ScoresClosed`, the Connection and Leave entries, the `journal.Release`), so a replay holds and
releases exactly as the live table did. This module keeps the state; the table (table.py) asks it at
each change and turns what it says into events and clocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["DEFAULT_ROUND_START_HOLD_S", "Hold", "RoundHolds"]

DEFAULT_ROUND_START_HOLD_S = 10.0
"""The hold of a table created without one (CreateTable's `clock.round_start_hold` unset)."""


@dataclass
class Hold:
    """A held round: its number, when the hold ends at the latest (host clock), whom it waits for."""

    round_no: int
    until_ns: int
    waiting: set[int]


class RoundHolds:
    """One table's holds: the one in force, and the last round each seat closed the scores of."""

    def __init__(self, hold_s: float) -> None:
        self.hold_ns = int(hold_s * 1e9)
        self.current: Hold | None = None
        self.dealt_round = 0  # the last round the table saw dealt (each deal is held at most once)
        self._closed: dict[int, int] = {}  # seat -> the last round whose scores it closed

    def closed(self, seat: int) -> int:
        """The last round whose scores `seat` closed (0: none)."""
        return self._closed.get(seat, 0)

    def close(self, seat: int, round_no: int) -> None:
        """`seat` closed the scores of `round_no`."""
        self._closed[seat] = max(self.closed(seat), round_no)

    def on_deal(self, round_no: int, players: Iterable[int], now_ns: int, *, can_hold: bool) -> Hold | None:
        """Round `round_no` was just dealt: the hold that begins, if any. `players` are the seats a
        hold may wait for (the players' seats with a stream open, in the round); `can_hold` is False
        when the deal opened a blocking window."""
        self.dealt_round = round_no
        if round_no < 2 or self.hold_ns <= 0 or not can_hold:
            return None
        waiting = {seat for seat in players if self.closed(seat) < round_no - 1}
        if not waiting:
            return None
        self.current = Hold(round_no, now_ns + self.hold_ns, waiting)
        return self.current

    def settle(self, players: Iterable[int]) -> bool:
        """After a change during a hold: forget the seats that closed the scores or are gone (not among
        `players` any more). True when the hold waits for nobody now."""
        hold = self.current
        if hold is None:
            return False
        present = set(players)
        hold.waiting = {seat for seat in hold.waiting if seat in present and self.closed(seat) < hold.round_no - 1}
        return not hold.waiting

    def end(self) -> Hold:
        """The hold is over; returns it."""
        hold = self.current
        assert hold is not None, "no round is held"
        self.current = None
        return hold
