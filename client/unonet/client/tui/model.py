"""The game screen's view model: what one seat (or a spectator) knows, rebuilt from what it received.

`GameModel` is fed the seat's events in order (`apply`), a `SeatView` when the host sends a Snapshot
or the client fetched one (`apply_view`), and the `TableInfo` the client fetches about once a second
for latencies and connections (`apply_table`). It does no I/O and reads no clock: every method is a
pure function of its inputs and the model, so the same events always give the same screen, and a
replayed log (`unonet replay`, `bench/client.py`) drives it exactly as a live stream does.

Where an event field the host may leave unset (CardsPlayed.hand_size, say) is missing, the model
derives what it can from what it already knows (the count before minus the cards played).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from unonet.client.narrate import describe
from unonet.client.tui.banners import PILE, Banner, banners_for
from unonet.client.tui.rematch import parse_invitation
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, table_pb2, views_pb2

__all__ = [
    "PILE",
    "Banner",
    "CardFace",
    "ConnectionState",
    "GameModel",
    "LastPlay",
    "LogLine",
    "RaceResult",
    "RoundResult",
    "ScoreLine",
    "Scoreboard",
    "SeatModel",
    "face_of",
]

LOG_LINES: Final = 300
CHAT_LINES: Final = 100
BANNERS: Final = 24


@dataclass(frozen=True, slots=True, order=True)
class CardFace:
    """One card face as the screen shows it: a colour and a rank (the `cards.proto` numbers)."""

    color: int
    rank: int

    def to_proto(self) -> cards_pb2.Card:
        """The protocol `Card` to send in a command."""
        return cards_pb2.Card(color=self.color, rank=self.rank)  # type: ignore[arg-type]

    @property
    def is_black(self) -> bool:
        return self.color == cards_pb2.COLOR_BLACK


def face_of(card: cards_pb2.Card) -> CardFace:
    """The face of a protocol card."""
    return CardFace(int(card.color), int(card.rank))


def _faces(refs: object) -> list[CardFace]:
    """The faces this receiver may see among CardRefs (hidden ones are left out)."""
    return [face_of(ref.card) for ref in refs if ref.HasField("card")]  # type: ignore[attr-defined]


class ConnectionState:
    """How the client's link to the host stands, as the screen says it."""

    CONNECTING: Final = "connecting"
    CONNECTED: Final = "connected"
    RECONNECTING: Final = "reconnecting"
    GONE: Final = "gone"


@dataclass(slots=True)
class SeatModel:
    """The public facts of one seat, as the events and the fetched table infos tell them."""

    seat: int
    name: str = ""
    occupied: bool = False
    is_bot: bool = False
    #: The kind of host bot playing the seat (BotSeated.bot_kind, SeatState.bot_kind); "" for a person.
    bot_kind: str = ""
    connected: bool = True
    hand_size: int = 0
    called_uno: bool = False
    score: int = 0
    strikes: int = 0
    latency_ms: int = 0
    eliminated: bool = False
    taken_over: bool = False
    #: When this seat's current decision times out, in host seconds; None without a running clock.
    deadline: float | None = None
    time_bank: float = 0.0


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of the scrolling log: the event number it came from, its words and a style class."""

    number: int
    text: str
    style: str = ""


@dataclass(frozen=True, slots=True)
class RaceResult:
    """How a reaction window was ruled: who won (None: nobody) and by how much (seconds, None: alone)."""

    window_id: int
    kind: int
    winner: int | None
    margin: float | None
    penalized: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One seat's row of a scoreboard."""

    seat: int
    hand_points: int
    round_points: int
    total: int
    eliminated: bool


@dataclass(frozen=True, slots=True)
class LastPlay:
    """The last cards played onto the pile and who played them (the pile shows it until the next play)."""

    seat: int
    cards: tuple[CardFace, ...]
    kind: int = actions_pb2.PLAY_KIND_TURN


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One finished round, for the match's end: its number, who went out, and every seat's score line."""

    round_number: int
    winner: int
    lines: tuple[ScoreLine, ...]


@dataclass(frozen=True, slots=True)
class Scoreboard:
    """The scores shown between rounds (`final` False) and at the end of the match (`final` True)."""

    round_number: int
    winners: tuple[int, ...]
    lines: tuple[ScoreLine, ...]
    final: bool
    hands: tuple[tuple[int, tuple[CardFace, ...]], ...] = ()


def _host_seconds(stamp: object) -> float:
    return stamp.seconds + stamp.nanos / 1e9  # type: ignore[attr-defined, no-any-return]


def _duration_seconds(duration: object) -> float:
    return duration.seconds + duration.nanos / 1e9  # type: ignore[attr-defined, no-any-return]


_WINDOW_WORDS: Final = {
    views_pb2.REACTION_WINDOW_KIND_UNO_CATCH: "UNO catch",
    views_pb2.REACTION_WINDOW_KIND_JUMP_IN: "jump-in",
    views_pb2.REACTION_WINDOW_KIND_RUN_CUT: "run cut",
    views_pb2.REACTION_WINDOW_KIND_UNO_SLAP: "UNO slap",
    views_pb2.REACTION_WINDOW_KIND_SOUND_WILD: "Sound Wild",
    views_pb2.REACTION_WINDOW_KIND_SKIP_ESCAPE: "skip escape",
}


def window_words(kind: int) -> str:
    """A reaction window's kind in words."""
    return _WINDOW_WORDS.get(kind, "race")  # type: ignore[call-overload, no-any-return]


@dataclass(slots=True)
class GameModel:
    """Everything the game screen shows, as a pure function of what this seat received.

    Attributes:
        seat: this client's seat, or None for a spectator.
        legal: the seat's latest legal actions (each new one replaces the last, protocol rule).
        event_number: the number of the last event applied.
        fairness_failure: what a fairness check found wrong, or "" while everything checked out.
        notice: a sentence the screen shows loudly (the seat was taken over, the match ended, ...).
    """

    table_id: str = ""
    seat: int | None = None
    table_name: str = ""
    seats: list[SeatModel] = field(default_factory=list)
    hand: list[CardFace] = field(default_factory=list)
    top_card: CardFace | None = None
    current_color: int = 0
    direction: int = views_pb2.DIRECTION_CLOCKWISE
    seat_to_act: int | None = None
    obligation: views_pb2.DrawObligation | None = None
    windows: dict[int, views_pb2.ReactionWindow] = field(default_factory=dict)
    silence_seat: int | None = None
    draw_pile_size: int = 0
    round_number: int = 0
    #: The round the shuffle being committed to is for (ShuffleCommitted.round_number); 0 before any.
    shuffle_round: int = 0
    dealer: int | None = None
    phase: int = views_pb2.PHASE_WAITING_FOR_PLAYERS
    settings: table_pb2.TableSettings = field(default_factory=table_pb2.TableSettings)
    legal: actions_pb2.LegalActions = field(default_factory=actions_pb2.LegalActions)
    legal_number: int = 0
    event_number: int = 0
    log: deque[LogLine] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    chat: deque[LogLine] = field(default_factory=lambda: deque(maxlen=CHAT_LINES))
    last_race: RaceResult | None = None
    scoreboard: Scoreboard | None = None
    match_over: bool = False
    winners: tuple[int, ...] = ()
    connection: str = ConnectionState.CONNECTING
    notice: str = ""
    fairness_checks: int = 0
    fairness_failure: str = ""
    fairness_on: bool = False
    #: This copy's hash-chain head (docs/fairness.md 8.2) as "N:HEX", shown in the help overlay to
    #: compare with other players' at event N; "" when the copy has no chain (it began at a snapshot).
    log_head: str = ""
    #: The seats whose entropy went into this round's shuffle (DeckCommitted.contributing_seats).
    shuffle_contributors: tuple[int, ...] = ()
    #: The seat's measured round trip to the host (seconds), from its own pings; None until measured.
    round_trip: float | None = None
    #: The last play, shown at the pile with who made it; None before the round's first play.
    last_play: LastPlay | None = None
    #: The latest banners (what just happened, on a seat or at the pile), each stamped with when it was shown.
    banners: deque[Banner] = field(default_factory=lambda: deque(maxlen=BANNERS))
    #: The hand a Wild Draw Four's accused held, shown to this seat as its challenger (B2): (seat, cards,
    #: shown at); None when there is none to show.
    revealed: tuple[int, tuple[CardFace, ...], float] | None = None
    #: Every round finished while this copy watched, for the match's end screen.
    rounds: list[RoundResult] = field(default_factory=list)
    #: A line for the players before the match starts (the address friends dial): it goes with the start.
    invite: str = ""
    #: What the link to the host is doing when it is not connected ("the host is unreachable..."); it goes
    #: as soon as the link is back, so no "reconnecting" outlives the reconnection.
    connection_note: str = ""
    #: A rematch a player of this table invited to in its chat (`rematch.py`): (their seat, the table id).
    rematch: tuple[int, str] | None = None
    #: When the event applied last was shown (host seconds): what its banners are stamped with.
    shown_at: float = 0.0

    # ------------------------------------------------------------------------------------ queries

    @property
    def is_spectator(self) -> bool:
        return self.seat is None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def name_of(self, seat: int | None) -> str:
        """A seat's display name ('you' for this client's own seat)."""
        if seat is None:
            return "nobody"
        if seat == self.seat:
            return "you"
        if 0 <= seat < len(self.seats) and self.seats[seat].name:
            return self.seats[seat].name
        return f"seat {seat}"

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.seat_to_act == self.seat and not self.match_over

    @property
    def is_silenced(self) -> bool:
        """True while chatting costs cards (`silent_two`, H14): someone's 2 silenced the table."""
        return self.silence_seat is not None

    def legal_plays(self) -> list[actions_pb2.PlayOption]:
        return list(self.legal.plays)

    def playable_faces(self) -> set[CardFace]:
        """The faces that start at least one legal play now (what the hand highlights)."""
        return {face_of(option.cards[0]) for option in self.legal.plays if option.cards}

    # ---------------------------------------------------------------------------------- reducers

    def apply_table(self, info: table_pb2.TableInfo) -> None:
        """Take latencies, connections, names and scores from a TableInfo the client fetched.

        An info of another table is ignored: a fetch sent before the screen moved to a rematch answers
        after it, and the finished table's status would end the new match on screen (its S then saved
        the old replay instead of starting the new one)."""
        if self.table_id and info.table_id != self.table_id:
            return
        self.table_id = info.table_id
        if info.settings.name:
            self.table_name = info.settings.name
        if not self.settings.seat_count:
            self.settings = info.settings
        self._ensure_seats(len(info.seats))
        for state in info.seats:
            seat = self.seats[state.seat]
            seat.name, seat.occupied, seat.is_bot = state.name, state.occupied, state.is_bot
            seat.bot_kind = state.bot_kind
            seat.connected, seat.latency_ms = state.connected or state.is_bot, state.latency_ms
            seat.strikes, seat.taken_over, seat.eliminated = state.strikes, state.taken_over, state.eliminated
        if info.status == table_pb2.TABLE_STATUS_FINISHED:
            self.match_over = True

    def apply_view(self, view: views_pb2.SeatView) -> None:
        """Replace everything known with a whole SeatView (a Snapshot, or one fetched with GetView)."""
        self.table_id = view.table_id
        self.seat = None if view.is_spectator else view.seat
        self.settings = view.settings
        self.table_name = view.settings.name
        self.seats = []
        self._ensure_seats(len(view.seats))
        for state in view.seats:
            self.seats[state.seat] = _seat_from_state(state, _host_seconds(view.view_time))
        self.hand = _faces(view.hand)
        self.top_card = face_of(view.top_card.card) if view.top_card.HasField("card") else None
        self.current_color = view.current_color
        self.direction = view.direction
        self.seat_to_act = view.seat_to_act if view.HasField("seat_to_act") else None
        if self.seat_to_act is not None and view.HasField("turn_deadline"):
            self.seats[self.seat_to_act].deadline = _host_seconds(view.turn_deadline)
        self.obligation = _copy(view.draw_obligation) if view.HasField("draw_obligation") else None
        self.windows = {w.id: _copy(w) for w in view.open_windows}
        self.silence_seat = view.silence_seat if view.HasField("silence_seat") else None
        self.draw_pile_size = view.draw_pile_size
        self.round_number = view.round_number
        self.dealer = view.dealer if view.HasField("dealer") else None
        self.phase = view.phase
        self.match_over = view.phase == views_pb2.PHASE_MATCH_OVER
        self.winners = tuple(view.winners)
        if view.event_number >= self.legal_number:
            self.legal = _copy(view.legal_actions)
            self.legal_number = view.event_number
        self.event_number = max(self.event_number, view.event_number)

    def apply(self, event: events_pb2.Event, at: float | None = None) -> None:
        """Apply one event (in number order). Unknown payloads only move the number on.

        `at` is when the screen shows it (host seconds; default: the event's own time): the banners it
        puts on the table stay from then for their life, however late a paced screen shows it."""
        kind = event.WhichOneof("payload")
        self.shown_at = at if at is not None else event.time.seconds + event.time.nanos / 1e9
        if kind == "snapshot":
            self.apply_view(event.snapshot.view)
            self._say(event.number, "(caught up from a snapshot of the table)", "dim")
            return
        self.event_number = max(self.event_number, event.number)
        if event.HasField("your_legal_actions") and event.number >= self.legal_number:
            self.legal = _copy(event.your_legal_actions)
            self.legal_number = event.number
        if kind is None:
            return
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event, getattr(event, kind))
        self._narrate(event, kind)
        shown = banners_for(event, self.name_of, self.settings.clock.strikes_before_takeover)
        if shown:
            self.banners.extend(dataclasses.replace(banner, at=self.shown_at) for banner in shown)

    def banner_at(self, place: int, now: float) -> Banner | None:
        """The newest banner on `place` (a seat, or `PILE`) still shown at host time `now`, or None."""
        for banner in reversed(self.banners):
            if banner.place == place and banner.is_shown(now):
                return banner
        return None

    def set_connection(self, state: str, note: str = "") -> None:
        """Say how the link to the host stands; while it is down the legal actions are not trusted.

        `note` says why (shown while the link is not connected); CONNECTED forgets it."""
        self.connection = state
        self.connection_note = "" if state == ConnectionState.CONNECTED else (note or self.connection_note)

    # ------------------------------------------------------------------------------- internals

    def _ensure_seats(self, count: int) -> None:
        while len(self.seats) < count:
            self.seats.append(SeatModel(len(self.seats)))

    def _seat(self, seat: int) -> SeatModel:
        self._ensure_seats(seat + 1)
        return self.seats[seat]

    def _say(self, number: int, text: str, style: str = "") -> None:
        self.log.append(LogLine(number, text, style))

    def _narrate(self, event: events_pb2.Event, kind: str) -> None:
        if kind in _OWN_WORDS:
            return
        text = describe(event, [s.name or f"seat {s.seat}" for s in self.seats])
        if text:
            self._say(event.number, text, _STYLES.get(kind, ""))

    def _set_size(self, seat: int, size: int) -> None:
        model = self._seat(seat)
        model.hand_size = max(0, size)
        if model.hand_size != 1:
            model.called_uno = False

    def _take_from_hand(self, faces: list[CardFace]) -> None:
        for face in faces:
            if face in self.hand:
                self.hand.remove(face)

    def _set_hands(self, hands: object) -> None:
        for hand in hands:  # type: ignore[attr-defined]
            self._set_size(hand.seat, hand.count)
            if hand.seat == self.seat:
                self.hand = _faces(hand.cards)


_M = TypeVar("_M", views_pb2.DrawObligation, views_pb2.ReactionWindow, actions_pb2.LegalActions)


def _copy(message: _M) -> _M:
    duplicate = type(message)()
    duplicate.CopyFrom(message)
    return duplicate


def _seat_from_state(state: table_pb2.SeatState, view_time: float) -> SeatModel:
    remaining = _duration_seconds(state.clock_remaining)
    return SeatModel(
        seat=state.seat, name=state.name, occupied=state.occupied, is_bot=state.is_bot, bot_kind=state.bot_kind,
        connected=state.connected or state.is_bot, hand_size=state.hand_size, called_uno=state.called_uno,
        score=state.score, strikes=state.strikes, latency_ms=state.latency_ms, eliminated=state.eliminated,
        taken_over=state.taken_over, deadline=view_time + remaining if remaining > 0 else None,
        time_bank=_duration_seconds(state.time_bank_remaining),
    )


# ------------------------------------------------------------------------------- event handlers
# One small function per payload; each reads its payload and changes the model, nothing else.

def _player_joined(m: GameModel, e: events_pb2.Event, p: events_pb2.PlayerJoined) -> None:
    seat = m._seat(p.seat)
    seat.name, seat.occupied, seat.is_bot = p.name, True, False


def _bot_seated(m: GameModel, e: events_pb2.Event, p: events_pb2.BotSeated) -> None:
    seat = m._seat(p.seat)
    seat.name, seat.occupied, seat.is_bot, seat.connected = p.name, True, True, True
    seat.bot_kind = p.bot_kind


def _player_left(m: GameModel, e: events_pb2.Event, p: events_pb2.PlayerLeft) -> None:
    seat = m._seat(p.seat)
    if m.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS:
        seat.name, seat.occupied = "", False


def _connection(m: GameModel, e: events_pb2.Event, p: events_pb2.SeatConnectionChanged) -> None:
    m._seat(p.seat).connected = p.connected


def _taken_over(m: GameModel, e: events_pb2.Event, p: events_pb2.SeatTakenOver) -> None:
    seat = m._seat(p.seat)
    seat.taken_over = True
    if p.policy == table_pb2.TAKEOVER_POLICY_FORFEIT:
        seat.eliminated = True
    else:
        seat.is_bot = True
    if p.seat == m.seat:
        why = "after too many timeouts" if p.reason == events_pb2.TAKEOVER_REASON_STRIKES else "after you left"
        what = "forfeited" if p.policy == table_pb2.TAKEOVER_POLICY_FORFEIT else "taken over by a bot"
        m.notice = f"Your seat was {what} {why}: you can still watch."


def _match_started(m: GameModel, e: events_pb2.Event, p: events_pb2.MatchStarted) -> None:
    m.invite = ""  # "friends join with..." says nothing once the match is under way
    m.settings = p.settings
    m.table_name = p.settings.name
    m._ensure_seats(len(p.seats))
    for state in p.seats:
        m.seats[state.seat] = _seat_from_state(state, 0.0)
        m.seats[state.seat].deadline = None
    m.phase = views_pb2.PHASE_SHUFFLE
    m.fairness_on = False


def _round_started(m: GameModel, e: events_pb2.Event, p: events_pb2.RoundStarted) -> None:
    m.round_number, m.dealer = p.round_number, p.dealer_seat
    m.hand, m.top_card, m.current_color = [], None, 0
    m.direction, m.obligation, m.windows = views_pb2.DIRECTION_CLOCKWISE, None, {}
    # The last round's scoreboard stays: the screen shows it until the player closed it.
    m.silence_seat, m.seat_to_act, m.last_race = None, None, None
    m.last_play, m.revealed, m.invite = None, None, ""
    for seat in m.seats:
        seat.hand_size, seat.called_uno, seat.deadline = 0, False, None
    m.phase = views_pb2.PHASE_TURN


def _cards_dealt(m: GameModel, e: events_pb2.Event, p: events_pb2.CardsDealt) -> None:
    m._set_hands(p.hands)
    # A host that leaves the pile's size unset: the committed deck's size less the cards dealt.
    m.draw_pile_size = p.draw_pile_size or max(0, m.draw_pile_size - sum(h.count for h in p.hands))


def _deck_committed(m: GameModel, e: events_pb2.Event, p: events_pb2.DeckCommitted) -> None:
    if p.deck_number == 0:
        m.draw_pile_size = p.deck_size
        m.shuffle_contributors = tuple(p.contributing_seats)


def _first_card(m: GameModel, e: events_pb2.Event, p: events_pb2.FirstCardTurned) -> None:
    m.top_card = face_of(p.card.card)
    m.current_color = 0 if m.top_card.is_black else m.top_card.color
    m.draw_pile_size = max(0, m.draw_pile_size - 1)


def _first_card_returned(m: GameModel, e: events_pb2.Event, p: events_pb2.FirstCardReturned) -> None:
    m.top_card, m.current_color = None, 0  # the card went back into the pile it was turned from (S4)


def _turn_started(m: GameModel, e: events_pb2.Event, p: events_pb2.TurnStarted) -> None:
    for seat in m.seats:
        seat.deadline = None
    m.seat_to_act = p.seat
    if m.obligation is not None and m.obligation.target_seat != p.seat:
        m.obligation = None  # only its target answers an obligation: play moved on, so it was settled
    seat = m._seat(p.seat)
    seat.deadline = _host_seconds(p.deadline) if p.HasField("deadline") else None
    if p.HasField("time_bank_remaining"):
        seat.time_bank = _duration_seconds(p.time_bank_remaining)
    m.phase = views_pb2.PHASE_TURN


def _cards_played(m: GameModel, e: events_pb2.Event, p: events_pb2.CardsPlayed) -> None:
    faces = _faces(p.cards)
    seat = m._seat(p.seat)
    derived = seat.hand_size - len(p.cards)
    if p.seat == m.seat:
        m._take_from_hand(faces)
        derived = len(m.hand)
    m._set_size(p.seat, p.hand_size or derived)
    if p.called_uno:
        seat.called_uno = True
    if faces:
        m.top_card = faces[-1]
        m.current_color = 0 if m.top_card.is_black else m.top_card.color
        m.last_play = LastPlay(p.seat, tuple(faces), p.kind)
    if m.silence_seat == p.seat:
        m.silence_seat = None


def _color_chosen(m: GameModel, e: events_pb2.Event, p: events_pb2.ColorChosen) -> None:
    m.current_color = p.color


def _cards_drawn(m: GameModel, e: events_pb2.Event, p: events_pb2.CardsDrawn) -> None:
    seat = m._seat(p.seat)
    if p.seat == m.seat:
        m.hand.extend(_faces(p.cards))
    m._set_size(p.seat, p.hand_size or seat.hand_size + p.count)
    m.draw_pile_size = max(0, m.draw_pile_size - p.count)
    if p.reason in _SETTLING_DRAWS:
        m.obligation = None


# Draws that settle the open obligation (a host may not send the DrawObligationChanged that clears it).
_SETTLING_DRAWS: Final = frozenset({
    events_pb2.DRAW_REASON_OBLIGATION, events_pb2.DRAW_REASON_CHALLENGE_LOST, events_pb2.DRAW_REASON_BLUFF_CAUGHT,
})


def _direction(m: GameModel, e: events_pb2.Event, p: events_pb2.DirectionReversed) -> None:
    m.direction = p.direction


def _obligation(m: GameModel, e: events_pb2.Event, p: events_pb2.DrawObligationChanged) -> None:
    m.obligation = _copy(p.obligation) if p.HasField("obligation") else None


def _reshuffled(m: GameModel, e: events_pb2.Event, p: events_pb2.PileReshuffled) -> None:
    # It comes in the middle of a draw: the old pile's last cards are still counted here, and the
    # CardsDrawn that follows takes them off with the rest of its draw (events.proto, PileReshuffled).
    m.draw_pile_size += p.draw_pile_size


def _silence(m: GameModel, e: events_pb2.Event, p: events_pb2.SilenceStarted) -> None:
    m.silence_seat = p.seat


def _uno_called(m: GameModel, e: events_pb2.Event, p: events_pb2.UnoCalled) -> None:
    m._seat(p.seat).called_uno = True


def _taken_back(m: GameModel, e: events_pb2.Event, p: events_pb2.CardTakenBack) -> None:
    seat = m._seat(p.seat)
    if p.seat == m.seat and p.card.HasField("card"):
        m.hand.append(face_of(p.card.card))
    m._set_size(p.seat, seat.hand_size + 1)
    if p.top_card.HasField("card"):
        m.top_card = face_of(p.top_card.card)
    m.current_color = p.color
    m.last_play = None  # the card taken back was the last play; who played the one under it is not known


def _hand_revealed(m: GameModel, e: events_pb2.Event, p: events_pb2.HandRevealed) -> None:
    if p.challenger_seat == m.seat or m.seat is None:
        faces = tuple(sorted(_faces(p.hand.cards)))
        if faces:  # only the challenger's copy (or an every-hand-open replay) holds the faces
            m.revealed = (p.hand.seat, faces, m.shown_at)


def _hands_rotated(m: GameModel, e: events_pb2.Event, p: events_pb2.HandsRotated) -> None:
    m._set_hands(p.hands)


def _hands_swapped(m: GameModel, e: events_pb2.Event, p: events_pb2.HandsSwapped) -> None:
    m._set_hands([p.seat_hand, p.target_hand])


def _five_swap_offered(m: GameModel, e: events_pb2.Event, p: events_pb2.FiveSwapOffered) -> None:
    m._set_size(p.seat, m._seat(p.seat).hand_size - 1)
    if p.seat == m.seat:
        m._take_from_hand(_faces([p.card]))


def _cards_exchanged(m: GameModel, e: events_pb2.Event, p: events_pb2.CardsExchanged) -> None:
    # The offer already took `given` from `seat`; now `target` swaps `received` for it.
    m._set_size(p.seat, m._seat(p.seat).hand_size + 1)
    if p.target_seat == m.seat:
        m._take_from_hand(_faces([p.received]))
        m.hand.extend(_faces([p.given]))
    if p.seat == m.seat:
        m.hand.extend(_faces([p.received]))


def _window_opened(m: GameModel, e: events_pb2.Event, p: events_pb2.ReactionWindowOpened) -> None:
    m.windows[p.window.id] = _copy(p.window)
    if p.window.blocks_play:
        m.phase = views_pb2.PHASE_WINDOW


def _window_closed(m: GameModel, e: events_pb2.Event, p: events_pb2.ReactionWindowClosed) -> None:
    m.windows.pop(p.window_id, None)
    reactions = list(p.reactions)
    if not reactions and not p.HasField("winner_seat") and not p.penalized_seats:
        return  # closed unanswered (the next player acted): nothing to report
    margin = None
    if len(reactions) >= 2:
        margin = _duration_seconds(reactions[1].reaction_time) - _duration_seconds(reactions[0].reaction_time)
    winner = p.winner_seat if p.HasField("winner_seat") else None
    m.last_race = RaceResult(p.window_id, p.kind, winner, margin, tuple(p.penalized_seats))
    m._say(e.number, race_words(m, m.last_race), "race")


def race_words(m: GameModel, race: RaceResult) -> str:
    """A race's ruling in words: who won, by how much, who pays."""
    what = window_words(race.kind)
    if race.winner is not None:
        text = f"{m.name_of(race.winner)} won the {what}"
        if race.margin is not None:
            text += f" by {race.margin * 1000:.0f} ms"
    else:
        text = f"the {what} closed"
    if race.penalized:
        text += "; " + ", ".join(m.name_of(s) for s in race.penalized) + " slowest, +2"
    return text


def _chat(m: GameModel, e: events_pb2.Event, p: events_pb2.ChatMessage) -> None:
    m.chat.append(LogLine(e.number, f"<{p.name}> {p.text}", "chat"))
    invited = parse_invitation(p.text)
    if invited is not None and p.HasField("seat") and invited != m.table_id:
        m.rematch = (p.seat, invited)


def _penalty_points(m: GameModel, e: events_pb2.Event, p: events_pb2.PenaltyPoints) -> None:
    m._seat(p.seat).score = p.total


def _timed_out(m: GameModel, e: events_pb2.Event, p: events_pb2.TurnTimedOut) -> None:
    m._seat(p.seat).strikes = p.strikes


def _scores(m: GameModel, scores: object) -> tuple[ScoreLine, ...]:
    lines = []
    for s in scores:  # type: ignore[attr-defined]
        seat = m._seat(s.seat)
        seat.score, seat.eliminated = s.total, seat.eliminated or s.eliminated
        lines.append(ScoreLine(s.seat, s.hand_points, s.round_points, s.total, s.eliminated))
    return tuple(lines)


def _round_ended(m: GameModel, e: events_pb2.Event, p: events_pb2.RoundEnded) -> None:
    hands = tuple((h.seat, tuple(_faces(h.cards))) for h in p.hands)
    m.scoreboard = Scoreboard(p.round_number, (p.winner_seat,), _scores(m, p.scores), False, hands)
    m.rounds = [r for r in m.rounds if r.round_number != p.round_number]
    m.rounds.append(RoundResult(p.round_number, p.winner_seat, m.scoreboard.lines))
    m.seat_to_act, m.windows, m.obligation = None, {}, None
    for seat in m.seats:
        seat.deadline = None
    m.phase = views_pb2.PHASE_ROUND_OVER


def _eliminated(m: GameModel, e: events_pb2.Event, p: events_pb2.PlayerEliminated) -> None:
    seat = m._seat(p.seat)
    seat.eliminated, seat.score = True, p.total


def _match_ended(m: GameModel, e: events_pb2.Event, p: events_pb2.MatchEnded) -> None:
    hands = m.scoreboard.hands if m.scoreboard else ()
    lines = _scores(m, p.scores)
    last = m.scoreboard
    if last is not None and not last.final and last.round_number == m.round_number:
        # The match ended with this round: its hand and round points stay beside the final totals.
        rounds = {line.seat: line for line in last.lines}
        lines = tuple(ScoreLine(line.seat, rounds[line.seat].hand_points, rounds[line.seat].round_points, line.total,
                                line.eliminated) if line.seat in rounds else line for line in lines)
    m.scoreboard = Scoreboard(m.round_number, tuple(p.winner_seats), lines, True, hands)
    m.match_over, m.winners, m.seat_to_act = True, tuple(p.winner_seats), None
    m.phase = views_pb2.PHASE_MATCH_OVER
    m.legal = actions_pb2.LegalActions()
    m.invite = ""


def _shuffle_committed(m: GameModel, e: events_pb2.Event, p: events_pb2.ShuffleCommitted) -> None:
    m.fairness_on = True
    m.shuffle_round = p.round_number
    m.phase = views_pb2.PHASE_SHUFFLE


def _shuffle_timed_out(m: GameModel, e: events_pb2.Event, p: events_pb2.ShuffleTimedOut) -> None:
    who = ", ".join(m.name_of(s) for s in p.seats)
    if p.revealing:
        # A seat that committed and then kept its share back saw the others' shares first: it could
        # choose between two decks. The shuffle is still fair to check, but the players should know.
        m._say(e.number, f"{who} committed but did not reveal a shuffle share: it could have chosen between "
                         "two decks", "alert")
    else:
        m._say(e.number, f"{who} sent no shuffle share in time; the deal goes on without it", "dim")


_HANDLERS: Final[dict[str, Callable[[GameModel, events_pb2.Event, Any], None]]] = {
    "player_joined": _player_joined,
    "bot_seated": _bot_seated,
    "player_left": _player_left,
    "seat_connection_changed": _connection,
    "seat_taken_over": _taken_over,
    "match_started": _match_started,
    "round_started": _round_started,
    "cards_dealt": _cards_dealt,
    "first_card_turned": _first_card,
    "first_card_returned": _first_card_returned,
    "turn_started": _turn_started,
    "cards_played": _cards_played,
    "color_chosen": _color_chosen,
    "cards_drawn": _cards_drawn,
    "direction_reversed": _direction,
    "draw_obligation_changed": _obligation,
    "pile_reshuffled": _reshuffled,
    "silence_started": _silence,
    "uno_called": _uno_called,
    "card_taken_back": _taken_back,
    "hand_revealed": _hand_revealed,
    "hands_rotated": _hands_rotated,
    "hands_swapped": _hands_swapped,
    "five_swap_offered": _five_swap_offered,
    "cards_exchanged": _cards_exchanged,
    "reaction_window_opened": _window_opened,
    "reaction_window_closed": _window_closed,
    "chat_message": _chat,
    "penalty_points": _penalty_points,
    "turn_timed_out": _timed_out,
    "round_ended": _round_ended,
    "player_eliminated": _eliminated,
    "match_ended": _match_ended,
    "shuffle_committed": _shuffle_committed,
    "deck_committed": _deck_committed,
    "shuffle_timed_out": _shuffle_timed_out,
}

# Events the model words itself (or that would only clutter the log).
_OWN_WORDS: Final = frozenset({
    "reaction_window_closed", "chat_message", "turn_started", "seat_entropy_committed",
    "seat_entropy_revealed", "shuffle_committed", "deck_committed", "shuffle_revealed",
    "reaction_window_opened", "seat_connection_changed",
    "dealer_chosen",  # the round's own line names the dealer too
})

_STYLES: Final = {
    "uno_called": "uno", "uno_caught": "alert", "round_ended": "score", "match_ended": "score",
    "turn_timed_out": "alert", "seat_taken_over": "alert", "challenge_resolved": "alert",
}
