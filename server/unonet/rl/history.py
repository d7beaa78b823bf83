"""The public history of a round, kept from the engine's events for every seat at once.

A seat's observation holds what a careful player remembers (docs/rl.md), the same facts the bots keep
from their events (`unonet.wire.knowledge.SeatTracker` for the cards known to be in other hands and
the cards a fair Wild Draw Four says a hand lacks, `unonet.bots.memory.TableMemory` for the discards,
the colours each seat drew on and each seat's challenged Wild Draw Fours). Those follow one seat's
protobuf events; a learning environment steps thousands of times a second, so this module follows the
engine's own events once for all seats, in byte strings an observation copies in one slice each:

- `discard[c]`: copies of card c face up in the discard pile (the pile since the last reshuffle);
- `known[o][s][c]`: copies of card c seat o knows are in seat s's hand (None: none known): both hands
  of a 7-0 swap it made or was chosen for, the hand it passed on in a rotation (H10), the hand a
  challenge it made revealed (B2), both cards of a 5-swap it was part of (H11), a Wild Draw Four taken
  back (B3, everyone). Known cards leave with the plays that show them and follow the hand through
  rotations and swaps; when a card o did not see leaves s (a 5-swap between others), o knows none of
  s's cards any more;
- `excluded[s][c]`: 1 when a Wild Draw Four seat s played was ruled fair (B4), so s held no card c that
  would have made it unfair (T2), until s takes a card (None: no exclusion);
- `lacks[s][k]`: 1 when seat s drew on its turn with colour k in force (red, yellow, green, blue) and
  has not played that colour since (it held none then, or chose to draw); cleared by rotations, swaps;
- `verdicts[s]`: how many of s's challenged Wild Draw Fours were found guilty, and how many innocent;
- `uno_called[s]`: s called UNO and its hand has taken no card since (the host's `uno_calls.py`).

Everything here is public but `known`, which is per observer; nothing holds a card a seat was not shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

from unonet.engine import Card, Color, Event, Game, Knowledge, Rank, WildDrawFourRule
from unonet.engine.cards import CARDS, color_slot
from unonet.engine.events import (
    CardsExchanged,
    CardTakenBack,
    Challenged,
    ColorChosen,
    DrawReason,
    Drew,
    FirstCardReturned,
    FirstCardTurned,
    HandRevealed,
    HandsRotated,
    HandsSwapped,
    Played,
    Reshuffled,
    RoundStarted,
    SwapOffered,
    UnoCalled,
)
from unonet.engine.rules import is_wild_draw_four_fair

__all__ = ["PublicHistory"]

_TURN: Final = DrawReason.TURN
_WILD_DRAW_FOUR: Final = Rank.WILD_DRAW_FOUR
_SOUND_WILD: Final = Rank.SOUND_WILD
_NO_SLOT: Final = 4  # `color_slot` of black, or of no colour in force
# The events a handler reads; `follow` skips the others (turns starting, windows opening and closing...).
_FOLLOWED: Final[frozenset[type[Event]]] = frozenset(
    {
        Played,
        Drew,
        ColorChosen,
        UnoCalled,
        FirstCardTurned,
        FirstCardReturned,
        Reshuffled,
        RoundStarted,
        CardTakenBack,
        HandRevealed,
        Challenged,
        HandsRotated,
        HandsSwapped,
        SwapOffered,
        CardsExchanged,
    }
)


# `PublicHistory.__reduce__`'s state: every attribute the constructor does not set from its arguments.
_State = tuple[
    bytearray,
    list[list[bytearray | None]],
    list[bytes | None],
    list[bytearray],
    list[list[int]],
    bool,
    list[bool],
    bool,
    Color | None,
    tuple[Color | None, Card | None],
]


def _counts(cards: Sequence[Card]) -> bytearray:
    row = bytearray(len(CARDS))
    for card in cards:
        row[card.index] += 1
    return row


class PublicHistory:
    """What every seat remembers of the round so far (see the module); `follow(events, game)` keeps it."""

    def __init__(self, players: int, rule: WildDrawFourRule) -> None:
        self.players = players
        self.rule = rule
        self.discard = bytearray(len(CARDS))
        self.known: list[list[bytearray | None]] = [[None] * players for _ in range(players)]
        self.excluded: list[bytes | None] = [None] * players
        self.lacks = [bytearray(4) for _ in range(players)]
        self.verdicts = [[0, 0] for _ in range(players)]
        self.any_verdicts = False  # some Wild Draw Four was challenged
        self.uno_called = [False] * players
        self._recount_after = False
        self.any_known = False  # some `known` row is set: a play must then take its cards out of them
        self.color: Color | None = None  # the colour in force, as the events told it
        self._before_wild_draw_four: tuple[Color | None, Card | None] = (None, None)

    def copy(self) -> PublicHistory:
        """An independent copy."""
        clone = PublicHistory(self.players, self.rule)
        clone.discard = bytearray(self.discard)
        clone.known = [[None if row is None else bytearray(row) for row in rows] for rows in self.known]
        clone.excluded = list(self.excluded)
        clone.lacks = [bytearray(row) for row in self.lacks]
        clone.verdicts = [list(pair) for pair in self.verdicts]
        clone.any_verdicts = self.any_verdicts
        clone.uno_called = list(self.uno_called)
        clone.any_known = self.any_known
        clone.color = self.color
        clone._before_wild_draw_four = self._before_wild_draw_four
        return clone

    def __reduce__(self) -> tuple[type[PublicHistory], tuple[int, WildDrawFourRule], _State]:
        """Pickled as its constructor's arguments and its state: the compiled build's native class has no
        `__dict__` for pickle's default to fill."""
        state = (
            self.discard,
            self.known,
            self.excluded,
            self.lacks,
            self.verdicts,
            self.any_verdicts,
            self.uno_called,
            self.any_known,
            self.color,
            self._before_wild_draw_four,
        )
        return PublicHistory, (self.players, self.rule), state

    def __setstate__(self, state: _State) -> None:
        (
            self.discard,
            self.known,
            self.excluded,
            self.lacks,
            self.verdicts,
            self.any_verdicts,
            self.uno_called,
            self.any_known,
            self.color,
            self._before_wild_draw_four,
        ) = state

    def knowledge(self, seat: int) -> Knowledge:
        """What `seat` knows of the cards it cannot see, for `unonet.engine.determinize`: the cards it
        knows are in each other hand, and the cards a fair Wild Draw Four rules out."""
        # Indexed loops, not `enumerate` over the byte rows: mypyc 2.4 cannot compile that (an internal error).
        known = tuple(
            () if s == seat or row is None else tuple(CARDS[i] for i in range(len(row)) for _ in range(row[i]))
            for s, row in enumerate(self.known[seat])
        )
        excluded = tuple(
            frozenset() if s == seat or ban is None else frozenset(CARDS[i] for i in range(len(ban)) if ban[i])
            for s, ban in enumerate(self.excluded)
        )
        return Knowledge(seat, known=known, excluded=excluded)

    def follow(self, events: Sequence[Event], game: Game) -> None:
        """Take in the events one call of the engine returned (`game` is the round after them).

        The handlers are called by name, the commonest first, after one set lookup skips the events no
        handler reads (turns starting, windows opening and closing): direct calls in the compiled build.
        """
        self._recount_after = False
        for event in events:
            kind = type(event)
            if kind not in _FOLLOWED:
                continue
            if kind is Played:
                self._played(cast(Played, event), game)
            elif kind is Drew:
                self._drew(cast(Drew, event))
            elif kind is ColorChosen:
                self.color = cast(ColorChosen, event).color
            elif kind is UnoCalled:
                self.uno_called[cast(UnoCalled, event).seat] = True
            elif kind is FirstCardTurned:
                self._first_card(cast(FirstCardTurned, event))
            elif kind is FirstCardReturned or kind is Reshuffled:
                self._recount_after = True
            elif kind is RoundStarted:
                self._round_started()
            elif kind is CardTakenBack:
                self._taken_back(cast(CardTakenBack, event))
            elif kind is HandRevealed:
                self._revealed(cast(HandRevealed, event))
            elif kind is Challenged:
                self._challenged(cast(Challenged, event))
            elif kind is HandsRotated:
                self._rotated(cast(HandsRotated, event), game)
            elif kind is HandsSwapped:
                self._swapped(cast(HandsSwapped, event), game)
            elif kind is SwapOffered:
                self._swap_offered(cast(SwapOffered, event))
            elif kind is CardsExchanged:
                self._exchanged(cast(CardsExchanged, event))
        if self._recount_after:  # the pile was rebuilt or taken from: count it as it lies after the batch
            self.discard = _counts(game.discard)

    # ---------------------------------------------------------------------------------- handlers

    def _round_started(self) -> None:
        n = self.players
        self.discard = bytearray(len(CARDS))
        self.known = [[None] * n for _ in range(n)]
        self.excluded = [None] * n
        self.lacks = [bytearray(4) for _ in range(n)]
        self.uno_called = [False] * n
        self.any_known = False
        self.color = None

    def _first_card(self, event: FirstCardTurned) -> None:
        self.discard[event.card.index] += 1
        self.color = None if event.card.is_black else event.card.color

    def _played(self, event: Played, game: Game) -> None:
        seat, cards = event.seat, event.cards
        last = cards[-1]
        if last.rank is _WILD_DRAW_FOUR:
            below = len(game.discard) - len(cards) - 1
            self._before_wild_draw_four = (self.color, game.discard[below] if below >= 0 else None)
        discard, lacks = self.discard, self.lacks[seat]
        for card in cards:
            discard[card.index] += 1
            slot = color_slot(card.color)
            if slot != _NO_SLOT:
                lacks[slot] = 0
        if self.any_known:
            for rows in self.known:
                row = rows[seat]
                if row is not None:
                    for card in cards:
                        if row[card.index]:
                            row[card.index] -= 1
        if not last.is_black:
            self.color = last.color
        elif last.rank is _SOUND_WILD:
            self.color = None

    def _drew(self, event: Drew) -> None:
        if not event.count:
            return
        seat = event.seat
        self.uno_called[seat] = False
        self.excluded[seat] = None  # it holds cards it did not have when the exclusion was learnt
        if event.reason is _TURN and self.color is not None:
            self.lacks[seat][color_slot(self.color)] = 1

    def _taken_back(self, event: CardTakenBack) -> None:
        seat = event.seat
        for viewer in range(self.players):  # everyone saw it go back (B3)
            if viewer != seat:
                row = self.known[viewer][seat]
                if row is None:
                    row = self.known[viewer][seat] = bytearray(len(CARDS))
                row[event.card.index] += 1
        self.any_known = True
        self.color = event.color
        self._recount_after = True

    def _revealed(self, event: HandRevealed) -> None:
        self.known[event.to_seat][event.seat] = _counts(event.cards)
        self.any_known = True

    def _challenged(self, event: Challenged) -> None:
        self.verdicts[event.accused][0 if event.guilty else 1] += 1
        self.any_verdicts = True
        color, under = self._before_wild_draw_four
        if event.guilty or under is None:
            return
        rule = self.rule
        self.excluded[event.accused] = bytes(
            0 if is_wild_draw_four_fair([card], color, under, rule) else 1 for card in CARDS
        )

    def _rotated(self, event: HandsRotated, game: Game) -> None:
        seats = game.seats()
        step = event.direction
        n = self.players
        moved = {seat: seats[(i + step) % len(seats)] for i, seat in enumerate(seats)}
        known: list[list[bytearray | None]] = [[None] * n for _ in range(n)]
        excluded: list[bytes | None] = [None] * n
        for seat, receiver in moved.items():
            excluded[receiver] = self.excluded[seat]
            for viewer in range(n):
                known[viewer][receiver] = self.known[viewer][seat]
        for seat, receiver in moved.items():  # each seat knows the hand it passed on
            known[seat][receiver] = _counts(game.hands[receiver])
        for seat in range(n):
            known[seat][seat] = None
        self.known, self.excluded = known, excluded
        self.lacks = [bytearray(4) for _ in range(n)]
        self.uno_called = [False] * n
        self.any_known = True

    def _swapped(self, event: HandsSwapped, game: Game) -> None:
        seat, target = event.seat, event.target
        for rows in self.known:
            rows[seat], rows[target] = rows[target], rows[seat]
        self.excluded[seat], self.excluded[target] = self.excluded[target], self.excluded[seat]
        for viewer, other in ((seat, target), (target, seat)):
            self.known[viewer][other] = _counts(game.hands[other])
            self.known[viewer][viewer] = None
        self.lacks = [bytearray(4) for _ in range(self.players)]
        self.uno_called[seat] = self.uno_called[target] = False
        self.any_known = True

    def _swap_offered(self, event: SwapOffered) -> None:
        giver, card = event.seat, event.card
        for viewer in range(self.players):
            row = self.known[viewer][giver]
            if row is None:
                continue
            if viewer == event.target and card is not None:
                if row[card.index]:
                    row[card.index] -= 1
            elif viewer != giver:
                self.known[viewer][giver] = None  # a card it did not see left that hand

    def _exchanged(self, event: CardsExchanged) -> None:
        giver, target = event.seat, event.target
        self.uno_called[giver] = self.uno_called[target] = False
        self.excluded[giver] = self.excluded[target] = None  # each took a card it did not have
        for viewer in range(self.players):
            if viewer not in (giver, target):
                self.known[viewer][target] = None  # a card it did not see left that hand
        given, received = event.given, event.received
        if given is not None and received is not None:  # the engine's own event shows both: the two saw them
            row = self.known[giver][target]
            if row is None:
                row = self.known[giver][target] = bytearray(len(CARDS))
            row[given.index] += 1
            if row[received.index]:
                row[received.index] -= 1
            back = self.known[target][giver]
            if back is None:
                back = self.known[target][giver] = bytearray(len(CARDS))
            back[received.index] += 1
        self.any_known = True
