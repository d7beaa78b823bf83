"""`--inprocess`: trusted Python bots played straight on the engine, no host, no network.

One game is one `unonet.engine.Match` dealt from the deal's seed (`random.Random(seed)`: the same
deck, dealer and reshuffles a league-seeded host table deals from that seed), and the bots are the very
policies the gRPC path runs, fed what a `BotRunner` would feed them: the protocol's `SeatView` when
the game waits for them (`decide`), their legal actions when those change and only offer something
optional (`respond`), and every event as their seat receives it (`BotState.update`, `Bot.on_event`).
Every conversion goes through `unonet.wire.convert`, the one module that knows both sides.

Where the network path races (several seats reacting to one window) this path is a fixed order: after
each step, every other seat in turn from the one after the seat that acted is offered its optional
reactions before the game moves on. A policy that raises forfeits its seat (outcome "crash"); a command
the rules refuse is retried as a `BotRunner` does (twice, then the default action); a game that runs
past the league's `max_steps` is ended as a stall, ranked by the points left in hand.

The game's public log (what a spectator of a host table would receive, without clock fields) is kept
with the result, so `unonet replay` opens it.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Sequence
from functools import partial

from unonet.bots import Bot, BotState, default_command
from unonet.bots.policy_seat import engine_actions
from unonet.client import commands as cmd
from unonet.engine import Match, React, UnoError, events
from unonet.engine.draws import SeatDraws
from unonet.engine.events import Event
from unonet.league.config import GameUnit, LeagueConfig
from unonet.league.entrants import Factory, bot_seed
from unonet.league.order import hand_points, match_ranks, round_ranks
from unonet.league.results import GameResult, encode_log
from unonet.league.schedule import GameSpec
from unonet.v1 import actions_pb2, events_pb2, table_pb2, views_pb2
from unonet.wire import convert

__all__ = ["league_settings", "play_game"]

_MAX_ATTEMPTS = 4


def league_settings(config: LeagueConfig, spec: GameSpec) -> table_pb2.TableSettings:
    """The table settings a league game is played under, as its MatchStarted shows them: a
    league-seeded table (TableSettings.league_seeded) committing to the deal's seed."""
    return table_pb2.TableSettings(
        name=spec.game_id, seat_count=len(spec.seats), ruleset=convert.ruleset_to_pb(config.game_ruleset()),
        league_seeded=True, league_seed_sha256=hashlib.sha256(spec.seed.to_bytes(8, "big")).digest(),
    )


class _Game:
    """One game in progress: the match, the seats' policies and what each has been told."""

    def __init__(self, config: LeagueConfig, spec: GameSpec, factories: Sequence[Factory]) -> None:
        self.config = config
        self.spec = spec
        self.n = len(spec.seats)
        draws = SeatDraws(spec.seed) if config.seat_draws else None
        self.match = Match(config.game_ruleset(), self.n, random.Random(spec.seed), draws=draws)
        self.bots: list[Bot] = [
            build(bot_seed(config.bot(name), spec.seed)) for build, name in zip(factories, spec.seats, strict=True)
        ]
        self.states = [BotState(seat=seat) for seat in range(self.n)]
        self.offered: list[actions_pb2.LegalActions | None] = [None] * self.n
        self.settings = league_settings(config, spec)
        self.seat_states = [
            table_pb2.SeatState(seat=seat, occupied=True, name=name, is_bot=True, connected=True)
            for seat, name in enumerate(spec.seats)
        ]
        self.outcomes = ["played"] * self.n
        self.forfeited: set[int] = set()
        self.log: list[bytes] = []
        self.round_ended: events.RoundEnded | None = None
        self.match_ended: events.MatchEnded | None = None
        self.steps = 0

    # ------------------------------------------------------------------------------ events

    def publish(self, produced: Sequence[Event]) -> None:
        """Number the events into the log and tell every seat its copy; stop at the game's end."""
        for event in produced:
            if self.is_over and not isinstance(event, events.PlayerEliminated | events.MatchEnded):
                return  # a round game ends with its RoundEnded: the next round's deal is not part of it
            self._emit(convert.event_to_pb(event, None), [convert.event_to_pb(event, seat) for seat in range(self.n)])
            if isinstance(event, events.RoundEnded) and self.config.unit is GameUnit.ROUND:
                self.round_ended = event
            elif isinstance(event, events.MatchEnded):
                self.match_ended = event

    def _emit(self, public: events_pb2.Event, per_seat: Sequence[events_pb2.Event]) -> None:
        number = len(self.log) + 1
        public.number = number
        self.log.append(public.SerializeToString())
        for seat, copy in enumerate(per_seat):
            if seat in self.forfeited:
                continue
            copy.number = number
            self.states[seat].update(copy)
            self._guarded(seat, partial(_on_event, event=copy))

    @property
    def is_over(self) -> bool:
        """The game's end was published: its RoundEnded (a round game) or its MatchEnded."""
        return self.round_ended is not None or self.match_ended is not None

    # ------------------------------------------------------------------------------ play

    def play(self) -> None:
        self._emit(convert.match_started(self.settings, self.seat_states), [
            convert.match_started(self.settings, self.seat_states) for _ in range(self.n)
        ])
        self.publish(self.match.start())
        last = self.n - 1
        while not self.is_over and not self.match.is_over:
            if self.steps >= self.config.max_steps:
                self.outcomes = ["stall"] * self.n
                return
            self.steps += 1
            acted = self._reactions(last)
            if acted is None:
                acted = self._required()
            if acted is not None:
                last = acted

    def _view(self, seat: int) -> views_pb2.SeatView:
        return convert.view_to_pb(
            self.match.view_for(seat), table_id=self.spec.game_id, event_number=len(self.log),
            seats=self.seat_states, settings=self.settings, status=table_pb2.TABLE_STATUS_PLAYING,
        )

    def _reactions(self, last: int) -> int | None:
        """Offer each other seat, in turn from the one after `last`, its optional reactions that changed."""
        to_act = self.match.game.to_act
        for offset in range(1, self.n + 1):
            seat = (last + offset) % self.n
            if seat == to_act or seat in self.forfeited or not self.match.legal_actions(seat):
                continue
            view = self._view(seat)
            legal = view.legal_actions
            if legal.required or legal == self.offered[seat]:
                continue
            self.offered[seat] = legal
            state = self.states[seat]
            state.update_from_view(view)
            command = self._guarded(seat, partial(_respond, legal=legal, state=state))
            if command is not None and self._send(seat, command):
                return seat
        return None

    def _required(self) -> int | None:
        """Let the seat the game waits for act; with nobody to act, the eligible seats of the blocking
        window answer it, and it closes when none does. Returns the seat that acted."""
        game = self.match.game
        to_act = game.to_act
        if to_act is None:
            window = next(w for w in game.windows.values() if w.is_blocking)
            for seat in window.eligible:
                if seat not in self.forfeited and any(isinstance(a, React) for a in self.match.legal_actions(seat)):
                    if self._decide(seat):
                        return seat
            self.publish(self.match.close_window(window.id))
            return None
        self._decide(to_act)
        return to_act

    def _decide(self, seat: int) -> bool:
        """The seat's required decision, retried like a BotRunner's; True once something was applied."""
        for failures in range(_MAX_ATTEMPTS):
            view = self._view(seat)
            state = self.states[seat]
            state.update_from_view(view)
            self.offered[seat] = view.legal_actions
            if failures < 2:
                command = self._guarded(seat, partial(_decide, view=view, state=state))
                if seat in self.forfeited:
                    return True
            else:
                command = None
            if command is None:
                command = default_command(view.legal_actions)
            if command is not None and self._send(seat, command):
                return True
        # Nothing the policy sent was legal: the host's own choice, the first legal action.
        options = self.match.legal_actions(seat)
        self.publish(self.match.apply(options[0]))
        return True

    def _send(self, seat: int, command: cmd.Command) -> bool:
        if isinstance(command, cmd.React | cmd.CatchUno) and command.reaction_window_id:
            self.states[seat].answered_windows.add(command.reaction_window_id)
        try:
            actions = engine_actions(seat, command)
            produced = self.match.apply_command(actions)
        except (UnoError, TypeError):
            return False
        self.publish(produced)
        return True

    def _guarded(self, seat: int, call: Callable[[Bot], cmd.Command | None]) -> cmd.Command | None:
        """Run a policy callback; a policy that raises forfeits its seat (outcome "crash")."""
        try:
            return call(self.bots[seat])
        except Exception:
            if seat not in self.forfeited and not self.match.is_over:
                self.forfeited.add(seat)
                self.outcomes[seat] = "crash"
                self.publish(self.match.forfeit(seat))
            return None

    # ------------------------------------------------------------------------------ result

    def ranks_and_points(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        if self.config.unit is GameUnit.MATCH and self.match_ended is not None:
            ended = self.match_ended
            totals = tuple(ended.totals)
            ranks = match_ranks(set(ended.winners), totals, self.config.ruleset().scoring,
                                eliminated=set(ended.eliminated), forfeited=self.forfeited)
            return ranks, totals
        if self.round_ended is not None:
            left = tuple(hand_points(hand) for hand in self.round_ended.hands)
            return round_ranks(self.round_ended.winner, left, self.forfeited), left
        # A stall, or a match a forfeit ended mid-round: rank by the cards still held.
        game = self.match.game
        left = tuple(hand_points(game.hands[seat]) for seat in range(self.n))
        winners = set(self.match.winners) if self.match.is_over else set()
        winner = next(iter(winners)) if len(winners) == 1 else -1
        return round_ranks(winner, left, self.forfeited), left


def _on_event(bot: Bot, event: events_pb2.Event) -> None:
    bot.on_event(event)


def _respond(bot: Bot, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
    return bot.respond(legal, state)


def _decide(bot: Bot, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
    return bot.decide(view, state)


def play_game(config: LeagueConfig, spec: GameSpec, factories: Sequence[Factory]) -> GameResult:
    """Play one scheduled game in this process and return its result, log included."""
    started = time.perf_counter()
    game = _Game(config, spec, factories)
    game.play()
    ranks, points = game.ranks_and_points()
    return GameResult(
        game_id=spec.game_id, index=spec.index, cycle=spec.cycle, deal=spec.deal, seed=spec.seed,
        rotation=spec.rotation, seats=spec.seats, ranks=ranks, points=points, outcomes=tuple(game.outcomes),
        steps=game.steps, path="inprocess", seconds=time.perf_counter() - started, log=encode_log(game.log),
    )
