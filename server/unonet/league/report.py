"""Reporting a league: the leaderboard (rich), `--json`, CSV and the rating plot (matplotlib, Agg).

Every function reads recorded results only (`Results.games()`), so a report of a finished, resumed
or distributed league is the same.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from unonet.league.config import LeagueConfig
from unonet.league.results import GameResult
from unonet.league.standings import Z95, BotStanding, head_to_head, rating_history, standings

__all__ = ["dumps", "leaderboard", "plot_ratings", "summary", "write_csv"]

CSV_FIELDS = (
    "rank", "name", "games", "mu", "sigma", "ordinal", "points_per_game", "points_low", "points_high",
    "wins", "win_rate", "win_low", "win_high", "losses_by_failure",
)


def summary(config: LeagueConfig, results: Sequence[GameResult]) -> dict[str, Any]:
    """The league as one JSON-ready object: standings, head-to-head matrix, outcome counts."""
    names = [spec.name for spec in config.bots]
    table = standings(results, names)
    outcomes: dict[str, int] = {}
    for result in results:
        for outcome in result.outcomes:
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {
        "league": config.name,
        "fingerprint": config.fingerprint(),
        "games": len(results),
        "duplicate": config.duplicate,
        "unit": config.unit.value,
        "standings": [{"rank": rank, **asdict(line)} for rank, line in enumerate(table, start=1)],
        "head_to_head": {a: {b: {"score": s, "games": g} for b, (s, g) in row.items()}
                         for a, row in head_to_head(results, names).items()},
        "outcomes": outcomes,
    }


def leaderboard(config: LeagueConfig, results: Sequence[GameResult], console: Console) -> None:
    """Print the leaderboard and the head-to-head matrix."""
    names = [spec.name for spec in config.bots]
    # Fits 80 columns with names of up to 14 characters; a name is never cut short, nor is a figure.
    table = Table(title=f"{config.name}: {len(results)} games (intervals: 95%)", title_justify="left",
                  box=box.SIMPLE_HEAD, padding=(0, 0), pad_edge=False)
    # "failed": the games it lost by a failure (forfeit, time loss, crash, stall).
    for column in ("#", "bot", "games", "mu", "sigma", "ordinal", "points\nper game", "win rate (95%)", "failed"):
        table.add_column(column, justify="left" if column == "bot" else "right", no_wrap=True,
                         min_width=max(map(len, names)) if column == "bot" else None)
    for rank, line in enumerate(standings(results, names), start=1):
        table.add_row(
            str(rank), line.name, str(line.games), f"{line.mu:.2f}", f"{line.sigma:.2f}", f"{line.ordinal:.2f}",
            f"{line.points_per_game:.2f}±{(line.points_high - line.points_low) / 2:.2f}",
            f"{line.win_rate:.2f} ({line.win_low:.2f}-{line.win_high:.2f})", str(line.losses_by_failure),
        )
    console.print(table)
    matrix = head_to_head(results, names)
    h2h = Table(title="head to head: row's score vs column (games)", title_justify="left",
                box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False)
    h2h.add_column("", no_wrap=True)
    for name in names:
        h2h.add_column(name, justify="right")
    for a in names:
        h2h.add_row(a, *("-" if a == b else f"{matrix[a][b][0]:.2f} ({matrix[a][b][1]})" for b in names))
    console.print(h2h)


def write_csv(path: Path, table: Sequence[BotStanding]) -> None:
    """The leaderboard as CSV, one bot per line, best first."""
    with path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for rank, line in enumerate(table, start=1):
            writer.writerow({"rank": rank, **asdict(line)})


def plot_ratings(path: Path, config: LeagueConfig, results: Sequence[GameResult]) -> None:
    """A PNG of each bot's mu over the games, with its 95% band (mu +- 1.96 sigma)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [spec.name for spec in config.bots]
    history = rating_history(results, names, every=max(1, len(results) // 200))
    games = [point.games for point in history]
    figure, axes = plt.subplots(figsize=(9, 5), dpi=100)
    for name in names:
        mu = [point.ratings[name][0] for point in history]
        sigma = [point.ratings[name][1] for point in history]
        (line,) = axes.plot(games, mu, label=name)
        axes.fill_between(games, [m - Z95 * s for m, s in zip(mu, sigma, strict=True)],
                          [m + Z95 * s for m, s in zip(mu, sigma, strict=True)], color=line.get_color(), alpha=0.15)
    axes.set_xlabel("games")
    axes.set_ylabel("OpenSkill mu (band: 95%)")
    axes.set_title(f"{config.name}: ratings over {len(results)} games")
    axes.legend(loc="best")
    figure.tight_layout()
    figure.savefig(path, format="png")
    plt.close(figure)


def dumps(data: dict[str, Any]) -> str:
    """`--json`'s output: one object on one line."""
    return json.dumps(data, sort_keys=True)
