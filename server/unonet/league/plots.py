"""A league's pictures (matplotlib, the Agg backend: no display needed): ratings over the games, and the
head-to-head matrix.

- `plot_ratings`: one small panel per bot, in the board's order (the conservative ordinal, mu - 3
  sigma, best first; each panel's title gives its rank and ordinal), all on one scale. In its panel a
  bot's mu is drawn over the games in its colour with its 95% band (mu +- 1.96 sigma) and its ordinal
  dashed; every other bot's mu is a thin grey line behind it. One band per panel stays readable with
  12 bots, where 12 bands over each other do not.
- `plot_head_to_head`: the matrix as a heat map (the row's score against the column, 0.5 white), each
  cell with its score and games, every name whole: the figure grows with the longest name and is cut
  to what it draws (`bbox_inches="tight"`), never the other way round.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from unonet.league.config import LeagueConfig
from unonet.league.results import GameResult
from unonet.league.standings import Z95, head_to_head, rating_history, standings

__all__ = ["head_to_head_figure", "plot_head_to_head", "plot_ratings", "ratings_figure"]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _colours(count: int) -> list[Any]:
    """`count` distinct colours: tab10's, then Dark2's, greys left out (the other bots are grey): 16 that
    stay apart; past them, a ramp."""
    import matplotlib
    from matplotlib.colors import ListedColormap

    base: list[Any] = []
    for name in ("tab10", "Dark2"):
        colormap = matplotlib.colormaps[name]
        assert isinstance(colormap, ListedColormap)
        base += [colour for colour in (colormap(index) for index in range(colormap.N))
                 if max(colour[:3]) - min(colour[:3]) > 0.05]
    if count <= len(base):
        return base[:count]
    ramp = matplotlib.colormaps["turbo"]
    return [ramp(index / max(1, count - 1)) for index in range(count)]


def plot_ratings(path: Path, config: LeagueConfig, results: Sequence[GameResult]) -> None:
    """A PNG of each bot's rating over the games (see the module), bots ranked as the board ranks them."""
    figure = ratings_figure(config, results)
    figure.savefig(path, format="png", bbox_inches="tight")
    _pyplot().close(figure)


def ratings_figure(config: LeagueConfig, results: Sequence[GameResult]) -> Any:
    """`plot_ratings`'s matplotlib Figure."""
    plt = _pyplot()
    names = [spec.name for spec in config.bots]
    ranked = standings(results, names)
    history = rating_history(results, names, every=max(1, len(results) // 200))
    games = [point.games for point in history]
    columns = min(4, len(ranked)) if len(ranked) != 4 else 2
    rows = math.ceil(len(ranked) / columns)
    # A panel's title is its rank and name on one line, its ordinal on the next: the panel is wide enough
    # for the longest name.
    panel = max(3.6, 0.085 * max(len(line.name) for line in ranked) + 0.8)
    figure, axes = plt.subplots(rows, columns, figsize=(panel * columns, 2.7 * rows + 0.7), dpi=100,
                                sharex=True, sharey=True, squeeze=False)
    colours = dict(zip([line.name for line in ranked], _colours(len(ranked)), strict=True))
    for index, line in enumerate(ranked):
        ax = axes[index // columns][index % columns]
        for other in names:
            if other != line.name:
                ax.plot(games, [point.ratings[other][0] for point in history], color="0.8", linewidth=0.7, zorder=1)
        mu = [point.ratings[line.name][0] for point in history]
        sigma = [point.ratings[line.name][1] for point in history]
        colour = colours[line.name]
        ax.fill_between(games, [m - Z95 * s for m, s in zip(mu, sigma, strict=True)],
                        [m + Z95 * s for m, s in zip(mu, sigma, strict=True)], color=colour, alpha=0.25,
                        linewidth=0, zorder=2)
        ax.plot(games, mu, color=colour, linewidth=1.8, zorder=3, label="mu")
        ax.plot(games, [m - 3 * s for m, s in zip(mu, sigma, strict=True)], color=colour, linewidth=1.0,
                linestyle="--", zorder=3, label="ordinal")
        ax.set_title(f"{index + 1}. {line.name}\nordinal {line.ordinal:.1f}", fontsize=10, loc="left")
        ax.grid(True, linewidth=0.3, alpha=0.5)
    for index in range(len(ranked), rows * columns):
        axes[index // columns][index % columns].axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("games")
    for row in axes:
        row[0].set_ylabel("OpenSkill mu")
    figure.suptitle(f"{config.name}: ratings over {len(results)} games, ranked by ordinal (mu - 3 sigma)\n"
                    "line: mu, band: mu ± 1.96 sigma (95%), dashed: ordinal; grey: the other bots' mu", fontsize=10)
    figure.tight_layout()
    return figure


def plot_head_to_head(path: Path, config: LeagueConfig, results: Sequence[GameResult]) -> None:
    """A PNG of the head-to-head matrix (see the module), bots in the board's order."""
    figure = head_to_head_figure(config, results)
    figure.savefig(path, format="png", bbox_inches="tight")  # cut to what it draws: every name whole
    _pyplot().close(figure)


def head_to_head_figure(config: LeagueConfig, results: Sequence[GameResult]) -> Any:
    """`plot_head_to_head`'s matplotlib Figure."""
    plt = _pyplot()
    names = [line.name for line in standings(results, [spec.name for spec in config.bots])]
    matrix = head_to_head(results, names)
    n = len(names)
    grid = [[float("nan") if a == b or matrix[a][b][1] == 0 else matrix[a][b][0] for b in names] for a in names]
    longest = max(map(len, names))
    cell = 0.75
    size = (cell * n + 0.09 * longest + 1.5, cell * n + 0.09 * longest + 1.0)
    figure, ax = plt.subplots(figsize=size, dpi=100)
    import matplotlib

    colormap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.85")  # the diagonal, and pairs that never met
    image = ax.imshow(grid, cmap=colormap, vmin=0.0, vmax=1.0)
    for row, a in enumerate(names):
        for column, b in enumerate(names):
            if a != b and matrix[a][b][1]:
                score, played = matrix[a][b]
                ax.text(column, row, f"{score:.2f}\n({played})", ha="center", va="center", fontsize=7,
                        color="white" if abs(score - 0.5) > 0.3 else "black")
    ax.set_xticks(range(n), labels=names, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), labels=names)
    ax.set_xlabel("against")
    ax.set_title(f"{config.name}: row's score against column (games)", fontsize=10)
    figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return figure
