"""`unonet league sprt A B`: a heads-up comparison that stops as soon as the result is clear.

An SPRT is a two-bot league at a 2-seat table, played cycle by cycle in schedule order: with duplicate
deals (the default) each cycle is one deal played twice with the seats swapped, each seat drawing the
same cards in both for as long as the pile holds them (the league's per-seat draws,
`LeagueConfig.seat_draws`, on by default heads-up), and the pair's two results are scored together as
fishtest scores game pairs (pentanomial); with `--independent` every game has its own deal and is scored
alone (trinomial). After each cycle the GSPRT (`sprt.Sprt`) says H0, H1 or go on. Games are recorded in
the league's results database as they end, like any league game, so an interrupted test resumes where it
stopped and `unonet replay` opens its games.

A bot is a kind (`greedy:2`), a Python policy (`module:Class`) or a program: `exec:CMD` (the JSON-lines
bridge) or `launch:CMD` (a gRPC bot in any language), optionally named (`mine=exec:./bot.sh`). Policies
play in-process, one game after another; a test with a program plays over gRPC (`network.play_networked`,
the league file's `PlaySettings`), several games at once, cycles judged in schedule order as they
complete (games of later cycles still in flight when the test decides are stopped, not recorded).
With a deal book (`deals`), deal k is the book's k-th seed, so a later test of a new version plays the
very same deals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unonet.league.config import LeagueConfig, parse
from unonet.league.entrants import PROGRAM_SOURCES
from unonet.league.inprocess import play_game
from unonet.league.order import scores
from unonet.league.pairs import heads_up_pairs
from unonet.league.results import GameResult, Results
from unonet.league.runner import Player, check_entrants
from unonet.league.schedule import GameSpec, schedule
from unonet.league.sprt import Decision, Sprt, pentanomial, trinomial

__all__ = ["SprtResult", "first_scores", "run_sprt", "sprt_config", "uses_programs"]


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
    deals: Path | None = None,
    play: dict[str, Any] | None = None,
) -> LeagueConfig:
    """The two-bot, 2-seat league a test plays (see the module for the bots' forms). `deals` is a deal
    book; `play` the league file's play settings (`games_at_once`, `turn_time`, ...). Raises
    LeagueFileError (a deal book that cannot be read included)."""
    entries = [_entry(spec) for spec in (first, second)]
    if entries[0]["name"] == entries[1]["name"]:
        for index, entry in enumerate(entries):
            entry["name"] = f"{entry['name']}#{index}"
    league: dict[str, Any] = {"name": f"sprt {first} vs {second}", "seed": seed, "games": max_games, "table_size": 2,
                              "preset": preset, "duplicate": duplicate, "db": str(db), **(play or {})}
    if deals is not None:
        league["deals"] = str(deals)
    return parse({"league": league, "bot": entries}, default_db=db)


def _entry(spec: str) -> dict[str, Any]:
    """A `[[bot]]` entry from the command line's form of a bot (see the module)."""
    name, equals, rest = spec.partition("=")
    if not equals or ":" in name:  # no name given (a `=` inside a command line is the command's)
        name, rest = spec, spec
    for source in PROGRAM_SOURCES:
        if rest.startswith(f"{source}:"):
            return {"name": name, source: rest.removeprefix(f"{source}:")}
    return {"name": name, **_source(rest)}


def _source(name: str) -> dict[str, str]:
    return {"python": name} if ":" in name and not name.split(":")[-1].isdigit() else {"kind": name}


def uses_programs(config: LeagueConfig) -> bool:
    """Whether a bot of the test is a program of its own (then it plays over gRPC)."""
    return any(spec.source in PROGRAM_SOURCES for spec in config.bots)


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
    player: Player | None = None,
    on_cycle: Callable[[int, float], None] | None = None,
) -> SprtResult:
    """Play cycles until `test` decides or the league's `games` run out (then CONTINUE is the answer).

    `player` plays games and yields them as they end, in any order (`network.play_networked`); without
    one, `play` plays one game at a time, in order (in-process on the engine by default).
    `on_cycle(games, llr)` is told after every cycle, in schedule order."""
    first, second = (spec.name for spec in config.bots)
    if player is None:
        if play is None:
            factories = check_entrants(config)

            def play(spec: GameSpec) -> GameResult:
                return play_game(config, spec, [factories[name] for name in spec.seats])

        one_by_one = play

        def player(_: LeagueConfig, specs: Sequence[GameSpec]) -> Iterator[GameResult]:
            return (one_by_one(spec) for spec in specs)  # lazily, in order: it stops where the test decides

    cycles = list(_cycles(config))
    with Results(config.db, config.fingerprint()) as db:
        recorded = {result.game_id: result for result in db.games()}
        judged: list[GameResult] = []
        counts: list[int] = []
        position = 0

        def judge() -> SprtResult | None:
            """Judge every cycle now complete, in order; the outcome once the test decides."""
            nonlocal position, counts
            while position < len(cycles) and all(spec.game_id in recorded for spec in cycles[position]):
                judged.extend(recorded[spec.game_id] for spec in cycles[position])
                position += 1
                counts = first_scores(judged, first, second, config.duplicate)
                llr = test.llr(counts)
                if on_cycle is not None:
                    on_cycle(len(judged), llr)
                decision = test.decide(counts)
                if decision is not Decision.CONTINUE:
                    return SprtResult(decision, len(judged), llr, tuple(counts))
            return None

        decided = judge()
        if decided is not None:
            return decided
        todo = [spec for cycle in cycles[position:] for spec in cycle if spec.game_id not in recorded]
        results = iter(player(config, todo))
        try:
            for result in results:
                db.add(result)
                recorded[result.game_id] = result
                decided = judge()
                if decided is not None:
                    return decided
        finally:  # games still in flight when the test decided are stopped (and never recorded)
            close = getattr(results, "close", None)
            if close is not None:
                close()
        return SprtResult(Decision.CONTINUE, len(judged), test.llr(counts), tuple(counts))


def _cycles(config: LeagueConfig) -> Iterator[list[GameSpec]]:
    """The league's games cycle by cycle: a deal's two seatings (duplicate) or two deals' games."""
    games = schedule(config)
    by_cycle: dict[int, list[GameSpec]] = {}
    for spec in games:
        by_cycle.setdefault(spec.cycle, []).append(spec)
    for cycle in sorted(by_cycle):
        yield by_cycle[cycle]
