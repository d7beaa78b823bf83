"""What a long league shows while it runs: the progress bar (rich: games done of the league, games per
second, the time left, the leader and its ordinal) and, every so many games or seconds, the standings
(`PeriodicStandings`, on stderr, above the bar), so a long run can be watched and stopped early.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from unonet.league.config import LeagueConfig, Reporting
from unonet.league.report import board
from unonet.league.results import GameResult, Results

__all__ = ["LeagueProgress", "PeriodicStandings"]


class _Rate(ProgressColumn):
    """Games per second over rich's recent window (this run's games only, not those resumed)."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("-- games/s" if speed is None else f"{speed:.1f} games/s")


class LeagueProgress:
    """`start(done, total, leader)` and `advance(result, done, total, leader)` for `run_league`; a
    no-op when disabled (no terminal, or `--json`)."""

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self.progress = Progress(
            TextColumn("[bold]league"), BarColumn(), MofNCompleteColumn(), _Rate(), TimeRemainingColumn(),
            TextColumn("leader: {task.fields[leader]}"), console=console, transient=False,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> Self:
        if self.enabled:
            self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self.enabled:
            self.progress.stop()

    def start(self, done: int, total: int, leader: str) -> None:
        if self.enabled:
            self.task = self.progress.add_task("games", total=total, completed=done, leader=leader)

    def advance(self, result: GameResult, done: int, total: int, leader: str) -> None:
        if self.enabled and self.task is not None:
            self.progress.update(self.task, completed=done, leader=leader)


class PeriodicStandings:
    """Print the leaderboard every `standings_every` games and every `standings_interval` seconds
    (`config.Reporting`; 0 turns either off) while a league runs: a line saying how far the league is and
    who leads, then the board, read from the results database (what is recorded so far)."""

    def __init__(self, config: LeagueConfig, console: Console, reporting: Reporting | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.console = console
        self.reporting = config.reporting if reporting is None else reporting
        self.clock = clock
        self.last_time = clock()
        self.since = 0
        self.printed = 0

    def start(self, done: int, total: int, leader: str) -> None:
        self.last_time = self.clock()
        self.since = 0

    def advance(self, result: GameResult, done: int, total: int, leader: str) -> None:
        self.since += 1
        every, interval = self.reporting.standings_every, self.reporting.standings_interval
        if done >= total:
            return  # the final board follows
        if (every and self.since >= every) or (interval and self.clock() - self.last_time >= interval):
            self.show(done, total, leader)

    def show(self, done: int, total: int, leader: str) -> None:
        with Results(self.config.db) as db:
            results = db.games()
        self.console.print(f"[bold]league[/] {done}/{total} games, leader: {leader}")
        self.console.print(board(self.config, results))
        self.since = 0
        self.last_time = self.clock()
        self.printed += 1
