"""Reaction windows as races the host referees (docs/fairness.md section 10, docs/protocol.md "Races
step by step").

Every window the engine opens (UNO catch U2, slap U5, jump-in H6/H7, skip escape H8, run cut H4, Sound
Wild H12) becomes a `Race`. The host sends it to every seat at once (ReactionWindowOpened is an event
every subscriber receives) with its deadline and latency allowance. The answers to it (React,
CatchUno/CallUno, an out-of-turn PlayCards naming the window) are *collected* with their arrival time,
not applied. When the race is due, the host rules it with `unonet.fairness.order_reactions`: each
answer's reaction time is its arrival, measured from when that seat's copy of the window was sent, less
the latency the seat is forgiven (capped; a client's own timing is believed within what the host can
check). Ties within the tolerance are broken by a draw seeded from the round's committed shuffle seed
and the window (from the table seed where shuffles are not committed). The ruling is journalled
(a `journal.Ruling`) with every measurement it used, so a restarted host replays the ruling instead
of recomputing it from clocks; then the answers are applied with `Match.resolve_window` in the ruled
order, which gives what applying them one after another would, except that the losers of an exclusive
window lose at no cost; and every answering RPC is answered.

When a race is due (and play meanwhile):
- slap, Sound Wild, run cut (blocking: the engine already holds the turn): at
  `window_close_time(opened, reaction_time, allowances)`, the deadline plus the largest allowance of
  the seats in the race. A command the open window would refuse (a turn's draw, a jump-in) waits for
  the ruling;
- UNO catch: at the same time. Every other command (the next player's turn, a bot's move) is *held*
  until then, so a far player's catch is never beaten by the next player simply acting first;
- jump-in and skip escape: these have no deadline (they close when the next turn begins), and most
  cards played open one, so holding every turn for them would slow all play. Nothing is held until a
  first answer arrives; the race is then due at that arrival plus the largest allowance (any seat that
  truly reacted earlier is heard by then), and other commands are held until it is ruled;
- any race: at once when every seat in it has answered, since nothing can change the order any more.
  Host bots answer at once, so a table of bots never waits.

A command names the window it answers (React, or `reaction_window_id`) and is judged against that
window only (`submit`): a play out of turn that names none was meant for the seat's own turn and is
refused NOT_YOUR_TURN, never judged as a wrong jump-in (H6).

The seats in a race are the window's eligible seats, plus for an UNO catch the seat that may be caught
(its CallUno races the catches). Latency is measured per seat from the four timestamps of
`TimeService.Ping` (the client is the initiator; it reports each ping's arrival in the next one); the
figures used are those held when the window opened.

The race book owns the races and the seats' latency; its table owns the log, the clocks and the
command records. It reaches the table only through `RaceTable` and hands back what a ruling produced
(`Ruled`) for the table to log and remember.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from unonet.engine import Action, CallUno, CatchUno, IllegalAction, Phase, Play, React, UnoError, WindowKind
from unonet.engine import events as ev
from unonet.fairness.errors import InvalidInput
from unonet.fairness.latency import DEFAULT_MAX_FORGIVEN_S, LatencyEstimator, PingSample
from unonet.fairness.races import Reaction, order_reactions
from unonet.fairness.shuffle import derive_seed
from unonet.host import journal
from unonet.host.actions_json import dump_action, load_action
from unonet.host.errors import invalid, precondition
from unonet.v1 import actions_pb2, events_pb2
from unonet.wire import convert

if TYPE_CHECKING:
    from unonet.engine import Game, Match, Window
    from unonet.host.shuffles import RoundCards

PINGS_KEPT = 8  # pings waiting for their arrival report, per seat
RULED_KEPT = 256  # windows remembered after their ruling, to answer late answers RACE_LOST
# A ruling entry's "v": 2 rules as the answers applied in order would (Game.resolve_window); entries
# without it were ruled before that and replay as they were.
RULING_VERSION = 3
APPLIED_IN_ORDER_SINCE = 2
"""Rulings from version 2 on apply their answers one after another (version 1: `_follow_ups_as_before`)."""
PUBLISHED_IN_FULL_SINCE = 3
"""Rulings from version 3 on publish their terms and each copy's send time (docs/fairness.md 10.6); older
ones replay to the events they produced then."""
EXCLUSIVE = frozenset({WindowKind.UNO_CATCH, WindowKind.JUMP_IN, WindowKind.RUN_CUT, WindowKind.SKIP_ESCAPE})
FIRST_ANSWER_STARTS_CLOCK = frozenset({WindowKind.JUMP_IN, WindowKind.SKIP_ESCAPE})
REACTED_TO = frozenset({WindowKind.UNO_SLAP, WindowKind.SOUND_WILD})  # the windows a React answers
WINDOW_NAMES = {  # each kind of window in words, with its article, for messages
    WindowKind.UNO_CATCH: "an UNO catch", WindowKind.JUMP_IN: "a jump-in", WindowKind.RUN_CUT: "a run-cut",
    WindowKind.UNO_SLAP: "an UNO slap", WindowKind.SOUND_WILD: "a Sound Wild", WindowKind.SKIP_ESCAPE: "a skip-escape",
}


@dataclass
class Answer:
    """One collected answer: who, which command, when it arrived, and the client's own timing if sent."""

    seat: int
    command_id: str
    actions: list[dict[str, Any]]
    arrived_ns: int
    claimed_s: float | None = None

    def record(self) -> journal.RaceAnswer:
        """The answer as its ruling journals it."""
        return journal.RaceAnswer(self.seat, self.command_id, self.actions, self.arrived_ns, self.claimed_s)


@dataclass
class Race:
    """An open window the host referees, and the answers collected so far."""

    window: Window
    round_no: int
    participants: tuple[int, ...]
    opened_ns: int
    duration_ns: int
    allowance_ns: int
    latency: dict[int, tuple[float | None, float | None]]
    close_ns: int | None
    opened_number: int = 0
    sent_ns: dict[int, int] = field(default_factory=dict)
    answers: list[Answer] = field(default_factory=list)
    ruled: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def window_id(self) -> int:
        return self.window.id

    @property
    def deadline_ns(self) -> int | None:
        """When a window with a deadline stops taking answers, before the allowance."""
        if self.window.kind in FIRST_ANSWER_STARTS_CLOCK:
            return None
        return self.opened_ns + self.duration_ns

    def has_answered(self, seat: int) -> bool:
        return any(answer.seat == seat for answer in self.answers)

    def is_complete(self) -> bool:
        return all(self.has_answered(seat) for seat in self.participants)

    def is_holding(self) -> bool:
        """True while other commands wait for this race (an UNO catch, or an answered jump-in)."""
        return not self.window.is_blocking and (self.window.kind is WindowKind.UNO_CATCH or bool(self.answers))


@dataclass
class Waiting:
    """What a command waits for: the ruling of `race`, either as one of its answers or held behind it."""

    race: Race
    collected: bool


class RaceTable(Protocol):
    """What the race book needs from its table, and nothing more: the table owns its log, its clocks
    and its command records; the race book reads the match, asks the table to record an input, sets
    the times its races are due, and wakes the table's driver."""

    match: Match | None
    cards: RoundCards | None
    seed: int
    window_deadlines: dict[int, int]
    turn_began: int

    @property
    def reaction_time_ns(self) -> int:
        """How long a window takes answers, before latency allowances (the table's reaction time)."""
        ...

    def has_command(self, seat: int, command_id: str) -> bool:
        """True once the table applied (and remembers the result of) this seat's command id."""
        ...

    def record(self, entry: journal.AnyEntry) -> object:
        """Apply, journal and publish one input; raises (changing nothing) when it is refused."""
        ...

    def wake_driver(self, *, force: bool = False) -> None:
        """Let the table's driver look again at what is due."""
        ...


@dataclass(frozen=True)
class AnswerResult:
    """How one collected answer came out, for the table to remember under its command id."""

    seat: int
    command_id: str
    actions: list[dict[str, Any]]
    outcome: actions_pb2.CommandOutcome.ValueType


@dataclass
class Ruled:
    """What applying a ruling produced: the events for the table's log (the closing event already in
    its protocol form, with the ruling's figures) and each answer's outcome."""

    events: list[ev.Event | events_pb2.Event]
    answers: list[AnswerResult]


class RaceBook:
    """One table's races and the latency of its seats. Used under the table's lock."""

    def __init__(self, *, compensate: bool = True, max_forgiven_s: float = DEFAULT_MAX_FORGIVEN_S) -> None:
        self.compensate = compensate
        self.max_forgiven_s = max_forgiven_s
        self.latency: dict[int, LatencyEstimator] = {}
        self.races: dict[int, Race] = {}
        self._pings: dict[int, OrderedDict[int, tuple[int, int, int]]] = {}
        self._first_ping: dict[int, int] = {}  # each seat's first ping sequence this host process took
        self._ruled: OrderedDict[tuple[int, int], None] = OrderedDict()
        self._opened_at_number: dict[int, int] = {}

    # ------------------------------------------------------------------------------------- latency

    def ping(
        self, seat: int, sequence: int, client_send_ns: int, received_ns: int, sent_ns: int,
        previous: tuple[int, int] | None,
    ) -> float | None:
        """Remember a ping from `seat`; complete the earlier one `previous` = (sequence, client receive ns).

        Returns the seat's median round trip in seconds, or None before its first measurement. A report
        of a ping sent before this host process took any from the seat (in the seat's first ping to it,
        or of a sequence below that first one's) is ignored: that ping reached a host that has since
        restarted, which a client cannot know, so it is no fault. Raises INVALID_ARGUMENT
        (BAD_PING_REPORT), changing nothing, for a report of any other ping this seat has no report
        outstanding for (never sent, already reported, or among the older ones forgotten) and for one
        that makes an impossible ping.
        """
        pending = self._pings.setdefault(seat, OrderedDict())
        first = self._first_ping.get(seat)
        if previous is not None and (first is None or previous[0] < first):
            previous = None  # a ping to the host before it restarted: nothing to measure, nothing wrong
        if previous is not None:
            earlier = pending.get(previous[0])
            if earlier is None:
                raise invalid("BAD_PING_REPORT", f"seat {seat} has no ping {previous[0]} awaiting a report",
                              field="previous.sequence")
            t0, t1, t2 = earlier
            try:  # shift all four by t0: the arithmetic is unchanged and floats stay exact
                sample = PingSample(0.0, (t1 - t0) / 1e9, (t2 - t0) / 1e9, (previous[1] - t0) / 1e9)
            except InvalidInput:
                took, held = (previous[1] - t0) / 1e9, (t2 - t1) / 1e9
                raise invalid("BAD_PING_REPORT", f"ping {previous[0]} cannot have arrived {took:g} s after it was "
                              f"sent: the host held it {held:g} s", field="previous.client_receive_time") from None
            del pending[previous[0]]
            self._estimator(seat).add(sample)
        pending[sequence] = (client_send_ns, received_ns, sent_ns)
        self._first_ping.setdefault(seat, sequence)
        while len(pending) > PINGS_KEPT:
            pending.popitem(last=False)
        return self._estimator(seat).rtt()

    def _estimator(self, seat: int) -> LatencyEstimator:
        estimator = self.latency.get(seat)
        if estimator is None:
            estimator = self.latency[seat] = LatencyEstimator(max_forgiven_s=self.max_forgiven_s)
        return estimator

    def latency_ms(self, seat: int) -> int:
        """The seat's estimated one-way latency in milliseconds (SeatState.latency_ms); 0 while unknown."""
        estimator = self.latency.get(seat)
        return 0 if estimator is None else round(estimator.one_way_delay() * 1000)

    def _allowance_ns(self, seat: int) -> int:
        """The most network time a seat may be forgiven in a race (its slowest recent round trip, capped)."""
        estimator = self.latency.get(seat)
        if estimator is None or not self.compensate:
            return 0
        return int(estimator.max_network_allowance() * 1e9)

    # ------------------------------------------------------------------------------------- lifecycle

    def after_record(
        self, table: RaceTable, entry: journal.AnyEntry,
        produced: Sequence[tuple[int, ev.Event | events_pb2.Event]],
        now: int,
    ) -> dict[int, events_pb2.Event]:
        """Follow the engine's windows after a change: register new races, drop vanished ones, and keep
        `table.window_deadlines` at each race's ruling time (the driver rules a race when it is due).

        `produced` is the change's new log entries as (number, event). Returns, by event number, the
        protocol form each opened window is sent in (with its timing), for the table to put in its log.
        The latency figures a new window is opened with (each seat's round trip, the allowance) are
        written into the journal `entry` that opened it (its `races` part), before it is stored; a replay
        reads them back, so the window is sent, and ruled, with the same figures after a restart."""
        match = table.match
        if match is None:
            return {}
        game = match.game if match.round_no else None
        opened: dict[int, events_pb2.Event] = {}
        for number, event in produced:
            if isinstance(event, ev.WindowOpened) and game is not None and event.window.id in game.windows:
                figures = entry.races
                race = self._open(table, event.window, game, now, figures.get(str(event.window.id)))
                figures[str(race.window_id)] = {
                    "allowance_ns": race.allowance_ns,
                    "latency": {str(seat): list(rtts) for seat, rtts in race.latency.items()},
                }
                race.opened_number = number
                self._opened_at_number[number] = race.window_id
                opened[number] = self._opened_pb(table, race)
        live = game.windows if game is not None and not match.is_over else {}
        for window_id, race in list(self.races.items()):
            if window_id not in live or live[window_id] is not race.window:
                self._drop(race)
        for window_id in list(table.window_deadlines):
            if window_id not in self.races:
                del table.window_deadlines[window_id]
        for race in self.races.values():
            self._schedule(table, race)
        return opened

    def _open(
        self, table: RaceTable, window: Window, game: Game, now: int, recorded: dict[str, Any] | None
    ) -> Race:
        participants = tuple(window.eligible)
        if window.kind is WindowKind.UNO_CATCH and window.target is not None and window.target not in participants:
            participants += (window.target,)
        latency: dict[int, tuple[float | None, float | None]] = {}
        if recorded is not None:  # a replay: the figures the window was opened with
            latency = {int(seat): (rtts[0], rtts[1]) for seat, rtts in recorded["latency"].items()}
            allowance = int(recorded["allowance_ns"])
        else:
            for seat in participants:
                estimator = self.latency.get(seat)
                latency[seat] = (None, None) if estimator is None else (estimator.rtt(), estimator.max_rtt())
            allowance = max((self._allowance_ns(seat) for seat in participants), default=0)
        race = Race(
            window=window, round_no=game.round_no, participants=participants, opened_ns=now,
            duration_ns=table.reaction_time_ns, allowance_ns=allowance,
            latency=latency, close_ns=None,
        )
        if window.kind not in FIRST_ANSWER_STARTS_CLOCK:
            race.close_ns = now + race.duration_ns + race.allowance_ns  # fairness.window_close_time
        self.races[window.id] = race
        return race

    def _schedule(self, table: RaceTable, race: Race) -> None:
        if race.close_ns is None:
            table.window_deadlines.pop(race.window_id, None)
        else:
            table.window_deadlines[race.window_id] = race.close_ns

    def _drop(self, race: Race) -> None:
        """A window the engine closed without a ruling (the round ended): its waiters learn it is gone."""
        self.races.pop(race.window_id, None)
        self._opened_at_number.pop(race.opened_number, None)
        race.ruled.set()

    def note_sent(self, number: int, seat: int, now: int) -> None:
        """A seat's stream wrote event `number`: if it opened a race, that is when the seat's copy left."""
        window_id = self._opened_at_number.get(number)
        race = self.races.get(window_id) if window_id is not None else None
        if race is not None and seat not in race.sent_ns:
            race.sent_ns[seat] = now

    def holding(self) -> Race | None:
        """The race other commands wait for, if any."""
        return next((race for race in self.races.values() if race.is_holding()), None)

    # ------------------------------------------------------------------------------------- answers

    def race_for(self, game: Game, seat: int, action: Action) -> Race | None:
        """The open race `action` answers, or None when it is not an answer to one."""
        window = answered_window(game, seat, action)
        if window is None:
            return None
        race = self.races.get(window.id)
        return race if race is not None and race.window is window else None

    def submit(
        self, table: RaceTable, seat: int, command_id: str, actions: tuple[Action, ...], *,
        arrived_ns: int, claimed_s: float | None = None, window_hint: int = 0, based_on: int | None = None,
    ) -> Waiting | None:
        """Route a seat's command: collect it if it answers an open race, hold it behind a race, or
        return None for the caller to apply it now (also for a late answer, recorded as RACE_LOST).

        A command that names a window (React, or `reaction_window_id`) is judged against that window
        only: a window already ruled makes it a late answer (RACE_LOST, no cost); one that closed
        unruled is refused WINDOW_CLOSED; an id never opened, UNKNOWN_WINDOW; an open window it cannot
        answer, WRONG_WINDOW. A play out of turn that names no window was meant for the seat's own turn,
        which another seat's jump-in overtook (H6): it is refused NOT_YOUR_TURN, never judged as a jump-in.
        A turn play `based_on` an event older than the current turn's turn_started (the newest event the
        seat can have seen when it sent the play) was meant for a turn a jump-in took away, even when the
        new turn is the same seat's again: it is refused NOT_YOUR_TURN too, never judged on the new card.

        An answer the rules refuse only because a blocking window is open (a jump-in naming the jump-in
        window a Sound Wild or an UNO call opened with its blocking window) waits for that window's
        ruling and is then routed again, with its first arrival time: it is never refused WINDOW_OPEN.

        Raises FAILED_PRECONDITION (ALREADY_ANSWERED) for a second answer by one seat, and whatever
        the engine raises for an answer the rules refuse now (it is checked on arrival, on a copy).
        """
        match = table.match
        if match is None or match.is_over or not match.round_no or not actions:
            return None
        if table.has_command(seat, command_id):
            return None  # a retry of an applied command: the table answers it with the first result
        for open_race in self.races.values():
            pending = next((a for a in open_race.answers if a.seat == seat and a.command_id == command_id), None)
            if pending is not None:
                return Waiting(open_race, collected=True)
        game = match.game
        named = _named_window(actions[0], window_hint)
        if named and named not in game.windows and (game.round_no, named) in self._ruled:
            table.record(journal.Late(seat, command_id, named, [dump_action(a) for a in actions]))
            return None
        _check_named_window(game, seat, actions[0], named)
        if based_on is not None and _is_turn_play(game, seat, actions[0], named) and based_on < table.turn_began:
            raise precondition("NOT_YOUR_TURN", f"this play was meant for a turn of seat {seat}'s that another "
                               f"seat's jump-in took away; seat {seat}'s new turn began at event {table.turn_began}")
        race = self.race_for(game, seat, actions[0])
        if race is None:
            return self._held(game, actions)
        if race.has_answered(seat):
            raise precondition("ALREADY_ANSWERED", f"seat {seat} already answered window {race.window_id}")
        try:  # refused now: refused on arrival, and nothing is collected
            game.copy().apply_command(actions)
        except IllegalAction as refusal:
            # A card that opens a blocking window opens its jump-in window too (H6, H12): an answer to
            # that race the blocking one refuses waits for its ruling, then is judged.
            blocking = self._blocking_race(besides=race) if refusal.reason == "WINDOW_OPEN" else None
            if blocking is None:
                raise
            return Waiting(blocking, collected=False)
        self.collect(table, race, seat, command_id, [dump_action(a) for a in actions], arrived_ns, claimed_s)
        return Waiting(race, collected=True)

    def _held(self, game: Game, actions: tuple[Action, ...]) -> Waiting | None:
        """The race a command that answers none must wait for, if any: an UNO catch or an answered
        jump-in (the next turn waits for its ruling), or a blocking window that opened after the seat's
        legal actions were sent (an UNO slap called in a catch race): a command the rules would refuse
        only because that window is open waits for its ruling and is then applied, so a required play
        or draw sent as listed is never refused WINDOW_OPEN."""
        held = self.holding()
        if held is not None:
            return Waiting(held, collected=False)
        blocking = self._blocking_race()
        if blocking is None:
            return None
        try:
            game.copy().apply_command(actions)
        except IllegalAction as refusal:
            return Waiting(blocking, collected=False) if refusal.reason == "WINDOW_OPEN" else None
        except UnoError:
            return None
        return None

    def _blocking_race(self, *, besides: Race | None = None) -> Race | None:
        """An open blocking race (slap, Sound Wild, run cut) other than `besides`, if any."""
        return next((race for race in self.races.values() if race.window.is_blocking and race is not besides), None)

    def collect(
        self, table: RaceTable, race: Race, seat: int, command_id: str, actions: list[dict[str, Any]],
        arrived_ns: int, claimed_s: float | None,
    ) -> None:
        """Add an answer; make the race due at once when complete, or at first answer + allowance."""
        race.answers.append(Answer(seat, command_id, actions, arrived_ns, claimed_s))
        if race.is_complete():
            race.close_ns = min(race.close_ns or arrived_ns, arrived_ns)
        elif race.close_ns is None:
            race.close_ns = arrived_ns + race.allowance_ns
        self._schedule(table, race)
        race.changed.set()
        table.wake_driver(force=True)

    # ------------------------------------------------------------------------------------- rulings

    def closing_entry(self, table: RaceTable, window_id: int) -> journal.Close | journal.Ruling:
        """The journal entry that closes `window_id` now: its ruling, or a plain close for a window the
        host does not referee."""
        race = self.races.get(window_id)
        if race is None:
            return journal.Close(window_id)
        return self.ruling_entry(table, race)

    def ruling_entry(self, table: RaceTable, race: Race) -> journal.Ruling:
        """Rule `race` from its answers; the entry holds every measurement, the ruling and the order."""
        cards = table.cards
        if cards is not None and cards.round_no == race.round_no:
            # docs/fairness.md 10.5: unpredictable until the round's seed is revealed, then replayable.
            tie_seed = derive_seed(cards.round_seed, "race", race.window_id)
        else:  # a table without committed shuffles
            tie_seed = race_tie_seed(table.seed, race.round_no, race.window_id)
        reactions = []
        for answer in race.answers:
            sent = min(race.sent_ns.get(answer.seat, race.opened_ns), answer.arrived_ns)
            rtt, max_rtt = race.latency.get(answer.seat, (None, None))
            if not self.compensate:
                rtt, max_rtt = 0.0, None
            reactions.append(Reaction(
                seat=answer.seat,
                arrived_at=(answer.arrived_ns - sent) / 1e9,  # seconds after this seat's copy was sent
                rtt_s=rtt or 0.0,
                max_rtt_s=max_rtt,
                claimed_reaction_s=answer.claimed_s if self.compensate else None,
            ))
        duration_s = None if race.deadline_ns is None else race.duration_ns / 1e9
        ruling = order_reactions(0.0, reactions, seed=tie_seed, max_forgiven_s=self.max_forgiven_s,
                                 duration_s=duration_s)
        by_seat = {answer.seat: answer for answer in race.answers}
        return journal.Ruling(
            RULING_VERSION, race.window_id, race.round_no, race.window.kind.value, self.compensate,
            answers=[by_seat[seat].record() for seat in ruling.order],
            late=[by_seat[e.seat].record() for e in ruling.late],
            ruling=ruling.to_record(),
            opened_ns=race.opened_ns, close_ns=race.close_ns, duration_ns=race.duration_ns,
            allowance_ns=race.allowance_ns, participants=list(race.participants),
            sent_ns={str(seat): race.sent_ns.get(seat, race.opened_ns) for seat in race.participants},
        )

    def apply_ruling(self, match: Match, entry: journal.Ruling) -> Ruled:
        """Apply a journalled ruling (live or on replay) to `match`: the answers in its order, each with
        the rest of its command (a colour), and the late ones as RaceLost. Returns the events for the
        table's log and how each answer came out; the race is then over and its waiters are woken.

        Rulings journalled before the host ruled windows as their answers applied in order (no "v")
        are replayed the way they were ruled then, so old journals give the same events."""
        window_id = entry.window
        ranked, late = entry.answers, entry.late
        commands = {a.seat: [load_action(a.seat, x) for x in a.actions] for a in ranked + late}
        as_before = entry.version < APPLIED_IN_ORDER_SINCE
        game = match.game
        events: list[ev.Event] = []
        if window_id not in game.windows:
            events += [ev.RaceLost(a.seat, window_id) for a in ranked]
        elif as_before:
            events += match.resolve_window(window_id, [commands[a.seat][0] for a in ranked], as_recorded_before=True)
        else:
            events += match.resolve_window(window_id, [commands[a.seat] for a in ranked])
        lost = {e.seat for e in events if isinstance(e, ev.RaceLost) and e.window == window_id}
        if as_before:
            events += _follow_ups_as_before(match, ranked, commands, lost)
        events += [ev.RaceLost(a.seat, window_id) for a in late]
        lost |= {a.seat for a in late}
        closed = next((e for e in events if isinstance(e, ev.WindowClosed) and e.window == window_id), None)
        penalized = set(closed.penalised) if closed is not None else set()
        penalized |= {a.seat for a in ranked if any(_penalizes(e, a.seat) for e in events)}
        logged: list[ev.Event | events_pb2.Event] = list(events)
        if closed is not None:
            logged[events.index(closed)] = self._closed_pb(entry, closed, lost, penalized)
        answers = [AnswerResult(a.seat, a.cid, a.actions, _outcome(a.seat, lost, penalized))
                   for a in ranked + late]
        self._ruled[(game.round_no if entry.round is None else entry.round, window_id)] = None
        while len(self._ruled) > RULED_KEPT:
            self._ruled.popitem(last=False)
        race = self.races.pop(window_id, None)
        if race is not None:
            self._opened_at_number.pop(race.opened_number, None)
            race.ruled.set()
        return Ruled(logged, answers)

    def apply_late(self, entry: journal.Late) -> Ruled:
        """An answer to a window already ruled: it loses the race at no cost (RaceLost, RACE_LOST)."""
        answer = AnswerResult(entry.seat, entry.cid, entry.actions, actions_pb2.COMMAND_OUTCOME_RACE_LOST)
        return Ruled([ev.RaceLost(entry.seat, entry.window)], [answer])

    # ------------------------------------------------------------------------------------- protobuf

    def _opened_pb(self, table: RaceTable, race: Race) -> events_pb2.Event:
        card = table.cards.window_card(race.window_id) if table.cards is not None else None
        return convert.window_opened_pb(race.window, opened_ns=race.opened_ns, deadline_ns=race.deadline_ns,
                                        allowance_ns=race.allowance_ns, card=card)

    def window_timing(self, window_id: int) -> tuple[int, int | None, int] | None:
        """(open time, deadline or None, allowance) of an open race, for views."""
        race = self.races.get(window_id)
        return None if race is None else (race.opened_ns, race.deadline_ns, race.allowance_ns)

    def _closed_pb(
        self, entry: journal.Ruling, closed: ev.WindowClosed, lost: set[int], penalized: set[int]
    ) -> events_pb2.Event:
        """The ruled window's WindowClosed: every answer with its measurements, the tie seed and the
        winner of an exclusive window (the first answer in order that neither lost nor was penalised)."""
        ruling = entry.ruling
        answers = {a.seat: a for a in entry.answers + entry.late}
        full = entry.version >= PUBLISHED_IN_FULL_SINCE

        def sent(seat: int) -> int | None:  # as `ruling_entry` timed the answer
            return min(entry.sent_ns.get(str(seat), entry.opened_ns), answers[seat].arrived_ns) if full else None

        reactions = [
            convert.RuledReaction(
                seat=ruled["seat"], late=is_late, tie_group=ruled["tie_group"],
                receive_ns=answers[ruled["seat"]].arrived_ns, forgiven_s=ruled["forgiven_s"],
                reaction_time_s=ruled["reaction_time_s"], rtt_s=ruled["rtt_s"],
                claimed_reaction_s=ruled["claimed_reaction_s"], send_ns=sent(ruled["seat"]),
            )
            for ruled, is_late in [(e, False) for e in ruling["ranked"]] + [(e, True) for e in ruling["late"]]
        ]
        terms = convert.RulingTerms(ruling["duration_s"], ruling["max_forgiven_s"], ruling["tie_tolerance_s"]) \
            if full else None
        winner = next((a.seat for a in entry.answers if a.seat not in lost | penalized), None)
        if WindowKind(entry.kind) not in EXCLUSIVE or closed.penalised:
            winner = None
        return convert.window_ruled_pb(closed, reactions, tie_seed=bytes.fromhex(ruling["seed"]),
                                       compensated=entry.compensated, winner=winner, terms=terms)


def race_tie_seed(table_seed: int, round_no: int, window_id: int) -> bytes:
    """The tie-break seed of a window: derive_seed(derive_seed(S, "race-round", round), "race", window),
    S = SHA-256 of the table's secret seed as 8 big-endian bytes (docs/fairness.md 10.5)."""
    base = hashlib.sha256(table_seed.to_bytes(8, "big", signed=False)).digest()
    return derive_seed(derive_seed(base, "race-round", round_no), "race", window_id)


def _catch_window(game: Game, target: int) -> Window | None:
    return next((w for w in game.windows.values() if w.kind is WindowKind.UNO_CATCH and w.target == target), None)


def _penalizes(event: ev.Event, seat: int) -> bool:
    if isinstance(event, ev.WrongJumpIn | ev.IllegalPlay):
        return event.seat == seat
    if isinstance(event, ev.FalseCatch):
        return event.catcher == seat
    return False


def answered_window(game: Game, seat: int, action: Action) -> Window | None:
    """The open window `action` would answer, or None when it answers none: a React's window, the
    catch window of a CatchUno's target (or of the caller, for CallUno), the run-cut window for any play
    while a run waits, and for a play out of turn the seat's skip-escape window, else the jump-in one."""
    if isinstance(action, React):
        window = game.windows.get(action.window)
        return window if window is not None and window.kind in REACTED_TO else None
    if isinstance(action, CatchUno):
        return _catch_window(game, action.target)
    if isinstance(action, CallUno):
        return _catch_window(game, seat)
    if not isinstance(action, Play):
        return None
    if game.pending_run is not None:
        return next((w for w in game.windows.values() if w.kind is WindowKind.RUN_CUT), None)
    if seat == game.current and game.phase in (Phase.TURN, Phase.AFTER_DRAW):
        return None
    escape = next((w for w in game.windows.values() if w.kind is WindowKind.SKIP_ESCAPE and w.target == seat), None)
    if escape is not None:
        return escape
    return None if game.jump_window is None else game.windows.get(game.jump_window)


def _named_window(action: Action, window_hint: int) -> int:
    """The window a command names: a React's own, else the request's `reaction_window_id` (0: none)."""
    return action.window if isinstance(action, React) else window_hint


def _is_turn_play(game: Game, seat: int, action: Action, named: int) -> bool:
    """Is `action` a play on the seat's own turn (it names no window and the seat is to play)?"""
    return (isinstance(action, Play) and not named and game.pending_run is None and seat == game.current
            and game.phase in (Phase.TURN, Phase.AFTER_DRAW))


def _check_named_window(game: Game, seat: int, action: Action, named: int) -> None:
    """Refuse, at no cost, a command whose named window cannot be what it answers, and a play out of
    turn that names none (a play meant for the seat's own turn that someone else's jump-in overtook)."""
    if not named:
        if isinstance(action, Play) and game.pending_run is None and seat != game.current:
            raise precondition("NOT_YOUR_TURN", f"it is seat {game.current}'s turn, not seat {seat}'s; a jump-in "
                               "names the window it answers (reaction_window_id)")
        return
    if named not in game.windows:
        if named >= game.next_window_id:
            raise invalid("UNKNOWN_WINDOW", f"no reaction window {named} was ever opened at this table")
        raise precondition("WINDOW_CLOSED", f"window {named} closed before this command arrived")
    if isinstance(action, Play) and seat == game.current and game.pending_run is None:
        return  # the seat's own turn came: a play on the card it names is a play on its turn
    window = answered_window(game, seat, action)
    if window is None or window.id != named:
        kind = WINDOW_NAMES[game.windows[named].kind]
        raise invalid("WRONG_WINDOW", f"window {named} is {kind} window, which this command does not answer")


def _outcome(seat: int, lost: set[int], penalized: set[int]) -> actions_pb2.CommandOutcome.ValueType:
    if seat in lost:
        return actions_pb2.COMMAND_OUTCOME_RACE_LOST
    if seat in penalized:
        return actions_pb2.COMMAND_OUTCOME_PENALIZED
    return actions_pb2.COMMAND_OUTCOME_APPLIED


def _follow_ups_as_before(
    match: Match, ranked: list[journal.RaceAnswer], commands: dict[int, list[Action]], lost: set[int]
) -> list[ev.Event]:
    """How rulings journalled before APPLIED_IN_ORDER_SINCE applied each winner's follow-ups (a colour): after
    every answer, as far as they went."""
    events: list[ev.Event] = []
    for answer in ranked:
        seat = answer.seat
        if seat in lost or len(commands[seat]) < 2 or match.is_over:
            continue
        for follow_up in commands[seat][1:]:
            try:
                events += match.apply(follow_up)
            except UnoError:
                break
    return events
