"""The engine's exception tree (STYLE.md, python-chess).

Every refused action raises a subclass of `UnoError` carrying a machine-readable `reason` that the host
maps to a gRPC status in one place. A refused action never changes the game state.
"""

from __future__ import annotations


class UnoError(Exception):
    """Base of every error the engine raises on purpose."""

    default_reason = "UNO_ERROR"

    def __init__(self, message: str, *, reason: str | None = None, metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason = reason or self.default_reason
        # Facts a program may branch on, such as the `seat` whose turn it is (ErrorDetail.metadata).
        self.metadata = metadata or {}


class RulesetError(UnoError, ValueError):
    """An unknown preset or option, or options that cannot be combined."""

    default_reason = "BAD_RULESET"


class MalformedAction(UnoError, ValueError):
    """The action cannot make sense in any state: a card not in the hand, a seat that does not exist."""

    default_reason = "MALFORMED_ACTION"


class IllegalAction(UnoError):
    """The action is well formed but the rules forbid it now (a card that does not match, a closed window)."""

    default_reason = "ILLEGAL_ACTION"


class NotYourTurn(IllegalAction):
    """A seat acted when the game was waiting for someone else."""

    default_reason = "NOT_YOUR_TURN"


class GameOver(IllegalAction):
    """An action arrived after the round or match had ended."""

    default_reason = "GAME_OVER"
