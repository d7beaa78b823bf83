"""Reaction windows as races the host referees (issue 4; docs/fairness.md section 10 and docs/protocol.md).

Every window the engine opens (UNO catch U2, slap U5, jump-in H6/H7, skip escape H8, run cut H4, Sound
Wild H12) becomes a `Race`. The host sends it to every seat at once (ReactionWindowOpened is an event
every subscriber receives) with its deadline and latency allowance. The answers to it (React,
CatchUno/CallUno, an out-of-turn PlayCards) are *collected* with their arrival time, not applied. When
the race is due, the host rules it with `unonet.fairness.order_reactions`: each answer's reaction time
is its arrival, measured from when that seat's copy of the window was sent, less the latency the seat
is forgiven (capped; a client's own timing is believed within what the host can check). Ties within
the tolerance are broken by a draw seeded from the round's committed shuffle seed and the window
(from the table seed where shuffles are not committed). The ruling is
journalled (`{"k": "ruling", ...}`) with every measurement it used, so a restarted host replays the
ruling instead of recomputing it from clocks; then the answers are applied with `Match.resolve_window`
in the ruled order (later ones lose the race at no cost) and every answering RPC is answered.

When a race is due (and play meanwhile):
- slap, Sound Wild, run cut (blocking: the engine already holds the turn): at
  `window_close_time(opened, reaction_time, allowances)`, the deadline plus the largest allowance of
  the seats in the race;
- UNO catch: at the same time. Every other command (the next player's turn, a bot's move) is *held*
  until then, so a far player's catch is never beaten by the next player simply acting first;
- jump-in and skip escape: these have no deadline (they close when the next turn begins), and most
  cards played open one, so holding every turn for them would slow all play. Nothing is held until a
  first answer arrives; the race is then due at that arrival plus the largest allowance (any seat that
  truly reacted earlier is heard by then), and other commands are held until it is ruled;
- any race: at once when every seat in it has answered, since nothing can change the order any more.
  Host bots answer at once, so a table of bots never waits.

The seats in a race are the window's eligible seats, plus for an UNO catch the seat that may be caught
(its CallUno races the catches). Latency is measured per seat from the four timestamps of
`TimeService.Ping` (the client is the initiator; it reports each ping's arrival in the next one); the
figures used are those held when the window opened.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from unonet.engine import Action, CallUno, Catch, Phase, Play, React, UnoError, WindowKind
from unonet.engine import events as ev
from unonet.fairness.errors import InvalidInput
from unonet.fairness.latency import DEFAULT_MAX_FORGIVEN_S, LatencyEstimator, PingSample
from unonet.fairness.races import Reaction, order_reactions
from unonet.fairness.shuffle import derive_seed
from unonet.host.actions_json import dump_action, load_action
from unonet.host.errors import invalid, precondition
from unonet.v1 import actions_pb2, events_pb2

if TYPE_CHECKING:
    from unonet.engine import Game, Window
    from unonet.host.table import LogEntry, Table

PINGS_KEPT = 8  # pings waiting for their arrival report, per seat
RULED_KEPT = 256  # windows remembered after their ruling, to answer late answers RACE_LOST
EXCLUSIVE = frozenset({WindowKind.UNO_CATCH, WindowKind.JUMP_IN, WindowKind.RUN_CUT, WindowKind.SKIP_ESCAPE})
FIRST_ANSWER_STARTS_CLOCK = frozenset({WindowKind.JUMP_IN, WindowKind.SKIP_ESCAPE})


@dataclass
class Answer:
    """One collected answer: who, which command, when it arrived, and the client's own timing if sent."""

    seat: int
    command_id: str
    actions: list[dict[str, Any]]
    arrived_ns: int
    claimed_s: float | None = None

    def record(self) -> dict[str, Any]:
        return {"seat": self.seat, "cid": self.command_id, "actions": self.actions, "arrived_ns": self.arrived_ns,
                "claimed_s": self.claimed_s}


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


class RaceBook:
    """One table's races and the latency of its seats. Used under the table's lock."""

    def __init__(self, *, compensate: bool = True, max_forgiven_s: float = DEFAULT_MAX_FORGIVEN_S) -> None:
        self.compensate = compensate
        self.max_forgiven_s = max_forgiven_s
        self.latency: dict[int, LatencyEstimator] = {}
        self.races: dict[int, Race] = {}
        self._pings: dict[int, OrderedDict[int, tuple[int, int, int]]] = {}
        self._ruled: OrderedDict[tuple[int, int], None] = OrderedDict()
        self._opened_at_number: dict[int, int] = {}

    # ------------------------------------------------------------------------------------- latency

    def ping(
        self, seat: int, sequence: int, client_send_ns: int, received_ns: int, sent_ns: int,
        previous: tuple[int, int] | None,
    ) -> float | None:
        """Remember a ping from `seat`; complete the earlier one `previous` = (sequence, client receive ns).

        Returns the seat's median round trip in seconds, or None before its first measurement. Raises
        INVALID_ARGUMENT (BAD_PING_REPORT), changing nothing, for a report of a ping this seat has no
        report outstanding for (never sent, already reported, or among the older ones forgotten) and for
        one that makes an impossible ping.
        """
        pending = self._pings.setdefault(seat, OrderedDict())
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

    def after_record(self, table: Table, entry: dict[str, Any], produced: list[LogEntry], now: int) -> None:
        """Follow the engine's windows after a change: register new races, drop vanished ones, and keep
        `table.window_deadlines` at each race's ruling time (the driver rules a race when it is due).

        The latency figures a new window is opened with (each seat's round trip, the allowance) are
        written into the journal `entry` that opened it, under "races", before it is stored; a replay
        reads them back, so the window is sent, and ruled, with the same figures after a restart."""
        match = table.match
        if match is None:
            return
        game = match.game if match.round_no else None
        for log_entry in produced:
            event = log_entry.event
            if isinstance(event, ev.WindowOpened) and game is not None and event.window.id in game.windows:
                figures = entry.setdefault("races", {})
                race = self._open(table, event.window, game, now, figures.get(str(event.window.id)))
                figures[str(race.window_id)] = {
                    "allowance_ns": race.allowance_ns,
                    "latency": {str(seat): list(rtts) for seat, rtts in race.latency.items()},
                }
                race.opened_number = log_entry.number
                self._opened_at_number[log_entry.number] = race.window_id
                log_entry.event = self._opened_pb(table, race)
        live = game.windows if game is not None and not match.is_over else {}
        for window_id, race in list(self.races.items()):
            if window_id not in live or live[window_id] is not race.window:
                self._drop(race)
        for window_id in list(table.window_deadlines):
            if window_id not in self.races:
                del table.window_deadlines[window_id]
        for race in self.races.values():
            self._schedule(table, race)

    def _open(
        self, table: Table, window: Window, game: Game, now: int, recorded: dict[str, Any] | None
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
            duration_ns=int(table.settings.reaction_time_s * 1e9), allowance_ns=allowance,
            latency=latency, close_ns=None,
        )
        if window.kind not in FIRST_ANSWER_STARTS_CLOCK:
            race.close_ns = now + race.duration_ns + race.allowance_ns  # fairness.window_close_time
        self.races[window.id] = race
        return race

    def _schedule(self, table: Table, race: Race) -> None:
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
        window: Window | None = None
        if isinstance(action, React):
            window = game.windows.get(action.window)
        elif isinstance(action, Catch):
            window = _catch_window(game, action.target)
        elif isinstance(action, CallUno):
            window = _catch_window(game, seat)
        elif isinstance(action, Play):
            run = game.pending_run
            if run is not None:
                window = next((w for w in game.windows.values() if w.kind is WindowKind.RUN_CUT), None)
            elif seat != game.current or game.phase not in (Phase.TURN, Phase.AFTER_DRAW):
                window = next((w for w in game.windows.values()
                               if w.kind is WindowKind.SKIP_ESCAPE and w.target == seat), None)
                if window is None and game.jump_window is not None:
                    window = game.windows.get(game.jump_window)
        if window is None:
            return None
        race = self.races.get(window.id)
        return race if race is not None and race.window is window else None

    def submit(
        self, table: Table, seat: int, command_id: str, actions: tuple[Action, ...], *,
        arrived_ns: int, claimed_s: float | None = None, window_hint: int = 0,
    ) -> Waiting | None:
        """Route a seat's command: collect it if it answers an open race, hold it behind a race, or
        return None for the caller to apply it now (also for a late answer, recorded as RACE_LOST).

        Raises FAILED_PRECONDITION (ALREADY_ANSWERED) for a second answer by one seat, and whatever
        the engine raises for an answer the rules refuse now (it is checked on arrival, on a copy).
        """
        match = table.match
        if match is None or match.is_over or not match.round_no or not actions:
            return None
        if (seat, command_id) in table.commands:
            return None  # a retry of an applied command: the table answers it with the first result
        for open_race in self.races.values():
            pending = next((a for a in open_race.answers if a.seat == seat and a.command_id == command_id), None)
            if pending is not None:
                return Waiting(open_race, collected=True)
        game = match.game
        late = self._late_window(game, seat, actions[0], window_hint)
        if late:
            table.record({"k": "late", "seat": seat, "cid": command_id, "window": late,
                          "actions": [dump_action(a) for a in actions]})
            return None
        race = self.race_for(game, seat, actions[0])
        if race is None:
            held = self.holding()
            return None if held is None else Waiting(held, collected=False)
        if race.has_answered(seat):
            raise precondition("ALREADY_ANSWERED", f"seat {seat} already answered window {race.window_id}")
        trial = game.copy()
        for action in actions:
            trial.apply(action)
        self.collect(table, race, seat, command_id, [dump_action(a) for a in actions], arrived_ns, claimed_s)
        return Waiting(race, collected=True)

    def _late_window(self, game: Game, seat: int, action: Action, window_hint: int) -> int:
        """The ruled window an answer names (React's window, or the request's reaction_window_id), or 0."""
        if isinstance(action, React):
            window = action.window
        elif isinstance(action, Catch | CallUno) or (
            isinstance(action, Play) and (seat != game.current or game.pending_run is not None)
        ):
            window = window_hint
        else:
            return 0
        is_ruled = bool(window) and (game.round_no, window) in self._ruled and window not in game.windows
        return window if is_ruled else 0

    def collect(
        self, table: Table, race: Race, seat: int, command_id: str, actions: list[dict[str, Any]],
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

    def closing_entry(self, table: Table, window_id: int) -> dict[str, Any]:
        """The journal entry that closes `window_id` now: its ruling, or a plain close for a window the
        host does not referee."""
        race = self.races.get(window_id)
        if race is None:
            return {"k": "close", "window": window_id}
        return self.ruling_entry(table, race)

    def ruling_entry(self, table: Table, race: Race) -> dict[str, Any]:
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
        return {
            "k": "ruling", "window": race.window_id, "round": race.round_no, "kind": race.window.kind.value,
            "compensated": self.compensate, "opened_ns": race.opened_ns, "close_ns": race.close_ns,
            "duration_ns": race.duration_ns, "allowance_ns": race.allowance_ns,
            "participants": list(race.participants),
            "sent_ns": {str(seat): race.sent_ns.get(seat, race.opened_ns) for seat in race.participants},
            "answers": [by_seat[seat].record() for seat in ruling.order],
            "late": [by_seat[e.seat].record() for e in ruling.late],
            "ruling": ruling.to_record(),
        }

    def apply_ruling(self, table: Table, entry: dict[str, Any], now: int) -> list[LogEntry]:
        """Apply a journalled ruling (live or on replay): answers in its order, then answer each command."""
        match = table.match
        assert match is not None
        window_id = int(entry["window"])
        ranked = entry["answers"]
        late = entry["late"]
        actions = {a["seat"]: [load_action(a["seat"], x) for x in a["actions"]] for a in ranked + late}
        game = match.game
        events: list[ev.Event] = []
        if window_id in game.windows:
            events += match.resolve_window(window_id, [actions[a["seat"]][0] for a in ranked])
        else:
            events += [ev.RaceLost(a["seat"], window_id) for a in ranked]
        lost = {e.seat for e in events if isinstance(e, ev.RaceLost) and e.window == window_id}
        for answer in ranked:  # a colour named with a black card played as the answer
            if answer["seat"] not in lost and len(actions[answer["seat"]]) > 1 and not match.is_over:
                for follow_up in actions[answer["seat"]][1:]:
                    try:
                        events += match.apply(follow_up)
                    except UnoError:
                        break
        events += [ev.RaceLost(a["seat"], window_id) for a in late]
        lost |= {a["seat"] for a in late}
        closed = next((e for e in events if isinstance(e, ev.WindowClosed) and e.window == window_id), None)
        penalized = set(closed.penalised) if closed is not None else set()
        penalized |= {a["seat"] for a in ranked if any(_penalizes(e, a["seat"]) for e in events)}
        produced = table._append(list(events), now)
        for log_entry in produced:
            if log_entry.event is closed and closed is not None:
                log_entry.event = self._closed_pb(entry, closed, lost, penalized)
        table._after_change(now)
        first = produced[0].number if produced else table.last_number
        for answer in ranked + late:
            seat = answer["seat"]
            outcome = actions_pb2.COMMAND_OUTCOME_APPLIED
            if seat in lost:
                outcome = actions_pb2.COMMAND_OUTCOME_RACE_LOST
            elif seat in penalized:
                outcome = actions_pb2.COMMAND_OUTCOME_PENALIZED
            from unonet.host.table import CommandRecord

            table.commands[(seat, answer["cid"])] = CommandRecord(
                {"actions": answer["actions"]},
                actions_pb2.CommandResult(event_number=first, last_event_number=table.last_number, outcome=outcome),
            )
        self._ruled[(int(entry.get("round", game.round_no)), window_id)] = None
        while len(self._ruled) > RULED_KEPT:
            self._ruled.popitem(last=False)
        race = self.races.pop(window_id, None)
        if race is not None:
            self._opened_at_number.pop(race.opened_number, None)
            race.ruled.set()
        return produced

    def apply_late(self, table: Table, entry: dict[str, Any], now: int) -> list[LogEntry]:
        """An answer to a window already ruled: it loses the race at no cost (RaceLost, RACE_LOST)."""
        seat, window_id = int(entry["seat"]), int(entry["window"])
        produced = table._append([ev.RaceLost(seat, window_id)], now)
        from unonet.host.table import CommandRecord

        table.commands[(seat, entry["cid"])] = CommandRecord(
            {"actions": entry["actions"]},
            actions_pb2.CommandResult(event_number=produced[0].number, last_event_number=table.last_number,
                                      outcome=actions_pb2.COMMAND_OUTCOME_RACE_LOST),
        )
        return produced

    # ------------------------------------------------------------------------------------- protobuf

    def _opened_pb(self, table: Table, race: Race) -> events_pb2.Event:
        from unonet.host import convert

        out = convert.event_to_pb(ev.WindowOpened(race.window), None)
        window = out.reaction_window_opened.window
        window.open_time.FromNanoseconds(race.opened_ns)
        if race.deadline_ns is not None:
            window.deadline.FromNanoseconds(race.deadline_ns)
        window.latency_allowance.FromNanoseconds(race.allowance_ns)
        return out

    def window_timing(self, window_id: int) -> tuple[int, int | None, int] | None:
        """(open time, deadline or None, allowance) of an open race, for views."""
        race = self.races.get(window_id)
        return None if race is None else (race.opened_ns, race.deadline_ns, race.allowance_ns)

    def _closed_pb(
        self, entry: dict[str, Any], closed: ev.WindowClosed, lost: set[int], penalized: set[int]
    ) -> events_pb2.Event:
        from unonet.host import convert

        out = convert.event_to_pb(closed, None)
        msg = out.reaction_window_closed
        ruling = entry["ruling"]
        answers = {a["seat"]: a for a in entry["answers"] + entry["late"]}
        del msg.reactions[:]
        for ruled, is_late in [(e, False) for e in ruling["ranked"]] + [(e, True) for e in ruling["late"]]:
            answer = answers[ruled["seat"]]
            reaction = msg.reactions.add(seat=ruled["seat"], tie_group=max(ruled["tie_group"], 0), late=is_late)
            reaction.receive_time.FromNanoseconds(answer["arrived_ns"])
            reaction.latency_forgiven.FromNanoseconds(round(ruled["forgiven_s"] / 2 * 1e9))
            reaction.reaction_time.FromNanoseconds(round(ruled["reaction_time_s"] * 1e9))
            reaction.round_trip.FromNanoseconds(round(ruled["rtt_s"] * 1e9))
            if ruled["claimed_reaction_s"] is not None:
                reaction.client_reaction_time.FromNanoseconds(round(ruled["claimed_reaction_s"] * 1e9))
        msg.tie_seed = bytes.fromhex(ruling["seed"])
        msg.latency_compensated = bool(entry["compensated"])
        kind = WindowKind(entry["kind"])
        winner = next((a["seat"] for a in entry["answers"] if a["seat"] not in lost | penalized), None)
        msg.ClearField("winner_seat")
        if kind in EXCLUSIVE and winner is not None and not closed.penalised:
            msg.winner_seat = winner
        return out


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
