"""The committed cards of a provably fair round, as they travel from the host's shuffle to the wire.

`unonet.host.shuffles.RoundCards` follows every card by its commitment and attaches these to the engine
events it follows; `convert` renders them into CardRefs. They live apart from both, so neither imports
the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from unonet.engine.cards import Card


@dataclass(frozen=True, slots=True)
class Ref:
    """One committed card: its face, its salt and its slot (an opening) plus the commitment it opens."""

    card: Card
    commitment: bytes
    salt: bytes
    deck_no: int
    position: int


@dataclass(frozen=True, slots=True)
class EventRefs:
    """The committed cards of one engine event, one group per card field of the event, in order.

    Groups per event: Dealt, Drew, Played, WrongJumpIn, IllegalPlay, FirstCardTurned, FirstCardReturned,
    SwapOffered: one group (the event's cards). CardTakenBack: the card, then the top card again.
    CardsExchanged: given, then received. HandsSwapped: `seat`'s new hand, then `target`'s.
    HandsRotated and RoundEnded: one group per seat. HandRevealed: the accused hand, with
    `played_event`, the number of the CardsPlayed event of the Wild Draw Four (at a table without
    commitments, no group: the number alone). PlayerEliminated (a
    forfeit mid-round): the hand put under the draw pile, in the order it will be drawn.
    """

    groups: tuple[tuple[Ref, ...], ...]
    played_event: int = 0


@dataclass(frozen=True, slots=True)
class ViewRefs:
    """The committed cards of one seat's view (GetView, a snapshot): its hand in the view's order, the
    top card, the card a five swap holds aside, and the card of each open window that has one, by id."""

    hand: tuple[Ref, ...] = ()
    top: Ref | None = None
    aside: Ref | None = None
    windows: dict[int, Ref] = field(default_factory=dict)
