"""Provably fair shuffles at one table: the commit-reveal round before each deal, and the committed piles
of a round with every card's commitment tracked from pile to hand to discard (docs/fairness.md).

Two pieces, both driven by `Table` and both rebuilt exactly by replaying the journal:

- `ShuffleRound` is the protocol before one deal. The host's secret seed and its own bots' values are
  drawn from `secrets` once and written into the journal entry that started the round (the journal is
  private to the host), so a replay derives the same deck. Player seats commit and reveal with their own
  journalled commands; a seat that has not acted when the phase's deadline passes contributes nothing.
- `RoundCards` is one dealt round. It owns the committed piles (deck 0 from the round seed, deck k for
  the k-th pile the engine shuffles later, through the `shuffle` hook it hands the engine) and mirrors
  where every card is, by commitment, from the engine's own events: the draw pile, each hand, the card
  held aside by a five swap, the discard pile and the hand a Wild Draw Four was played from. That mirror
  is the public record any client rebuilds from the public events; `convert` renders it into CardRefs.

This module knows engine cards and events (to follow them) and decides the fairness host events; their
protocol messages (bytes and numbers only) are built by `convert`, like every other event.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from unonet.engine import events as ev
from unonet.engine.cards import Card, Color, Rank
from unonet.fairness import (
    CardCode,
    ColorCode,
    CommittedDeck,
    RankCode,
    combine_seed,
    commit_host_seed,
    derive_deck,
    verify_seat_entropy,
)
from unonet.host.errors import IllegalEntropy, MalformedEntropy
from unonet.v1 import actions_pb2, events_pb2
from unonet.wire import convert
from unonet.wire.refs import EventRefs, Ref, ViewRefs

SCHEME = "unonet/v1/fair-shuffle"
"""The scheme name ShuffleCommitted announces: docs/fairness.md sections 2 to 7, version 1."""

ENTROPY_BYTES = 32


def _code_table() -> dict[Card, CardCode]:
    table: dict[Card, CardCode] = {}
    for color in Color:
        for rank in Rank:
            try:
                card = Card.of(color, rank)
            except ValueError:
                continue  # no such card (a coloured wild, a black 5)
            table[card] = CardCode(ColorCode[color.name], RankCode[rank.name])
    return table


_CODES = _code_table()
"""Every engine card's fairness encoding, one shared CardCode per card."""

_CARDS = {code: card for card, code in _CODES.items()}


def card_code(card: Card) -> CardCode:
    """The fairness encoding of an engine card (docs/fairness.md section 3: enum member names match)."""
    return _CODES[card]


class Hand:
    """One seat's committed cards in the order the seat got them, indexed by card.

    The index makes finding the committed copy of a played card cost the cards played, not the hand.
    The list and its index live in one object that moves as a whole when hands are swapped or rotated,
    and every change goes through `add` and `remove`, so they cannot drift apart.
    """

    __slots__ = ("_by_card", "refs")

    def __init__(self) -> None:
        self.refs: list[Ref] = []
        self._by_card: dict[Card, list[Ref]] = {}

    def add(self, ref: Ref) -> None:
        self.refs.append(ref)
        same = self._by_card.get(ref.card)
        if same is None:
            self._by_card[ref.card] = [ref]
        else:
            same.append(ref)

    def remove(self, ref: Ref) -> None:
        """Take out exactly `ref` (by identity: every committed card is one Ref). Raises MirrorError."""
        _remove_identical(self.refs, ref)
        same = self._by_card[ref.card]
        if same[0] is ref:  # the usual case: `find` hands out the earliest held first
            del same[0]
        else:
            _remove_identical(same, ref)
        if not same:
            del self._by_card[ref.card]

    def find(self, cards: Sequence[Card]) -> list[Ref] | None:
        """One distinct ref per card, each the earliest held of its card that is not taken yet (what a
        scan of the hand in order picks); None if the hand does not hold them all."""
        if len(cards) == 1:
            same = self._by_card.get(cards[0])
            return [same[0]] if same else None
        chosen: list[Ref] = []
        taken: dict[Card, int] = {}
        for card in cards:
            same = self._by_card.get(card)
            n = taken.get(card, 0)
            if same is None or n >= len(same):
                return None
            chosen.append(same[n])
            taken[card] = n + 1
        return chosen


_NO_HAND = Hand()
"""What `_find` searches for a seat the round has no hand for (never changed)."""


def _remove_identical(refs: list[Ref], ref: Ref) -> None:
    for i, held in enumerate(refs):
        if held is ref:
            del refs[i]
            return
    raise MirrorError(f"the mirror has no committed {ref.card} to take out there")


@dataclass
class Pile:
    """A committed pile of the round, and the commitments of the cards that were shuffled into it."""

    deck: CommittedDeck
    refs: tuple[Ref, ...]
    purpose: str
    sources: tuple[bytes, ...] = ()


# ------------------------------------------------------------------------------------ before the deal


@dataclass
class ShuffleRound:
    """The commit-reveal protocol before one deal (docs/fairness.md section 7, steps 1 to 4)."""

    table_id: str
    round_no: int
    host_seed: bytes
    asked: list[int]
    bot_values: dict[int, bytes]
    reaction_ns: int
    commitments: dict[int, bytes] = field(default_factory=dict)
    values: dict[int, bytes] = field(default_factory=dict)
    phase: str = "commit"
    deadline_ns: int | None = None

    @classmethod
    def begin(
        cls,
        private: dict[str, Any],
        *,
        table_id: str,
        round_no: int,
        bots: Sequence[int],
        players: Sequence[int],
        reaction_ns: int,
        now: int,
    ) -> tuple[ShuffleRound, list[events_pb2.Event]]:
        """Start the round's protocol. `private` is the journal entry's private part: the seed and the
        bots' values are drawn into it the first time and read back from it on replay."""
        if "seed" not in private:
            private["seed"] = secrets.token_bytes(ENTROPY_BYTES).hex()
            private["bots"] = {str(seat): secrets.token_bytes(ENTROPY_BYTES).hex() for seat in bots}
            private["asked"] = sorted(players)
        bot_values = {int(seat): bytes.fromhex(value) for seat, value in private["bots"].items()}
        shuffle = cls(
            table_id, round_no, bytes.fromhex(private["seed"]), list(private["asked"]), bot_values, reaction_ns
        )
        entropy_seats = sorted([*bot_values, *shuffle.asked])
        events = [convert.shuffle_committed(
            round_no, commit_host_seed(shuffle.host_seed, table_id=table_id, round_no=round_no), SCHEME,
            entropy_seats)]
        from unonet.fairness import commit_seat_entropy

        for seat, value in sorted(bot_values.items()):
            commitment = commit_seat_entropy(seat, value, table_id=table_id, round_no=round_no)
            shuffle.commitments[seat] = commitment
            events.append(_committed(seat, commitment))
        shuffle._arm(now)
        return shuffle, events

    # ------------------------------------------------------------------------------ seat commands

    def check_commit(self, seat: int, commitment: bytes) -> None:
        """Raises ShuffleRefused unless `seat` may commit `commitment` now: a malformed commitment first
        (`check_commitment_form`), whatever the phase. A seat that committed to this shuffle is told so
        (ALREADY_COMMITTED) also once the reveals began: that is why it may not."""
        check_commitment_form(commitment)
        if seat in self.asked and seat in self.commitments:
            raise IllegalEntropy(f"seat {seat} has already committed", reason="ALREADY_COMMITTED")
        if self.phase != "commit" or seat not in self.asked:
            raise IllegalEntropy(f"seat {seat} has no shuffle contribution to commit now", reason="NO_SHUFFLE_PENDING")

    def commit(self, seat: int, commitment: bytes, now: int) -> list[events_pb2.Event]:
        self.check_commit(seat, commitment)
        self.commitments[seat] = commitment
        return [_committed(seat, commitment), *self._progress(now)]

    def check_reveal(self, seat: int, value: bytes) -> None:
        """Raises ShuffleRefused unless `value` opens `seat`'s commitment and the seat may reveal now."""
        if self.phase != "reveal" or seat not in self.asked or seat not in self.commitments:
            raise IllegalEntropy(f"seat {seat} has no shuffle contribution to reveal now", reason="NO_SHUFFLE_PENDING")
        if seat in self.values:
            raise IllegalEntropy(f"seat {seat} has already revealed", reason="ALREADY_REVEALED")
        if not verify_seat_entropy(
            self.commitments[seat], seat, value, table_id=self.table_id, round_no=self.round_no
        ):
            raise MalformedEntropy(
                f"that value does not open seat {seat}'s commitment for round {self.round_no}", reason="INVALID_FIELD"
            )

    def reveal(self, seat: int, value: bytes, now: int) -> list[events_pb2.Event]:
        self.check_reveal(seat, value)
        self.values[seat] = value
        return [_revealed(seat, value), *self._progress(now)]

    def timeout(self, phase: str, now: int) -> list[events_pb2.Event]:
        """The phase's deadline passed: the seats that did not act contribute nothing to this deal."""
        if phase != self.phase:
            return []
        if phase == "commit":
            self.asked = [seat for seat in self.asked if seat in self.commitments]
        else:
            self.asked = [seat for seat in self.asked if seat in self.values]
        return self._progress(now)

    def start(self, now: int) -> list[events_pb2.Event]:
        """Events due at once after `begin` (bots only: every value is in already)."""
        return self._progress(now)

    # ------------------------------------------------------------------------------------ state

    @property
    def is_ready(self) -> bool:
        """Every seat still asked has revealed: the deck can be derived."""
        return self.phase == "done"

    def waiting_for(self) -> list[int]:
        """The player seats the current phase still waits for."""
        if self.phase == "commit":
            return [seat for seat in self.asked if seat not in self.commitments]
        if self.phase == "reveal":
            return [seat for seat in self.asked if seat not in self.values]
        return []

    def contributions(self) -> dict[int, bytes]:
        """The values that go into the round seed: every bot's, and every player's that was revealed."""
        return {**self.bot_values, **{seat: self.values[seat] for seat in self.asked if seat in self.values}}

    def round_seed(self) -> bytes:
        return combine_seed(self.host_seed, self.contributions())

    def legal_actions(self, seats: int) -> dict[int, actions_pb2.LegalActions]:
        """Each seat's legal actions now: commit or reveal for the seats waited for, else wait."""
        return convert.shuffle_legal_actions(seats, self.waiting_for(), revealing=self.phase == "reveal",
                                             deadline_ns=self.deadline_ns)

    def _progress(self, now: int) -> list[events_pb2.Event]:
        events: list[events_pb2.Event] = []
        if self.phase == "commit" and not self.waiting_for():
            self.phase = "reveal"
            for seat, value in sorted(self.bot_values.items()):
                events.append(_revealed(seat, value))
            self._arm(now)
        if self.phase == "reveal" and not self.waiting_for():
            self.phase = "done"
            self.deadline_ns = None
        return events

    def _arm(self, now: int) -> None:
        self.deadline_ns = now + self.reaction_ns if self.waiting_for() else None


def check_commitment_form(commitment: bytes) -> None:
    """Raises MalformedEntropy (INVALID_FIELD) for a commitment that is not 32 bytes: a request's own
    form is checked before the table's state, so this wins over NO_SHUFFLE_PENDING (docs/protocol.md,
    "Which refusal comes first")."""
    if len(commitment) != ENTROPY_BYTES:
        raise MalformedEntropy(f"a commitment is {ENTROPY_BYTES} bytes, not {len(commitment)}", reason="INVALID_FIELD")


def _committed(seat: int, commitment: bytes) -> events_pb2.Event:
    return convert.seat_entropy_committed(seat, commitment)


def _revealed(seat: int, value: bytes) -> events_pb2.Event:
    return convert.seat_entropy_revealed(seat, value)


def deck_committed(pile: Pile, round_no: int, contributing: Sequence[int] = ()) -> events_pb2.Event:
    """The DeckCommitted event announcing `pile` before any card of it is used."""
    return convert.deck_committed(
        round_no, merkle_root=pile.deck.root, deck_size=len(pile.deck.cards), card_commitments=pile.deck.commitments,
        deck_no=pile.deck.deck_no, contributing_seats=sorted(contributing), source_commitments=pile.sources)


# ------------------------------------------------------------------------------------ during the round


_Out = tuple[EventRefs | None, list[events_pb2.Event]]
"""What following one event gives: its committed cards, and the fairness events that follow it."""


_HANDLERS: dict[type[ev.Event], Callable[[RoundCards, Any, int], _Out] | None] = {}
"""`RoundCards._on_<event type>` per event type (None: the event moves no committed card), found once."""


class MirrorError(RuntimeError):
    """The commitment mirror disagrees with the engine: a bug in this module, never a player's doing."""


class RoundCards:
    """One dealt round's committed piles and where each committed card is now (the public record)."""

    def __init__(
        self, table_id: str, round_no: int, round_seed: bytes, host_seed: bytes, contents: Sequence[Card],
        *, window_cards: bool = True,
    ) -> None:
        """`window_cards`: follow each open window's card (the card on top of the discard pile when it
        opened), so its ReactionWindowOpened and the views show its commitment; off for a table whose
        events did not (table.EVENT_FORMAT 1)."""
        self.table_id = table_id
        self.round_no = round_no
        self.round_seed = round_seed
        self.host_seed = host_seed
        self.piles: list[Pile] = []
        self._pending: list[Pile] = []
        self.draw: list[Ref] = []  # the top of the pile is the end of the list, as in the engine
        self.hands: dict[int, Hand] = {}
        self.discard: list[Ref] = []
        self.aside: Ref | None = None
        self.swap_seats: tuple[int, int] | None = None  # the giver and the target of the card held aside
        self.bluff: tuple[int, tuple[Ref, ...], int] | None = None
        self.deal_order: list[int] = []
        self.is_over = False
        self._window_cards: dict[int, Ref] | None = {} if window_cards else None
        first = self._derive(list(contents), "deal")
        self.piles.append(first)
        self.draw = list(reversed(first.refs))

    @property
    def deal_cards(self) -> list[Card]:
        """The deck to deal, first card dealt first (`Match.deal`)."""
        return [ref.card for ref in self.piles[0].refs]

    def shuffle(self, cards: list[Card], purpose: str) -> None:
        """The engine's shuffle hook: every later pile becomes a new committed pile of the round."""
        pile = self._derive(cards, purpose)
        self._pending.append(pile)
        cards[:] = [ref.card for ref in reversed(pile.refs)]

    def _derive(self, cards: list[Card], purpose: str) -> Pile:
        deck_no = len(self.piles) + len(self._pending)
        codes = [_CODES[card] for card in cards]
        deck = derive_deck(self.table_id, self.round_no, codes, self.round_seed, deck_no=deck_no)
        size = len(deck.cards)  # the deck's cards, commitments and salts, position by position
        faces = map(_CARDS.__getitem__, deck.cards)
        refs = tuple(map(Ref, faces, deck.commitments, deck.salts, repeat(deck_no, size), range(size)))
        return Pile(deck, refs, purpose)

    # ------------------------------------------------------------------------------ following events

    def on_event(self, event: ev.Event, number: int) -> tuple[EventRefs | None, list[events_pb2.Event]]:
        """The committed cards of `event` (numbered `number`), and the fairness events that follow it."""
        kind = type(event)
        try:
            handler = _HANDLERS[kind]
        except KeyError:
            handler = _HANDLERS[kind] = getattr(RoundCards, f"_on_{kind.__name__}", None)
        if handler is None:
            return None, []
        result: _Out = handler(self, event, number)
        return result

    def _on_RoundStarted(self, event: ev.RoundStarted, number: int) -> _Out:  # noqa: N802
        self.deal_order = list(event.seats)
        self.hands = {seat: Hand() for seat in event.seats}
        return None, []

    def _on_Dealt(self, event: ev.Dealt, number: int) -> _Out:  # noqa: N802
        # S3: one card at a time from the dealer's left, dealt once
        if not any(hand.refs for hand in self.hands.values()):
            for _ in range(event.count):
                for seat in self.deal_order:
                    self.hands[seat].add(self._pop_draw())
        refs = tuple(self.hands[event.seat].refs)
        self._check(refs, event.cards, event)
        return EventRefs((refs,)), []

    def _on_FirstCardTurned(self, event: ev.FirstCardTurned, number: int) -> _Out:  # noqa: N802
        ref = self._pop_draw()
        self._check((ref,), (event.card,), event)
        self.discard.append(ref)
        return EventRefs(((ref,),)), []

    def _on_FirstCardReturned(self, event: ev.FirstCardReturned, number: int) -> _Out:  # noqa: N802
        ref = self._pop_draw()
        self._check((ref,), (event.card,), event)
        pile = self._next_pile("first_card_returned", [*self.draw, ref])
        self.draw = list(reversed(pile.refs))
        return EventRefs(((ref,),)), [deck_committed(pile, self.round_no)]

    def _on_Reshuffled(self, event: ev.Reshuffled, number: int) -> _Out:  # noqa: N802
        sources = self.discard[: event.count]
        del self.discard[: event.count]
        pile = self._next_pile("rebuild", sources)
        self.draw[:0] = list(reversed(pile.refs))  # T5: under whatever is still to be drawn from the old pile
        return None, [deck_committed(pile, self.round_no)]

    def _on_Played(self, event: ev.Played, number: int) -> _Out:  # noqa: N802
        hand = self.hands[event.seat]
        refs = self._find(event.seat, event.cards)
        if event.cards[0].rank is Rank.WILD_DRAW_FOUR:  # B2: the hand it was played from, less itself
            rest = [ref for ref in hand.refs if ref is not refs[0]]
            self.bluff = (event.seat, tuple(rest), number)
        for ref in refs:
            hand.remove(ref)
        self.discard.extend(refs)
        return EventRefs((refs,)), []

    def _on_Drew(self, event: ev.Drew, number: int) -> _Out:  # noqa: N802
        refs = tuple(self._pop_draw() for _ in range(event.count))
        self._check(refs, event.cards, event)
        hand = self.hands.get(event.seat)
        if hand is None:
            hand = self.hands[event.seat] = Hand()
        for ref in refs:
            hand.add(ref)
        return EventRefs((refs,)), []

    def _on_CardTakenBack(self, event: ev.CardTakenBack, number: int) -> _Out:  # noqa: N802
        ref = self.discard.pop()
        self._check((ref,), (event.card,), event)
        self.hands[event.seat].add(ref)
        return EventRefs(((ref,), (self.discard[-1],) if self.discard else ())), []

    def _on_HandsRotated(self, event: ev.HandsRotated, number: int) -> _Out:  # noqa: N802
        seats = sorted(self.hands)
        old = [self.hands[seat] for seat in seats]
        for i, hand in enumerate(old):
            self.hands[seats[(i + event.direction) % len(seats)]] = hand
        groups = self._hand_groups(len(event.hands))
        for seat, group in enumerate(groups):
            self._check(group, event.hands[seat], event)
        return EventRefs(groups), []

    def _on_HandsSwapped(self, event: ev.HandsSwapped, number: int) -> _Out:  # noqa: N802
        self.hands[event.seat], self.hands[event.target] = self.hands[event.target], self.hands[event.seat]
        mine, theirs = tuple(self.hands[event.seat].refs), tuple(self.hands[event.target].refs)
        self._check(mine, event.seat_hand, event)
        self._check(theirs, event.target_hand, event)
        return EventRefs((mine, theirs)), []

    def _on_SwapOffered(self, event: ev.SwapOffered, number: int) -> _Out:  # noqa: N802
        assert event.card is not None
        (ref,) = self._find(event.seat, (event.card,))
        self.hands[event.seat].remove(ref)
        self.aside, self.swap_seats = ref, (event.seat, event.target)
        return EventRefs(((ref,),)), []

    def _on_CardsExchanged(self, event: ev.CardsExchanged, number: int) -> _Out:  # noqa: N802
        given, received = self.aside, None
        assert given is not None and event.received is not None
        (received,) = self._find(event.target, (event.received,))
        self.hands[event.target].remove(received)
        self.hands[event.target].add(given)
        self.hands[event.seat].add(received)
        self.aside = self.swap_seats = None
        return EventRefs(((given,), (received,))), []

    def _on_PlayerEliminated(self, event: ev.PlayerEliminated, number: int) -> _Out:  # noqa: N802
        """A forfeit mid-round (`Game.forfeit`): the whole hand goes under the draw pile in the engine's
        order, and a five swap the seat was part of is cut short (H11): the card held aside goes back to
        its giver, or onto the draw pile if the giver is the one who left. Out between rounds: nothing moves."""
        if self.is_over or event.seat not in self.hands:
            if event.returned:
                raise MirrorError(f"seat {event.seat} returned cards to a pile the mirror has no hand for")
            return None, []
        hand = self.hands[event.seat]
        found = hand.find(event.returned) if event.returned else []
        if found is None or len(found) != len(hand.refs):
            raise MirrorError(f"seat {event.seat} put other cards under the pile than the mirror has it hold")
        del self.hands[event.seat]
        self.draw[:0] = found  # the bottom of the pile first, as the engine puts the hand there
        if self.aside is not None and self.swap_seats is not None and event.seat in self.swap_seats:
            giver = self.swap_seats[0]
            if giver == event.seat:
                self.draw.append(self.aside)
            else:
                self.hands[giver].add(self.aside)
            self.aside = self.swap_seats = None
        return EventRefs((tuple(reversed(found)),)), []

    def _on_WrongJumpIn(self, event: ev.WrongJumpIn, number: int) -> _Out:  # noqa: N802
        return EventRefs((self._find(event.seat, (event.card,)),)), []

    def _on_IllegalPlay(self, event: ev.IllegalPlay, number: int) -> _Out:  # noqa: N802
        return EventRefs((self._find(event.seat, (event.card,)),)), []

    def _on_HandRevealed(self, event: ev.HandRevealed, number: int) -> _Out:  # noqa: N802
        if self.bluff is None or self.bluff[0] != event.seat:
            raise MirrorError(f"no Wild Draw Four of seat {event.seat} to reveal the hand of")
        _, refs, played = self.bluff
        self._check(refs, event.cards, event)
        return EventRefs((refs,), played_event=played), []

    def _on_WindowOpened(self, event: ev.WindowOpened, number: int) -> _Out:  # noqa: N802
        """A window about a card (a jump-in, a skip escape, a run cut, a Sound Wild) opens when that card
        lands: it is the top of the discard pile."""
        window, followed = event.window, self._window_cards
        if followed is None or window.card is None:
            return None, []
        if not self.discard or self.discard[-1].card is not window.card:
            raise MirrorError(f"window {window.id} is about a {window.card} that is not on the discard pile")
        ref = followed[window.id] = self.discard[-1]
        return EventRefs(((ref,),)), []

    def _on_WindowClosed(self, event: ev.WindowClosed, number: int) -> _Out:  # noqa: N802
        if self._window_cards is not None:
            self._window_cards.pop(event.window, None)
        return None, []

    def window_card(self, window_id: int) -> Ref | None:
        """The committed card an open window is about, if it has one (and the table follows them)."""
        return None if self._window_cards is None else self._window_cards.get(window_id)

    def view_refs(self, seat: int | None, hand: Sequence[Card], top: Card | None,
                  windows: Sequence[ev.Window]) -> ViewRefs:
        """The committed cards of a seat's view (None: a spectator's): `hand` (the view's order) and
        `top` as the engine shows them, the card held aside, and the open `windows`' cards."""
        held = self.hands.get(seat, _NO_HAND).find(hand) if seat is not None and hand else None
        top_ref = self.discard[-1] if self.discard and top is not None and self.discard[-1].card is top else None
        cards = {window.id: ref for window in windows if (ref := self.window_card(window.id)) is not None}
        return ViewRefs(tuple(held or ()), top_ref, self.aside, cards)

    def _on_RoundEnded(self, event: ev.RoundEnded, number: int) -> _Out:  # noqa: N802
        groups = self._hand_groups(len(event.hands))
        for seat, group in enumerate(groups):
            self._check(group, event.hands[seat], event)
        self.is_over = True
        revealed = convert.shuffle_revealed(self.round_no, self.host_seed)
        return EventRefs(groups), [revealed]

    def _on_MatchEnded(self, event: ev.MatchEnded, number: int) -> _Out:  # noqa: N802
        """A forfeit that leaves one seat in the match ends it mid-round, with no RoundEnded (the round is
        not scored): the seed is revealed after the MatchEnded instead, so the round can still be audited."""
        if self.is_over:
            return None, []
        self.is_over = True
        return None, [convert.shuffle_revealed(self.round_no, self.host_seed)]

    # ------------------------------------------------------------------------------------ helpers

    def _pop_draw(self) -> Ref:
        if not self.draw:
            raise MirrorError("the engine drew from a pile the mirror has as empty")
        return self.draw.pop()

    def _next_pile(self, purpose: str, sources: Sequence[Ref]) -> Pile:
        if not self._pending or self._pending[0].purpose != purpose:
            raise MirrorError(f"no {purpose} shuffle was made for this event")
        pile = self._pending.pop(0)
        pile.sources = tuple(ref.commitment for ref in sources)
        if Counter(ref.card for ref in sources) != Counter(ref.card for ref in pile.refs):
            raise MirrorError(f"the {purpose} pile holds other cards than the ones shuffled into it")
        self.piles.append(pile)
        return pile

    def _find(self, seat: int, cards: Sequence[Card]) -> tuple[Ref, ...]:
        """One distinct committed card of `seat`'s hand per card (identical cards are interchangeable:
        the earliest held is taken, as the public record has always done). Raises MirrorError."""
        hand = self.hands.get(seat, _NO_HAND)
        chosen = hand.find(cards)
        if chosen is not None:
            return tuple(chosen)
        held = Counter(ref.card for ref in hand.refs)
        missing = cards[0]
        for card in cards:  # name the first card a scan of the hand in order would have missed
            held[card] -= 1
            if held[card] < 0:
                missing = card
                break
        raise MirrorError(f"seat {seat} holds no committed {missing}")

    def _hand_groups(self, seats: int) -> tuple[tuple[Ref, ...], ...]:
        """Every seat's committed hand, seat 0 first (empty for a seat the round has no hand for)."""
        return tuple(tuple(self.hands[seat].refs) if seat in self.hands else () for seat in range(seats))

    @staticmethod
    def _check(refs: Sequence[Ref], cards: Sequence[Card], event: ev.Event) -> None:
        if len(refs) == 1 == len(cards):
            if refs[0].card is not cards[0]:  # cards are interned: identity is equality
                raise MirrorError(f"the commitment mirror disagrees with the engine at {type(event).__name__}")
        elif sorted(id(ref.card) for ref in refs) != sorted(map(id, cards)):  # interned, as above
            raise MirrorError(f"the commitment mirror disagrees with the engine at {type(event).__name__}")
