"""One table: the engine match and the journal entries that change it, composed from its parts.

Everything that changes a table goes through `Table.record(entry)` under the table's lock: the entry
(a typed `journal` value) is applied (the engine refuses bad input and changes nothing), then
journalled, then its events are numbered, appended to the log and offered to every subscriber's
bounded queue. Replaying the journal through the same method rebuilds the table exactly, which is how
a restarted host gets it back. The table composes the parts that keep the rest: `seats.Places` (seats,
spectators, tokens), `eventlog.EventLog` (the numbered events and their serialized renderings),
`clocks.Clocks` (the turn clock and window deadlines), `fanout.FanOut` (the event streams), and
`racebook.RaceBook` and `shuffles.ShuffleRound` / `shuffles.RoundCards` (races, shuffles, committed cards).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from unonet.bots.kinds import DEFAULT_BOT_KIND
from unonet.engine import (
    Action,
    Chat,
    Draw,
    Event,
    Match,
    Pass,
    Rank,
    React,
    Ruleset,
    WindowKind,
    find_ruleset,
    is_bluff,
    legal_actions,
    standard_deck,
)
from unonet.engine import events as ev
from unonet.engine.draws import SeatDraws
from unonet.host import journal
from unonet.host.actions_json import canonical, dump_action, load_action
from unonet.host.bots import choose_action
from unonet.host.clocks import Clocks
from unonet.host.commandbook import CommandBook, CommandRecord
from unonet.host.delayed import DelayedState, PublicState
from unonet.host.errors import exists, invalid, precondition
from unonet.host.eventlog import EventLog, LogEntry
from unonet.host.fanout import FanOut, Subscriber
from unonet.host.holds import RoundHolds
from unonet.host.integrity import ReplayFailed
from unonet.host.legal_bytes import legal_actions_bytes
from unonet.host.racebook import RaceBook, Ruled
from unonet.host.seats import Places, Seat
from unonet.host.shuffles import RoundCards, ShuffleRound, check_commitment_form, deck_committed
from unonet.host.store import JournalEntry, Store
from unonet.host.uno_calls import UnoCalls
from unonet.v1 import actions_pb2, events_pb2, table_pb2, views_pb2
from unonet.wire import convert
from unonet.wire.refs import EventRefs

MAX_COMMAND_ID = 64  # characters
EVENT_FORMAT = 2
"""What a table's events and command results show, by the host that created the table (its stored
record's "event_format"; a table stored without one is 1), so that a table replays after an upgrade to
what it sent before it. From 2: a ReactionWindowOpened's card carries its commitment (with fair
shuffles), a HandRevealed its `played_event_number` also without them (league-seeded tables), and a
command's CommandResult.event_number is its own first event, after the windows its arrival closed."""
DEFAULT_REACTION_TIME_S = 1.5  # how long a blocking reaction window stays open, before latency allowances
PENALTY_EVENTS = (ev.WrongJumpIn, ev.IllegalPlay, ev.FalseCatch)
# A seat's legal actions when it has none, by `required`, serialized (what most seats have after a command).
_NOTHING_TO_DO = {False: actions_pb2.LegalActions().SerializeToString(),
                  True: actions_pb2.LegalActions(required=True).SerializeToString()}


@dataclass
class TableSettings:
    """A table's settings as plain data (what the journal records at creation)."""

    name: str
    seat_count: int
    preset: str
    overrides: dict[str, Any]
    turn_time_s: float = 30.0
    time_bank_s: float = 0.0
    strikes_before_takeover: int = 3
    takeover_policy: str = "bot"
    takeover_bot_kind: str = DEFAULT_BOT_KIND
    reaction_time_s: float = DEFAULT_REACTION_TIME_S
    spectator_delay_s: float = 0.0
    manual_start: bool = False
    # A league-seeded table (CreateTableRequest.league_seed): dealt by the engine from this seed, no fair shuffle.
    league_seed: int | None = None
    # Its seats draw from per-seat draw streams from that seed (CreateTableRequest.league_seat_draws).
    league_seat_draws: bool = False
    # How long the first turn of every round after the first is held while the players read the scores
    # (ClockSettings.round_start_hold; holds.py). Tables stored before it existed held nothing: 0 here,
    # and CreateTable gives a new table the host's default.
    round_start_hold_s: float = 0.0

    def ruleset(self) -> Ruleset:
        return find_ruleset(self.preset or "standard", **self.overrides)


class Table:
    """A table's whole state. Only `record` changes it, always under `lock`."""

    def __init__(
        self,
        table_id: str,
        settings: TableSettings,
        *,
        owner_token: str,
        seed: int,
        created_ns: int,
        store: Store,
        clock_ns: Callable[[], int],
        fair_shuffle: bool = True,
        window_ids_per_round: bool = False,
        event_format: int = EVENT_FORMAT,
    ) -> None:
        """`fair_shuffle` off deals every round with the engine's own shuffle, seeded from `seed`, and
        publishes no commitments or openings (for measuring what they cost, bench/fairness.py); it is
        part of the table's stored record, so a restart replays the table the way it was played.
        `window_ids_per_round` numbers reaction windows from 1 each round, as tables stored before
        ids were unique per table did (their journals name those ids). `event_format`: see EVENT_FORMAT."""
        self.table_id = table_id
        self.settings = settings
        self.ruleset = settings.ruleset()
        self._settings_pb: table_pb2.TableSettings | None = None
        self.owner_token = owner_token
        self.seed = seed
        self.fair_shuffle = fair_shuffle
        self.window_ids_per_round = window_ids_per_round
        self.event_format = event_format
        self._wild_draw_fours: dict[int, int] = {}  # each seat's latest Wild Draw Four's CardsPlayed number
        self.created_ns = created_ns
        self.store = store
        self.clock_ns = clock_ns
        self.places = Places(table_id, settings.seat_count)  # seats, spectators and their tokens (seats.py)
        self.seats, self.spectators = self.places.seats, self.places.spectators  # never rebound
        self.match: Match | None = None
        # The numbered events (eventlog.py): the latest in memory, every one in the store.
        self.events = EventLog(turn_time_s=settings.turn_time_s, store=store, table_id=table_id,
                               seat_count=settings.seat_count)
        self.log = self.events.entries  # the same list (the events in memory), never rebound
        self._sent_legal: dict[int, bytes] = {}  # each seat's latest your_legal_actions, serialized
        # The number of the event that brought each seat its latest copy: where the decision it owes began
        # (the host's worker watch, bot_watch.py, times a worker seat's from there).
        self.legal_sent_at: dict[int, int] = {}
        # Bot seats whose worker was retired (journal.Fallback, final): the fallback kind that plays them.
        self.fallback_kinds: dict[int, str] = {}
        self.turn_began = 0  # the number of the latest turn_started: a turn play meant for an older turn is stale (H6)
        self.uno_calls = UnoCalls()  # whose UNO call stands, from the events (SeatState.called_uno)
        self.fanout = FanOut(store, self.unsubscribe)  # the event streams (fanout.py)
        self.commands = CommandBook(store, table_id)  # each command id's first result (commandbook.py)
        self.lost: list[tuple[int, int]] = []  # the numbers the store lost after they were sent (journal.Lost)
        self.diverged: list[tuple[int, int]] = []  # of those, the ones that name other events now (journal.Diverged)
        self.lock = asyncio.Lock()
        # The driver's sleep (Host._drive): resolved by `wake_driver` when the table changes.
        self.driver_wake: asyncio.Future[bool] | None = None
        self.driver_due_ns: int | None = None  # when (host clock) the driver's timer ends its sleep
        self.clocks = Clocks(turn_time_s=settings.turn_time_s, reaction_time_s=settings.reaction_time_s)
        self.window_deadlines = self.clocks.window_deadlines  # the same dict, which racebook.py keeps too
        self.races = RaceBook()  # reaction windows refereed as races, and each seat's latency (racebook.py)
        self.bot_rng = random.Random(seed ^ 0x5EED)
        self.holds = RoundHolds(settings.round_start_hold_s)  # the hold of a round's first turn (holds.py)
        self._seq = 0
        self._replaying = False
        self.shuffle: ShuffleRound | None = None  # the commit-reveal protocol before a deal, while it runs
        self.cards: RoundCards | None = None  # the committed piles and cards of the round dealt last
        # With a spectator delay: the public states a spectator may be shown, as of delay ago (delayed.py).
        self.delayed: DelayedState | None = None
        if settings.spectator_delay_s > 0:
            self.delayed = DelayedState(int(settings.spectator_delay_s * 1e9))
            self.delayed.record(PublicState(0, created_ns, self.view(None), self.info()))

    # ----------------------------------------------------------------------------- queries

    @property
    def last_number(self) -> int:
        return self.events.count

    @property
    def reaction_time_ns(self) -> int:
        """How long a reaction window takes answers, before latency allowances."""
        return int(self.settings.reaction_time_s * 1e9)

    def has_command(self, seat: int, command_id: str) -> bool:
        """True once this seat's command id was applied: a retry gets the remembered result."""
        return (seat, command_id) in self.commands

    @property
    def status(self) -> table_pb2.TableStatus.ValueType:
        if self.match is None:
            return table_pb2.TABLE_STATUS_WAITING
        return table_pb2.TABLE_STATUS_FINISHED if self.match.is_over else table_pb2.TABLE_STATUS_PLAYING

    def seat_for(self, token: str) -> int | None:
        """The seat a token plays, None for a spectator (`Places.seat_for`)."""
        return self.places.seat_for(token)

    def player_seat(self, token: str) -> int:
        """The seat a token plays, refusing spectators (`Places.player_seat`)."""
        return self.places.player_seat(token)

    def acting_seat(self, token: str, command_id: str | None = None) -> int:
        """The seat a player's command acts for. Refuses spectators, then a `command_id` of the wrong
        form (the request's own form comes before the table's state: docs/protocol.md, "Which refusal
        comes first"), then a seat taken over (by a bot or forfeited): its player may still watch it,
        not act. A retry of a command applied before the takeover is let through, to get its first
        result, and so is anything once the match is over, to be told GAME_OVER."""
        seat = self.player_seat(token)
        if command_id is not None:
            check_command_id(command_id, required=True)
        over = self.match is not None and self.match.is_over
        worker = self.seats[seat].worker_token == token  # a bot seat's own worker process (bot_workers.py)
        if (self.seats[seat].taken_over and not over and not worker
                and (command_id is None or (seat, command_id) not in self.commands)):
            raise precondition("SEAT_TAKEN_OVER", f"seat {seat} was taken over; its player can no longer act")
        return seat

    def seat_states(self, *, as_announced: bool = True) -> list[table_pb2.SeatState]:
        """Every seat's public facts as of the last event. A seat shows as connected as its last
        SeatConnectionChanged said, not as its streams are this instant: a closed stream is announced at
        the table's next step, and a view (a snapshot, numbered) must agree with the events up to its
        number, or a client reading both sees a seat disconnect twice. `as_announced` False is the
        instant's streams, for the MatchStarted of a start entry journalled before (`journal.Start`)."""
        game = self.match.game if self.match is not None and self.match.round_no else None
        now = self.clock_ns()
        states = []
        for seat in self.seats:
            connected = seat.shown_connected if as_announced else seat.connected > 0
            state = table_pb2.SeatState(
                seat=seat.index, occupied=seat.is_occupied, name=seat.name, is_bot=seat.is_bot,
                bot_kind=seat.bot_kind, connected=connected or seat.is_bot, strikes=seat.strikes,
                taken_over=seat.taken_over, latency_ms=self.races.latency_ms(seat.index),
            )
            state.time_bank_remaining.FromNanoseconds(int(seat.bank_s * 1e9))
            if game is not None:
                # An eliminated seat's cards leave play with it (PlayerEliminated), also when the score
                # put it out after its round ended and before the next deal.
                out = not game.in_play[seat.index] or (self.match is not None and seat.index in self.match.eliminated)
                held = 0 if out else len(game.hands[seat.index])
                state.hand_size = held
                state.called_uno = held == 1 and self.uno_calls.has_called(seat.index)
                state.score = self.match.totals[seat.index] if self.match else 0
                state.eliminated = out
                if game.to_act == seat.index and self.turn_deadline_ns is not None:
                    state.clock_remaining.FromNanoseconds(max(0, self.turn_deadline_ns - now))
            states.append(state)
        return states

    def info(self) -> table_pb2.TableInfo:
        info = table_pb2.TableInfo(
            table_id=self.table_id, status=self.status, settings=self.settings_pb(), seats=self.seat_states(),
            spectator_count=len(self.spectators), last_event_number=self.last_number,
            round_number=self.match.round_no if self.match else 0,
        )
        info.create_time.FromNanoseconds(self.created_ns)
        return info

    def public_info(self) -> table_pb2.TableInfo:
        """The TableInfo anyone may read: `info()`, or with a spectator delay, as of that long ago."""
        return self.info() if self.delayed is None else self.delayed.due(self.clock_ns()).info

    def public_view(self) -> views_pb2.SeatView:
        """A spectator's view: `view(None)`, or with a spectator delay, as of that long ago."""
        return self.view(None) if self.delayed is None else self.delayed.due(self.clock_ns()).view

    def settings_pb(self) -> table_pb2.TableSettings:
        """The settings as the protocol shows them, built once: a table's settings never change, and
        every caller passes the message into another's constructor, which copies it."""
        if self._settings_pb is None:
            self._settings_pb = self._build_settings_pb()
        return self._settings_pb

    def _build_settings_pb(self) -> table_pb2.TableSettings:
        s = self.settings
        pb = table_pb2.TableSettings(
            name=s.name, seat_count=s.seat_count, ruleset=convert.ruleset_to_pb(self.ruleset),
            manual_start=s.manual_start,
        )
        if s.league_seed is not None:
            pb.league_seeded = True
            pb.league_seed_sha256 = hashlib.sha256(s.league_seed.to_bytes(8, "big")).digest()
            pb.league_seat_draws = s.league_seat_draws
        pb.clock.turn_time.FromNanoseconds(int(s.turn_time_s * 1e9))
        pb.clock.time_bank.FromNanoseconds(int(s.time_bank_s * 1e9))
        pb.clock.reaction_time.FromNanoseconds(int(s.reaction_time_s * 1e9))
        pb.clock.strikes_before_takeover = s.strikes_before_takeover
        if s.round_start_hold_s:  # unset means none (and keeps the settings of older tables' events as sent)
            pb.clock.round_start_hold.FromNanoseconds(int(s.round_start_hold_s * 1e9))
        pb.clock.takeover_bot_kind = s.takeover_bot_kind
        pb.clock.takeover_policy = (
            table_pb2.TAKEOVER_POLICY_FORFEIT if s.takeover_policy == "forfeit" else table_pb2.TAKEOVER_POLICY_BOT
        )
        pb.spectator_delay.FromNanoseconds(int(s.spectator_delay_s * 1e9))
        return pb

    def render(self, entry: LogEntry, seat: int | None) -> events_pb2.Event:
        """The event as `seat` may see it (None: a spectator): `EventLog.render`."""
        return self.events.render(entry, seat)

    def render_bytes(self, entry: LogEntry, seat: int | None, *, cache: bool = True) -> bytes:
        """`render(entry, seat)` serialized, from the log's cache: `EventLog.render_bytes`."""
        return self.events.render_bytes(entry, seat, cache=cache)

    def view(self, seat: int | None) -> Any:
        if self.match is None or not self.match.round_no:
            view = views_pb2.SeatView(
                table_id=self.table_id, event_number=self.last_number, is_spectator=seat is None,
                seat=seat or 0, seats=self.seat_states(), settings=self.settings_pb(), status=self.status,
                phase=views_pb2.PHASE_WAITING_FOR_PLAYERS,
            )
            view.view_time.FromNanoseconds(self.clock_ns())
            self._shuffle_view(view, seat)
            return view
        engine_view = self.match.view_for(seat)
        refs = None if self.cards is None else self.cards.view_refs(
            seat, engine_view.hand, engine_view.top, engine_view.windows)
        pb = convert.view_to_pb(
            engine_view, table_id=self.table_id, event_number=self.last_number,
            seats=self.seat_states(), settings=self.settings_pb(), status=self.status, refs=refs,
        )
        pb.view_time.FromNanoseconds(self.clock_ns())
        if self.turn_deadline_ns is not None:
            pb.turn_deadline.FromNanoseconds(self.turn_deadline_ns)
        if seat is not None and (deadline := self._legal_deadline(seat, pb.legal_actions)) is not None:
            pb.legal_actions.deadline.FromNanoseconds(deadline)
        hold = self.holds.current
        if hold is not None:  # nobody acts until the hold ends
            pb.legal_actions.Clear()
            pb.round_held.CopyFrom(convert.round_held_pb(hold.round_no, hold.until_ns, hold.waiting))
        for window in pb.open_windows:
            timing = self.races.window_timing(window.id)
            if timing is not None:
                window.open_time.FromNanoseconds(timing[0])
                if timing[1] is not None:
                    window.deadline.FromNanoseconds(timing[1])
                window.latency_allowance.FromNanoseconds(timing[2])
        self._shuffle_view(pb, seat)
        return pb

    def _shuffle_view(self, view: Any, seat: int | None) -> None:
        """During the shuffle before a deal: PHASE_SHUFFLE, the round being shuffled, commit or reveal."""
        if self.shuffle is None:
            return
        view.phase = views_pb2.PHASE_SHUFFLE
        view.round_number = self.shuffle.round_no
        view.ClearField("seat_to_act")
        if seat is not None:
            view.legal_actions.CopyFrom(self.shuffle.legal_actions(len(self.seats))[seat])

    # ----------------------------------------------------------------------------- changes

    def record(self, entry: journal.AnyEntry, *, time_ns: int | None = None) -> list[LogEntry]:
        """Apply one input, journal it and publish its events. Raises (changing nothing) if refused."""
        now = self.clock_ns() if time_ns is None else time_ns
        produced = self._apply(entry, now)
        # The race book registers the windows opened, before anything renders or journals them.
        opened = self.races.after_record(self, entry, [(e.number, e.event) for e in produced], now)
        for produced_entry in produced:
            produced_entry.event = opened.get(produced_entry.number, produced_entry.event)
        self._settle(produced)
        self._seq += 1
        if not self._replaying:
            watched = bool(self.subscribers)
            public = [(e.number, self.render_bytes(e, None, cache=watched)) for e in produced]
            renderings = [row for e, (_, payload) in zip(produced, public, strict=True)
                          for row in self.events.renderings(e, payload, cache=watched)]
            self.store.append(self.table_id, JournalEntry(self._seq, now, journal.encode(entry)), public, renderings)
            if watched:
                for produced_entry, (_, payload) in zip(produced, public, strict=True):
                    self.events.share(produced_entry, payload)
        self.fanout.publish([entry.number for entry in produced])
        if self.delayed is not None and produced:
            self.delayed.record(PublicState(produced[-1].number, now, self.view(None), self.info()))
        self.wake_driver()
        return produced

    def _settle(self, produced: list[LogEntry]) -> None:
        """Once an input is applied, its clocks armed and its races registered, and before anything
        renders: the last event carries every seat's legal actions (where each seat's wait ends), with
        their deadlines, and the TurnStarted of the seat being timed carries its turn deadline."""
        match = self.match
        if not produced or match is None or not (match.round_no or self.shuffle is not None):
            return
        if all(_is_connection_change(entry.event) for entry in produced):
            return  # a stream opening or closing changes nobody's options: no LegalActions to act on again
        seat, deadline = self.clocks.timed_seat, self.clocks.turn_deadline_ns
        if deadline is not None and self.shuffle is None and seat is not None:
            bank_ns = int(self.seats[seat].bank_s * 1e9)
            for entry in produced:
                if type(entry.event) is ev.TurnStarted and entry.event.seat == seat:
                    entry.deadline_ns, entry.bank_ns = deadline, bank_ns
        turns = {entry.event.seat for entry in produced if type(entry.event) is ev.TurnStarted}
        legal = self._changed_legal(self.legal_for_all(), turns)
        if legal is not None:
            produced[-1].legal = legal
            for seat in legal:
                self.legal_sent_at[seat] = produced[-1].number

    def _changed_legal(self, legal: dict[int, bytes], turns: set[int]) -> dict[int, bytes] | None:
        """The seats' legal actions that differ from the last copy each seat was sent (Event.your_legal_actions
        is set only when they changed), and those of every seat in `turns`, whose turn started, even when
        unchanged: a seat that played from a copy and got the turn straight back (a Skip or Reverse
        heads-up, holding its twin) would otherwise wait for a change that never comes. Remembered as
        sent; None when no seat's is due."""
        changed = {seat: actions for seat, actions in legal.items()
                   if seat in turns or self._sent_legal.get(seat) != actions}
        self._sent_legal.update(changed)
        return changed or None

    def _legal_deadline(self, seat: int, actions: actions_pb2.LegalActions) -> int | None:
        """When `seat`'s listed options run out (`Clocks.legal_deadline`)."""
        return self.clocks.legal_deadline(seat, required=actions.required, window_ids=actions.react_window_ids)

    @property
    def turn_deadline_ns(self) -> int | None:
        """When the turn clock of the seat to act runs out, if its decision is timed."""
        return self.clocks.turn_deadline_ns

    def wake_driver(self, *, force: bool = False) -> None:
        """The table changed: its driver looks again at bots, windows and clocks, unless nothing it
        does can be due before the timer it already set (most commands of a table with no bots: the
        next turn's deadline is later than the last one's). `force` wakes it regardless."""
        wake = self.driver_wake
        if wake is None or wake.done():
            return
        if force or self.match is None or self.match.is_over or any(seat.is_bot for seat in self.seats):
            wake.set_result(False)
            return
        soonest, due = self.next_deadline_ns(), self.driver_due_ns
        if soonest is not None and (due is None or soonest < due):
            wake.set_result(False)

    def next_deadline_ns(self) -> int | None:
        """The soonest of the table's deadlines (reaction windows, the turn clock, the shuffle, the end of
        a round's hold), if any."""
        deadlines = [self.clocks.next_deadline_ns()]
        if self.shuffle is not None:
            deadlines.append(self.shuffle.deadline_ns)
        if self.holds.current is not None:
            deadlines.append(self.holds.current.until_ns)
        return min((deadline for deadline in deadlines if deadline is not None), default=None)

    def replay(self, stored: list[JournalEntry]) -> None:
        """Rebuild the table from its journal (host restart): same inputs, same events, same numbers."""
        self._replaying = True
        self.events.holding = True  # until `Host` releases the log, storing what an older host did not
        self.commands.holding = True  # likewise
        try:
            for item in stored:
                try:
                    self.record(journal.decode(item.entry), time_ns=item.time_ns)
                except Exception as error:  # the journal does not rebuild the table: integrity.py says which entry
                    raise ReplayFailed(item.seq, error) from error
        finally:
            self._replaying = False

    def _apply(self, entry: journal.AnyEntry, now: int) -> list[LogEntry]:
        """Apply one entry by its kind (a seat's command first: most entries are), then move the
        shuffle before a deal on as far as it goes."""
        produced: list[LogEntry]
        match entry:
            case journal.Command():
                produced = self._apply_cmd(entry, now)
            case journal.Ruling():
                produced = self._apply_ruling(entry, now)
            case journal.Late():
                produced = self._apply_late(entry, now)
            case journal.Close():
                produced = self._apply_close(entry, now)
            case journal.Timeout():
                produced = self._apply_timeout(entry, now)
            case journal.Chat():
                produced = self._apply_chat(entry, now)
            case journal.Fallback():
                if entry.final:
                    self.fallback_kinds[entry.seat] = entry.kind
                produced = self._append([convert.bot_fallback(
                    entry.seat, bot_kind=entry.worker, fallback_kind=entry.kind, reason=entry.reason,
                    allowed_ns=entry.allowed_ns, rest_of_match=entry.final)], now)
            case journal.Connection():
                produced = self._apply_conn(entry, now)
            case journal.Entropy():
                produced = self._apply_entropy(entry, now)
            case journal.EntropyTimeout():
                produced = self._apply_entropy_timeout(entry, now)
            case journal.ScoresClosed():
                produced = self._apply_scores_closed(entry, now)
            case journal.Release():
                produced = self._apply_release(entry, now)
            case journal.Join():
                produced = self._apply_join(entry, now)
            case journal.Spectate():
                self.spectators[entry.token] = entry.name
                produced = []
            case journal.Unspectate():
                self.spectators.pop(entry.token, None)
                produced = []
            case journal.SeatBot():
                produced = self._apply_bot(entry, now)
            case journal.Leave():
                produced = self._apply_leave(entry, now)
            case journal.Start():
                produced = self._apply_start(entry, now)
            case journal.Lost():
                produced = self._apply_lost(entry, now)
            case journal.Diverged():
                self.lost.append((entry.first, entry.last))  # a resume inside it: DATA_LOSS, as for lost ones
                self.diverged.append((entry.first, entry.last))
                produced = []
            case _:
                raise TypeError(f"not a journal entry: {entry!r}")
        produced += self._advance_shuffle(entry, now)
        return produced + self._follow_hold(now)

    def _append(self, events: Sequence[Event | events_pb2.Event], now: int) -> list[LogEntry]:
        """Number the events into the log, each engine event with its committed cards and followed by
        the fairness events it brings (a new pile's DeckCommitted, the ShuffleRevealed after RoundEnded)."""
        log = self.events
        produced = []
        for event in events:
            entry = log.add(event, now)
            produced.append(entry)
            if isinstance(event, ev.TurnStarted):
                self.turn_began = entry.number
            if isinstance(event, Event):
                self.uno_calls.follow(event)
                self._note_wild_draw_four(entry)
            if self.cards is not None and not isinstance(event, events_pb2.Event):
                entry.refs, follow = self.cards.on_event(event, entry.number)
                produced += [log.add(extra, now) for extra in follow]
        log.trim(len(produced))
        return produced

    def _note_wild_draw_four(self, entry: LogEntry) -> None:
        """Remember where each seat's latest Wild Draw Four was played, for the HandRevealed a challenge of
        it brings (B2): with fair shuffles the committed record gives its number with the hand's cards
        (`RoundCards`); without them (a league-seeded table) this does (from EVENT_FORMAT 2)."""
        event = entry.event
        if type(event) is ev.Played and event.cards[0].rank is Rank.WILD_DRAW_FOUR:
            self._wild_draw_fours[event.seat] = entry.number
        elif type(event) is ev.HandRevealed and self.cards is None and self.event_format >= 2:
            entry.refs = EventRefs((), played_event=self._wild_draw_fours.get(event.seat, 0))

    def legal_for_all(self, *, written: bool = True) -> dict[int, bytes]:
        """Every seat's legal actions now, serialized: compared as bytes with what each was sent last
        (`_changed_legal`), and sent as they are (`LogEntry.legal`). The usual options are written
        directly (legal_bytes.py); `written=False` builds every one as a message, the reference those
        bytes must equal (tests/host/test_legal_bytes.py)."""
        assert self.match is not None
        if self.shuffle is not None:
            return {seat: actions.SerializeToString()
                    for seat, actions in self.shuffle.legal_actions(len(self.seats)).items()}
        if self.match.is_over or self.holds.current is not None:  # the match's end, or a held round: nothing to do
            return {seat: _NOTHING_TO_DO[False] for seat in range(len(self.seats))}
        game = self.match.game
        current, draw_to_match = game.current, self.ruleset.draw_to_match
        run_cut_window = (next((w.id for w in game.windows.values() if w.kind is WindowKind.RUN_CUT), None)
                          if game.pending_run is not None else None)
        obligation = game.obligation
        obligation_target = obligation.target if obligation is not None else None
        obligation_amount = obligation.amount if obligation is not None else 0
        catch_windows = {w.target: w.id for w in game.windows.values()
                         if w.kind is WindowKind.UNO_CATCH and w.target is not None}
        out: dict[int, bytes] = {}
        for seat in range(len(self.seats)):
            actions = legal_actions(game, seat)
            if not actions:  # most seats, most of the time: one shared serialization
                out[seat] = _NOTHING_TO_DO[game.to_act == seat]
                continue
            # Required, as in a view: the game waits for this seat's turn, or for its reaction to a
            # slap or Sound Wild, which it owes (the slowest or absent seat draws 2).
            reacts = any(isinstance(action, React) for action in actions)
            required = game.to_act == seat or reacts
            escape = next((w.id for w in game.windows.values()
                           if w.kind is WindowKind.SKIP_ESCAPE and w.target == seat), None)
            jump_in_window = escape if escape is not None else game.jump_window
            bluff = is_bluff(game, seat)
            if written and not reacts:  # the usual options (legal_bytes.py); no reaction window to time
                wire = legal_actions_bytes(
                    actions, required=required, current_seat=current, run_cut_window=run_cut_window,
                    jump_in_window=jump_in_window, obligation_target=obligation_target,
                    obligation_amount=obligation_amount, draw_to_match=draw_to_match, bluff=bluff,
                    deadline_ns=self.clocks.legal_deadline(seat, required=required, window_ids=()))
                if wire is not None:
                    out[seat] = wire
                    continue
            legal = convert.legal_actions_to_pb(
                actions, required=required, current_seat=current, run_cut_window=run_cut_window,
                jump_in_window=jump_in_window, obligation_target=obligation_target,
                obligation_amount=obligation_amount, draw_to_match=draw_to_match, bluff=bluff,
                catch_windows=catch_windows)
            deadline = self._legal_deadline(seat, legal)
            if deadline is not None:
                convert.set_timestamp(legal.deadline, deadline)
            out[seat] = legal.SerializeToString()
        return out

    def _apply_join(self, entry: journal.Join, now: int) -> list[LogEntry]:
        seat = self.seats[entry.seat]
        seat.name, seat.token, seat.connected = entry.name, entry.token, 0
        seat.bank_s = self.settings.time_bank_s
        produced = self._append([convert.player_joined(seat.index, seat.name)], now)
        return produced + self._maybe_autostart(entry, now)

    def _apply_conn(self, entry: journal.Connection, now: int) -> list[LogEntry]:
        """A player's seat opened its first event stream, or closed its last (`sync_connections`)."""
        seat = self.seats[entry.seat]
        seat.shown_connected = entry.on
        return self._append([convert.seat_connection_changed(seat.index, seat.shown_connected)], now)

    def _apply_bot(self, entry: journal.SeatBot, now: int) -> list[LogEntry]:
        seat = self.seats[entry.seat]
        seat.is_bot, seat.bot_kind, seat.name = True, entry.kind, entry.name
        produced = self._append([convert.bot_seated(seat.index, seat.name, seat.bot_kind)], now)
        return produced + self._maybe_autostart(entry, now)

    def _apply_leave(self, entry: journal.Leave, now: int) -> list[LogEntry]:
        seat = self.seats[entry.seat]
        name = seat.name
        events: list[Event | events_pb2.Event] = [convert.player_left(seat.index, name)]
        if self.match is None:
            seat.token, seat.name = "", ""
        else:  # mid-match, the table's takeover policy: a bot plays on, or the seat forfeits
            events += self._take_over(seat, strikes=False)
        produced = self._append(events, now)
        if self.match is not None:
            self._after_change(now)
        return produced

    def _take_over(self, seat: Seat, *, strikes: bool) -> list[Event | events_pb2.Event]:
        """Hand a seat to a bot of the table's takeover kind, or forfeit it, as the takeover policy says,
        because its player left or (`strikes`) ran out of time too often."""
        assert self.match is not None
        forfeits = self.settings.takeover_policy == "forfeit"
        seat.taken_over = True
        if not forfeits:
            seat.is_bot, seat.bot_kind = True, self.settings.takeover_bot_kind
        events: list[Event | events_pb2.Event] = [
            convert.seat_taken_over(seat.index, forfeits=forfeits, bot_kind=seat.bot_kind, strikes=strikes)]
        if forfeits and not self.match.is_over and seat.index not in self.match.eliminated:
            events += self.match.forfeit(seat.index)  # out of the match: the others play on
        return events

    def _apply_start(self, entry: journal.Start, now: int, *, by: journal.AnyEntry | None = None) -> list[LogEntry]:
        """Start the match: `entry` says how, `by` is the journalled entry that starts it (the Start
        itself, or the Join or SeatBot that filled the last seat), which keeps what MatchStarted shows."""
        if self.match is not None:
            raise precondition("ALREADY_STARTED", "the table has already started")
        seated: list[Event | events_pb2.Event] = []
        for seat in self.seats:
            if not seat.is_occupied:
                if not entry.fill:
                    raise precondition("SEATS_EMPTY", f"seat {seat.index} is empty; fill it or add bots")
                seat.is_bot, seat.bot_kind, seat.name = True, entry.bot_kind or "random", f"bot-{seat.index}"
                if entry.version >= 2:
                    seated.append(convert.bot_seated(seat.index, seat.name, seat.bot_kind))
        # Every round waits for its provably fair shuffle (`_advance_shuffle`): no deal by itself. With
        # fair shuffles off, the engine deals every round itself from its seeded generator.
        self.match = Match(
            self.ruleset, len(self.seats), random.Random(self.seed), auto_deal=not self.fair_shuffle,
            window_ids_per_round=self.window_ids_per_round, draws=self._seat_draws(),
        )
        number = self.last_number + len(seated) + 1
        started = convert.match_started(self.settings_pb(), self._starting_seats(entry, by or entry, number))
        produced = self._append([*seated, started, *self.match.start()], now)
        self._after_change(now)  # arm the first turn's clock (and any window the first card opens)
        return produced

    def _seat_draws(self) -> SeatDraws | None:
        """A league-seeded table's per-seat draw streams, from its seed (CreateTableRequest.league_seat_draws)."""
        league_seed = self.settings.league_seed
        return SeatDraws(league_seed) if league_seed is not None and self.settings.league_seat_draws else None

    def _starting_seats(self, start: journal.Start, by: journal.AnyEntry, number: int) -> list[table_pb2.SeatState]:
        """The seats as MatchStarted (event `number`) lists them: a function of the journal alone.

        Each seat is connected as its last SeatConnectionChanged said, and its latency is the estimate
        its pings gave when the match started, written into the starting entry `by` (its `measured`
        part) and read back from it on a replay. A start journalled before that part existed showed the
        streams open at that instant (a version 1 start) and the estimates of the instant, neither
        journalled: its replay takes both from the MatchStarted the host stored as it sent it, and only
        a store older than stored events gives the values of the replay's instant."""
        recorded = by.measured.get("start")
        if not self._replaying or recorded is not None:
            states = self.seat_states()
            if recorded is None:
                by.measured["start"] = {"latency_ms": [state.latency_ms for state in states]}
            else:
                for state, latency_ms in zip(states, recorded["latency_ms"], strict=True):
                    state.latency_ms = latency_ms
            return states
        states = self.seat_states(as_announced=start.version >= 2)
        sent = self.events.stored_public(number)
        if sent is not None and sent.HasField("match_started") and len(sent.match_started.seats) == len(states):
            for state, was in zip(states, sent.match_started.seats, strict=True):
                state.connected, state.latency_ms = was.connected, was.latency_ms
        return states

    def _maybe_autostart(self, by: journal.AnyEntry, now: int) -> list[LogEntry]:
        if self.settings.manual_start or self.match is not None:
            return []
        if all(seat.is_occupied for seat in self.seats):
            return self._apply_start(journal.Start(), now, by=by)
        return []

    def _apply_cmd(self, entry: journal.Command, now: int) -> list[LogEntry]:
        seat = entry.seat
        key = (seat, entry.cid)
        if self.match is None:
            raise precondition("NOT_STARTED", "the match has not started yet")
        actions = [load_action(seat, action) for action in entry.actions]
        events = self._apply_actions(actions)
        self._charge_clock(seat, now)
        produced = self._append(list(events), now)
        self._after_change(now)
        outcome = actions_pb2.COMMAND_OUTCOME_APPLIED
        if any(isinstance(e, PENALTY_EVENTS) or (isinstance(e, ev.Drew) and e.reason is ev.DrawReason.BROKE_SILENCE)
               for e in events):
            outcome = actions_pb2.COMMAND_OUTCOME_PENALIZED
        if any(isinstance(e, ev.RaceLost) for e in events):
            outcome = actions_pb2.COMMAND_OUTCOME_RACE_LOST
        first = self._own_first(produced)
        self.commands[key] = CommandRecord(
            {"actions": canonical(entry.actions)},
            actions_pb2.CommandResult(event_number=first, last_event_number=self.last_number, outcome=outcome),
        )
        return produced

    def _own_first(self, produced: list[LogEntry]) -> int:
        """A command's CommandResult.event_number: its own first event. Its arrival may first close the
        windows a turn's start ends (a jump-in or skip-escape window: H6, H8), whose ReactionWindowClosed
        comes before the command's own events; those are not its own (from EVENT_FORMAT 2)."""
        if not produced:
            return self.last_number
        if self.event_format >= 2:
            own = next((entry for entry in produced if type(entry.event) is not ev.WindowClosed), None)
            if own is not None:
                return own.number
        return produced[0].number

    def _apply_actions(self, actions: list[Action]) -> list[Event]:
        """Apply a command's engine actions all-or-nothing (a play with its colour is two)."""
        assert self.match is not None
        return self.match.apply_command(actions)

    def _apply_close(self, entry: journal.Close, now: int) -> list[LogEntry]:
        assert self.match is not None
        window = entry.window
        self.window_deadlines.pop(window, None)
        produced = self._append(list(self.match.close_window(window)), now)
        self._after_change(now)
        return produced

    def _apply_ruling(self, entry: journal.Ruling, now: int) -> list[LogEntry]:
        """A race's ruling, with the measurements it used (racebook.py): replayed as journalled."""
        assert self.match is not None
        self.window_deadlines.pop(entry.window, None)
        ruled = self.races.apply_ruling(self.match, entry)
        produced = self._append(ruled.events, now)
        self._after_change(now)
        self._remember_answers(ruled, produced)
        return produced

    def _apply_late(self, entry: journal.Late, now: int) -> list[LogEntry]:
        """An answer to a window already ruled: RaceLost, at no cost."""
        ruled = self.races.apply_late(entry)
        produced = self._append(ruled.events, now)
        self._remember_answers(ruled, produced)
        return produced

    def _remember_answers(self, ruled: Ruled, produced: list[LogEntry]) -> None:
        """Each answer's result, under its command id: what its RPC returns, and any retry of it."""
        first = produced[0].number if produced else self.last_number
        for answer in ruled.answers:
            self.commands[(answer.seat, answer.command_id)] = CommandRecord(
                {"actions": canonical(answer.actions)},
                actions_pb2.CommandResult(event_number=first, last_event_number=self.last_number,
                                          outcome=answer.outcome),
            )

    def _apply_timeout(self, entry: journal.Timeout, now: int) -> list[LogEntry]:
        """The turn clock ran out: the documented default (draw, then pass), a strike, maybe a takeover."""
        assert self.match is not None
        seat = self.seats[entry.seat]
        game = self.match.game
        seat.strikes += 1
        events: list[Event | events_pb2.Event] = [
            convert.turn_timed_out(seat.index, seat.strikes, self.settings.strikes_before_takeover)]
        seat.bank_s = 0.0
        self.clocks.forget_seat()
        options = legal_actions(game, seat.index)
        default: Action | None = next((a for a in options if isinstance(a, Draw | Pass)), None)
        if default is None:
            default = choose_action(game, seat.index, options, random.Random(self.seed + self.last_number))
        events += self.match.apply(default)
        if isinstance(default, Draw) and not self.match.is_over and self.match.game.to_act == seat.index:
            keep = next((a for a in legal_actions(self.match.game, seat.index) if isinstance(a, Pass)), None)
            if keep is not None:  # the default is draw, then pass: a playable drawn card is kept
                events += self.match.apply(keep)
        if self.settings.strikes_before_takeover and seat.strikes >= self.settings.strikes_before_takeover:
            events += self._take_over(seat, strikes=True)
        produced = self._append(events, now)
        self._after_change(now)
        return produced

    def _apply_lost(self, entry: journal.Lost, now: int) -> list[LogEntry]:
        """The numbers the store lost after the host sent them: one EventsLost marker each (journal.Lost)."""
        if entry.first != self.last_number + 1 or entry.last < entry.first:
            raise ValueError(f"lost events {entry.first} to {entry.last} do not follow the end {self.last_number}")
        self.lost.append((entry.first, entry.last))
        return self._append([convert.events_lost(entry.first, entry.last)
                             for _ in range(entry.first, entry.last + 1)], now)

    def lost_range(self, number: int) -> tuple[int, int] | None:
        """The range of EventsLost markers `number` is in, if any: a client that saw it saw another event."""
        return next(((first, last) for first, last in self.lost if first <= number <= last), None)

    def _apply_chat(self, entry: journal.Chat, now: int) -> list[LogEntry]:
        seat = entry.seat
        events: list[Event | events_pb2.Event] = [convert.chat_message(seat, entry.name, entry.text)]
        if seat is not None and self.match is not None and not self.match.is_over:
            penalty = self.match.apply(Chat(seat))
            if penalty:
                events.append(convert.chat_penalty(seat, 2))
                events += penalty
        produced = self._append(events, now)
        if entry.cid:  # remembered, so a retry (after a restart too) gets this result
            self.commands[_chat_key(seat, entry.by, entry.cid)] = CommandRecord(
                {"text": entry.text}, self._chat_result(produced))
        return produced

    def _chat_result(self, produced: list[LogEntry]) -> actions_pb2.CommandResult:
        """A chat message's events: the message, then any penalty for breaking a silence (H14)."""
        penalized = len(produced) > 1
        return actions_pb2.CommandResult(
            event_number=produced[0].number, last_event_number=self.last_number,
            outcome=actions_pb2.COMMAND_OUTCOME_PENALIZED if penalized else actions_pb2.COMMAND_OUTCOME_APPLIED)

    def _after_change(self, now: int) -> None:
        """Re-arm the turn clock and the deadlines of newly opened blocking windows."""
        assert self.match is not None
        if self.match.is_over or self.match.is_awaiting_deal:
            self.clocks.stop()
            return
        game = self.match.game
        to_act = game.to_act
        timed = None if to_act is None or self.seats[to_act].is_bot or self.holds.current is not None else to_act
        bank_s = self.seats[timed].bank_s if timed is not None else 0.0
        self.clocks.arm(game.windows.values(), timed, bank_s, now)

    def restart_clocks(self, now: int) -> None:
        """After a host restart (`Host.restore`): the seat to act gets its whole turn again from `now`,
        since its player was away with the host, not late; its new deadline rides on the next event's
        legal actions (and views show it at once)."""
        seat = self.clocks.timed_seat
        if seat is not None and self.match is not None and not self.match.is_over:
            self.clocks.restart(self.seats[seat].bank_s, now)

    def _charge_clock(self, seat: int, now: int) -> None:
        """The seat the clock was timing decided: time past its allowance comes out of its bank."""
        over = self.clocks.charge(seat, now)
        if over > 0:
            self.seats[seat].bank_s = max(0.0, self.seats[seat].bank_s - over)

    # ----------------------------------------------------------------------------- fair shuffles

    def _advance_shuffle(self, entry: journal.AnyEntry, now: int) -> list[LogEntry]:
        """Before each deal, run the commit-reveal shuffle (docs/fairness.md section 7) as far as it goes.

        It starts in the entry after which the match awaits a deal (the start, or the play that ended a
        round): the host's seed and its bots' values are drawn into that entry's private `fair` part, so a
        replay derives the same deck. Bots and taken-over seats contribute at once; player seats with an
        event stream open are asked to commit, then to reveal, each within the table's reaction time
        (the driver records the deadline). Once every asked seat has revealed or timed out, the deck is
        derived, committed and dealt in the same entry.
        """
        match = self.match
        if match is None or not self.fair_shuffle or not match.is_awaiting_deal:
            return []
        produced: list[LogEntry] = []
        if self.shuffle is None:
            in_play = [seat for seat in self.seats if seat.index not in match.eliminated]
            self.shuffle, events = ShuffleRound.begin(
                entry.fair, table_id=self.table_id, round_no=match.round_no + 1,
                bots=[seat.index for seat in in_play if seat.is_bot],
                # the seats the log shows connected, so the log proves who had to be asked (fairness 7.1)
                players=[seat.index for seat in in_play if not seat.is_bot and seat.shown_connected],
                reaction_ns=int(self.settings.reaction_time_s * 1e9), now=now,
            )
            self.cards = None
            produced += self._append(events + self.shuffle.start(now), now)
        if self.shuffle.is_ready:
            produced += self._deal_committed(now)
        return produced

    def _deal_committed(self, now: int) -> list[LogEntry]:
        """Derive the round's deck from the revealed seeds, publish its root and commitments, and deal."""
        assert self.match is not None and self.shuffle is not None
        shuffle, ruleset = self.shuffle, self.ruleset
        contents = standard_deck(
            blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds, h2o_wilds=ruleset.h2o_wilds
        )
        cards = RoundCards(self.table_id, shuffle.round_no, shuffle.round_seed(), shuffle.host_seed, contents,
                           window_cards=self.event_format >= 2)
        self.shuffle = None
        produced = self._append([deck_committed(cards.piles[0], cards.round_no, list(shuffle.contributions()))], now)
        self.cards = cards
        produced += self._append(list(self.match.deal(cards.deal_cards, shuffle=cards.shuffle)), now)
        self._after_change(now)
        return produced

    def _apply_entropy(self, entry: journal.Entropy, now: int) -> list[LogEntry]:
        """A seat's CommitEntropy or RevealEntropy. Raises (changing nothing) when it cannot be taken."""
        seat = entry.seat
        if self.shuffle is None:
            raise precondition("NO_SHUFFLE_PENDING", "no shuffle is waiting for contributions now")
        if entry.commitment is not None:  # a refusal raises ShuffleRefused, a HostError
            events = self.shuffle.commit(seat, entry.commitment, now)
        else:
            events = self.shuffle.reveal(seat, entry.value or b"", now)
        produced = self._append(events, now)
        produced += self._advance_shuffle(entry, now)
        self.commands[(seat, entry.cid)] = CommandRecord(entry.request(), actions_pb2.CommandResult(
            event_number=produced[0].number, last_event_number=self.last_number,
            outcome=actions_pb2.COMMAND_OUTCOME_APPLIED))
        return produced

    def _apply_entropy_timeout(self, entry: journal.EntropyTimeout, now: int) -> list[LogEntry]:
        """The phase's deadline passed (recorded by the driver): the seats that did not act are left out."""
        shuffle = self.shuffle
        if shuffle is None or shuffle.round_no != entry.round or shuffle.phase != entry.phase:
            return []
        late = shuffle.waiting_for()
        events: list[Event | events_pb2.Event] = [
            convert.shuffle_timed_out(shuffle.round_no, late, revealing=entry.phase == "reveal")]
        events += shuffle.timeout(entry.phase, now)
        return self._append(events, now)

    def entropy(self, seat: int, command_id: str, *, commitment: bytes | None = None,
                value: bytes | None = None) -> actions_pb2.CommandResult:
        """Apply a seat's CommitEntropy (`commitment`) or RevealEntropy (`value`) once per command id. The
        request's own form (its command id, a commitment's length) is checked before the shuffle's state."""
        check_command_id(command_id, required=True)
        if commitment is not None:
            check_commitment_form(commitment)
        entry = journal.Entropy(seat, command_id, commitment=commitment,
                                value=None if commitment is not None else value or b"")
        previous = self.commands.get((seat, command_id))
        if previous is not None:
            if previous.request != entry.request():
                raise exists("COMMAND_ID_REUSED", f"command id {command_id!r} was used for a different command")
            return previous.result
        self.record(entry)
        return self.commands[(seat, command_id)].result

    # ----------------------------------------------------------------------------- holds between rounds

    def _follow_hold(self, now: int) -> list[LogEntry]:
        """After each input: hold a round just dealt (holds.py), or release the hold in force once it
        waits for nobody. Returns the RoundHeld or RoundReleased it logged, if any."""
        match, holds = self.match, self.holds
        if match is None or not match.round_no or match.is_awaiting_deal or self.shuffle is not None:
            return []
        if match.is_over:
            if holds.current is not None:
                holds.end()
            return []
        if holds.current is None and match.round_no > holds.dealt_round:
            blocking = any(window.is_blocking for window in match.game.windows.values())
            hold = holds.on_deal(match.round_no, self._watching_players(), now, can_hold=not blocking)
            if hold is None:
                return []
            self._after_change(now)  # the held turn's clock stops
            return self._append([convert.round_held(hold.round_no, hold.until_ns, hold.waiting)], now)
        if holds.current is not None and holds.settle(self._watching_players()):
            return self._release(now, time_up=False)
        return []

    def _watching_players(self) -> list[int]:
        """The seats a hold waits for: players' seats in the round with an event stream open."""
        assert self.match is not None
        game = self.match.game
        return [seat.index for seat in self.seats
                if seat.is_player and seat.shown_connected and game.in_play[seat.index]]

    def _release(self, now: int, *, time_up: bool) -> list[LogEntry]:
        """End the hold: the held turn's clock starts now, and RoundReleased brings every seat's options."""
        hold = self.holds.end()
        self._after_change(now)
        return self._append([convert.round_released(hold.round_no, time_up=time_up,
                                                    turn_deadline_ns=self.turn_deadline_ns)], now)

    def _apply_release(self, entry: journal.Release, now: int) -> list[LogEntry]:
        """The hold's time ran out (recorded by the driver)."""
        hold = self.holds.current
        if hold is None or hold.round_no != entry.round:
            return []
        return self._release(now, time_up=True)

    def _apply_scores_closed(self, entry: journal.ScoresClosed, now: int) -> list[LogEntry]:
        """A seat closed a round's scores: the hold of the next round's first turn no longer waits for it."""
        self.holds.close(entry.seat, entry.round)
        produced = self._follow_hold(now)
        self.commands[(entry.seat, entry.cid)] = CommandRecord(
            {"close_scores": entry.round}, self._result(produced))
        return produced

    def _result(self, produced: list[LogEntry]) -> actions_pb2.CommandResult:
        """An applied command's result: its first and the table's last event (its first is the last
        logged when it produced none)."""
        return actions_pb2.CommandResult(
            event_number=produced[0].number if produced else self.last_number, last_event_number=self.last_number,
            outcome=actions_pb2.COMMAND_OUTCOME_APPLIED)

    def rounds_ended(self) -> int:
        """How many rounds have ended: the scores a seat may have read."""
        match = self.match
        if match is None:
            return 0
        return match.round_no if match.is_awaiting_deal or match.is_over else match.round_no - 1

    def close_scores(self, seat: int, command_id: str, round_no: int) -> actions_pb2.CommandResult:
        """CloseScores: `seat`'s player read the scores of `round_no` (journalled when it may matter to a
        hold: the last round ended, not closed before; anything else changes nothing)."""
        check_command_id(command_id, required=True)
        if round_no <= 0:
            raise invalid("MISSING_FIELD", "round_number names the round whose scores were read, from 1",
                          field="round_number")
        previous = self.commands.get((seat, command_id))
        if previous is not None:
            if previous.request != {"close_scores": round_no}:
                raise exists("COMMAND_ID_REUSED", f"command id {command_id!r} was used for a different command")
            return previous.result
        ended = self.rounds_ended()
        if round_no > ended:
            raise precondition("ROUND_NOT_OVER", f"round {round_no} has not ended (rounds ended: {ended})")
        assert self.match is not None
        if round_no < ended or self.holds.closed(seat) >= round_no or self.match.is_over:
            return self._result([])  # nothing a hold waits for: changes nothing
        self.record(journal.ScoresClosed(seat, command_id, round_no))
        return self.commands[(seat, command_id)].result

    def refuse_if_held(self) -> None:
        """Refuse a command while a round's first turn is held (FAILED_PRECONDITION, ROUND_HELD)."""
        hold = self.holds.current
        if hold is not None:
            left = max(0.0, (hold.until_ns - self.clock_ns()) / 1e9)
            raise precondition("ROUND_HELD", f"round {hold.round_no} starts when the players have read the scores "
                               f"of round {hold.round_no - 1}, or in {left:.1f} s at the latest (RoundReleased)")

    # ----------------------------------------------------------------------------- commands

    def command(self, seat: int, command_id: str, actions: tuple[Action, ...]) -> actions_pb2.CommandResult:
        """Apply a seat's command once: a retried command id returns the first result unchanged."""
        check_command_id(command_id, required=True)
        request = {"actions": [dump_action(a) for a in actions]}
        previous = self.commands.get((seat, command_id))
        if previous is not None:
            if previous.request != request:
                raise exists("COMMAND_ID_REUSED", f"command id {command_id!r} was used for a different command")
            return previous.result
        if self.match is not None and self.match.is_over:
            raise precondition("GAME_OVER", "the match is over")
        self.record(journal.Command(seat, command_id, request["actions"]))
        return self.commands[(seat, command_id)].result

    def chat(self, token: str, command_id: str, text: str) -> actions_pb2.CommandResult:
        """A chat message from a seat or a spectator, shown once per command id (a retry gets the first
        result). Under silent_two (H14) a seat's message may draw a penalty."""
        check_command_id(command_id, required=False)  # a chat message may go without one
        seat = self.seat_for(token)
        by = token if seat is None else None  # a spectator's retries are told apart by its token
        if command_id:
            previous = self.commands.get(_chat_key(seat, by, command_id))
            if previous is not None:
                if previous.request != {"text": text}:
                    raise exists("COMMAND_ID_REUSED", f"command id {command_id!r} was used for another message")
                return previous.result
        name = self.seats[seat].name if seat is not None else self.spectators[token]
        produced = self.record(journal.Chat(seat, name, text, command_id, by if command_id else None))
        return self.commands[_chat_key(seat, by, command_id)].result if command_id else self._chat_result(produced)

    def join(self, name: str, seat: int | None, spectator: bool) -> tuple[str, int | None]:
        token = secrets.token_urlsafe(24)
        if spectator:
            self.record(journal.Spectate(token, name))
            return token, None
        seat = self.places.seat_to_join(seat)
        self.record(journal.Join(seat, name, token))
        return token, seat

    def leave_spectator(self, token: str) -> None:
        """A spectator gives its place up: the token stops working. Journalled, so a restart keeps it gone;
        no event, as a spectator's joining is none."""
        self.record(journal.Unspectate(token))

    # ----------------------------------------------------------------------------- subscribers

    def subscribe(self, seat: int | None) -> Subscriber:
        """A new stream: the table queues it every event after the current last one (the stream reads
        the earlier ones from the log, once they are durable: `store.durable()`). A seat's first stream
        is announced first (SeatConnectionChanged), so that event is the last of the stream's backlog,
        and a snapshot (which shows the seat connected) is numbered after it."""
        if seat is not None:
            self.seats[seat].connected += 1
            self.sync_connections()
        subscriber = Subscriber(seat, first_queued=self.last_number + 1)
        self.fanout.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """Forget a stream. Its seat's disconnection is announced by the next `sync_connections`, under
        the table's lock (the driver's next step): a stream may end where no input may be recorded."""
        if self.fanout.remove(subscriber):
            if subscriber.seat is not None:
                self.seats[subscriber.seat].connected -= 1
                self.wake_driver(force=True)

    def sync_connections(self) -> None:
        """Record a SeatConnectionChanged for each player's seat whose streams opened or all closed since
        the last one said otherwise. Host bots have no stream and are always connected, so they get
        none. After a restart the replayed journal says who was connected and no stream is open yet, so
        the first call announces those seats as disconnected until they resume. Once the match is over
        nothing is announced: the record of a finished table stays as it ended."""
        if self.match is not None and self.match.is_over:
            return
        for seat in self.seats:
            live = seat.connected > 0
            if seat.token and not seat.is_bot and live != seat.shown_connected:
                self.record(journal.Connection(seat.index, live))

    def cut_off(self, subscriber: Subscriber, *, store_failed: bool = False) -> None:
        """End a stream (`FanOut.cut_off`): a reader too slow to keep up, or one the store failed."""
        self.fanout.cut_off(subscriber, store_failed=store_failed)

    @property
    def subscribers(self) -> list[Subscriber]:
        """The table's open event streams."""
        return self.fanout.subscribers


def check_command_id(command_id: str, *, required: bool) -> None:
    """Refuse a command id of the wrong form (INVALID_ARGUMENT): missing where `required`, too long, or
    not printable ASCII. A request's own form is checked before the table's state (docs/protocol.md,
    "Which refusal comes first"): `Table.acting_seat` checks it before a command is routed to a race."""
    if required and not command_id:
        raise invalid("COMMAND_ID_MISSING", "every command needs a client-chosen command_id")
    if len(command_id) > MAX_COMMAND_ID:
        raise invalid("COMMAND_ID_TOO_LONG", f"command ids are at most {MAX_COMMAND_ID} characters")
    if not (command_id.isascii() and command_id.isprintable()):  # the contract: printable ASCII (" " to "~") only
        raise invalid("INVALID_FIELD", f"command ids are printable ASCII characters, and {command_id!a} is not",
                      field="command_id")


def _chat_key(seat: int | None, spectator_token: str | None, command_id: str) -> tuple[int, str]:
    """Where a chat message's command id is remembered: apart from the seat's game commands (a client
    may number both from one), and per spectator for spectators (who have no seat)."""
    if seat is not None:
        return seat, f"chat:{command_id}"
    return -1, f"chat:{spectator_token}:{command_id}"


def _is_connection_change(event: Event | events_pb2.Event) -> bool:
    return isinstance(event, events_pb2.Event) and event.HasField("seat_connection_changed")
