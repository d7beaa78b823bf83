"""The leaderboard as a newcomer reads it: at 80 columns (a terminal's default, and rich's for output
that is not a terminal) every bot's name and every figure is printed whole."""

from __future__ import annotations

import io

import pytest
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


# ------------------------------------------------------------------ pictures, and long names (issue 31, point 8)

TWELVE = ["random", "greedy-the-very-long-named-one", "basic", "greedy-level-one", "greedy-two", "random-again",
          "challenger-from-another-lab", "x", "basic-copy", "greedy-copy", "rnd3", "another-greedy-level-2"]
KINDS = ["random", "greedy", "basic", "greedy:1", "greedy:2"]


def league_of(folder, names: list[str]):
    """A heads-up round robin of `names`, one cycle, in-process; its config and results."""
    from league_files import league_file

    from unonet.league.config import load

    lines = "".join(f'[[bot]]\nname = "{name}"\nkind = "{KINDS[i % len(KINDS)]}"\nseed = {i}\n'
                    for i, name in enumerate(names))
    config = load(league_file(folder, games=1, size=2, bots=0, bot_lines=lines))
    run_league(config)
    with Results(config.db) as db:
        return config, db.games()


@pytest.fixture(scope="module")
def twelve(tmp_path_factory):
    """Twelve bots, long names among them: 132 games, played once for the tests that read them."""
    return league_of(tmp_path_factory.mktemp("twelve"), TWELVE)


@pytest.mark.parametrize("count", [4, 12])
def test_the_ratings_plot_ranks_panels_by_the_boards_ordinal_one_band_each(twelve, tmp_path, count):
    from matplotlib.collections import PolyCollection
    from matplotlib.text import Text

    from unonet.league import plots

    config, results = twelve if count == 12 else league_of(tmp_path, TWELVE[:count])
    board = standings(results, TWELVE[:count])
    figure = plots.ratings_figure(config, results)
    panels = [ax for ax in figure.axes if ax.get_visible() and ax.axison]
    assert [ax.get_title(loc="left").split("\n")[0] for ax in panels] == [
        f"{rank}. {line.name}" for rank, line in enumerate(board, start=1)]
    assert [ax.get_title(loc="left").split("\n")[1] for ax in panels] == [
        f"ordinal {line.ordinal:.1f}" for line in board]
    bands = [[c for c in ax.collections if isinstance(c, PolyCollection)] for ax in panels]
    assert all(len(band) == 1 for band in bands)  # one band a panel, legible however many bots
    colours = {tuple(band[0].get_facecolor()[0][:3]) for band in bands}
    assert len(colours) == count  # every bot its own colour
    renderer = figure.canvas.get_renderer()
    for ax in panels:  # a panel's title (rank and name) never runs into the next panel
        [title] = [child for child in ax.get_children()
                   if isinstance(child, Text) and child.get_text() == ax.get_title(loc="left")]
        assert title.get_window_extent(renderer).x1 <= ax.get_window_extent(renderer).x1 + 1
    plots.plot_ratings(tmp_path / "ratings.png", config, results)
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_head_to_head_picture_shows_every_name_whole(twelve, tmp_path):
    from unonet.league import plots

    config, results = twelve
    figure = plots.head_to_head_figure(config, results)
    [ax] = [ax for ax in figure.axes if ax.get_images()]
    ranked = [line.name for line in standings(results, TWELVE)]
    assert [label.get_text() for label in ax.get_yticklabels()] == ranked
    assert [label.get_text() for label in ax.get_xticklabels()] == ranked
    renderer = figure.canvas.get_renderer()
    saved = figure.get_tightbbox(renderer)  # what bbox_inches="tight" saves
    for label in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
        box = label.get_window_extent(renderer).transformed(figure.dpi_scale_trans.inverted())
        assert saved.x0 <= box.x0 and box.x1 <= saved.x1 and saved.y0 <= box.y0 and box.y1 <= saved.y1
    plots.plot_head_to_head(tmp_path / "h2h.png", config, results)
    assert (tmp_path / "h2h.png").stat().st_size > 10_000


def test_the_text_matrix_never_cuts_a_name_at_80_columns(twelve):
    config, results = twelve
    out = io.StringIO()
    report.leaderboard(config, results, Console(file=out, width=80))
    text = out.getvalue()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    matrix = text.split("head to head")[1:]
    assert len(matrix) > 1  # twelve columns do not fit 80: blocks
    for block in matrix:
        for name in TWELVE:
            assert any(line.split(maxsplit=1)[1:] and line.split(maxsplit=1)[1].startswith(f"{name} ")
                       for line in block.splitlines()), (name, block)
