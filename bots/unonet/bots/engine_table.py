"""`EngineTable`: `unonet.bots` policies playing a `Match` straight on the engine, each seat fed what a
networked seat receives, with no host, network, clocks or journal: the one in-process play loop.

Both in-process players run on it: the arena the bots' benchmarks and tests measure with
(`unonet.bots.arena.play_round`) and the league's `--inprocess` path (`unonet.league.inprocess`).
Every seat is a `PolicySeat`: the protobuf events as that seat may see them (`convert.event_to_pb`),
its `SeatView` with its legal actions at every decision (`convert.view_to_pb`), and its command back
through the PlayService conversion (`policy_seat.engine_actions`). What the table adds on top of the
engine is only what a host would: the seat the game waits for decides, retried as a `BotRunner`
retries (two refusals, then the safe default, Draw else Pass, then the first legal action); the
others get their optional reactions; a blocking window nobody answers is closed.

Where a host races (several seats reacting to one change), an in-process table needs a fixed rule,
and the two players keep the rules their recorded results were measured under, each a `Races`:

- `SweepRaces` (the arena): after every required decision, every seat with an optional action is asked
  once, in turn order from the seat after the one that acted, and every command the rules take is
  applied (at most `MAX_REACTIONS`), as if each seat answered at once and the nearest was fastest. A
  blocking window (UNO slap, Sound Wild, a run's cut) is answered by every eligible seat that wants
  to, in a seeded random order, and then ruled, as a host rules it at its deadline.
- `StepRaces` (the league): before each step, every other seat in turn from the one after the seat
  that last acted is offered its optional reactions, if they changed since it was last shown them;
  the first one the rules take is the step. A blocking window is offered to its eligible seats in
  order, as their required decision; the first answer taken is the step, and with none the window is
  closed.

Options the callers differ in: `keep_log` numbers the events and keeps the public log (what a spectator
of a host table would receive, without clock fields) for a recorded game; `crash_forfeits` makes a
policy that raises forfeit its seat (else the exception propagates, as a benchmark wants);
`ends_with_round` ends the game at its first RoundEnded (the next round's deal is not part of it).
A policy that sees every hand (`OmniscientBot`, the oracle) is shown the true round before each of its
calls; only an in-process table can do that, which is why the oracle exists nowhere else.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol, runtime_checkable

from unonet.bots.policy import Bot, default_command
from unonet.bots.policy_seat import PolicySeat
from unonet.client import commands as cmd
from unonet.engine import Action, Game, Match, React, UnoError, legal_actions
from unonet.engine import events as ev
from unonet.engine.events import Event, Window
from unonet.v1 import actions_pb2, events_pb2, table_pb2, views_pb2
from unonet.wire import convert

__all__ = ["MAX_REACTIONS", "EngineTable", "OmniscientBot", "Races", "StepRaces", "SweepRaces"]

#: How many optional reactions `SweepRaces` takes after one decision before play goes on (a policy that
#: keeps answering must not stall the round).
MAX_REACTIONS = 8
# How many times the seat the game waits for is asked (then given the safe default) before the table
# applies the first legal action itself.
_MAX_ATTEMPTS = 4
_POLICY_ATTEMPTS = 2


@runtime_checkable
class OmniscientBot(Protocol):
    """A policy allowed to see the true round (measurement only): `reveal` is called before each decision."""

    def reveal(self, game: Game) -> None: ...


class Races(Protocol):
    """How a table without a network settles what a host races: optional reactions and blocking windows."""

    def react(self, table: EngineTable, last: int) -> int | None:
        """Before a step: offer optional reactions; the seat whose reaction was the step, or None."""

    def after_decision(self, table: EngineTable, seat: int) -> None:
        """After `seat`'s required decision, within the same step."""

    def blocking(self, table: EngineTable, window: Window) -> int | None:
        """Nobody is to act: settle the blocking `window`; the seat that answered it, or None."""


class EngineTable:
    """One match on the engine with a policy at every seat (see the module).

    Args:
        match: the match, not yet started: the caller feeds its first events (`feed(match.start())`).
        bots: `bots[i]` plays seat i.
        races: how optional reactions and blocking windows are settled.
        settings, seat_states: what the seats' views say about the table.
        table_id: the table id the views carry.
        keep_log: number the events and keep the public log (`log`).
        crash_forfeits: a policy that raises forfeits its seat (`crashed`); else the exception propagates.
        ends_with_round: the game ends with its first RoundEnded.
        max_steps: past this many steps the game is stopped (`stalled`).
        clock_ns: the clock each policy call's time is measured by.
    """

    def __init__(
        self,
        match: Match,
        bots: Sequence[Bot],
        races: Races,
        *,
        settings: table_pb2.TableSettings,
        seat_states: Sequence[table_pb2.SeatState],
        table_id: str,
        keep_log: bool = False,
        crash_forfeits: bool = False,
        ends_with_round: bool = True,
        max_steps: int = 20_000,
        clock_ns: Callable[[], int] = time.perf_counter_ns,
    ) -> None:
        self.match = match
        self.seats = [PolicySeat(bot, seat) for seat, bot in enumerate(bots)]
        self.n = len(self.seats)
        self.races = races
        self.settings = settings
        self.seat_states = list(seat_states)
        self.table_id = table_id
        self.log: list[bytes] | None = [] if keep_log else None
        self.crash_forfeits = crash_forfeits
        self.ends_with_round = ends_with_round
        self.max_steps = max_steps
        self.clock_ns = clock_ns
        #: The legal actions each seat was last shown (at a decision or an offered reaction).
        self.shown: list[actions_pb2.LegalActions | None] = [None] * self.n
        #: The seats whose policy raised (with `crash_forfeits`): forfeited, no longer fed or asked.
        self.crashed: set[int] = set()
        self.round_ended: ev.RoundEnded | None = None
        self.match_ended: ev.MatchEnded | None = None
        self.steps = 0
        self.stalled = False
        #: Commands the seats sent, and how many of them the rules refused.
        self.commands = 0
        self.refused = 0
        #: Per seat, each policy call's wall-clock and CPU time in this thread, in nanoseconds.
        self.decision_ns: list[list[int]] = [[] for _ in range(self.n)]
        self.decision_cpu_ns: list[list[int]] = [[] for _ in range(self.n)]

    # ------------------------------------------------------------------------------ events

    @property
    def is_over(self) -> bool:
        """The game's end was fed: its RoundEnded (with `ends_with_round`) or its MatchEnded."""
        return self.round_ended is not None or self.match_ended is not None or self.match.is_over

    def feed(self, produced: Sequence[Event]) -> None:
        """Tell every seat its copy of each engine event; nothing after the game's end but its MatchEnded."""
        for event in produced:
            if (self.round_ended is not None or self.match_ended is not None) and not isinstance(
                event, ev.PlayerEliminated | ev.MatchEnded
            ):
                return
            public = convert.event_to_pb(event, None) if self.log is not None else None
            self.emit(public, [convert.event_to_pb(event, seat) for seat in range(self.n)])
            if isinstance(event, ev.RoundEnded) and self.ends_with_round:
                self.round_ended = event
            elif isinstance(event, ev.MatchEnded):
                self.match_ended = event

    def emit(self, public: events_pb2.Event | None, per_seat: Sequence[events_pb2.Event]) -> None:
        """Number one event into the log (with `keep_log`) and let every seat still playing follow it."""
        number = 0
        if self.log is not None and public is not None:
            number = public.number = len(self.log) + 1
            self.log.append(public.SerializeToString())
        for seat, copy in enumerate(per_seat):
            if seat in self.crashed:
                continue
            if number:
                copy.number = number
            self.guard(seat, partial(_follow, event=copy))

    # ------------------------------------------------------------------------------ play

    def play(self) -> None:
        """Play until the game's end, or `max_steps` steps (then `stalled`)."""
        last = self.n - 1
        while not self.is_over:
            if self.steps >= self.max_steps:
                self.stalled = True
                return
            self.steps += 1
            acted = self.races.react(self, last)
            if acted is None:
                to_act = self.match.game.to_act
                if to_act is None:
                    window = next(w for w in self.match.game.windows.values() if w.is_blocking)
                    acted = self.races.blocking(self, window)
                else:
                    self.decide(to_act)
                    self.races.after_decision(self, to_act)
                    acted = to_act
            if acted is not None:
                last = acted

    def view(self, seat: int) -> views_pb2.SeatView:
        """The seat's SeatView now, as GetView would give it."""
        return convert.view_to_pb(
            self.match.view_for(seat), table_id=self.table_id, event_number=len(self.log or ()),
            seats=self.seat_states, settings=self.settings, status=table_pb2.TABLE_STATUS_PLAYING,
        )

    def decide(self, seat: int) -> bool:
        """The seat's required decision, retried as a BotRunner retries; True once something was applied."""
        for failures in range(_MAX_ATTEMPTS):
            view = self.view(seat)
            self.shown[seat] = view.legal_actions
            if failures < _POLICY_ATTEMPTS:
                command = self.call(seat, partial(PolicySeat.decide, view=view))
                if seat in self.crashed:
                    return True
            else:
                self.seats[seat].state.update_from_view(view)
                command = default_command(view.legal_actions)
            if command is not None and self.send(seat, command):
                return True
        # Nothing the policy sent was legal: the host's own choice, the first legal action.
        self.feed(self.match.apply(self.match.legal_actions(seat)[0]))
        return True

    def send(self, seat: int, command: cmd.Command) -> bool:
        """Apply `seat`'s command; False (and nothing changed) when the rules refuse it."""
        self.commands += 1
        if isinstance(command, cmd.React | cmd.CatchUno) and command.reaction_window_id:
            self.seats[seat].state.answered_windows.add(command.reaction_window_id)
        try:
            produced = self.match.apply_command(self.seats[seat].actions(command))
        except (UnoError, TypeError):
            self.refused += 1
            return False
        self.feed(produced)
        return True

    def call(self, seat: int, call: Callable[[PolicySeat], cmd.Command | None]) -> cmd.Command | None:
        """A policy's decision or reaction, timed (`decision_ns`); see `guard` for one that raises."""
        policy = self.seats[seat]
        if isinstance(policy.bot, OmniscientBot):
            policy.bot.reveal(self.match.game)
        start, cpu = self.clock_ns(), time.thread_time_ns()
        try:
            return self.guard(seat, call)
        finally:
            self.decision_cpu_ns[seat].append(time.thread_time_ns() - cpu)
            self.decision_ns[seat].append(self.clock_ns() - start)

    def guard(self, seat: int, call: Callable[[PolicySeat], cmd.Command | None]) -> cmd.Command | None:
        """Run a policy callback; with `crash_forfeits`, one that raises forfeits its seat and gives None."""
        if not self.crash_forfeits:
            return call(self.seats[seat])
        try:
            return call(self.seats[seat])
        except Exception:
            if seat not in self.crashed and not self.match.is_over:
                self.crashed.add(seat)
                self.feed(self.match.forfeit(seat))
            return None


def _follow(policy: PolicySeat, event: events_pb2.Event) -> None:
    policy.follow(event)


class SweepRaces:
    """The arena's races (see the module): a sweep of optional reactions after each required decision,
    and a blocking window's answers ruled in an order drawn from `seed`."""

    def __init__(self, seed: int) -> None:
        self.order = random.Random(seed ^ 0x5EED)

    def react(self, table: EngineTable, last: int) -> int | None:
        return None

    def after_decision(self, table: EngineTable, seat: int) -> None:
        """Ask every seat with an optional action, in turn order from the seat after `seat`, once each."""
        game = table.match.game
        taken = 0
        for offset in range(1, table.n + 1):
            other = (seat + offset) % table.n
            if game.is_over or taken >= MAX_REACTIONS or game.to_act == other or not game.in_play[other]:
                continue
            if not legal_actions(game, other):
                continue
            legal = table.view(other).legal_actions
            command = table.call(other, partial(PolicySeat.respond, legal=legal))
            if command is not None and table.send(other, command):
                taken += 1

    def blocking(self, table: EngineTable, window: Window) -> int | None:
        """Every eligible seat that answers, in a seeded random order; then the window is ruled."""
        answers: list[tuple[int, tuple[Action, ...]]] = []
        for seat in window.eligible:
            legal = table.view(seat).legal_actions
            command = table.call(seat, partial(PolicySeat.respond, legal=legal))
            if command is not None:
                try:
                    answers.append((seat, table.seats[seat].actions(command)))
                except UnoError:
                    table.refused += 1
        self.order.shuffle(answers)
        table.commands += len(answers)
        table.feed(table.match.resolve_window(window.id, [actions for _, actions in answers]))
        return None


class StepRaces:
    """The league's races (see the module): one optional reaction per step, offered only when it changed;
    a blocking window offered to its eligible seats in order."""

    def react(self, table: EngineTable, last: int) -> int | None:
        """Offer each other seat, in turn from the one after `last`, its optional reactions that changed."""
        to_act = table.match.game.to_act
        for offset in range(1, table.n + 1):
            seat = (last + offset) % table.n
            if seat == to_act or seat in table.crashed or not table.match.legal_actions(seat):
                continue
            view = table.view(seat)
            legal = view.legal_actions
            if legal.required or legal == table.shown[seat]:
                continue
            table.shown[seat] = legal
            table.seats[seat].state.update_from_view(view)
            command = table.call(seat, partial(PolicySeat.respond, legal=legal))
            if command is not None and table.send(seat, command):
                return seat
        return None

    def after_decision(self, table: EngineTable, seat: int) -> None:
        return None

    def blocking(self, table: EngineTable, window: Window) -> int | None:
        """The eligible seats in order, each as its required decision; with no answer, close the window."""
        for seat in window.eligible:
            if seat not in table.crashed and any(isinstance(a, React) for a in table.match.legal_actions(seat)):
                if table.decide(seat):
                    return seat
        table.feed(table.match.close_window(window.id))
        return None
