"""`TablePicture`: a seat's `SeatView` kept current from its events, so a decision costs no round trip.

A bot reads GetView once, when it starts (or takes a Snapshot off its stream), and from then on folds
every event it receives into that view. The legal actions come from the events exactly
(`Event.your_legal_actions` replaces them whole); the rest of the picture is what the events say:

- `hand` (faces and commitments), from the deal, draws, plays, take-backs, 0 rotations, 7 swaps,
  five swaps and forfeits;
- each seat's `hand_size`, `called_uno` (an UnoCalled event's, until that seat's hand changes: a hand
  passed on by a swap or a rotation carries no call, as GetView shows it),
  `score`, `strikes`, `connected`, `is_bot`, `eliminated`,
  `taken_over` in `seats`;
- `top_card` (its face), `current_color`, `direction`, `round_number`, `dealer`, `draw_obligation`,
  `open_windows`, `discard_pile_size`, `five_swap`, `silence_seat`, `winners`, `draw_pile_size` (as
  the deal, draws, reshuffles and returned first cards say);
- `seat_to_act` and `turn_deadline` from TurnStarted (and this seat, while its legal actions are
  required); `phase` as far as the events say it: the phase a policy can act on (this seat's
  decision, from its legal actions), PHASE_SHUFFLE, PHASE_WINDOW, PHASE_ROUND_OVER, PHASE_MATCH_OVER.

`view_time` is the host's time of the last event folded in. Not kept: each seat's `clock_remaining`,
`time_bank_remaining` and `latency_ms` (values the host computes at the moment of a GetView; the legal
actions' `deadline` is the clock a bot needs). A test plays whole matches and compares the picture with
GetView at every decision (tests/bots/test_picture.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from unonet.v1 import actions_pb2, cards_pb2, events_pb2, table_pb2, views_pb2

__all__ = ["TablePicture"]

_BLACK = cards_pb2.COLOR_BLACK
# Draws that settle the open draw obligation (no DrawObligationChanged follows them).
_SETTLES_OBLIGATION = frozenset(
    {events_pb2.DRAW_REASON_OBLIGATION, events_pb2.DRAW_REASON_CHALLENGE_LOST, events_pb2.DRAW_REASON_BLUFF_CAUGHT}
)


class TablePicture:
    """One seat's view of a table, from a starting `SeatView` and every event after it.

    `view` is the live picture: a policy may read it, but only `apply` changes it (hand it a copy,
    `snapshot()`, when the policy runs elsewhere).
    """

    def __init__(self, view: views_pb2.SeatView) -> None:
        self.view = views_pb2.SeatView()
        self.view.CopyFrom(view)
        # What play returns to when the blocking windows close: the phase and seat before them.
        self._paused: tuple[views_pb2.Phase.ValueType, int | None] | None = None

    def snapshot(self) -> views_pb2.SeatView:
        """A copy of the picture that later events will not change."""
        copy = views_pb2.SeatView()
        copy.CopyFrom(self.view)
        return copy

    @property
    def seat(self) -> int:
        return self.view.seat

    def apply(self, event: events_pb2.Event) -> None:
        """Fold one event (the next by number, or a Snapshot) into the picture."""
        kind = event.WhichOneof("payload")
        if kind == "snapshot":
            self.view.CopyFrom(event.snapshot.view)
            return
        if event.number <= self.view.event_number:
            return  # already in the picture (replayed after a resume)
        self.view.event_number = event.number
        if event.HasField("time"):
            self.view.view_time.CopyFrom(event.time)
        handler = _HANDLERS.get(kind or "")
        if handler is not None:
            handler(self, getattr(event, kind or ""))
        if event.HasField("your_legal_actions"):
            self.view.legal_actions.CopyFrom(event.your_legal_actions)
            self._follow_legal_actions()
        self._follow_windows()

    # ------------------------------------------------------------------------------------ helpers

    def _state(self, seat: int) -> table_pb2.SeatState:
        seats = self.view.seats
        while len(seats) <= seat:
            seats.add(seat=len(seats))
        return seats[seat]

    def _set_size(self, seat: int, size: int) -> None:
        state = self._state(seat)
        if size != 1:
            state.called_uno = False
        state.hand_size = size

    def _set_hand(self, hand: cards_pb2.SeatHand) -> None:
        self._set_size(hand.seat, hand.count)
        if hand.seat == self.seat and not self.view.is_spectator:
            del self.view.hand[:]
            self.view.hand.extend(hand.cards)

    def _add(self, refs: Iterable[cards_pb2.CardRef]) -> None:
        self.view.hand.extend(refs)

    def _remove(self, ref: cards_pb2.CardRef) -> None:
        """Take one card out of the hand: the one with the same commitment, else the same face."""
        hand = self.view.hand
        for index, held in enumerate(hand):
            if ref.commitment and held.commitment == ref.commitment:
                del hand[index]
                return
        for index, held in enumerate(hand):
            if held.card.color == ref.card.color and held.card.rank == ref.card.rank:
                del hand[index]
                return

    def _is_mine(self, seat: int) -> bool:
        return not self.view.is_spectator and seat == self.seat

    def _follow_legal_actions(self) -> None:
        """This seat's own decision is what its legal actions say it is."""
        legal = self.view.legal_actions
        if not legal.required:
            return
        phase = _phase_of_decision(legal)
        if phase is not None:
            self.view.phase = phase
            self.view.seat_to_act = self.seat
        if legal.HasField("deadline") and phase is not None:
            self.view.turn_deadline.CopyFrom(legal.deadline)

    def _follow_windows(self) -> None:
        """While a window that blocks play is open the table is in PHASE_WINDOW, waiting for no one seat;
        when the last one closes, play resumes where it stood."""
        view = self.view
        blocked = any(window.blocks_play for window in view.open_windows)
        if blocked and view.phase not in _OUTSIDE_PLAY:
            if view.phase != views_pb2.PHASE_WINDOW:
                self._paused = (view.phase, view.seat_to_act if view.HasField("seat_to_act") else None)
            view.phase = views_pb2.PHASE_WINDOW
            view.ClearField("seat_to_act")
        elif not blocked and view.phase == views_pb2.PHASE_WINDOW:
            phase, seat = self._paused or (views_pb2.PHASE_TURN, None)
            view.phase = phase
            if seat is not None:
                view.seat_to_act = seat
            self._paused = None

    # ----------------------------------------------------------------------------------- handlers

    def _player_joined(self, msg: events_pb2.PlayerJoined) -> None:
        state = self._state(msg.seat)
        state.occupied, state.name, state.is_bot = True, msg.name, False

    def _player_left(self, msg: events_pb2.PlayerLeft) -> None:
        state = self._state(msg.seat)
        if self.view.status == 0 or self.view.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS:
            state.occupied, state.name = False, ""

    def _bot_seated(self, msg: events_pb2.BotSeated) -> None:
        state = self._state(msg.seat)
        state.occupied, state.name, state.is_bot, state.bot_kind = True, msg.name, True, msg.bot_kind

    def _connection(self, msg: events_pb2.SeatConnectionChanged) -> None:
        self._state(msg.seat).connected = msg.connected

    def _taken_over(self, msg: events_pb2.SeatTakenOver) -> None:
        state = self._state(msg.seat)
        state.taken_over = True
        if msg.bot_kind:
            state.is_bot, state.bot_kind = True, msg.bot_kind

    def _match_started(self, msg: events_pb2.MatchStarted) -> None:
        self.view.status = table_pb2.TABLE_STATUS_PLAYING
        self.view.settings.CopyFrom(msg.settings)
        if msg.seats:
            del self.view.seats[:]
            self.view.seats.extend(msg.seats)

    def _dealer_chosen(self, msg: events_pb2.DealerChosen) -> None:
        self.view.dealer = msg.dealer_seat

    def _round_started(self, msg: events_pb2.RoundStarted) -> None:
        view = self.view
        view.round_number, view.dealer = msg.round_number, msg.dealer_seat
        view.direction = views_pb2.DIRECTION_CLOCKWISE
        view.current_color = cards_pb2.COLOR_UNSPECIFIED
        for name in ("top_card", "draw_obligation", "five_swap", "silence_seat", "seat_to_act", "turn_deadline"):
            view.ClearField(name)
        del view.open_windows[:]
        del view.hand[:]
        view.discard_pile_size = 0
        for state in view.seats:
            state.hand_size, state.called_uno = 0, False

    def _cards_dealt(self, msg: events_pb2.CardsDealt) -> None:
        for hand in msg.hands:
            self._set_hand(hand)
        self.view.draw_pile_size = msg.draw_pile_size

    def _first_card_turned(self, msg: events_pb2.FirstCardTurned) -> None:
        self._to_discards(msg.card)
        self.view.draw_pile_size = max(0, self.view.draw_pile_size - 1)

    def _first_card_returned(self, msg: events_pb2.FirstCardReturned) -> None:
        # The card went back into the pile it was turned from (S4): no pile's size changed.
        self.view.ClearField("top_card")
        self.view.current_color = cards_pb2.COLOR_UNSPECIFIED

    def _to_discards(self, ref: cards_pb2.CardRef) -> None:
        self.view.top_card.CopyFrom(ref)
        card = ref.card
        if card.color != _BLACK:
            self.view.current_color = card.color
        elif card.rank == cards_pb2.RANK_SOUND_WILD:  # H12: no colour is named, none is in force
            self.view.current_color = cards_pb2.COLOR_UNSPECIFIED
        # Any other black card: the colour in force stays until one is named (ColorChosen), as GetView
        # shows it (views.proto, SeatView.current_color).
        self.view.discard_pile_size += 1

    def _turn_started(self, msg: events_pb2.TurnStarted) -> None:
        view = self.view
        if view.phase == views_pb2.PHASE_WINDOW:
            self._paused = (views_pb2.PHASE_TURN, msg.seat)  # the turn begins once the windows close
        else:
            view.seat_to_act = msg.seat
            view.phase = views_pb2.PHASE_TURN
        if msg.HasField("deadline"):
            view.turn_deadline.CopyFrom(msg.deadline)
        else:
            view.ClearField("turn_deadline")

    def _cards_played(self, msg: events_pb2.CardsPlayed) -> None:
        if self._is_mine(msg.seat):
            for ref in msg.cards:
                self._remove(ref)
        for ref in msg.cards:
            self._to_discards(ref)
        self._set_size(msg.seat, msg.hand_size)
        if self.view.HasField("silence_seat") and self.view.silence_seat == msg.seat:
            self.view.ClearField("silence_seat")

    def _color_chosen(self, msg: events_pb2.ColorChosen) -> None:
        self.view.current_color = msg.color

    def _cards_drawn(self, msg: events_pb2.CardsDrawn) -> None:
        if self._is_mine(msg.seat):
            self._add(msg.cards)
        self._set_size(msg.seat, msg.hand_size)
        self.view.draw_pile_size = max(0, self.view.draw_pile_size - msg.count)
        if msg.reason in _SETTLES_OBLIGATION:
            self.view.ClearField("draw_obligation")

    def _direction_reversed(self, msg: events_pb2.DirectionReversed) -> None:
        self.view.direction = msg.direction

    def _draw_obligation_changed(self, msg: events_pb2.DrawObligationChanged) -> None:
        if msg.HasField("obligation"):
            self.view.draw_obligation.CopyFrom(msg.obligation)
        else:
            self.view.ClearField("draw_obligation")

    def _pile_reshuffled(self, msg: events_pb2.PileReshuffled) -> None:
        # The discards under the top card (and under a Wild Draw Four that may still be taken back, B3)
        # form the new pile. The old pile's last cards are still counted here: the CardsDrawn that
        # follows reports them with the rest of its draw.
        self.view.draw_pile_size += msg.draw_pile_size
        self.view.discard_pile_size = max(1, self.view.discard_pile_size - msg.draw_pile_size)

    def _silence_started(self, msg: events_pb2.SilenceStarted) -> None:
        self.view.silence_seat = msg.seat

    def _uno_called(self, msg: events_pb2.UnoCalled) -> None:
        self._state(msg.seat).called_uno = True

    def _card_taken_back(self, msg: events_pb2.CardTakenBack) -> None:
        state = self._state(msg.seat)
        self._set_size(msg.seat, state.hand_size + 1)
        if self._is_mine(msg.seat):
            self._add([msg.card])
        self.view.top_card.CopyFrom(msg.top_card)
        self.view.current_color = msg.color
        self.view.discard_pile_size = max(0, self.view.discard_pile_size - 1)

    def _hands_rotated(self, msg: events_pb2.HandsRotated) -> None:
        # A UNO call is its caller's, for the hand it held: a hand passed on carries none.
        for hand in msg.hands:
            self._set_hand(hand)
            self._state(hand.seat).called_uno = False

    def _hands_swapped(self, msg: events_pb2.HandsSwapped) -> None:
        for hand in (msg.seat_hand, msg.target_hand):
            self._set_hand(hand)
            self._state(hand.seat).called_uno = False  # a swapped hand carries no call

    def _five_swap_offered(self, msg: events_pb2.FiveSwapOffered) -> None:
        # The offered card leaves its giver's hand now; the target's hand changes only at the exchange.
        self.view.five_swap.CopyFrom(
            views_pb2.PendingFiveSwap(seat=msg.seat, target_seat=msg.target_seat, card=msg.card)
        )
        giver = self._state(msg.seat)
        giver.hand_size = max(0, giver.hand_size - 1)
        giver.called_uno = False  # its hand changed: a call was for the hand it held
        if self._is_mine(msg.seat):
            self._remove(msg.card)

    def _cards_exchanged(self, msg: events_pb2.CardsExchanged) -> None:
        giver = self._state(msg.seat)
        giver.hand_size += 1
        giver.called_uno = self._state(msg.target_seat).called_uno = False  # both hands changed
        if self._is_mine(msg.seat):
            self._add([msg.received])
        elif self._is_mine(msg.target_seat):
            self._remove(msg.received)
            self._add([msg.given])
        self.view.ClearField("five_swap")

    def _window_opened(self, msg: events_pb2.ReactionWindowOpened) -> None:
        self.view.open_windows.append(msg.window)
        if msg.window.blocks_play:
            self.view.phase = views_pb2.PHASE_WINDOW
            self.view.ClearField("seat_to_act")

    def _window_closed(self, msg: events_pb2.ReactionWindowClosed) -> None:
        windows = [window for window in self.view.open_windows if window.id != msg.window_id]
        del self.view.open_windows[:]
        self.view.open_windows.extend(windows)

    def _penalty_points(self, msg: events_pb2.PenaltyPoints) -> None:
        self._state(msg.seat).score = msg.total

    def _turn_timed_out(self, msg: events_pb2.TurnTimedOut) -> None:
        self._state(msg.seat).strikes = msg.strikes

    def _round_ended(self, msg: events_pb2.RoundEnded) -> None:
        for score in msg.scores:
            state = self._state(score.seat)
            state.score, state.eliminated = score.total, state.eliminated or score.eliminated
        self.view.phase = views_pb2.PHASE_ROUND_OVER
        for name in ("seat_to_act", "turn_deadline", "draw_obligation", "five_swap"):
            self.view.ClearField(name)
        del self.view.open_windows[:]

    def _player_eliminated(self, msg: events_pb2.PlayerEliminated) -> None:
        state = self._state(msg.seat)
        state.eliminated, state.score = True, msg.total
        self.view.draw_pile_size += len(msg.returned_cards)
        state.hand_size = 0
        if self._is_mine(msg.seat):
            del self.view.hand[:]

    def _match_ended(self, msg: events_pb2.MatchEnded) -> None:
        self.view.status = table_pb2.TABLE_STATUS_FINISHED
        self.view.phase = views_pb2.PHASE_MATCH_OVER
        del self.view.winners[:]
        self.view.winners.extend(msg.winner_seats)
        for score in msg.scores:
            self._state(score.seat).score = score.total
        for name in ("seat_to_act", "turn_deadline"):
            self.view.ClearField(name)

    def _shuffle_committed(self, msg: events_pb2.ShuffleCommitted) -> None:
        self.view.phase = views_pb2.PHASE_SHUFFLE
        self.view.round_number = msg.round_number  # the round being shuffled for, as GetView says
        self.view.ClearField("seat_to_act")


def _phase_of_decision(legal: actions_pb2.LegalActions) -> views_pb2.Phase.ValueType | None:
    """The phase a required LegalActions stands for (None for a reaction or a shuffle step)."""
    if legal.choose_color:
        return views_pb2.PHASE_CHOOSE_COLOR
    if legal.swap_target_seats:
        return views_pb2.PHASE_CHOOSE_SWAP_TARGET
    if legal.HasField("five_swap"):
        return views_pb2.PHASE_FIVE_SWAP
    if legal.give_cards:
        return views_pb2.PHASE_GIVE_CARD
    if legal.pass_turn:
        return views_pb2.PHASE_AFTER_DRAW
    if legal.HasField("draw") or any(p.kind == actions_pb2.PLAY_KIND_TURN for p in legal.plays):
        return views_pb2.PHASE_TURN
    return None


_OUTSIDE_PLAY = frozenset(
    {
        views_pb2.PHASE_SHUFFLE,
        views_pb2.PHASE_ROUND_OVER,
        views_pb2.PHASE_MATCH_OVER,
        views_pb2.PHASE_WAITING_FOR_PLAYERS,
    }
)

_HANDLERS: dict[str, Callable[[TablePicture, Any], None]] = {
    "player_joined": TablePicture._player_joined,
    "player_left": TablePicture._player_left,
    "bot_seated": TablePicture._bot_seated,
    "seat_connection_changed": TablePicture._connection,
    "seat_taken_over": TablePicture._taken_over,
    "match_started": TablePicture._match_started,
    "dealer_chosen": TablePicture._dealer_chosen,
    "round_started": TablePicture._round_started,
    "cards_dealt": TablePicture._cards_dealt,
    "first_card_turned": TablePicture._first_card_turned,
    "first_card_returned": TablePicture._first_card_returned,
    "turn_started": TablePicture._turn_started,
    "cards_played": TablePicture._cards_played,
    "color_chosen": TablePicture._color_chosen,
    "cards_drawn": TablePicture._cards_drawn,
    "direction_reversed": TablePicture._direction_reversed,
    "draw_obligation_changed": TablePicture._draw_obligation_changed,
    "pile_reshuffled": TablePicture._pile_reshuffled,
    "silence_started": TablePicture._silence_started,
    "uno_called": TablePicture._uno_called,
    "card_taken_back": TablePicture._card_taken_back,
    "hands_rotated": TablePicture._hands_rotated,
    "hands_swapped": TablePicture._hands_swapped,
    "five_swap_offered": TablePicture._five_swap_offered,
    "cards_exchanged": TablePicture._cards_exchanged,
    "reaction_window_opened": TablePicture._window_opened,
    "reaction_window_closed": TablePicture._window_closed,
    "penalty_points": TablePicture._penalty_points,
    "turn_timed_out": TablePicture._turn_timed_out,
    "round_ended": TablePicture._round_ended,
    "player_eliminated": TablePicture._player_eliminated,
    "match_ended": TablePicture._match_ended,
    "shuffle_committed": TablePicture._shuffle_committed,
}
