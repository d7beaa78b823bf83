"""A grid of styled cells that the table is drawn on, then handed to prompt-toolkit as formatted text.

A card table is a picture, not a list of lines: seats sit around a ring, the pile is in the middle,
banners land on a seat. `Canvas` lets the layout (`unonet.client.tui.layout`) place text and boxes at
coordinates, clipped to the screen, and `fragments()` turns the grid into ``(style, text)`` runs, one
line per row. Every character drawn must be one terminal column wide: the layout only uses such
characters (box drawing, arrows, ``✓``), never emoji.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from prompt_toolkit.formatted_text import StyleAndTextTuples

__all__ = ["HEAVY", "ROUNDED", "SHARP", "Canvas"]

#: Box corners and edges: top-left, top-right, bottom-left, bottom-right, horizontal, vertical.
ROUNDED: Final = ("╭", "╮", "╰", "╯", "─", "│")
SHARP: Final = ("┌", "┐", "└", "┘", "─", "│")
HEAVY: Final = ("┏", "┓", "┗", "┛", "━", "┃")


class Canvas:
    """`height` rows of `width` cells, each a character and a prompt-toolkit style ("" for the default,
    "class:turn" for a class of `render.STYLE`)."""

    __slots__ = ("chars", "height", "styles", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = max(0, width), max(0, height)
        self.chars = [[" "] * self.width for _ in range(self.height)]
        self.styles = [[""] * self.width for _ in range(self.height)]

    def put(self, row: int, col: int, text: str, style: str = "") -> int:
        """Write `text` from (`row`, `col`), clipped to the canvas; returns the column after it."""
        if not 0 <= row < self.height or not text:
            return col + len(text)
        chars, styles = self.chars[row], self.styles[row]
        start = max(0, col)
        end = min(self.width, col + len(text))
        for x in range(start, end):
            chars[x] = text[x - col]
            styles[x] = style
        return col + len(text)

    def put_fragments(self, row: int, col: int, fragments: StyleAndTextTuples) -> int:
        """Write formatted text (its line breaks ignored) from (`row`, `col`); returns the column after it."""
        for style, text, *_ in fragments:
            col = self.put(row, col, text.replace("\n", " "), style)
        return col

    def fill(self, row: int, col: int, height: int, width: int, style: str = "", char: str = " ") -> None:
        """Fill a rectangle with `char` in `style`."""
        for y in range(row, row + height):
            self.put(y, col, char * width, style)

    def restyle(self, row: int, col: int, width: int, style: str) -> None:
        """Give `width` cells from (`row`, `col`) a new style, keeping their characters."""
        if 0 <= row < self.height:
            for x in range(max(0, col), min(self.width, col + width)):
                self.styles[row][x] = style

    def box(self, row: int, col: int, height: int, width: int, style: str = "",
            edges: Sequence[str] = ROUNDED, fill: str | None = None) -> None:
        """Draw a box's border (and fill its inside with `fill`'s style when given)."""
        if height < 2 or width < 2:
            return
        tl, tr, bl, br, h, v = edges
        self.put(row, col, tl + h * (width - 2) + tr, style)
        for y in range(row + 1, row + height - 1):
            self.put(y, col, v, style)
            self.put(y, col + width - 1, v, style)
            if fill is not None:
                self.put(y, col + 1, " " * (width - 2), fill)
        self.put(row + height - 1, col, bl + h * (width - 2) + br, style)

    def text(self) -> str:
        """The canvas as plain text, one line per row (what a test or a capture reads)."""
        return "\n".join("".join(row).rstrip() for row in self.chars)

    def fragments(self) -> StyleAndTextTuples:
        """The canvas as prompt-toolkit formatted text: runs of one style, rows ending in a line break."""
        out: StyleAndTextTuples = []
        last = self.height - 1
        for y in range(self.height):
            chars, styles = self.chars[y], self.styles[y]
            start = 0
            for x in range(1, self.width + 1):
                if x == self.width or styles[x] != styles[start]:
                    out.append((styles[start], "".join(chars[start:x])))
                    start = x
            if y != last:
                out.append(("", "\n"))
        return out
