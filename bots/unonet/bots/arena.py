"""An in-process table for measuring policies: whole rounds on the engine, each seat fed what the host
would send it, with no network, clocks or journal.

`play_round` deals one round of a `Match` and plays it to its end with one `unonet.bots` policy per
seat. Every policy sees exactly what a networked seat sees, built by the host's converter: the
protobuf events as that seat may see them (`convert.event_to_pb`), and a `SeatView` with its legal
actions (`convert.view_to_pb`) at every decision; its command goes back through the PlayService
conversion (`policy_seat.engine_actions`). Only what a real table adds on top is left out: event
numbers, clocks, fair-shuffle commitments, latency forgiveness.

How a table's races come out here: after every change, every seat with an optional action (a catch, a
jump-in, an early UNO call) is asked once, in turn order from the seat after the one that acted, and
the first command the rules take wins (as if each seat answered at once and the nearest was fastest).
A blocking window (UNO slap, Sound Wild, a run's cut) is answered by every eligible seat that wants to,
in a seeded random order, and then closed, as a host rules it at its deadline.

A policy that sees every hand (`OmniscientBot`, the oracle) is shown the true round before each of its
calls; only this in-process table can do that, which is why the oracle exists nowhere else.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, runtime_checkable

from unonet.bots import Bot
from unonet.bots.policy_seat import PolicySeat
from unonet.client import commands as cmd
from unonet.engine import Action, Draw, Event, Game, Match, Pass, Ruleset, UnoError, legal_actions
from unonet.engine import events as ev
from unonet.v1 import table_pb2, views_pb2
from unonet.wire import convert

__all__ = ["OmniscientBot", "RoundResult", "RoundTooLong", "play_round"]

#: Past this many commands a round is taken to loop (a policy, or the rules, going round in circles).
MAX_COMMANDS = 20_000
# How many optional reactions are taken after one change before play goes on (a policy that keeps
# answering must not stall the round).
_MAX_REACTIONS = 8


@runtime_checkable
class OmniscientBot(Protocol):
    """A policy allowed to see the true round (measurement only): `reveal` is called before each decision."""

    def reveal(self, game: Game) -> None: ...


class RoundTooLong(RuntimeError):
    """A round ran past MAX_COMMANDS."""


@dataclass
class RoundResult:
    """One round's outcome.

    Attributes:
        winner: the seat that went out.
        points: what each seat scored this round (P2: the winner scores the others' cards).
        decision_ns: for each seat, how long each of its policy's calls took, in nanoseconds (wall clock).
        decision_cpu_ns: the same calls' CPU time in this thread, which a machine busy with other work
            does not inflate (its wall time includes the moments the process was not running).
        commands: how many commands the seats sent.
        refused: how many of them the rules refused (each followed by the default action).
    """

    winner: int
    points: tuple[int, ...]
    decision_ns: list[list[int]] = field(default_factory=list)
    decision_cpu_ns: list[list[int]] = field(default_factory=list)
    commands: int = 0
    refused: int = 0


def play_round(
    ruleset: Ruleset,
    bots: Sequence[Bot],
    seed: int,
    *,
    dealer: int = 0,
    clock_ns: Callable[[], int] = time.perf_counter_ns,
) -> RoundResult:
    """Deal one round from `seed` (the same seed and dealer deal the same cards) and play it out.

    `bots[i]` plays seat i. Raises RoundTooLong when the round runs past MAX_COMMANDS.
    """
    players = len(bots)
    match = Match(ruleset, players, random.Random(seed), dealer=dealer, auto_deal=False)
    table = _Arena(ruleset, [PolicySeat(bot, seat) for seat, bot in enumerate(bots)], match, clock_ns, seed)
    table.feed(match.start() + match.deal())
    return table.play()


class _Arena:
    def __init__(
        self, ruleset: Ruleset, seats: list[PolicySeat], match: Match, clock_ns: Callable[[], int], seed: int
    ) -> None:
        self.seats = seats
        self.match = match
        self.clock_ns = clock_ns
        self.order = random.Random(seed ^ 0x5EED)
        self.settings = table_pb2.TableSettings(ruleset=convert.ruleset_to_pb(ruleset), seat_count=len(seats))
        self.seat_states = [
            table_pb2.SeatState(seat=seat.seat, occupied=True, is_bot=True, bot_kind=seat.bot.kind, connected=True)
            for seat in seats
        ]
        self.result = RoundResult(winner=-1, points=(), decision_ns=[[] for _ in seats],
                                  decision_cpu_ns=[[] for _ in seats])
        self.ended: ev.RoundEnded | None = None

    def feed(self, events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, ev.RoundEnded):
                self.ended = event
            for seat in self.seats:
                seat.follow(convert.event_to_pb(event, seat.seat))

    def view(self, seat: int) -> views_pb2.SeatView:
        return convert.view_to_pb(
            self.match.view_for(seat), table_id="arena", event_number=0, seats=self.seat_states,
            settings=self.settings, status=table_pb2.TABLE_STATUS_PLAYING,
        )

    def play(self) -> RoundResult:
        game = self.match.game
        while not game.is_over:
            if self.result.commands > MAX_COMMANDS:
                raise RoundTooLong(f"a round of {len(self.seats)} ran past {MAX_COMMANDS} commands")
            seat = game.to_act
            if seat is None:
                self._blocking_window(game)
            else:
                command = self._timed(seat, lambda s: s.decide(self.view(s.seat)))
                self._apply(seat, command, required=True)
                self._reactions(seat)
        assert self.ended is not None, "a finished round has its RoundEnded"
        self.result.winner = self.ended.winner
        self.result.points = self.ended.points
        return self.result

    def _timed(self, seat: int, call: Callable[[PolicySeat], cmd.Command | None]) -> cmd.Command | None:
        policy = self.seats[seat]
        if isinstance(policy.bot, OmniscientBot):
            policy.bot.reveal(self.match.game)
        start, cpu = self.clock_ns(), time.thread_time_ns()
        command = call(policy)
        self.result.decision_cpu_ns[seat].append(time.thread_time_ns() - cpu)
        self.result.decision_ns[seat].append(self.clock_ns() - start)
        return command

    def _apply(self, seat: int, command: cmd.Command | None, *, required: bool) -> bool:
        """Apply `seat`'s command; a refused required one is replaced by the host's default. True if applied."""
        if command is None:
            return False
        self.result.commands += 1
        try:
            self.feed(self.match.apply_command(self.seats[seat].actions(command)))
            return True
        except UnoError:
            self.result.refused += 1
            if not required:
                return False
        options = legal_actions(self.match.game, seat)
        default = next((a for a in options if isinstance(a, Draw | Pass)), options[0] if options else None)
        if default is not None:
            self.feed(self.match.apply(default))
        return False

    def _reactions(self, actor: int) -> None:
        """Ask every seat with an optional action, in turn order from the seat after `actor`, once each."""
        game = self.match.game
        players = len(self.seats)
        taken = 0
        for offset in range(1, players + 1):
            seat = (actor + offset) % players
            if game.is_over or taken >= _MAX_REACTIONS or game.to_act == seat or not game.in_play[seat]:
                continue
            if not legal_actions(game, seat):
                continue
            legal = self.view(seat).legal_actions
            command = self._timed(seat, partial(PolicySeat.respond, legal=legal))
            if self._apply(seat, command, required=False):
                taken += 1

    def _blocking_window(self, game: Game) -> None:
        """Every eligible seat that answers, in a seeded random order; then the window is ruled."""
        window = next(w for w in game.windows.values() if w.is_blocking)
        answers: list[tuple[int, tuple[Action, ...]]] = []
        for seat in window.eligible:
            command = self._timed(seat, lambda s: s.respond(self.view(s.seat).legal_actions))
            if command is not None:
                try:
                    answers.append((seat, self.seats[seat].actions(command)))
                except UnoError:
                    self.result.refused += 1
        self.order.shuffle(answers)
        self.result.commands += len(answers)
        self.feed(self.match.resolve_window(window.id, [actions for _, actions in answers]))

