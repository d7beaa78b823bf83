"""`unonet replay`'s model: a finished game's public log, stepped through from any point of view.

A `Replay` is built from a table's public event log (`unonet export`'s JSON lines, or a host's
database, both read as `unonet.v1.Event`s). Building it audits the whole log first, as `unonet verify`
does (`Verifier`): events numbered 1, 2, 3, ... without gaps, every commitment, opening, pile and
revealed seed checked. A log that fails any check is refused with `ReplayRefused`, naming the check and
the event: a tampered log is never shown.

Points of view (`PointOfView`):

- `None`: the public log as it is, what a spectator received;
- a seat number: what that seat received. The public log hides every card in a hand, but after a
  round's ShuffleRevealed the verified seeds give the opening (card and salt) of every committed card
  of that round (docs/fairness.md, "Auditing a round"), so the seat's own cards are filled in exactly
  where the host showed them to it: its deal and draws, the hand a 7 or 0 gave it, a five swap's
  cards. Not rebuilt: its legal actions (`your_legal_actions`, which a public log never carries) and
  the hand a Wild Draw Four challenger alone was shown (`HandRevealed`, sent without commitments to
  everyone else);
- `OPEN`: every hand open, every hidden card of a revealed round filled in.

Hands can be opened only for rounds whose seed was revealed and checked. A table dealt with a plain
seeded shuffle (no commitments) has no seed to reveal: every point of view is then the public view, and
`hidden_reason` says so; a round whose seed never came (a match abandoned mid-round) is public only too.

Except when whoever holds the seed says what each seat saw: a league game (a league-seeded table,
TableSettings.league_seeded) is a function of the seed its league recorded, so the league replays it
through the engine and renders every event for every seat (`unonet.league.hands`, on the server side:
this module never imports the engine). Given those `seat_logs`, a seat's point of view is its own log
(its cards shown wherever the host showed them to it, the challenger's HandRevealed included), and
`OPEN` merges them: each event with every seat's hidden parts filled in. Hands without commitments are
followed by their faces (a played card leaves the hand that holds one of its face).

For a screen: `received(pov)` is the whole sequence of events the point of view got, so a view model
that is a pure function of a seat's events can be fed `received(pov)[:k + 1]` for step k;
`snapshots(pov)` gives the state after each step already folded (hands, top card, colour, direction,
turn, scores, the step told in words), so stepping forwards and backwards is an index; `Cursor` keeps
that index. `render_text` prints one snapshot, for `unonet replay FILE --seat N --step K`.

Imports only the generated protocol and `unonet.fairness` (through the Verifier), never the host.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from unonet.client.audit import read_log
from unonet.client.narrate import card_text, describe
from unonet.client.verify import Verifier
from unonet.fairness import CardOpening, FairnessError
from unonet.v1 import cards_pb2, events_pb2, views_pb2

__all__ = [
    "OPEN", "Cursor", "Open", "PointOfView", "Replay", "ReplayRefused", "SeatSnapshot", "Snapshot", "render_text",
]


class Open(enum.Enum):
    """The point of view that sees every hand."""

    HANDS = "open"


OPEN = Open.HANDS
PointOfView = int | Open | None

PLAIN_SHUFFLE = ("this table dealt with a plain seeded shuffle: no card commitments and no revealed seed, "
                 "so no hand can be rebuilt; the public view only")


class ReplayRefused(ValueError):
    """The log cannot be replayed: it is malformed, or a fairness check failed (a tampered log).

    `reason` is the failed check's machine-readable name (a `VerificationError.reason` such as
    `SEED_MISMATCH`, or `EVENT_NUMBERS`, `EMPTY_LOG`, `UNKNOWN_SEAT`)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SeatSnapshot:
    """One seat after a step: its name, how many cards it holds, each card's face where this point of
    view sees it (None for a hidden card; empty when the table keeps no per-card record), its total."""

    seat: int
    name: str
    count: int
    cards: tuple[cards_pb2.Card | None, ...]
    total: int
    is_turn: bool


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The table after one step (one event) as one point of view knew it."""

    step: int
    event_number: int
    round_number: int
    top: cards_pb2.Card | None
    color: int  # a cards_pb2.Color value; COLOR_UNSPECIFIED before the first card or after a sound wild
    direction: int  # a views_pb2.Direction value
    seats: tuple[SeatSnapshot, ...]
    line: str  # the step in words ("" for an event too small to tell, such as a turn starting)
    hidden_reason: str | None  # why this point of view cannot see a hand it should, or None


def _openings_by_owner(event: events_pb2.Event) -> Iterator[tuple[cards_pb2.CardRef, tuple[int, ...]]]:
    """Each card reference in `event` that the public log may hide, with the seats the host shows it to
    (the engine's `visible_to`: a hand's holder, a five swap's two seats)."""
    kind = event.WhichOneof("payload")
    if kind == "cards_dealt":
        for hand in event.cards_dealt.hands:
            yield from ((ref, (hand.seat,)) for ref in hand.cards)
    elif kind == "cards_drawn":
        yield from ((ref, (event.cards_drawn.seat,)) for ref in event.cards_drawn.cards)
    elif kind == "hands_rotated":
        for hand in event.hands_rotated.hands:
            yield from ((ref, (hand.seat,)) for ref in hand.cards)
    elif kind == "hands_swapped":
        swapped = event.hands_swapped
        yield from ((ref, (swapped.seat,)) for ref in swapped.seat_hand.cards)
        yield from ((ref, (swapped.target_seat,)) for ref in swapped.target_hand.cards)
    elif kind == "five_swap_offered":
        yield event.five_swap_offered.card, (event.five_swap_offered.seat, event.five_swap_offered.target_seat)
    elif kind == "cards_exchanged":
        pair = (event.cards_exchanged.seat, event.cards_exchanged.target_seat)
        yield event.cards_exchanged.given, pair
        yield event.cards_exchanged.received, pair


def _open(ref: cards_pb2.CardRef, opening: CardOpening) -> None:
    ref.card.CopyFrom(cards_pb2.Card(color=cards_pb2.Color.ValueType(int(opening.card.color)),
                                     rank=cards_pb2.Rank.ValueType(int(opening.card.rank) + 1)))
    ref.salt = opening.salt


@dataclass
class _Hand:
    count: int = 0
    refs: list[cards_pb2.CardRef] = field(default_factory=list)

    def remove(self, ref: cards_pb2.CardRef) -> None:
        self.count = max(0, self.count - 1)
        for i, held in enumerate(self.refs):
            if (held.commitment == ref.commitment if ref.commitment
                    else not held.commitment and ref.HasField("card") and held.card == ref.card):
                del self.refs[i]
                return

    def add(self, ref: cards_pb2.CardRef) -> None:
        self.count += 1
        if _is_followed(ref):
            self.refs.append(ref)

    def set(self, hand: cards_pb2.SeatHand) -> None:
        self.count, self.refs = hand.count, [ref for ref in hand.cards if _is_followed(ref)]


def _is_followed(ref: cards_pb2.CardRef) -> bool:
    """A card a hand keeps track of: committed to (a fair table), or shown (a seat's own, in a league game)."""
    return bool(ref.commitment) or ref.HasField("card")


def _merged(public: Message, versions: Sequence[Message]) -> None:
    """Fill `public` in place with what any of `versions` (the same event as each seat got it) shows
    beyond it: field by field, element by element where the lists have the same length, else the
    first version that differs (only a hidden part's owners differ from the public event, and agree)."""
    for descriptor in public.DESCRIPTOR.fields:
        name = descriptor.name
        mine = getattr(public, name)
        theirs = [getattr(version, name) for version in versions]
        differing = [value for value in theirs if value != mine]
        if not differing:
            continue
        is_message = descriptor.type == FieldDescriptor.TYPE_MESSAGE
        if is_message and not descriptor.is_repeated:
            _merged(mine, differing)
        elif is_message and all(len(value) == len(mine) for value in theirs):
            for i, element in enumerate(mine):
                _merged(element, [value[i] for value in theirs])
        elif descriptor.is_repeated:
            del mine[:]
            mine.extend(differing[0])
        else:
            setattr(public, name, differing[0])



class _Table:
    """The public state one point of view's events describe, folded one event at a time."""

    def __init__(self, seat_count: int, names: list[str]) -> None:
        self.names = names
        self.hands = [_Hand() for _ in range(seat_count)]
        self.totals = [0] * seat_count
        self.round = 0
        self.top: cards_pb2.Card | None = None
        self.color: int = cards_pb2.COLOR_UNSPECIFIED
        self.direction: int = views_pb2.DIRECTION_CLOCKWISE
        self.turn: int | None = None

    def apply(self, event: events_pb2.Event) -> None:
        kind = event.WhichOneof("payload")
        handler = getattr(self, f"_on_{kind}", None) if kind is not None else None
        if handler is None:
            return
        try:
            handler(getattr(event, str(kind)))
        except IndexError:  # only a log the audit could not check (no commitments) can get here
            raise ReplayRefused("UNKNOWN_SEAT", f"event {event.number} ({kind}) names a seat the table does "
                                                f"not have ({len(self.hands)} seats)") from None

    def _on_player_joined(self, msg: events_pb2.PlayerJoined) -> None:
        self.names[msg.seat] = msg.name

    def _on_bot_seated(self, msg: events_pb2.BotSeated) -> None:
        self.names[msg.seat] = msg.name

    def _on_round_started(self, msg: events_pb2.RoundStarted) -> None:
        self.round, self.top, self.turn = msg.round_number, None, None
        self.color, self.direction = cards_pb2.COLOR_UNSPECIFIED, views_pb2.DIRECTION_CLOCKWISE
        self.hands = [_Hand() for _ in self.hands]

    def _on_cards_dealt(self, msg: events_pb2.CardsDealt) -> None:
        for hand in msg.hands:
            self.hands[hand.seat].set(hand)

    def _face(self, card: cards_pb2.Card) -> None:
        self.top = card
        if card.rank == cards_pb2.RANK_SOUND_WILD:
            self.color = cards_pb2.COLOR_UNSPECIFIED
        elif card.color != cards_pb2.COLOR_BLACK:
            self.color = card.color

    def _on_first_card_turned(self, msg: events_pb2.FirstCardTurned) -> None:
        self._face(msg.card.card)

    def _on_cards_played(self, msg: events_pb2.CardsPlayed) -> None:
        for ref in msg.cards:
            self.hands[msg.seat].remove(ref)
        if msg.cards:
            self._face(msg.cards[-1].card)

    def _on_color_chosen(self, msg: events_pb2.ColorChosen) -> None:
        self.color = msg.color

    def _on_cards_drawn(self, msg: events_pb2.CardsDrawn) -> None:
        hand = self.hands[msg.seat]
        if msg.cards:
            for ref in msg.cards:
                hand.add(ref)
        else:
            hand.count += msg.count

    def _on_card_taken_back(self, msg: events_pb2.CardTakenBack) -> None:
        self.hands[msg.seat].add(msg.card)
        self.top, self.color = msg.top_card.card, msg.color

    def _on_hands_rotated(self, msg: events_pb2.HandsRotated) -> None:
        for hand in msg.hands:
            self.hands[hand.seat].set(hand)

    def _on_hands_swapped(self, msg: events_pb2.HandsSwapped) -> None:
        self.hands[msg.seat].set(msg.seat_hand)
        self.hands[msg.target_seat].set(msg.target_hand)

    def _on_five_swap_offered(self, msg: events_pb2.FiveSwapOffered) -> None:
        self.hands[msg.seat].remove(msg.card)

    def _on_cards_exchanged(self, msg: events_pb2.CardsExchanged) -> None:
        self.hands[msg.target_seat].remove(msg.received)
        self.hands[msg.target_seat].add(msg.given)
        self.hands[msg.seat].add(msg.received)

    def _on_direction_reversed(self, msg: events_pb2.DirectionReversed) -> None:
        self.direction = msg.direction

    def _on_turn_started(self, msg: events_pb2.TurnStarted) -> None:
        self.turn = msg.seat

    def _on_round_ended(self, msg: events_pb2.RoundEnded) -> None:
        for hand in msg.hands:
            self.hands[hand.seat].set(hand)
        self._scores(msg.scores)
        self.turn = None

    def _on_match_ended(self, msg: events_pb2.MatchEnded) -> None:
        self._scores(msg.scores)
        self.turn = None

    def _scores(self, scores: Sequence[events_pb2.SeatScore]) -> None:
        for score in scores:
            self.totals[score.seat] = score.total

    def seats(self) -> tuple[SeatSnapshot, ...]:
        return tuple(
            SeatSnapshot(seat, self.names[seat] or f"seat {seat}", hand.count,
                         tuple(cards_pb2.Card(color=r.card.color, rank=r.card.rank) if r.HasField("card") else None
                               for r in hand.refs),
                         self.totals[seat], self.turn == seat)
            for seat, hand in enumerate(self.hands)
        )


def _seats(events: Sequence[events_pb2.Event]) -> tuple[int, list[str]]:
    """The seat count and names a log gives: MatchStarted's, else (a match that never started) the
    seats its joins named."""
    started = next((e.match_started for e in events if e.HasField("match_started")), None)
    if started is not None:
        names = [""] * started.settings.seat_count
        for state in started.seats:
            if state.seat < len(names):
                names[state.seat] = state.name
        return len(names), names
    joined = {e.player_joined.seat: e.player_joined.name for e in events if e.HasField("player_joined")}
    joined |= {e.bot_seated.seat: e.bot_seated.name for e in events if e.HasField("bot_seated")}
    count = max(joined, default=-1) + 1
    return count, [joined.get(seat, "") for seat in range(count)]


class Replay:
    """A finished (or abandoned) game's public log, audited, ready to step through from any point of view.

    Raises ReplayRefused from the constructor for a log that is empty, not numbered 1, 2, 3, ... or
    fails any fairness check, or (SEAT_LOGS) `seat_logs` that are not one log per seat, event for event
    the public one's. Nothing here touches the network or the host.

    `seat_logs`, when given, are what each seat received (a league game's, `unonet.league.hands`): every
    point of view then shows its hands, in every round.

    Attributes:
        is_fair: the table dealt with the commit-reveal shuffle (a ShuffleCommitted is in the log).
        has_hands: a seat's or the open point of view can show hands (a fair table, or `seat_logs`).
        dealt_rounds: the numbers of the rounds the log deals, in order.
        open_rounds: the dealt rounds whose seed was revealed (and checked): those whose hands open.
        seat_count, names: the table's seats and their players' names (as the log last named them
            before the match; "" for a seat never named).
    """

    def __init__(self, table_id: str, events: Sequence[events_pb2.Event], *,
                 seat_logs: Mapping[int, Sequence[events_pb2.Event]] | None = None) -> None:
        self.table_id = table_id
        self.events = list(events)
        if not self.events:
            raise ReplayRefused("EMPTY_LOG", f"the log of table {table_id!r} holds no event")
        numbers = [event.number for event in self.events]
        if numbers != list(range(1, len(numbers) + 1)):
            first = next(i + 1 for i, n in enumerate(numbers) if n != i + 1)
            raise ReplayRefused("EVENT_NUMBERS", f"events are not numbered 1, 2, 3, ... (event {first} is missing "
                                                 "or out of place): the log was cut or edited")
        self.verifier = Verifier(table_id)
        try:
            self.verifier.feed_all(self.events)
        except FairnessError as error:  # a failed check, or a card that is no card (InvalidInput)
            raise ReplayRefused(error.reason, f"the log fails its fairness audit: {error}") from error
        except ValueError as error:  # an enum value no card or colour has
            raise ReplayRefused("MALFORMED_LOG", f"the log holds a value no event can carry: {error}") from error
        self.openings: dict[bytes, CardOpening] = dict(self.verifier.revealed)
        self.seat_count, self.names = _seats(self.events)
        self.is_fair = any(event.HasField("shuffle_committed") for event in self.events)
        revealed = {e.shuffle_revealed.round_number for e in self.events if e.HasField("shuffle_revealed")}
        self.dealt_rounds = tuple(e.round_started.round_number for e in self.events if e.HasField("round_started"))
        self.open_rounds = frozenset(revealed & set(self.dealt_rounds)) if self.is_fair else frozenset()
        self.seat_logs = None if seat_logs is None else self._checked(seat_logs)
        if self.seat_logs is not None:
            self.open_rounds = frozenset(self.dealt_rounds)
        self.has_hands = self.is_fair or self.seat_logs is not None
        self._received: dict[PointOfView, list[events_pb2.Event]] = {}
        self._snapshots: dict[PointOfView, list[Snapshot]] = {}

    @classmethod
    def from_log(cls, stream: IO[bytes], table_id: str | None = None) -> Replay:
        """Read either log form of `unonet.client.audit` (a binary log needs `table_id`).

        Raises ReplayRefused for a log that cannot be read or replayed."""
        try:
            table_id, events = read_log(stream, table_id)
        except ValueError as error:
            raise ReplayRefused("MALFORMED_LOG", str(error)) from error
        return cls(table_id, events)

    def _checked(self, seat_logs: Mapping[int, Sequence[events_pb2.Event]]) -> dict[int, list[events_pb2.Event]]:
        if sorted(seat_logs) != list(range(self.seat_count)):
            raise ReplayRefused("SEAT_LOGS", f"seat logs for seats {sorted(seat_logs)}, but the table has "
                                             f"{self.seat_count} seats")
        kinds = [event.WhichOneof("payload") for event in self.events]
        for seat, log in seat_logs.items():
            if [(e.number, e.WhichOneof("payload")) for e in log] != list(zip(range(1, len(kinds) + 1), kinds,
                                                                            strict=True)):
                raise ReplayRefused("SEAT_LOGS", f"seat {seat}'s log is not the public log's events, one for one")
        return {seat: list(log) for seat, log in seat_logs.items()}

    def __len__(self) -> int:
        """The number of steps: one per event."""
        return len(self.events)

    def hidden_reason(self, pov: PointOfView, round_number: int | None = None) -> str | None:
        """Why `pov` cannot see the hands it should in `round_number` (any round when None), or None."""
        if pov is None or self.seat_logs is not None:
            return None
        if not self.is_fair:
            return PLAIN_SHUFFLE
        unrevealed = [n for n in self.dealt_rounds if n not in self.open_rounds and round_number in (None, n)]
        if not unrevealed:
            return None
        rounds = ", ".join(str(n) for n in unrevealed)
        return (f"the host never revealed the shuffle seed of round {rounds} (the match stopped before the "
                "round ended), so its hands cannot be rebuilt; the public view only")

    def _check(self, pov: PointOfView) -> None:
        if isinstance(pov, int) and not 0 <= pov < self.seat_count:
            raise ReplayRefused("UNKNOWN_SEAT", f"seat {pov} is not at this table of {self.seat_count} seats")

    def received(self, pov: PointOfView) -> list[events_pb2.Event]:
        """Every event as `pov` received it (see the module docstring); the public log for None.

        Raises ReplayRefused (UNKNOWN_SEAT) for a seat the table does not have."""
        self._check(pov)
        if pov not in self._received:
            self._received[pov] = self._rebuild(pov)
        return self._received[pov]

    def _rebuild(self, pov: PointOfView) -> list[events_pb2.Event]:
        """Render every event for `pov`, following the public hands (by commitment) on the way, so that
        a challenger's HandRevealed gets the hand the accused held when it played the Wild Draw Four."""
        if pov is None:
            return list(self.events)
        if self.seat_logs is not None:
            return self._from_seat_logs(pov)
        table = _Table(self.seat_count, list(self.names))
        held_when_played: dict[int, list[cards_pb2.CardRef]] = {}  # a Wild Draw Four's event -> the rest
        out = []
        for event in self.events:
            played = event.cards_played if event.HasField("cards_played") else None
            if played is not None and played.cards and played.cards[0].card.rank == cards_pb2.RANK_WILD_DRAW_FOUR:
                first = played.cards[0].commitment
                held_when_played[event.number] = [r for r in table.hands[played.seat].refs if r.commitment != first]
            rendered = self._render(event, pov)
            if event.HasField("hand_revealed") and pov in (OPEN, event.hand_revealed.challenger_seat):
                rendered = self._revealed(rendered, held_when_played.get(event.hand_revealed.played_event_number))
            table.apply(event)
            out.append(rendered)
        return out

    def _from_seat_logs(self, pov: int | Open) -> list[events_pb2.Event]:
        """A seat's own log, or (OPEN) every seat's merged into each event."""
        assert self.seat_logs is not None
        if isinstance(pov, int):
            return list(self.seat_logs[pov])
        out = []
        for i, event in enumerate(self.events):
            versions = [log[i] for log in self.seat_logs.values() if log[i] != event]
            if not versions:
                out.append(event)
                continue
            shown = events_pb2.Event()
            shown.CopyFrom(event)
            _merged(shown, versions)
            out.append(shown)
        return out

    def _revealed(self, event: events_pb2.Event, held: list[cards_pb2.CardRef] | None) -> events_pb2.Event:
        """The challenger's HandRevealed: the accused's hand as openings, when every one of them is known."""
        if held is None or event.hand_revealed.hand.cards or any(r.commitment not in self.openings for r in held):
            return event
        shown = events_pb2.Event()
        shown.CopyFrom(event)
        for ref in held:
            card = shown.hand_revealed.hand.cards.add(commitment=ref.commitment, deck_number=ref.deck_number,
                                                      position=ref.position)
            _open(card, self.openings[ref.commitment])
        return shown

    def _render(self, event: events_pb2.Event, pov: PointOfView) -> events_pb2.Event:
        """`event` with the cards `pov` was shown opened: a copy when any is, else the event itself."""
        if pov is None or not any(self._shows(ref, owners, pov) for ref, owners in _openings_by_owner(event)):
            return event
        shown = events_pb2.Event()
        shown.CopyFrom(event)
        for ref, owners in _openings_by_owner(shown):
            if self._shows(ref, owners, pov):
                _open(ref, self.openings[ref.commitment])
        return shown

    def _shows(self, ref: cards_pb2.CardRef, owners: tuple[int, ...], pov: PointOfView) -> bool:
        """True when the public log hides this card, its opening is known and `pov` may see it."""
        return (not ref.HasField("card") and ref.commitment in self.openings
                and (pov is OPEN or pov in owners))

    def snapshots(self, pov: PointOfView) -> list[Snapshot]:
        """The table after each step as `pov` knew it, index k for step k (event k + 1)."""
        if pov not in self._snapshots:
            table = _Table(self.seat_count, list(self.names))
            names = table.names
            out = []
            for step, event in enumerate(self.received(pov)):
                table.apply(event)
                out.append(Snapshot(step, event.number, table.round, table.top, table.color, table.direction,
                                    table.seats(), describe(event, names) or "",
                                    self.hidden_reason(pov, table.round or None)))
            self._snapshots[pov] = out
        return self._snapshots[pov]

    def cursor(self, pov: PointOfView, step: int = 0) -> Cursor:
        """A position in the replay for `pov`, at `step` (clamped to the log)."""
        cursor = Cursor(self, pov)
        cursor.seek(step)
        return cursor


class Cursor:
    """One point of view's position in a replay: step forwards and backwards, read what it shows."""

    def __init__(self, replay: Replay, pov: PointOfView) -> None:
        self.replay = replay
        self.pov = pov
        self.step = 0
        self._snapshots = replay.snapshots(pov)

    def seek(self, step: int) -> Snapshot:
        """Go to `step`, clamped to 0 .. len(replay) - 1; returns the snapshot there."""
        self.step = max(0, min(step, len(self.replay) - 1))
        return self.snapshot

    def forward(self, steps: int = 1) -> Snapshot:
        return self.seek(self.step + steps)

    def back(self, steps: int = 1) -> Snapshot:
        return self.seek(self.step - steps)

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshots[self.step]

    @property
    def events(self) -> list[events_pb2.Event]:
        """What the point of view had received up to and including this step."""
        return self.replay.received(self.pov)[: self.step + 1]


_DIRECTIONS: dict[int, str] = {views_pb2.DIRECTION_CLOCKWISE: "clockwise",
                               views_pb2.DIRECTION_COUNTERCLOCKWISE: "counterclockwise"}
_COLORS: dict[int, str] = {cards_pb2.COLOR_RED: "red", cards_pb2.COLOR_YELLOW: "yellow",
                           cards_pb2.COLOR_GREEN: "green", cards_pb2.COLOR_BLUE: "blue"}


def _pov_text(pov: PointOfView) -> str:
    return "every hand open" if pov is OPEN else "the public view" if pov is None else f"seat {pov}'s view"


def render_text(replay: Replay, pov: PointOfView, snapshot: Snapshot) -> str:
    """One step as plain text: what happened, the top card and colour, each seat's hand and total."""
    lines = [f"table {replay.table_id}, step {snapshot.step + 1} of {len(replay)} (event {snapshot.event_number}), "
             f"round {snapshot.round_number}, {_pov_text(pov)}"]
    if snapshot.line:
        lines.append(f"  {snapshot.line}")
    top = card_text(snapshot.top) if snapshot.top is not None else "none"
    lines.append(f"  top card: {top}; colour: {_COLORS.get(snapshot.color, 'none')}; "
                 f"direction: {_DIRECTIONS.get(snapshot.direction, 'none')}")
    for seat in snapshot.seats:
        faces = [card_text(card) if card is not None else "?" for card in seat.cards]
        hand = ", ".join(faces) if faces and any(card is not None for card in seat.cards) else "hidden"
        marker = ">" if seat.is_turn else " "
        lines.append(f"  {marker} {seat.seat} {seat.name}: {seat.count} card(s) [{hand}]  total {seat.total}")
    if snapshot.hidden_reason:
        lines.append(f"  note: {snapshot.hidden_reason}")
    return "\n".join(lines) + "\n"
