"""The fairness exception tree.

Two kinds of failure must never be confused. `InvalidInput` means the caller passed something that
cannot be encoded (a salt of the wrong length, a negative position): a bug on our side. A
`VerificationError` means the evidence a host sent does not hold up (an opening that does not open its
commitment, a reveal with a card missing, a verdict the cards contradict): a host that is broken or
cheating. Clients show the second kind to the player; each subclass carries a machine-readable `reason`
so a log or a UI can say exactly which check failed.

The root and `InvalidInput` live one floor down, in `unonet.fairness.base_errors`, because the
primitives that raise them (encoding, cards, commitments) are what the errors here carry (`WrongCard`
holds a `CardOpening` and a `CardCode`); they are re-exported, so the whole tree imports from here.
"""

from __future__ import annotations

from unonet.fairness.base_errors import FairnessError, InvalidInput
from unonet.fairness.cards import CardCode
from unonet.fairness.commitments import CardOpening

__all__ = [
    "ChangedSalt",
    "CommitmentMismatch",
    "DroppedReveal",
    "DuplicateOpening",
    "EntropyMismatch",
    "ExcludedSeat",
    "ExtraCard",
    "FairnessError",
    "FalseVerdict",
    "ForkedLog",
    "IncompleteReveal",
    "InvalidInput",
    "MerkleMismatch",
    "MissingCard",
    "RepeatedShuffle",
    "SeedMismatch",
    "SteeredDeal",
    "UnknownCommitment",
    "VerificationError",
    "WrongCard",
    "WrongPenalty",
    "WrongRebuild",
    "WrongRuling",
]


class VerificationError(FairnessError):
    """Evidence from the host failed a check: the host is broken or dishonest."""

    default_reason = "VERIFICATION_FAILED"


class CommitmentMismatch(VerificationError):
    """A revealed value does not open the commitment published for it."""

    default_reason = "COMMITMENT_MISMATCH"


class WrongCard(CommitmentMismatch):
    """An opening names a different card than the one its salt and position were committed with.

    Detected by trying every card with the revealed salt and position: one of them opens a held
    commitment, so the committed card is known (`committed_card`) and the revealed one is a lie.
    """

    default_reason = "WRONG_CARD"

    def __init__(self, message: str, *, opening: CardOpening, committed_card: CardCode) -> None:
        super().__init__(message)
        self.opening = opening
        self.committed_card = committed_card


class ChangedSalt(CommitmentMismatch):
    """An opening's salt (or position) opens none of the held commitments, with any card."""

    default_reason = "CHANGED_SALT"

    def __init__(self, message: str, *, opening: CardOpening) -> None:
        super().__init__(message)
        self.opening = opening


class SeedMismatch(CommitmentMismatch):
    """The host's revealed shuffle seed does not match the commitment it published before the deal."""

    default_reason = "SEED_MISMATCH"


class EntropyMismatch(CommitmentMismatch):
    """A seat's revealed entropy does not match its commitment, or a seat revealed without committing."""

    default_reason = "ENTROPY_MISMATCH"


class MerkleMismatch(VerificationError):
    """A Merkle root or inclusion proof does not match the commitments it is supposed to cover."""

    default_reason = "MERKLE_MISMATCH"


class IncompleteReveal(VerificationError):
    """A reveal is not exactly the set of commitments the public record says it must cover."""

    default_reason = "INCOMPLETE_REVEAL"


class MissingCard(IncompleteReveal):
    """A commitment the seat held was not opened at all."""

    default_reason = "MISSING_CARD"

    def __init__(self, message: str, *, commitment: bytes) -> None:
        super().__init__(message)
        self.commitment = commitment


class ExtraCard(IncompleteReveal):
    """An opening covers none of the held commitments and no held commitment is left unexplained."""

    default_reason = "EXTRA_CARD"

    def __init__(self, message: str, *, opening: CardOpening) -> None:
        super().__init__(message)
        self.opening = opening


class DuplicateOpening(IncompleteReveal):
    """The same commitment was opened twice, as if to pad a reveal that left a card out."""

    default_reason = "DUPLICATE_OPENING"

    def __init__(self, message: str, *, opening: CardOpening) -> None:
        super().__init__(message)
        self.opening = opening


class UnknownCommitment(VerificationError):
    """An event names a commitment the public record does not place there: a card played or shown that
    the seat does not hold, a pile slot whose published commitment differs, a slot dealt twice, or a
    pile rebuilt from cards that were not where the record says."""

    default_reason = "UNKNOWN_COMMITMENT"

    def __init__(self, message: str, *, commitment: bytes = b"") -> None:
        super().__init__(message)
        self.commitment = commitment


class FalseVerdict(VerificationError):
    """The host's verdict on a Wild Draw Four challenge contradicts the cards it revealed."""

    default_reason = "FALSE_VERDICT"

    def __init__(self, message: str, *, claimed_guilty: bool, recomputed_guilty: bool) -> None:
        super().__init__(message)
        self.claimed_guilty = claimed_guilty
        self.recomputed_guilty = recomputed_guilty


class WrongPenalty(VerificationError):
    """A challenge's penalty is not what the verdict, the open draw obligation and the table's
    `bluff_penalty` make it (B3-B5): the wrong seat pays, the wrong number of cards is announced or
    drawn, or a guilty `take_back` seat keeps its Wild Draw Four."""

    default_reason = "WRONG_PENALTY"


class SteeredDeal(VerificationError):
    """A seat was dealt a position of the deck the dealing order (one card at a time, from the dealer's
    left) does not give it."""

    default_reason = "STEERED_DEAL"


class ExcludedSeat(VerificationError):
    """A seat the public record shows in the match and connected (or played by a bot) when a shuffle
    began was not asked for its entropy."""

    default_reason = "EXCLUDED_SEAT"


class RepeatedShuffle(VerificationError):
    """A second shuffle was begun for a round that already had one (an aborted deal: the host could
    grind for a deck it likes)."""

    default_reason = "REPEATED_SHUFFLE"


class DroppedReveal(VerificationError):
    """The host acknowledged this seat's entropy reveal but dealt without it (or called it a timeout)."""

    default_reason = "DROPPED_REVEAL"


class ForkedLog(VerificationError):
    """The log's hash chain does not reach the head hash another copy of the log showed at that event
    number: the host showed two receivers different histories, or the log was changed."""

    default_reason = "LOG_FORKED"


class WrongRebuild(VerificationError):
    """A later pile was not made when, or from what, the rules say (T5, S4): a draw pile rebuilt before
    the old one ran out or not rebuilt once it did, or shuffled from other cards than the discards under
    the top card (or, for a first card returned, the undrawn pile and that card)."""

    default_reason = "WRONG_REBUILD"


class WrongRuling(VerificationError):
    """A race's published ruling contradicts its own figures (docs/fairness.md 10.6): an order the
    reaction times, tie tolerance and tie seed do not give, a late flag the duration does not give, a
    latency forgiven above the cap, a reaction time that is not what the answer took less the round trip
    forgiven, or a tie seed that is not the round's."""

    default_reason = "WRONG_RULING"
