"""What each bot did wrong in a game, and how long it took to decide: the board's per-bot columns.

Two halves, from the two places that see them:

- `SeatTally`, kept by a seat's supervisor while it plays (`unonet.league.seats`, `programs`; in-process,
  `inprocess`): its program's or policy's crashes, the restarts they cost, and the answers the bots'
  runner refused to send (`unonet.bots.faults`: GARBAGE, an answer that is not one, and ILLEGAL, a
  command the legal actions do not list). It travels from the seats process to the runner as JSON.
- `SeatStats`, one per seat in each recorded game (`results.GameResult.stats`): the tally, the turns
  its clock ran out on (the log's TurnTimedOut: a hang, or an answer too slow), and its decision times.

Forfeits and time losses are the game's outcomes (`GameResult.outcomes`), read from the host's log; a
stall is every seat's. Only a failure of a bot's own program or policy is counted here: a game that
failed because the league's machinery did (the seats process, the host, a worker) is aborted and
played again, never recorded (`unonet.league.network`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from unonet.bots.faults import Fault, FaultKind

__all__ = ["SeatStats", "SeatTally"]


@dataclass(slots=True)
class SeatTally:
    """One seat's failures in one game, counted by its supervisor as they happen."""

    crashes: int = 0
    restarts: int = 0
    bad_answers: int = 0
    illegal: int = 0

    def count(self, faults: Iterable[Fault]) -> None:
        """Add the faults a `BotRunner` recorded (late answers are the log's TurnTimedOut, not counted here)."""
        for fault in faults:
            if fault.kind is FaultKind.CRASHED:
                self.crashes += 1
            elif fault.kind is FaultKind.GARBAGE:
                self.bad_answers += 1
            elif fault.kind is FaultKind.ILLEGAL:
                self.illegal += 1

    def to_json(self) -> dict[str, int]:
        return {"crashes": self.crashes, "restarts": self.restarts, "bad_answers": self.bad_answers,
                "illegal": self.illegal}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatTally:
        return cls(int(data.get("crashes", 0)), int(data.get("restarts", 0)), int(data.get("bad_answers", 0)),
                   int(data.get("illegal", 0)))


@dataclass(frozen=True, slots=True)
class SeatStats:
    """One seat's record of a game: its supervisor's tally, the turns its clock ran out on (`timeouts`), and
    how long each of its required decisions took, in microseconds (`decision_us`; see docs/leagues.md for
    how each path measures it)."""

    crashes: int = 0
    restarts: int = 0
    bad_answers: int = 0
    illegal: int = 0
    timeouts: int = 0
    decision_us: tuple[int, ...] = field(default=())

    @classmethod
    def of(cls, tally: SeatTally, timeouts: int, decision_us: Iterable[int]) -> SeatStats:
        return cls(tally.crashes, tally.restarts, tally.bad_answers, tally.illegal, timeouts, tuple(decision_us))

    def to_json(self) -> dict[str, Any]:
        return {"crashes": self.crashes, "restarts": self.restarts, "bad_answers": self.bad_answers,
                "illegal": self.illegal, "timeouts": self.timeouts, "decision_us": list(self.decision_us)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatStats:
        return cls(int(data.get("crashes", 0)), int(data.get("restarts", 0)), int(data.get("bad_answers", 0)),
                   int(data.get("illegal", 0)), int(data.get("timeouts", 0)),
                   tuple(int(us) for us in data.get("decision_us", ())))
