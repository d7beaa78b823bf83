"""Reporting a league: the leaderboard and its companion tables (rich), `--json` and CSV.

Every function reads recorded results only (`Results.games()`), so a report of a finished, resumed
or distributed league is the same. At 80 columns (a terminal's default, and rich's for output that is
not a terminal) no name and no figure is ever cut short: the leaderboard fits names of up to 14
characters, and the head-to-head matrix, whatever the names, numbers its columns and, when even that is
too wide, prints its columns in blocks, every block with every name in full. The pictures are
`unonet.league.plots`.
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
from unonet.league.elo import HeadsUp, heads_up
from unonet.league.results import GameResult
from unonet.league.standings import BotStanding, head_to_head, standings

__all__ = ["CSV_FIELDS", "board", "dumps", "leaderboard", "summary", "write_csv"]

CSV_FIELDS = (
    "rank", "name", "games", "mu", "sigma", "ordinal", "points_per_game", "points_low", "points_high",
    "wins", "win_rate", "win_low", "win_high", "losses_by_failure", "crashes", "restarts", "timeouts",
    "time_losses", "bad_answers", "illegal", "forfeits", "stalls", "decisions", "decision_p50_ms",
    "decision_p99_ms", "decision_max_ms",
)

#: The failure columns of the board, as (field, header).
FAILURE_COLUMNS = (
    ("crashes", "crashes"), ("restarts", "restarts"), ("timeouts", "timeouts"), ("time_losses", "time\nlosses"),
    ("bad_answers", "bad"), ("illegal", "illegal"), ("forfeits", "forfeits"), ("stalls", "stalls"),
)


def summary(config: LeagueConfig, results: Sequence[GameResult]) -> dict[str, Any]:
    """The league as one JSON-ready object: standings (with each bot's failures and decision times), the
    heads-up Elo of every pairing that met at 2-seat tables, the head-to-head matrix, outcome counts."""
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
        "heads_up": [_heads_up_json(pairing) for pairing in heads_up(results, [line.name for line in table])],
        "head_to_head": {a: {b: {"score": s, "games": g} for b, (s, g) in row.items()}
                         for a, row in head_to_head(results, names).items()},
        "outcomes": outcomes,
    }


def _heads_up_json(pairing: HeadsUp) -> dict[str, Any]:
    estimate = pairing.estimate
    return {"first": pairing.first, "second": pairing.second, "elo": estimate.elo, "low": estimate.low,
            "high": estimate.high, "los": estimate.los, "games": estimate.games, "model": estimate.model,
            "counts": list(estimate.counts)}


#: A name column keeps this many characters on one line at least (the board fits 80 columns with them);
#: a longer name folds onto a second line rather than push a figure out.
NAME_WIDTH = 14


def _table(title: str | None, headers: Sequence[tuple[str, bool]], rows: Sequence[Sequence[str]]) -> Table:
    """A table whose figures are never cut short: each figure column is as wide as its widest cell (rich
    never shrinks it), and names (`headers`' True) take what is left, folding rather than being cut."""
    out = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 0), pad_edge=False)
    for index, (header, is_name) in enumerate(headers):
        widest = max([len(row[index]) for row in rows] + [max(map(len, header.split("\n")))])
        if is_name:
            out.add_column(header, justify="left", overflow="fold", min_width=min(widest, NAME_WIDTH))
        else:
            out.add_column(header, justify="right", no_wrap=True, min_width=widest)
    for row in rows:
        out.add_row(*row)
    return out


def board(config: LeagueConfig, results: Sequence[GameResult], table: Sequence[BotStanding] | None = None) -> Table:
    """The leaderboard: rank, rating, points and wins with their intervals, games lost by a failure
    ("failed": a forfeit, a time loss, a crash or a stall)."""
    table = standings(results, [spec.name for spec in config.bots]) if table is None else table
    headers = [("#", False), ("bot", True), ("games", False), ("mu", False), ("sigma", False), ("ordinal", False),
               ("points\nper game", False), ("win rate (95%)", False), ("failed", False)]
    rows = [[str(rank), line.name, str(line.games), f"{line.mu:.2f}", f"{line.sigma:.2f}", f"{line.ordinal:.2f}",
             f"{line.points_per_game:.2f}±{(line.points_high - line.points_low) / 2:.2f}",
             f"{line.win_rate:.2f} ({line.win_low:.2f}-{line.win_high:.2f})", str(line.losses_by_failure)]
            for rank, line in enumerate(table, start=1)]
    return _table(f"{config.name}: {len(results)} games (intervals: 95%)", headers, rows)


def _failures(table: Sequence[BotStanding]) -> Table:
    rows = [[line.name, *(str(getattr(line, field)) for field, _ in FAILURE_COLUMNS)] for line in table]
    return _table("what went wrong, per bot (each counted apart)",
                  [("bot", True), *((header, False) for _, header in FAILURE_COLUMNS)], rows)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _decisions(table: Sequence[BotStanding]) -> Table:
    rows = [[line.name, str(line.decisions), _ms(line.decision_p50_ms), _ms(line.decision_p99_ms),
             _ms(line.decision_max_ms)] for line in table]
    return _table("decision times (ms)", [("bot", True), ("decisions", False), ("median", False), ("p99", False),
                                          ("max", False)], rows)


def _heads_up(pairings: Sequence[HeadsUp]) -> Table:
    rows = []
    for pairing in pairings:
        estimate = pairing.estimate
        pairs = estimate.games // 2
        games = str(estimate.games)
        if estimate.model == "pentanomial":
            games += f" ({pairs} pair{'s' * (pairs != 1)})"
        rows.append([pairing.first, pairing.second, f"{estimate.elo:+.1f}±{estimate.half_width:.1f}",
                     f"{100 * estimate.los:.1f}%", games])
    return _table("heads up: Elo of the first against the second (95%), likelihood of superiority",
                  [("first", True), ("second", True), ("Elo", False), ("LOS", False), ("games", False)], rows)


def _head_to_head(results: Sequence[GameResult], names: Sequence[str], width: int) -> list[tuple[str, Table]]:
    """The matrix, columns numbered as the rows are, in as many blocks of columns as `width` needs; each
    with the title to print above it."""
    matrix = head_to_head(results, names)
    digits = len(str(len(names)))
    labels = [f"{number:>{digits}} {name}" for number, name in enumerate(names, start=1)]
    cells = {(a, b): "-" if a == b else f"{matrix[a][b][0]:.2f} ({matrix[a][b][1]})" for a in names for b in names}
    label_width = max(map(len, labels))
    column_width = [max(len(str(number)), *(len(cells[a, b]) for a in names))
                    for number, b in enumerate(names, start=1)]
    blocks: list[list[int]] = [[]]
    used = label_width
    for index, needed in enumerate(column_width):
        if blocks[-1] and used + 1 + needed > width:
            blocks.append([])
            used = label_width
        blocks[-1].append(index)
        used += 1 + needed
    out = []
    for block in blocks:
        part = f", columns {block[0] + 1} to {block[-1] + 1}" if len(blocks) > 1 else ""
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 0), pad_edge=False)
        table.add_column("", no_wrap=True, min_width=label_width)
        for index in block:
            table.add_column(str(index + 1), justify="right", no_wrap=True, min_width=column_width[index])
        for a, label in zip(names, labels, strict=True):
            table.add_row(label, *(cells[a, names[index]] for index in block))
        out.append((f"head to head{part}: row's score vs column (games)", table))
    return out


def leaderboard(config: LeagueConfig, results: Sequence[GameResult], console: Console) -> None:
    """Print the leaderboard, what went wrong per bot, decision times, heads-up Elo and the head-to-head
    matrix."""
    names = [spec.name for spec in config.bots]
    table = standings(results, names)
    console.print(board(config, results, table))
    console.print(_failures(table))
    console.print(_decisions(table))
    pairings = heads_up(results, [line.name for line in table])
    if pairings:
        console.print(_heads_up(pairings))
    for title, part in _head_to_head(results, [line.name for line in table], console.width):
        console.print(title, highlight=False, markup=False)
        console.print(part)


def write_csv(path: Path, table: Sequence[BotStanding]) -> None:
    """The leaderboard as CSV, one bot per line, best first (an unmeasured decision time is empty)."""
    with path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for rank, line in enumerate(table, start=1):
            writer.writerow({"rank": rank, **asdict(line)})


def dumps(data: dict[str, Any]) -> str:
    """`--json`'s output: one object on one line."""
    return json.dumps(data, sort_keys=True)
