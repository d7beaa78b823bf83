"""A seat's knowledge, read back from the protocol: the engine position it knows, and what it knows of
the cards it cannot see, for a search bot to determinize (`unonet.engine.search.determinize`).

A networked bot holds protobuf views and events, not a `Game`. `SeatTracker` follows every event the
seat receives, as the host rendered them for it (its own cards shown, the others' hidden), and keeps
what a SeatView does not carry: the discard pile under the top card, the cards it knows are in other
hands, its own drawn card, the round's memories (penalty points, who loses a turn to a taken-back Wild
Draw Four, whether the first card is still on top, the window ids used so far). `position(view)` then
builds the `Game` that seat knows, with its own hand, the discards, every public fact of the view, the
known cards where they are, and the unseen cards placed arbitrarily (in card order: a placeholder for
`determinize` to deal again), and the `Knowledge` determinization needs.

What a seat learns of other hands, and so `Knowledge.known` (docs: `unonet.engine.search`):
- both hands of a 7-0 swap it made or was chosen for (H10), and its old hand, passed on by a rotation;
- the hand a Wild Draw Four challenge it made revealed (B2);
- both cards of a 5-swap it was part of (H11), and the Wild Draw Four a guilty player took back (B3);
- the card of a wrong jump-in (H7) or an illegal play (H15), which stays in its player's hand;
- and, as `Knowledge.excluded`, what a Wild Draw Four ruled fair says its player did not hold (every
  card that would have made it unfair, T2), until that hand takes cards the seat did not see.
Known cards leave a hand when it plays them, and follow the hand through swaps and rotations; when a
card the seat did not see leaves a hand (a 5-swap between two others), none of that hand's is known.
Another seat's card drawn on its turn, which it may still play (AFTER_DRAW), is unseen but must be
playable: the position puts a playable unseen card there, and `determinize` keeps it (it never redeals
a drawn card).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from unonet.engine import (
    BluffRecord,
    Card,
    Color,
    Game,
    Knowledge,
    MalformedAction,
    MidPlay,
    Obligation,
    Phase,
    Rank,
    Ruleset,
    WildDrawFourRule,
    standard_deck,
)
from unonet.engine.rules import is_wild_draw_four_fair, matches
from unonet.v1 import cards_pb2, events_pb2, rules_pb2, views_pb2
from unonet.wire import convert

__all__ = ["SeatTracker"]

_WILD_DRAW_FOUR = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)
_ALL_CARDS = tuple(dict.fromkeys(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)))


def _cards(refs: Iterable[cards_pb2.CardRef]) -> list[Card]:
    """The faces shown among `refs` (a hidden card has none)."""
    return [convert.card_from_pb(ref.card) for ref in refs if ref.HasField("card")]


def _bad(message: str) -> MalformedAction:
    return MalformedAction(message, reason="BAD_POSITION")


class SeatTracker:
    """Follows one seat's events through its rounds; `position(view)` reads the position it knows.

    Feed it every event the seat receives, in order (`observe`); it knows positions from the first
    `round_started` it sees on, and reads a view against the events up to its `event_number`.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.last_event_number = 0
        self.next_window_id = 1  # ids are unique within a table: they go on from round to round
        self.has_round = False  # True once the current round's events have been followed from its start
        self.rule: WildDrawFourRule | None = None  # T2's rule, from MatchStarted or the last view read
        self._ruleset_read: tuple[bytes, Ruleset] | None = None  # the last view's ruleset message, read
        self._new_round(())

    def _new_round(self, seats: Iterable[int]) -> None:
        self.in_play: set[int] = set(seats)
        self.hand: list[Card] = []  # this seat's hand, as the events tell it (the view is checked against it)
        self.discard: list[Card] = []  # bottom first; after a reshuffle only the top cards (the view says how many)
        self.known: dict[int, Counter[Card]] = {}  # cards known to be in other seats' hands
        self.excluded: dict[int, frozenset[Card]] = {}  # cards none of a seat's unknown cards can be
        self.under_wild_draw_four: Card | None = None  # the card the last Wild Draw Four landed on
        self.penalty_points: dict[int, int] = {}
        self.skip_next: set[int] = set()
        self.first_card_on_top = False
        self.color: Color | None = None
        self.color_before_wild_draw_four: Color | None = None
        self.wild_draw_four_hand = 0  # the hand size its player had left after the last Wild Draw Four
        self.took_since_wild_draw_four: set[int] = set()  # seats whose hands took cards since it was played
        self.last_player = 0  # who played the top card (a skip escape's opener)
        self.drawn: Card | None = None  # this seat's card drawn on its turn, while it may still play it
        self.sizes: dict[int, int] = {}  # hand sizes, as the plays and draws tell them
        self.went_out: int | None = None  # P1: the first seat out of cards while its last card's draw waits
        self.card_skips = 0  # TurnSkipped events still to come from the Skip (or 2-player Reverse) just played

    def _known(self, seat: int) -> Counter[Card]:
        return self.known.setdefault(seat, Counter())

    def _leaves(self, seat: int, cards: Iterable[Card]) -> None:
        """`cards` left `seat`'s hand (played, given, exchanged)."""
        for card in cards:
            if seat == self.seat:
                if card in self.hand:
                    self.hand.remove(card)
            elif self._known(seat)[card] > 0:
                self._known(seat)[card] -= 1

    # ------------------------------------------------------------------------------------- events

    def observe(self, event: events_pb2.Event) -> None:
        """Follow one event, as the host rendered it for this seat."""
        self.last_event_number = max(self.last_event_number, event.number)
        kind = event.WhichOneof("payload")
        if kind is None:
            return
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(getattr(event, str(kind)))

    def _on_snapshot(self, _msg: events_pb2.Snapshot) -> None:
        """A snapshot stands for events the stream skipped (a resumed stream too far behind): what they
        did to the discards and the hands is lost until the next round starts."""
        self.has_round = False

    def _on_match_started(self, msg: events_pb2.MatchStarted) -> None:
        self.rule = convert.ruleset_from_pb(msg.settings.ruleset.preset, msg.settings.ruleset).wild_draw_four

    def _on_round_started(self, msg: events_pb2.RoundStarted) -> None:
        self._new_round(msg.seats_in_play)
        self.has_round = True

    def _on_cards_dealt(self, msg: events_pb2.CardsDealt) -> None:
        for hand in msg.hands:
            self.sizes[hand.seat] = hand.count
            if hand.seat == self.seat:
                self.hand = _cards(hand.cards)

    def _on_first_card_turned(self, msg: events_pb2.FirstCardTurned) -> None:
        card = convert.card_from_pb(msg.card.card)
        self.discard.append(card)
        self.first_card_on_top = True
        self.color = None if card.is_black else card.color
        self.card_skips = 1 if card.rank is Rank.SKIP else 0  # S4: the first player is skipped

    def _on_cards_played(self, msg: events_pb2.CardsPlayed) -> None:
        cards = _cards(msg.cards)
        self._leaves(msg.seat, cards)
        self.discard += cards
        self.first_card_on_top = False
        self.last_player = msg.seat
        self.drawn = None
        self.sizes[msg.seat] = msg.hand_size
        if msg.hand_size == 0 and self.went_out is None:
            self.went_out = msg.seat
        last = cards[-1]
        self.card_skips = 0
        if last.rank is Rank.SKIP or (last.rank is Rank.REVERSE and len(self.in_play) == 2):
            # T6, T7: one seat skipped per card, but never round to the player itself
            playing = [s for s in self.in_play if self.sizes.get(s, 0) > 0 and s != self.went_out]
            self.card_skips = min(len(cards), len(playing) - 1)
        if last.rank is Rank.WILD_DRAW_FOUR:
            self.took_since_wild_draw_four.clear()
            self.color_before_wild_draw_four = self.color
            self.wild_draw_four_hand = msg.hand_size
            self.under_wild_draw_four = self.discard[-2] if len(self.discard) > 1 else None
        if not last.is_black:
            self.color = last.color
        elif last.rank is Rank.SOUND_WILD:
            self.color = None

    def _on_color_chosen(self, msg: events_pb2.ColorChosen) -> None:
        self.color = convert.color_from_pb(msg.color)

    def _on_cards_drawn(self, msg: events_pb2.CardsDrawn) -> None:
        self.sizes[msg.seat] = msg.hand_size
        if msg.count:
            self.took_since_wild_draw_four.add(msg.seat)
        if msg.seat != self.seat and msg.count:
            # cards it did not have then: the exclusion holds no more (`count`, not `cards`: a hidden card
            # has a CardRef only where the fair shuffle commits to it)
            self.excluded.pop(msg.seat, None)
        if msg.seat == self.went_out and msg.hand_size:  # back in the round: whoever else went out is waited for
            self.went_out = next((s for s in sorted(self.in_play) if self.sizes.get(s) == 0), None)
        if msg.seat != self.seat:
            return
        cards = _cards(msg.cards)
        self.hand += cards
        if msg.reason == events_pb2.DRAW_REASON_TURN:
            self.drawn = cards[-1] if cards else None
        # any other draw (a penalty for chat in a silence, H14, a slap, U5) leaves the turn's drawn card as it was

    def _on_drawn_card_kept(self, _msg: events_pb2.DrawnCardKept) -> None:
        self.drawn = None

    def _on_turn_started(self, _msg: events_pb2.TurnStarted) -> None:
        self.drawn = None
        self.card_skips = 0

    def _on_turn_skipped(self, msg: events_pb2.TurnSkipped) -> None:
        if self.card_skips:  # a Skip card's: it does not pay a lost turn (B3) that is owed
            self.card_skips -= 1
        else:
            self.skip_next.discard(msg.seat)

    def _on_pile_reshuffled(self, _msg: events_pb2.PileReshuffled) -> None:
        del self.discard[:-2]  # T5: the top card stays (with the one under a Wild Draw Four, B3)

    def _on_hand_revealed(self, msg: events_pb2.HandRevealed) -> None:
        if msg.challenger_seat == self.seat and msg.hand.seat != self.seat:
            self.known[msg.hand.seat] = Counter(_cards(msg.hand.cards))

    def _on_challenge_resolved(self, msg: events_pb2.ChallengeResolved) -> None:
        """B2, B4: a Wild Draw Four ruled fair says what its player did not hold: every card that would
        have made it unfair (T2). That stays true of the hand's unknown cards until it takes new ones."""
        accused, under = msg.accused_seat, self.under_wild_draw_four
        if msg.guilty or accused == self.seat or self.rule is None or under is None:
            return
        if accused in self.took_since_wild_draw_four:
            return  # cards taken since (an UNO penalty before the challenge) may be any: no exclusion
        color, rule = self.color_before_wild_draw_four, self.rule
        self.excluded[accused] = frozenset(
            card for card in _ALL_CARDS if not is_wild_draw_four_fair([card], color, under, rule)
        )

    def _on_card_taken_back(self, msg: events_pb2.CardTakenBack) -> None:
        card = convert.card_from_pb(msg.card.card)
        if self.discard:
            self.discard.pop()
        if msg.seat == self.seat:
            self.hand.append(card)
        else:
            self._known(msg.seat)[card] += 1
        self.skip_next.add(msg.seat)
        self.color = convert.color_from_pb(msg.color) if msg.color != cards_pb2.COLOR_UNSPECIFIED else None

    def _on_hands_rotated(self, msg: events_pb2.HandsRotated) -> None:
        seats = sorted(self.in_play)  # H10: each hand passes to the next seat in play, in the direction
        self.took_since_wild_draw_four.update(seats)
        step = convert.direction_from_pb(msg.direction)
        old = {seat: (Counter(self.hand) if seat == self.seat else self._known(seat)) for seat in seats}
        excluded, self.known, self.excluded = self.excluded, {}, {}
        for i, seat in enumerate(seats):
            receiver = seats[(i + step) % len(seats)]
            if receiver != self.seat:
                self.known[receiver] = old[seat]
                if seat in excluded:
                    self.excluded[receiver] = excluded[seat]
        for hand in msg.hands:
            self.sizes[hand.seat] = hand.count
            if hand.seat == self.seat:
                self.hand = _cards(hand.cards)

    def _on_hands_swapped(self, msg: events_pb2.HandsSwapped) -> None:
        seat, target = msg.seat, msg.target_seat
        self.took_since_wild_draw_four.update((seat, target))
        self.sizes[seat], self.sizes[target] = msg.seat_hand.count, msg.target_hand.count
        if self.seat in (seat, target):
            other = target if self.seat == seat else seat
            self.known[other] = Counter(self.hand)
            mine = msg.seat_hand if self.seat == seat else msg.target_hand
            self.hand = _cards(mine.cards)
        else:
            self.known[seat], self.known[target] = self._known(target), self._known(seat)
        moved = {seat: self.excluded.pop(target, None), target: self.excluded.pop(seat, None)}
        self.excluded.update({s: ban for s, ban in moved.items() if ban is not None and s != self.seat})

    def _hidden_leaves(self, seat: int) -> None:
        """A card this seat did not see left `seat`'s hand: it may have been any known one, so none is
        known any more (they are unseen cards again, which is always true)."""
        if seat != self.seat:
            self.known.pop(seat, None)

    def _on_five_swap_offered(self, msg: events_pb2.FiveSwapOffered) -> None:
        if msg.card.HasField("card"):
            self._leaves(msg.seat, _cards([msg.card]))
        else:
            self._hidden_leaves(msg.seat)

    def _on_cards_exchanged(self, msg: events_pb2.CardsExchanged) -> None:
        giver, target = msg.seat, msg.target_seat
        self.took_since_wild_draw_four.update((giver, target))
        given, received = _cards([msg.given]), _cards([msg.received])
        if msg.received.HasField("card"):
            self._leaves(target, received)
        else:
            self._hidden_leaves(target)
        for seat in (giver, target):  # each took a card it did not have when the exclusion was learnt
            self.excluded.pop(seat, None)
        for seat, cards in ((target, given), (giver, received)):
            if seat == self.seat:
                self.hand += cards
            elif self.seat in (giver, target):  # the seat saw both cards
                self._known(seat).update(cards)

    def _shown_in_hand(self, seat: int, cards: Iterable[Card]) -> None:
        """A play the rules punished instead of taking (H7 wrong jump-in, H15 illegal play) showed
        `cards`, which stay in `seat`'s hand."""
        if seat == self.seat:
            return
        known = self._known(seat)
        for card, count in Counter(cards).items():
            known[card] = max(known[card], count)

    def _on_wrong_jump_in(self, msg: events_pb2.WrongJumpIn) -> None:
        self._shown_in_hand(msg.seat, _cards(msg.cards))

    def _on_illegal_play(self, msg: events_pb2.IllegalPlay) -> None:
        self._shown_in_hand(msg.seat, _cards(msg.cards))

    def _on_penalty_points(self, msg: events_pb2.PenaltyPoints) -> None:
        self.penalty_points[msg.seat] = self.penalty_points.get(msg.seat, 0) + msg.points

    def _on_reaction_window_opened(self, msg: events_pb2.ReactionWindowOpened) -> None:
        self.next_window_id = max(self.next_window_id, msg.window.id + 1)

    def _on_player_eliminated(self, msg: events_pb2.PlayerEliminated) -> None:
        self.in_play.discard(msg.seat)
        self.known.pop(msg.seat, None)

    # ------------------------------------------------------------------------------------ position

    def position(self, view: views_pb2.SeatView) -> tuple[Game, Knowledge]:
        """The position this seat knows at `view` (the unseen cards placed arbitrarily, in card order)
        and what it knows of them.

        Raises MalformedAction (reason BAD_POSITION) for a spectator's view, a phase that is no turn of
        a round in play (a blocking window open, the round or match over, waiting or shuffling), or a
        view the events followed so far do not lead to (an event missed: the hand, the top card or
        the pile sizes disagree); UNSPECIFIED_ENUM for an enum the protocol does not define.
        """
        if view.is_spectator:
            raise _bad("a spectator has no seat to know a position for")
        if not self.has_round:
            raise _bad("the events of this round were not followed from its start")
        if view.event_number != self.last_event_number:
            raise _bad(f"the view is at event {view.event_number}, the events seen at {self.last_event_number}")
        phase = convert.phase_from_pb(view.phase)
        if phase is Phase.ROUND_OVER:
            raise _bad("the round is over")
        ruleset = self._ruleset(view.settings.ruleset)
        self.rule = ruleset.wild_draw_four
        n, me = view.settings.seat_count, self.seat
        hand = _cards(view.hand)
        if Counter(hand) != Counter(self.hand):
            raise _bad(f"seat {me}'s hand in the view is not the one its events tell")
        sizes = {state.seat: state.hand_size for state in view.seats}
        discard = self.discard[-view.discard_pile_size :] if view.discard_pile_size else []
        if not discard or discard[-1] != convert.card_from_pb(view.top_card.card):
            raise _bad("the discard pile the events tell does not end with the view's top card")
        deck = standard_deck(
            blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds, h2o_wilds=ruleset.h2o_wilds
        )
        pool = Counter(deck) - Counter(hand) - Counter(discard)
        aside: Card | None = None
        if phase is Phase.GIVE_CARD and view.five_swap.card.HasField("card"):
            aside = convert.card_from_pb(view.five_swap.card.card)
            pool -= Counter([aside])
        known = {s: Counter(self.known.get(s, Counter())) for s in range(n) if s != me}
        for s, cards in known.items():
            if cards - pool or sum(cards.values()) > sizes.get(s, 0):
                raise _bad(f"the cards known in seat {s}'s hand are not among the unseen ones")
            pool -= cards
        unseen = sorted(pool.elements(), key=lambda card: card.key)
        if phase is Phase.GIVE_CARD and aside is None:
            aside = unseen.pop()
        current = view.five_swap.seat if phase is Phase.GIVE_CARD else view.seat_to_act
        drawn: Card | None = None
        if phase is Phase.AFTER_DRAW:
            drawn = self.drawn if current == me else self._playable_placeholder(view, unseen, known[current])
        hands: list[list[Card]] = []
        for s in range(n):
            if s == me:
                hands.append(hand)
                continue
            held = list(known[s].elements())
            if s == current and drawn is not None and s != me:
                held.append(drawn)  # a placeholder, not knowledge: `determinize` keeps the drawn card itself
            need = sizes.get(s, 0) - len(held)
            if need > len(unseen):
                raise _bad(f"seat {s} holds more cards than are unseen")
            hands.append(held + unseen[len(unseen) - need :] if need else held)
            del unseen[len(unseen) - need :]
        if len(unseen) != view.draw_pile_size:
            raise _bad(f"{len(unseen)} cards are left for a draw pile of {view.draw_pile_size}")
        game = Game.from_position(
            ruleset,
            random.Random(0),  # a placeholder stream: `determinize` gives each deal its own
            hands=hands,
            draw_pile=unseen,
            discard=discard,
            color=self._color(view),
            current=current,
            direction=convert.direction_from_pb(view.direction),
            dealer=view.dealer,
            round_no=view.round_number,
            seats_in_play=sorted(self.in_play),
            obligation=self._obligation(view, ruleset.draw_penalty_skips_turn, hands),
            mid_play=MidPlay(
                phase=phase,
                drawn=drawn,
                pending_swap=(view.five_swap.seat, view.five_swap.target_seat, aside) if aside is not None else None,
                windows=tuple(convert.window_from_pb(w, opened_by=self.last_player) for w in view.open_windows),
                next_window_id=max([self.next_window_id, *(w.id + 1 for w in view.open_windows)]),
                silence=view.silence_seat if view.HasField("silence_seat") else None,
                skip_next=tuple(sorted(self.skip_next)),
                went_out=self.went_out if self.went_out is not None and not hands[self.went_out] else None,
                penalty_points=tuple(self.penalty_points.get(s, 0) for s in range(n)),
                first_card_on_top=self.first_card_on_top,
            ),
        )
        game.redeal_unseen(game.hands, game.draw_pile)  # judges the placeholder bluff record as dealt
        known_cards = tuple(() if s == me else tuple(known[s].elements()) for s in range(n))
        excluded = tuple(frozenset() if s == me else self.excluded.get(s, frozenset()) for s in range(n))
        return game, Knowledge(me, known=known_cards, excluded=excluded)

    def _ruleset(self, msg: rules_pb2.Ruleset) -> Ruleset:
        """The view's ruleset, read once per table (a bot reads a position at every decision)."""
        key = msg.SerializeToString(deterministic=True)
        if self._ruleset_read is None or self._ruleset_read[0] != key:
            self._ruleset_read = (key, convert.ruleset_from_pb(msg.preset, msg))
        return self._ruleset_read[1]

    def _color(self, view: views_pb2.SeatView) -> Color | None:
        if view.current_color == cards_pb2.COLOR_UNSPECIFIED:
            return None
        return convert.color_from_pb(view.current_color)

    def _obligation(self, view: views_pb2.SeatView, skips: bool, hands: list[list[Card]]) -> Obligation | None:
        msg = view.draw_obligation
        if not view.HasField("draw_obligation") or msg.amount == 0:
            return None
        kind = convert.obligation_kind_from_pb(msg.kind)
        bluff = None
        if msg.challengeable:
            held = tuple(hands[msg.setter_seat][: self.wild_draw_four_hand])
            bluff = BluffRecord(msg.setter_seat, held, True, _WILD_DRAW_FOUR, self.color_before_wild_draw_four)
        return Obligation(msg.amount, kind, msg.target_seat, msg.setter_seat, skips or kind is Rank.BLANK, bluff)

    def _playable_placeholder(self, view: views_pb2.SeatView, unseen: list[Card], known: Counter[Card]) -> Card:
        """Another seat's drawn card, which it may still play: an unseen card that can be played now,
        taken out of `unseen` (the pile's order is unknown, so any one will do). It is no knowledge of
        that hand: `Knowledge.known` leaves it out, and `determinize` keeps `Game.drawn` where it is.
        A card equal to one known in the same hand is taken last, since `determinize` keeps the drawn
        card only when the known ones do not already name it."""
        top = convert.card_from_pb(view.top_card.card)
        color = self._color(view)
        playable = [i for i, card in enumerate(unseen) if matches(card, color, top)]
        if not playable:
            raise _bad("no unseen card could be the card just drawn")
        # a Wild Draw Four last: whether it may be played depends on the hand (T2)
        index = min(playable, key=lambda i: (unseen[i].rank is Rank.WILD_DRAW_FOUR, known[unseen[i]] > 0))
        return unseen.pop(index)
