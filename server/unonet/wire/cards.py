"""Cards on the wire: colours, ranks and faces both ways, and a card as one receiver sees it (a face, a
hidden card, or a committed card with its opening).

Input is refused precisely: a card that cannot mean anything (an `*_UNSPECIFIED` enum, a black five)
raises `MalformedAction` with a machine-readable reason, before the engine sees it.
"""

from __future__ import annotations

from collections.abc import Sequence

from unonet.engine.cards import Card, Color, Rank
from unonet.engine.errors import MalformedAction
from unonet.v1 import (
    cards_pb2,
)
from unonet.wire.lookup import enum_name
from unonet.wire.refs import Ref

COLOR_TO_PB: dict[Color, cards_pb2.Color.ValueType] = {
    Color.RED: cards_pb2.COLOR_RED,
    Color.YELLOW: cards_pb2.COLOR_YELLOW,
    Color.GREEN: cards_pb2.COLOR_GREEN,
    Color.BLUE: cards_pb2.COLOR_BLUE,
    Color.BLACK: cards_pb2.COLOR_BLACK,
}
_COLOR_FROM_PB: dict[int, Color] = {v: k for k, v in COLOR_TO_PB.items()}

RANK_TO_PB: dict[Rank, cards_pb2.Rank.ValueType] = {
    Rank.ZERO: cards_pb2.RANK_ZERO,
    Rank.ONE: cards_pb2.RANK_ONE,
    Rank.TWO: cards_pb2.RANK_TWO,
    Rank.THREE: cards_pb2.RANK_THREE,
    Rank.FOUR: cards_pb2.RANK_FOUR,
    Rank.FIVE: cards_pb2.RANK_FIVE,
    Rank.SIX: cards_pb2.RANK_SIX,
    Rank.SEVEN: cards_pb2.RANK_SEVEN,
    Rank.EIGHT: cards_pb2.RANK_EIGHT,
    Rank.NINE: cards_pb2.RANK_NINE,
    Rank.SKIP: cards_pb2.RANK_SKIP,
    Rank.REVERSE: cards_pb2.RANK_REVERSE,
    Rank.DRAW_TWO: cards_pb2.RANK_DRAW_TWO,
    Rank.WILD: cards_pb2.RANK_WILD,
    Rank.WILD_DRAW_FOUR: cards_pb2.RANK_WILD_DRAW_FOUR,
    Rank.BLANK: cards_pb2.RANK_BLANK,
    Rank.SOUND_WILD: cards_pb2.RANK_SOUND_WILD,
    Rank.PLUS_ONE: cards_pb2.RANK_PLUS_ONE,
    Rank.PLUS_TWO: cards_pb2.RANK_PLUS_TWO,
}
_RANK_FROM_PB: dict[int, Rank] = {v: k for k, v in RANK_TO_PB.items()}


def color_to_pb(color: Color | None) -> cards_pb2.Color.ValueType:
    """A colour as the protocol numbers it; None (no colour in force, after a Sound Wild) is UNSPECIFIED."""
    if color is None:
        return cards_pb2.COLOR_UNSPECIFIED
    return COLOR_TO_PB[color]


def rank_to_pb(rank: Rank) -> cards_pb2.Rank.ValueType:
    """A rank as the protocol numbers it (number cards are face value plus one)."""
    return RANK_TO_PB[rank]


def card_to_pb(card: Card) -> cards_pb2.Card:
    """The face of an engine card, as the protocol shows it."""
    return cards_pb2.Card(color=COLOR_TO_PB[card.color], rank=RANK_TO_PB[card.rank])


def card_ref(card: Card | None) -> cards_pb2.CardRef:
    """A card as one receiver sees it: the face when given, else an empty reference (a hidden card).

    Only the face for now: commitments and salts come with provably fair shuffles (issue 4), and this is
    where they will be added, so every caller that shows a card keeps doing it through here.
    """
    if card is None:
        return cards_pb2.CardRef()
    return cards_pb2.CardRef(card=card_to_pb(card))


def color_from_pb(value: int) -> Color:
    """A colour a player names (ChooseColor, PlayCardsRequest.color): red, yellow, green or blue.

    Raises MalformedAction: reason UNSPECIFIED_ENUM for COLOR_UNSPECIFIED, BAD_COLOR for COLOR_BLACK
    (never a colour in force) or a number the protocol does not define.
    """
    if value == cards_pb2.COLOR_UNSPECIFIED:
        raise MalformedAction("a colour must be named: COLOR_UNSPECIFIED is not one", reason="UNSPECIFIED_ENUM")
    color = _COLOR_FROM_PB.get(value)
    if color is None or color is Color.BLACK:
        raise MalformedAction(
            f"colour {enum_name(cards_pb2.Color, value)} cannot be named; name red, yellow, green or blue",
            reason="BAD_COLOR",
        )
    return color


def card_from_pb(msg: cards_pb2.Card) -> Card:
    """The engine card a request names by its face.

    Raises MalformedAction: reason UNSPECIFIED_ENUM for an unset colour or rank or a number the
    protocol does not define (errors.proto: either is no value of the enum), NO_SUCH_CARD for a pairing
    of real colours and ranks that does not exist (a black five, a red Wild).
    """
    color = _COLOR_FROM_PB.get(msg.color)
    if color is None:
        raise MalformedAction(f"card {_card_text(msg)} has no colour the protocol defines", reason="UNSPECIFIED_ENUM")
    rank = _RANK_FROM_PB.get(msg.rank)
    if rank is None:
        raise MalformedAction(f"card {_card_text(msg)} has no rank the protocol defines", reason="UNSPECIFIED_ENUM")
    try:
        return Card.of(color, rank)
    except ValueError:
        raise MalformedAction(f"no such card: {_card_text(msg)}", reason="NO_SUCH_CARD") from None


def _card_text(msg: cards_pb2.Card) -> str:
    return f"({enum_name(cards_pb2.Color, msg.color)}, {enum_name(cards_pb2.Rank, msg.rank)})"


def seat_hand(seat: int, count: int, cards: Sequence[Card], *, show: bool) -> cards_pb2.SeatHand:
    """A hand as one receiver sees it: always the count, the faces only when `show` (SeatHand's rule)."""
    hand = cards_pb2.SeatHand(seat=seat, count=count)
    if show:
        hand.cards.extend(card_ref(card) for card in cards)
    return hand


def ref_to_pb(ref: Ref, *, show: bool) -> cards_pb2.CardRef:
    """One committed card: commitment, pile and position always; face and salt (the opening) if `show`."""
    msg = cards_pb2.CardRef(commitment=ref.commitment, deck_number=ref.deck_no, position=ref.position)
    if show:
        msg.card.CopyFrom(card_to_pb(ref.card))
        msg.salt = ref.salt
    return msg
