"""`Belief`: what one seat believes about the cards it cannot see, and deals that follow it.

The hard facts come from `unonet.wire.knowledge.SeatTracker` (what was played, revealed by a challenge,
passed on in a swap or a rotation, and what a Wild Draw Four ruled fair says its player did not hold),
and `unonet.engine.search.determinize` deals every unseen card consistently with them. On top of that a
belief keeps what the events suggest without proving it: a seat that drew on its own turn (T3 lets it
draw by choice, so this is no certainty) most likely held nothing it could play then, so it most likely
holds none of those cards still, apart from the cards it has taken since. `sample` deals by the hard
facts, then moves such improbable cards back into the draw pile, each with probability `trust`: a
player who holds back a playable card on purpose is rare, so the deals a search plays out look like the
hands the table has actually shown.

The same holds for a Wild Draw Four waiting to be answered: most players do not bluff, so a deal where
the accused held a card the rule forbade (B2) is made fair, by moving those cards into the draw pile,
unless a draw with the accused's bluff rate says it bluffed. That rate counts the accused's challenged
Wild Draw Fours from a prior of `BLUFF_PRIOR` worth `BLUFF_PRIOR_WEIGHT` challenges (Laplace's rule,
greedy's own): without it a deal of random hands finds most Wild Draw Fours unfair, and a search would
challenge them all; with a prior of honesty (0.1 over 4) it never challenged a random player's
frequent bluffs and lost to random more often (68.8% of 160 heads-up rounds at 24 playouts, 71.9%
with this prior), while against greedy, who never bluffs, it gained nothing measurable (50.1% over
1,000 duplicated deals). Each seat's rate then falls as its challenged Wild Draw Fours prove fair.

Why soft and not hard: a draw by choice is legal (T3), people and bots sandbag or bluff, and a hard
exclusion that is wrong would make some true positions impossible to deal at all.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from unonet.engine import Card, Game, Knowledge, determinize, standard_deck
from unonet.engine.rules import is_wild_draw_four_fair, matches
from unonet.v1 import events_pb2, views_pb2
from unonet.wire.knowledge import SeatTracker

__all__ = ["BLUFF_PRIOR", "BLUFF_PRIOR_WEIGHT", "DEFAULT_TRUST", "Belief", "pinned_cards"]

#: How often a card a seat most likely does not hold is moved out of its hand in a deal.
DEFAULT_TRUST = 0.85
#: The bluff rate of a seat never challenged, and how many challenges that prior counts as.
BLUFF_PRIOR = 0.5
BLUFF_PRIOR_WEIGHT = 2
_ALL_CARDS = tuple(dict.fromkeys(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)))


class Belief:
    """One seat's belief about the unseen cards, following that seat's events (`observe`).

    Attributes:
        tracker: the hard facts and the position the seat knows (`SeatTracker`).
        unlikely: per other seat, the cards it most likely does not hold (it could have played them
            when it drew on its turn instead).
        fresh: per seat in `unlikely`, how many cards it has taken since: that many of its cards may be
            unlikely ones after all.
    """

    def __init__(self, seat: int, *, trust: float = DEFAULT_TRUST) -> None:
        if not 0.0 <= trust <= 1.0:
            raise ValueError(f"trust {trust!r} is not a probability")
        self.seat = seat
        self.trust = trust
        self.tracker = SeatTracker(seat)
        self.unlikely: dict[int, frozenset[Card]] = {}
        self.fresh: dict[int, int] = {}
        self.guilty: dict[int, int] = {}
        self.challenged: dict[int, int] = {}

    def observe(self, event: events_pb2.Event) -> None:
        """Follow one event the seat received (every one, in order)."""
        kind = event.WhichOneof("payload")
        if kind == "cards_drawn":
            self._drawn(event.cards_drawn)
        elif kind == "challenge_resolved":
            accused = event.challenge_resolved.accused_seat
            self.challenged[accused] = self.challenged.get(accused, 0) + 1
            self.guilty[accused] = self.guilty.get(accused, 0) + event.challenge_resolved.guilty
        elif kind in ("round_started", "hands_rotated", "hands_swapped", "cards_exchanged", "player_eliminated"):
            # Hands changed owners (or a new round began): what was suggested about a hand is about
            # cards that may now be elsewhere, so it is dropped rather than guessed at.
            self.unlikely.clear()
            self.fresh.clear()
        self.tracker.observe(event)

    def _drawn(self, msg: events_pb2.CardsDrawn) -> None:
        seat = msg.seat
        if seat == self.seat:
            return
        tracker = self.tracker
        if msg.reason == events_pb2.DRAW_REASON_TURN and tracker.discard and tracker.color is not None:
            top, color = tracker.discard[-1], tracker.color
            self.unlikely[seat] = frozenset(card for card in _ALL_CARDS if matches(card, color, top))
            # The card drawn on the turn is not counted as fresh: had it been playable it would most
            # likely have been played, and once played it leaves the hand and the belief with it.
            self.fresh[seat] = 0
        elif seat in self.fresh:
            self.fresh[seat] += msg.count

    def bluff_rate(self, seat: int) -> float:
        """How often `seat` bluffs a Wild Draw Four, by its challenged ones from the prior."""
        return (self.guilty.get(seat, 0) + BLUFF_PRIOR * BLUFF_PRIOR_WEIGHT) / (
            self.challenged.get(seat, 0) + BLUFF_PRIOR_WEIGHT
        )

    def position(self, view: views_pb2.SeatView) -> tuple[Game, Knowledge]:
        """The position the seat knows and its hard knowledge (`SeatTracker.position`).

        Raises MalformedAction (BAD_POSITION) as `SeatTracker.position` does.
        """
        return self.tracker.position(view)

    def sample(self, game: Game, knowledge: Knowledge, rng: random.Random) -> Game:
        """A deal of the unseen cards by the hard facts (`determinize`), with each card a seat most
        likely does not hold (beyond the cards it has taken since) moved into the draw pile with
        probability `trust`, swapped for a draw-pile card that seat may hold, and the open Wild Draw
        Four's accused hand made fair but at the accused's bluff rate (the module docstring).

        Raises MalformedAction as `determinize` does.
        """
        clone = determinize(game, knowledge, rng)
        hands = [list(hand) for hand in clone.hands]
        pile = list(clone.draw_pile)
        changed = self._acquit(clone, hands, pile, knowledge, rng)
        if not self.unlikely or self.trust == 0.0:
            if changed:
                clone.redeal_unseen(hands, pile)
            return clone
        obligation = clone.obligation
        accused = obligation.bluff.accused if obligation is not None and obligation.bluff is not None else None
        for seat, unlikely in self.unlikely.items():
            if seat in (self.seat, accused) or seat >= len(hands) or not clone.in_play[seat]:
                continue  # an accused hand decides its challenge: `_acquit` alone deals it
            changed |= self._thin(seat, hands[seat], pile, unlikely, game, knowledge, rng)
        if changed:
            clone.redeal_unseen(hands, pile)
        return clone

    def _acquit(
        self, clone: Game, hands: list[list[Card]], pile: list[Card], knowledge: Knowledge, rng: random.Random
    ) -> bool:
        """Make the open Wild Draw Four's accused hand fair in `hands` (swapping the cards that make it a
        bluff for draw-pile cards that do not), unless a draw at the accused's bluff rate says it bluffed."""
        obligation = clone.obligation
        record = obligation.bluff if obligation is not None else None
        if record is None or record.is_fair or record.accused == self.seat or len(clone.discard) < 2:
            return False
        accused = record.accused
        if rng.random() < self.bluff_rate(accused):
            return False
        rule, under, color = clone.ruleset.wild_draw_four, clone.discard[-2], record.previous_color
        known = list(knowledge.known[accused]) if accused < len(knowledge.known) else []
        banned = knowledge.excluded[accused] if accused < len(knowledge.excluded) else frozenset()
        hand = hands[accused]
        changed = False
        for index in range(min(len(record.hand), len(hand))):
            card = hand[index]
            if is_wild_draw_four_fair((card,), color, under, rule) or _take(known, card):
                continue
            fair = [
                i for i, other in enumerate(pile)
                if other not in banned and is_wild_draw_four_fair((other,), color, under, rule)
            ]
            if not fair:
                break
            spot = fair[int(rng.random() * len(fair))]
            hand[index], pile[spot] = pile[spot], hand[index]
            changed = True
        return changed

    def _thin(
        self,
        seat: int,
        hand: list[Card],
        pile: list[Card],
        unlikely: frozenset[Card],
        game: Game,
        knowledge: Knowledge,
        rng: random.Random,
    ) -> bool:
        """Move `seat`'s unlikely cards, past its fresh ones, into `pile` (each with chance `trust`)."""
        pinned = pinned_cards(seat, game, knowledge)
        suspects = [i for i, card in enumerate(hand) if card in unlikely and not _take(pinned, card)]
        allowance = self.fresh.get(seat, 0)
        if len(suspects) <= allowance or not pile:
            return False
        rng.shuffle(suspects)
        banned = knowledge.excluded[seat] if seat < len(knowledge.excluded) else frozenset()
        changed = False
        for index in suspects[allowance:]:
            if rng.random() >= self.trust:
                continue
            spot = _replacement(pile, unlikely, banned, rng)
            if spot is None:
                break
            hand[index], pile[spot] = pile[spot], hand[index]
            changed = True
        return changed


def pinned_cards(seat: int, game: Game, knowledge: Knowledge) -> list[Card]:
    """The cards of `seat`'s hand that a deal must leave where they are: the known ones, its drawn card,
    and its cards in a run waiting to be cut."""
    pinned = list(knowledge.known[seat]) if seat < len(knowledge.known) else []
    if game.drawn is not None and game.current == seat:
        pinned.append(game.drawn)
    run = game.pending_run
    if run is not None and run[0] == seat:
        pinned += run[1]
    obligation = game.obligation
    if obligation is not None and obligation.bluff is not None and obligation.bluff.accused == seat:
        pinned += list(game.hands[seat])  # its hand then decides the challenge: never reshaped
    return pinned


def _take(pinned: list[Card], card: Card) -> bool:
    """Whether `card` is one of `pinned` (and count it off, so duplicates are matched once each)."""
    if card in pinned:
        pinned.remove(card)
        return True
    return False


def _replacement(pile: Sequence[Card], unlikely: frozenset[Card], banned: frozenset[Card],
                 rng: random.Random) -> int | None:
    """The index of a random draw-pile card that is neither unlikely nor banned, or None."""
    start = rng.randrange(len(pile))
    for offset in range(len(pile)):
        index = (start + offset) % len(pile)
        card = pile[index]
        if card not in unlikely and card not in banned:
            return index
    return None
