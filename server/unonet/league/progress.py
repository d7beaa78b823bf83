"""The league's progress bar (rich): games done of the league, games per second, ETA, the leader."""

from __future__ import annotations

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

from unonet.league.results import GameResult

__all__ = ["LeagueProgress"]


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
