"""The engine's exception tree (STYLE.md, python-chess).

Every refused action raises a subclass of `UnoError` carrying a machine-readable `reason` that the host
maps to a gRPC status in one place. A refused action never changes the game state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping


class UnoError(Exception):
    """Base of every error the engine raises on purpose."""

    default_reason = "UNO_ERROR"

    def __init__(self, message: str, *, reason: str | None = None, metadata: Mapping[str, str] | None = None) -> None:
        """`metadata`: machine-readable facts about the refusal (such as `field`, the option at fault),
        which the host passes on in its error detail."""
        super().__init__(message)
        self.reason = reason or self.default_reason
        self.metadata: dict[str, str] = dict(metadata or {})


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
    """An action arrived after the match had ended (or a round was asked for when none is waiting)."""

    default_reason = "GAME_OVER"


class RoundOver(GameOver):
    """An action arrived after its round had ended while the match goes on: the next round's deal
    follows, so unlike GAME_OVER it is no reason for a player to stop (a bot that took it for the end of
    the match left its seat for good)."""

    default_reason = "ROUND_OVER"


Refusal = Callable[[], IllegalAction]
"""What a check of `Game` returns for an action the rules refuse (None when they allow it): a function
that builds the error. `apply` raises what it builds; `legal_actions` only asks whether there is one,
so it never pays for composing a message, which costs more than the check itself.
"""


# Every `reason` the engine raises, defaults included. Scenario files name them (`error = "..."`), so a
# misspelt reason is a mistake in the file, not a rules failure; tests/engine/test_reasons.py keeps
# this set equal to the reasons written in the engine's source.
REASONS: frozenset[str] = frozenset(
    {
        UnoError.default_reason,
        RulesetError.default_reason,
        MalformedAction.default_reason,
        IllegalAction.default_reason,
        NotYourTurn.default_reason,
        GameOver.default_reason,
        RoundOver.default_reason,
        "ALREADY_REACTED",
        "BAD_COLOR",
        "BAD_PLAYER_COUNT",
        "BAD_POSITION",
        "BAD_SEAT",
        "BAD_SEATS",
        "BAD_TARGET",
        "BAD_TOTALS",
        "CARD_DOES_NOT_MATCH",
        "CARD_NOT_IN_HAND",
        "CATCH_SELF",
        "DECK_TOO_SMALL",
        "MUST_ANSWER_OBLIGATION",
        "MUST_DRAW",
        "NOTHING_TO_CALL",
        "NOTHING_TO_CHALLENGE",
        "NOT_A_GROUP",
        "NOT_CATCHABLE",
        "NOT_ELIGIBLE",
        "NO_CARDS",
        "NO_COLOR_TO_CHOOSE",
        "NO_SWAP",
        "OBLIGATION_OPEN",
        "ONE_CARD_ONLY",
        "ONLY_DRAWN_CARD",
        "UNKNOWN_ACTION",
        "WAIT_FOR_EFFECT",
        "WILD_DRAW_FOUR_NOT_ALLOWED",
        "WINDOW_CLOSED",
        "WINDOW_OPEN",
        "WRONG_PHASE",
    }
)
