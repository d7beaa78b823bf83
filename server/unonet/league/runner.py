"""`unonet league run`: schedule, play what is not recorded yet, record each game as it ends.

The stages hand data on (STYLE.md): the schedule lists every game; the results database says which
are done; a player plays the rest (`inprocess`, or batches on a Dask cluster with `cluster`) and yields
results as they finish; each is committed at once. A rerun of the same command after any interruption,
SIGKILL included, plays only the games not recorded: a game in flight when the runner died is played
again from its seed, and a game is never recorded twice (the database is keyed by game id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from unonet.league.config import LeagueConfig
from unonet.league.entrants import Factory, Program, entrant, factory
from unonet.league.inprocess import play_game
from unonet.league.results import GameResult, Results
from unonet.league.schedule import GameSpec, schedule
from unonet.league.standings import LiveRatings

__all__ = ["Player", "RunSummary", "check_entrants", "check_league", "play_inprocess", "run_league"]

#: Plays scheduled games and yields each result as it finishes (in any order).
Player = Callable[[LeagueConfig, Sequence[GameSpec]], Iterable[GameResult]]

#: Told about every recorded game: (the result, games done, games in the league, the current leader).
OnGame = Callable[[GameResult, int, int, str], None]


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What one run did: the league's size, how many games were already recorded, how many it added."""

    scheduled: int
    already_done: int
    played: int


def check_entrants(config: LeagueConfig) -> dict[str, Factory]:
    """Every bot's policy factory, checked before any game is played: what `--inprocess` plays.
    Raises EntrantError (also for an `exec` or `launch` program, which only the gRPC path plays)."""
    return {spec.name: factory(spec) for spec in config.bots}


def check_league(config: LeagueConfig) -> dict[str, Factory | Program]:
    """What plays each bot over gRPC, a policy factory or a program, checked before any game is
    played. Raises EntrantError."""
    return {spec.name: entrant(spec) for spec in config.bots}


def play_inprocess(config: LeagueConfig, specs: Sequence[GameSpec]) -> Iterator[GameResult]:
    """The `--inprocess` player: one game after another on the engine, in this process."""
    factories = check_entrants(config)
    for spec in specs:
        yield play_game(config, spec, [factories[name] for name in spec.seats])


def run_league(
    config: LeagueConfig,
    player: Player = play_inprocess,
    *,
    on_start: Callable[[int, int, str], None] | None = None,
    on_game: OnGame | None = None,
) -> RunSummary:
    """Play every scheduled game the database does not hold yet, recording each as it ends.

    `on_start(done, total, leader)` is called once before play, `on_game` after every recorded game.
    Raises EntrantError for a bot that cannot be played (the player refuses the ones it cannot play,
    as `play_inprocess` does programs), ResultsMismatch for another league's database.
    """
    check_league(config)
    names = [spec.name for spec in config.bots]
    games = schedule(config)
    with Results(config.db, config.fingerprint()) as db:
        done = db.done_ids()
        todo = [spec for spec in games if spec.game_id not in done]
        live = LiveRatings(names)
        for result in db.games():
            live.add(result)
        already = len(games) - len(todo)
        if on_start is not None:
            on_start(already, len(games), live.leader())
        played = 0
        # Closed here, not whenever the garbage collector gets to it: on an interruption (Ctrl-C) or a
        # failure, the player stops its games, their seats and their bots' programs before this returns.
        results = iter(player(config, todo))
        try:
            for result in results:
                if db.add(result):
                    played += 1
                    live.add(result)
                    if on_game is not None:
                        on_game(result, already + played, len(games), live.leader())
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
    return RunSummary(len(games), already, played)
