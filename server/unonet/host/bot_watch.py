"""The worker watch: a host bot seat whose kind searches can never stop its table.

Such a seat is played by a worker process (`bot_workers.py`) and, like every host bot seat, has no
turn clock: a worker that hung, crashed or sent only refused commands once held its table forever.
The watch times every decision such a seat owes (it is the seat to act; while a race holds the turn
for its ruling, the decision is not looked at): from the event that brought the seat the legal
actions it owes the decision on (`Table.legal_sent_at`), the worker has its kind's decision time
(`kinds.decision_seconds`: the search's budget and the level's pause; on a host that paces its bots
for people, `pace.py`'s turn pause too) plus `grace_s`; a worker
started less than `start_allowance_s` before has until that allowance is over, plus the same (a
process starting, importing and catching up with the match's events).

When the time is up the host's driver records a `journal.Fallback`, the public BotFallback event, and
the kind's fallback (`kinds.fallback_kind`, `greedy:3` for `strong`, which the host plays on its own
loop through `bot_seats.HostBots`) makes the decision at once. A worker that was running is restarted
and charged a failure (`BotWorkers.failed`); one that was not (crashed, waiting to be started again)
was charged when it exited. A decision the worker makes in time clears its failures
(`BotWorkers.answered`). After `BotWorkers.max_failures` failures in a row the worker is retired: the
next Fallback is final (`rest_of_match`), and the fallback plays the seat until the match ends
(`Table.fallback_kinds`, journalled, so a restarted host keeps it so).

Every time is the host's clock (`Host.clock_ns`), so a test moves it on instead of waiting.
"""

from __future__ import annotations

from dataclasses import dataclass

from unonet.bots.kinds import decision_seconds
from unonet.host.bot_workers import BotWorkers, WorkerState
from unonet.host.seats import Seat
from unonet.host.table import Table

__all__ = ["GRACE_S", "START_ALLOWANCE_S", "Expired", "WorkerWatch"]

GRACE_S = 10.0
"""Seconds a worker has beyond its kind's decision time: a machine under load, a slow round trip. A
decision of `strong:3` takes 0.1 s of CPU; on a 2-core machine at load 22 a worker once took more
than 5 s of wall clock for one."""
START_ALLOWANCE_S = 30.0
"""Seconds a worker has from its (re)start before its decisions are timed as usual: a Python process
starting, importing grpc and the engine and catching up on the match (at load 22, over 25 s once)."""


@dataclass(frozen=True, slots=True)
class Expired:
    """A decision the worker did not make in time: why ("silent": it ran; "down": it did not) and
    the nanoseconds it had."""

    reason: str
    allowed_ns: int


@dataclass
class _Owed:
    number: int  # the event that brought the seat the copy it owes the decision on
    since_ns: int  # when the watch first saw it owed
    by_fallback: bool = False  # the fallback made it


class WorkerWatch:
    """The decisions the worker seats of one host owe, each timed as the module says.

    Args:
        workers: the host's supervisor, told of decisions made in time (`answered`).
        grace_s: seconds beyond a kind's decision time.
        start_allowance_s: seconds from a worker's start before it is timed as usual.
    """

    def __init__(self, workers: BotWorkers, *, grace_s: float = GRACE_S,
                 start_allowance_s: float = START_ALLOWANCE_S) -> None:
        self.workers = workers
        self.grace_s = grace_s
        self.start_allowance_s = start_allowance_s
        self._owed: dict[tuple[str, int], _Owed] = {}

    def forget(self, table_id: str) -> None:
        """Drop a table's decisions (it was archived)."""
        for key in [key for key in self._owed if key[0] == table_id]:
            del self._owed[key]

    def owed_since(self, table_id: str, seat: int) -> int | None:
        """When the watch started timing the decision `seat` owes (host clock), None when it times none."""
        owed = self._owed.get((table_id, seat))
        return None if owed is None else owed.since_ns

    def check(self, table: Table, seat: Seat, worker: WorkerState | None, now_ns: int) -> Expired | float | None:
        """The decision `seat` owes now: None when it owes none, else the seconds its worker has left,
        or `Expired` once they are gone. A decision the seat no longer owes, made without the
        fallback, was the worker's: its failures are cleared."""
        key = (table.table_id, seat.index)
        if table.races.holding() is not None:  # the turn waits for a race's ruling: nobody's decision is due
            return None
        owes = self._owes(table, seat)
        number = table.legal_sent_at.get(seat.index, 0)
        owed = self._owed.get(key)
        if owed is not None and (not owes or owed.number != number):  # that decision was made
            del self._owed[key]
            if not owed.by_fallback:
                self.workers.answered(table.table_id, seat.index)
            owed = None
        if not owes:
            return None
        if owed is None:
            owed = self._owed[key] = _Owed(number, now_ns)
        started = owed.since_ns if worker is None or not worker.started_ns else worker.started_ns
        paced = self.workers.human_pace or 0.0  # a worker at a table with a person waits the pace's turn pause too
        decision_ns = int((decision_seconds(seat.bot_kind) + paced + self.grace_s) * 1e9)
        deadline = max(owed.since_ns, started + int(self.start_allowance_s * 1e9)) + decision_ns
        if now_ns < deadline:
            return (deadline - now_ns) / 1e9
        owed.by_fallback = True
        running = worker is not None and worker.running
        return Expired("silent" if running else "down", deadline - owed.since_ns)

    @staticmethod
    def _owes(table: Table, seat: Seat) -> bool:
        match = table.match
        if match is None or match.is_over or table.shuffle is not None:
            return False
        return match.game.to_act == seat.index
