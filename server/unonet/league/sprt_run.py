"""`unonet league sprt A B`: a heads-up comparison that stops as soon as the result is clear.

An SPRT is a two-bot league at a 2-seat table, played cycle by cycle in schedule order: with duplicate
deals (the default) each cycle is one deal played twice with the seats swapped, each seat drawing the
same cards in both for as long as the pile holds them (the league's per-seat draws,
`LeagueConfig.seat_draws`, on by default heads-up), and the pair's two results are scored together as
fishtest scores game pairs (pentanomial); with `--independent` every game has its own deal and is scored
alone (trinomial). After each cycle the GSPRT (`sprt.Sprt`) says H0, H1 or go on. Games are recorded in
the league's results database as they end, like any league game, so an interrupted test resumes where it
stopped and `unonet replay` opens its games.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from unonet.league.config import LeagueConfig, parse
from unonet.league.inprocess import play_game
from unonet.league.order import scores
from unonet.league.pairs import heads_up_pairs
from unonet.league.results import GameResult, Results
from unonet.league.runner import check_entrants
from unonet.league.schedule import GameSpec, schedule
from unonet.league.sprt import Decision, Sprt, pentanomial, trinomial

__all__ = ["SprtResult", "first_scores", "run_sprt", "sprt_config"]


@dataclass(frozen=True, slots=True)
class SprtResult:
    """Where a test ended: the decision, the games it took, the LLR and the counts it was read from."""

    decision: Decision
    games: int
    llr: float
    counts: tuple[int, ...]


def sprt_config(
    first: str,
    second: str,
    *,
    db: Path,
    seed: int = 0,
    preset: str = "standard",
    duplicate: bool = True,
    max_games: int = 20_000,
) -> LeagueConfig:
    """The two-bot, 2-seat league a test plays. A bot is a kind (`greedy:2`) or `module:Class`."""
    bots = [{"name": f"{name}#{index}" if first == second else name, **_source(name)}
            for index, name in enumerate((first, second))]
    return parse(
        {"league": {"name": f"sprt {first} vs {second}", "seed": seed, "games": max_games, "table_size": 2,
                    "preset": preset, "duplicate": duplicate, "db": str(db)},
         "bot": bots},
        default_db=db,
    )


def _source(name: str) -> dict[str, str]:
    return {"python": name} if ":" in name and not name.split(":")[-1].isdigit() else {"kind": name}


def first_scores(results: list[GameResult], first: str, second: str, duplicate: bool) -> list[int]:
    """The first bot's results as fishtest's counts: pentanomial over pairs, or trinomial over games."""
    if duplicate:
        return pentanomial(pair.scores for pair in heads_up_pairs(results, first, second))
    return trinomial(scores(game.ranks)[game.seats.index(first)] for game in results)


def run_sprt(
    config: LeagueConfig,
    test: Sprt,
    *,
    play: Callable[[GameSpec], GameResult] | None = None,
    on_cycle: Callable[[int, float], None] | None = None,
) -> SprtResult:
    """Play cycles until `test` decides or the league's `games` run out (then CONTINUE is the answer).

    `play` plays one game (in-process on the engine by default); `on_cycle(games, llr)` is told after
    every cycle."""
    first, second = (spec.name for spec in config.bots)
    if play is None:
        factories = check_entrants(config)

        def play(spec: GameSpec) -> GameResult:
            return play_game(config, spec, [factories[name] for name in spec.seats])

    with Results(config.db, config.fingerprint()) as db:
        recorded = {result.game_id: result for result in db.games()}
        played: list[GameResult] = []
        counts: list[int] = []
        for cycle in _cycles(config):
            for spec in cycle:
                result = recorded.get(spec.game_id)
                if result is None:
                    result = play(spec)
                    db.add(result)
                played.append(result)
            counts = first_scores(played, first, second, config.duplicate)
            llr = test.llr(counts)
            if on_cycle is not None:
                on_cycle(len(played), llr)
            decision = test.decide(counts)
            if decision is not Decision.CONTINUE:
                return SprtResult(decision, len(played), llr, tuple(counts))
        return SprtResult(Decision.CONTINUE, len(played), test.llr(counts), tuple(counts))


def _cycles(config: LeagueConfig) -> Iterator[list[GameSpec]]:
    """The league's games cycle by cycle: a deal's two seatings (duplicate) or two deals' games."""
    games = schedule(config)
    by_cycle: dict[int, list[GameSpec]] = {}
    for spec in games:
        by_cycle.setdefault(spec.cycle, []).append(spec)
    for cycle in sorted(by_cycle):
        yield by_cycle[cycle]
