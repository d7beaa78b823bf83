"""The root of the fairness exception tree, and `InvalidInput`: what the primitives raise.

`unonet.fairness.errors` holds the rest of the tree (every `VerificationError`) and re-exports these
two. They live apart because the primitives that raise `InvalidInput` (encoding, cards, commitments)
sit below the verification errors, which carry the cards and openings those primitives define.
"""

from __future__ import annotations

__all__ = ["FairnessError", "InvalidInput"]


class FairnessError(Exception):
    """Base of every error `unonet.fairness` raises on purpose."""

    default_reason = "FAIRNESS_ERROR"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or self.default_reason


class InvalidInput(FairnessError, ValueError):
    """An argument cannot be encoded: wrong length, out of range, or inconsistent with the others."""

    default_reason = "INVALID_INPUT"
