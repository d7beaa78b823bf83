"""The leaderboard as a newcomer reads it: at 80 columns (a terminal's default, and rich's for output
that is not a terminal) every bot's name and every figure is printed whole."""

from __future__ import annotations

import io

from rich.console import Console

from unonet.league import report
from unonet.league.results import Results
from unonet.league.runner import run_league
from unonet.league.standings import standings

LONG = "greedy-level-1"  # 14 characters, the longest name the layout promises to keep whole


def test_the_leaderboard_fits_80_columns_without_cutting_a_name_or_a_figure(make_league):
    lines = f'[[bot]]\nname = "{LONG}"\nkind = "greedy:1"\n'
    config = make_league(games=8, size=3, bots=3, bot_lines=lines)
    run_league(config)
    with Results(config.db) as db:
        results = db.games()
    out = io.StringIO()
    report.leaderboard(config, results, Console(file=out, width=80))
    text = out.getvalue()
    assert "…" not in text, text
    assert max(map(len, text.splitlines())) <= 80
    board = text.split("head to head")[0]
    for line in standings(results, [spec.name for spec in config.bots]):
        row = next(row for row in board.splitlines() if f" {line.name} " in row)
        assert f"{line.mu:.2f}" in row and f"{line.ordinal:.2f}" in row
        assert f"{line.win_low:.2f}-{line.win_high:.2f}" in row
