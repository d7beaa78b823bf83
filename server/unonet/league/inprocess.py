"""`--inprocess`: trusted Python bots played straight on the engine, no host, no network.

One game is one `unonet.engine.Match` dealt from the deal's seed (`random.Random(seed)`: the same
deck, dealer and reshuffles a league-seeded host table deals from that seed), and the bots are the very
policies the gRPC path runs, fed what a `BotRunner` would feed them: the protocol's `SeatView` when
the game waits for them (`decide`), their legal actions when those change and only offer something
optional (`respond`), and every event as their seat receives it (`BotState.update`, `Bot.on_event`).
Every conversion goes through `unonet.wire.convert`, the one module that knows both sides.

The game is played on the bots' one in-process play loop (`unonet.bots.engine_table.EngineTable`, the
arena's too). Where the network path races (several seats reacting to one window) this path is a fixed
order (`engine_table.StepRaces`): after each step, every other seat in turn from the one after the seat
that acted is offered its optional reactions before the game moves on. A policy that raises forfeits
its seat (outcome "crash"); a command the rules refuse is retried as a `BotRunner` does (twice, then
the default action); a game that runs past the league's `max_steps` is ended as a stall, ranked by the
points left in hand.

The game's public log (what a spectator of a host table would receive, without clock fields) is kept
with the result, so `unonet replay` opens it, and each seat's `tallies.SeatStats`: a policy that raised
(one crash), the commands the rules refused it (illegal), and how long each of its required decisions
took, from the engine asking to a command applied, on this process's clock (no network, no clock of a
host's: the policy's own time). An in-process seat never times out and is never restarted.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Sequence
from typing import Any

from unonet.bots import Bot
from unonet.bots.engine_table import EngineTable, Races, StepRaces
from unonet.client import commands as cmd
from unonet.engine import Match
from unonet.engine.draws import SeatDraws
from unonet.league.config import GameUnit, LeagueConfig
from unonet.league.entrants import Factory, bot_seed
from unonet.league.order import hand_points, match_ranks, round_ranks
from unonet.league.results import GameResult, encode_log
from unonet.league.schedule import GameSpec
from unonet.league.tallies import SeatStats
from unonet.v1 import table_pb2
from unonet.wire import convert

__all__ = ["league_settings", "play_game"]


def league_settings(config: LeagueConfig, spec: GameSpec) -> table_pb2.TableSettings:
    """The table settings a league game is played under, as its MatchStarted shows them: a
    league-seeded table (TableSettings.league_seeded) committing to the deal's seed, its seats drawing
    from per-seat draw streams when the league says so (TableSettings.league_seat_draws)."""
    return table_pb2.TableSettings(
        name=spec.game_id, seat_count=len(spec.seats), ruleset=convert.ruleset_to_pb(config.game_ruleset()),
        league_seeded=True, league_seed_sha256=hashlib.sha256(spec.seed.to_bytes(8, "big")).digest(),
        league_seat_draws=config.seat_draws,
    )


class _LeagueTable(EngineTable):
    """The in-process table, keeping per seat what the board reports: each required decision's time and
    the commands the rules refused."""

    def __init__(self, match: Match, bots: Sequence[Bot], races: Races, **options: Any) -> None:
        super().__init__(match, bots, races, **options)
        self.decision_us: list[list[int]] = [[] for _ in range(self.n)]
        self.refused_by_seat = [0] * self.n

    def decide(self, seat: int) -> bool:
        started = time.perf_counter_ns()
        try:
            return super().decide(seat)
        finally:
            self.decision_us[seat].append((time.perf_counter_ns() - started) // 1000)

    def send(self, seat: int, command: cmd.Command) -> bool:
        applied = super().send(seat, command)
        if not applied:
            self.refused_by_seat[seat] += 1
        return applied

    def stats(self) -> tuple[SeatStats, ...]:
        return tuple(SeatStats(crashes=int(seat in self.crashed), illegal=self.refused_by_seat[seat],
                               decision_us=tuple(self.decision_us[seat])) for seat in range(self.n))


def _table(config: LeagueConfig, spec: GameSpec, factories: Sequence[Factory]) -> _LeagueTable:
    """The game's in-process table: a match dealt from the deal's seed, each seat's policy seeded for it."""
    settings = league_settings(config, spec)
    seat_states = [
        table_pb2.SeatState(seat=seat, occupied=True, name=name, is_bot=True, connected=True)
        for seat, name in enumerate(spec.seats)
    ]
    bots = [build(bot_seed(config.bot(name), spec.seed)) for build, name in zip(factories, spec.seats, strict=True)]
    draws = SeatDraws(spec.seed) if config.seat_draws else None
    match = Match(config.game_ruleset(), len(spec.seats), random.Random(spec.seed), draws=draws)
    table = _LeagueTable(
        match, bots, StepRaces(), settings=settings, seat_states=seat_states, table_id=spec.game_id,
        keep_log=True, crash_forfeits=True, ends_with_round=config.unit is GameUnit.ROUND,
        max_steps=config.max_steps,
    )
    started = convert.match_started(settings, seat_states)
    table.emit(started, [convert.match_started(settings, seat_states) for _ in spec.seats])
    table.feed(match.start())
    return table


def _ranks_and_points(config: LeagueConfig, table: EngineTable) -> tuple[tuple[int, ...], tuple[int, ...]]:
    forfeited = table.crashed
    if config.unit is GameUnit.MATCH and table.match_ended is not None:
        ended = table.match_ended
        totals = tuple(ended.totals)
        ranks = match_ranks(set(ended.winners), totals, config.ruleset().scoring,
                            eliminated=set(ended.eliminated), forfeited=forfeited)
        return ranks, totals
    if table.round_ended is not None:
        left = tuple(hand_points(hand) for hand in table.round_ended.hands)
        return round_ranks(table.round_ended.winner, left, forfeited), left
    # A stall, or a match a forfeit ended mid-round: rank by the cards still held.
    match = table.match
    left = tuple(hand_points(match.game.hands[seat]) for seat in range(table.n))
    winners = set(match.winners) if match.is_over else set()
    winner = next(iter(winners)) if len(winners) == 1 else -1
    return round_ranks(winner, left, forfeited), left


def play_game(config: LeagueConfig, spec: GameSpec, factories: Sequence[Factory]) -> GameResult:
    """Play one scheduled game in this process and return its result, log included."""
    started = time.perf_counter()
    table = _table(config, spec, factories)
    table.play()
    ranks, points = _ranks_and_points(config, table)
    if table.stalled:
        outcomes = ("stall",) * table.n
    else:
        outcomes = tuple("crash" if seat in table.crashed else "played" for seat in range(table.n))
    return GameResult(
        game_id=spec.game_id, index=spec.index, cycle=spec.cycle, deal=spec.deal, seed=spec.seed,
        rotation=spec.rotation, seats=spec.seats, ranks=ranks, points=points, outcomes=outcomes,
        steps=table.steps, path="inprocess", seconds=time.perf_counter() - started, log=encode_log(table.log or []),
        stats=table.stats(),
    )
