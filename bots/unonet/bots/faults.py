"""What a bot can get wrong, as the runner records it: `Fault`, and the errors a bot that does its own
I/O (the JSON-lines bridge) raises to say its program misbehaved.

The runner never lets a bot's mistake reach the host as anything but silence: a decision that is
illegal, crashed, late or garbled is not sent, and the table's clock decides the turn (docs/bots.md,
"When a bot gets it wrong"). Each such mistake is logged and kept as a `Fault`, so `unonet bot check`
and tests can say exactly what went wrong where.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["BadAnswer", "BotGone", "Fault", "FaultKind"]


class FaultKind(enum.Enum):
    """The kinds of mistake, as `unonet bot check` reports them."""

    ILLEGAL = "illegal"  # a command the legal actions did not list
    CRASHED = "crashed"  # the policy raised, or its program exited
    LATE = "late"  # no answer before the decision's deadline (a hang looks the same)
    GARBAGE = "garbage"  # an answer that is not one of the documented forms


@dataclass(frozen=True, slots=True)
class Fault:
    """One mistake: its kind, the event the bot was deciding on (0 for a view read), and what happened."""

    kind: FaultKind
    event_number: int
    detail: str
    required: bool = True


class BadAnswer(Exception):
    """A bot's program answered something that is not an answer (not JSON, an index out of range, a
    request that does not parse). The runner records it as a GARBAGE fault and sends nothing."""


class BotGone(Exception):
    """A bot's program exited or closed its output: no decision will ever come. The runner records a
    CRASHED fault and stops playing the seat (the table's clock and takeover rules take it from there)."""
