"""A committed pile: the one derivation both the host and every auditor run.

The host calls `derive_deck` to shuffle and commit a pile; after the round an auditor calls it again
with the revealed seeds and must get the same cards, salts, commitments and root. Keeping the whole
recipe in one function means host and verifier cannot drift apart.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from unonet.fairness.cards import CardCode, canonical_order
from unonet.fairness.commitments import CardOpening, commit_cards
from unonet.fairness.errors import InvalidInput, MerkleMismatch
from unonet.fairness.merkle import inclusion_proof, merkle_root
from unonet.fairness.shuffle import derive_salts, derive_seed, shuffled

ORDER_LABEL = "deck-order"
SALT_LABEL = "card-salts"


@dataclass(frozen=True, slots=True)
class CommittedDeck:
    """A shuffled pile with a salt and a commitment per position, and the Merkle root over them.

    Position 0 is the top of the pile: the first card dealt or drawn.
    """

    table_id: str
    round_no: int
    deck_no: int
    cards: tuple[CardCode, ...]
    salts: tuple[bytes, ...]
    commitments: tuple[bytes, ...]
    root: bytes

    def opening(self, position: int) -> CardOpening:
        """The opening the host sends the card's owner (or everyone, once the card is played)."""
        self._check(position)
        return CardOpening(self.cards[position], self.salts[position], position, self.deck_no)

    def proof(self, position: int) -> list[bytes]:
        """The inclusion proof of the commitment at `position` against `root`."""
        self._check(position)
        return inclusion_proof(self.commitments, position)

    def _check(self, position: int) -> None:
        if not 0 <= position < len(self.cards):
            raise InvalidInput(f"position {position} is not in a pile of {len(self.cards)} cards")


def derive_deck(
    table_id: str, round_no: int, cards: Iterable[CardCode], seed: bytes, *, deck_no: int = 0
) -> CommittedDeck:
    """Shuffle and commit a pile from the round's combined seed (docs/fairness.md, "Deriving a pile").

    `cards` is the pile's contents in any order: it is put in canonical order first. The order comes
    from `derive_seed(seed, "deck-order", deck_no)`, the salts from `derive_seed(seed, "card-salts",
    deck_no)`; deck 0 is the deal, deck k the k-th reshuffle of the round (rule T5).
    """
    ordered = shuffled(canonical_order(cards), derive_seed(seed, ORDER_LABEL, deck_no))
    salts = derive_salts(derive_seed(seed, SALT_LABEL, deck_no), len(ordered))
    commitments = commit_cards(table_id, round_no, ordered, salts, deck_no=deck_no)
    return CommittedDeck(
        table_id=table_id,
        round_no=round_no,
        deck_no=deck_no,
        cards=tuple(ordered),
        salts=tuple(salts),
        commitments=tuple(commitments),
        root=merkle_root(commitments),
    )


def verify_deck_root(published_root: bytes, commitments: Sequence[bytes]) -> None:
    """Check a root published before the deal against recomputed commitments.

    Raises MerkleMismatch if they differ: the host published a root for some other deck.
    """
    computed = merkle_root(commitments)
    if not hmac.compare_digest(computed, published_root):
        raise MerkleMismatch(
            f"published root {published_root.hex()}, but the {len(commitments)} commitments give {computed.hex()}"
        )
