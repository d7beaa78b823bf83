"""Salted, domain-separated commitments to single cards (docs/fairness.md, "Card commitments").

Every hidden card is committed to when it enters a shuffled pile, so the host can later prove which
card sat where without being able to change its mind. The 32-byte secret salt hides the card (there
are only 58 distinct cards, so an unsalted hash could be inverted by trying them all); the table id,
round, deck number and position bind the commitment to one slot, so an opening from one slot, round or
table can never be replayed for another.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from unonet.fairness.base_errors import InvalidInput
from unonet.fairness.cards import CardCode
from unonet.fairness.encoding import HASH_BYTES, U64_PREFIX, encode, exact_bytes, tagged_hash, text, u64

CARD_TAG = "unonet/v1/card"
SALT_BYTES = HASH_BYTES

RandomBytes = Callable[[int], bytes]
"""A source of random bytes: `secrets.token_bytes` on the host, `random.Random(seed).randbytes` in tests."""


@dataclass(frozen=True, slots=True)
class CardOpening:
    """What opens one card commitment: the card, its salt and its slot.

    The host sends a card's opening privately to the card's owner when it is dealt, publicly when the
    card is played, and to a challenger alone when a Wild Draw Four is challenged. `deck_no` is 0 for
    the deal's deck and counts up each time a pile is reshuffled in the same round (rule T5).
    """

    card: CardCode
    salt: bytes
    position: int
    deck_no: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.card, CardCode):
            raise InvalidInput(f"an opening needs a CardCode, got {self.card!r}")
        exact_bytes(self.salt, "salt", SALT_BYTES)
        u64(self.position, "position")
        u64(self.deck_no, "deck_no")


def commit(table_id: str, round_no: int, position: int, card: CardCode, salt: bytes, *, deck_no: int = 0) -> bytes:
    """The 32-byte commitment to `card` at `position` of deck `deck_no` of round `round_no` at `table_id`.

    `SHA-256(field("unonet/v1/card") || field(table_id) || field(u64 round_no) || field(u64 deck_no)
    || field(u64 position) || field(card 2 bytes) || field(salt 32 bytes))`. Raises InvalidInput for a
    salt that is not 32 bytes or a number outside 0..2**64-1.
    """
    if not isinstance(card, CardCode):
        raise InvalidInput(f"commit needs a CardCode, got {card!r}")
    return tagged_hash(
        CARD_TAG,
        text(table_id),
        u64(round_no, "round_no"),
        u64(deck_no, "deck_no"),
        u64(position, "position"),
        card.to_bytes(),
        exact_bytes(salt, "salt", SALT_BYTES),
    )


def commit_opening(table_id: str, round_no: int, opening: CardOpening) -> bytes:
    """The commitment an opening claims to open."""
    return commit(table_id, round_no, opening.position, opening.card, opening.salt, deck_no=opening.deck_no)


def verify_opening(commitment: bytes, table_id: str, round_no: int, opening: CardOpening) -> bool:
    """Whether `opening` opens `commitment` at this table and round (constant-time comparison)."""
    if len(commitment) != HASH_BYTES:
        return False
    return hmac.compare_digest(commit_opening(table_id, round_no, opening), commitment)


def commit_cards(
    table_id: str, round_no: int, cards: Sequence[CardCode], salts: Sequence[bytes], *, deck_no: int = 0
) -> list[bytes]:
    """The commitments to a whole pile, position i holding `cards[i]` salted with `salts[i]`.

    Raises InvalidInput if the two sequences differ in length.
    """
    if len(cards) != len(salts):
        raise InvalidInput(f"{len(cards)} cards but {len(salts)} salts")
    if not cards:
        return []
    # What `commit` does per card, with the fields every card shares encoded once. The checks run in
    # the order `commit` runs them for position 0, so the same bad input raises the same error.
    if not isinstance(cards[0], CardCode):
        raise InvalidInput(f"commit needs a CardCode, got {cards[0]!r}")
    prefix = encode(CARD_TAG, text(table_id), u64(round_no, "round_no"), u64(deck_no, "deck_no")) + U64_PREFIX
    sha256 = hashlib.sha256
    out = []
    for position, (card, salt) in enumerate(zip(cards, salts, strict=True)):
        if not isinstance(card, CardCode):
            raise InvalidInput(f"commit needs a CardCode, got {card!r}")
        if type(salt) is not bytes or len(salt) != SALT_BYTES:
            salt = exact_bytes(salt, "salt", SALT_BYTES)
        out.append(
            sha256(
                b"".join((prefix, position.to_bytes(8, "big"), _CARD_PREFIX, card.to_bytes(), _SALT_PREFIX, salt))
            ).digest()
        )
    return out


_CARD_PREFIX = (2).to_bytes(4, "big")
_SALT_PREFIX = SALT_BYTES.to_bytes(4, "big")


def new_salt(rng: RandomBytes) -> bytes:
    """A fresh 32-byte salt from an injected source (the host passes `secrets.token_bytes`).

    Injected so tests are deterministic; raises InvalidInput if the source returns the wrong length.
    """
    return exact_bytes(rng(SALT_BYTES), "salt from the random source", SALT_BYTES)
