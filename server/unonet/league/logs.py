"""Log lines that say which league game they are about: `g000123 seat 2 (mine): ...`, never a host table id.

A seat's supervisor sets `playing(game_id, seat, bot)` at the top of the seat's task; asyncio copies the
context into every task started from there (the bots' runner, its event reader), so every line logged
while the seat plays, the bots' runner's own included, is prefixed with it by `GameFilter`, installed on
the handlers of the processes that play seats (`unonet league run`, `python -m unonet.league.seats`).
"""

from __future__ import annotations

import contextvars
import logging
import sys

__all__ = ["GameFilter", "install", "playing"]

_WHERE: contextvars.ContextVar[str] = contextvars.ContextVar("unonet_league_where", default="")


def playing(game_id: str, seat: int | None = None, bot: str | None = None) -> str:
    """Say, for the rest of this task and the tasks it starts, which game (and seat, and bot) it plays.
    Returns the label, for the caller's own messages."""
    label = game_id if seat is None else f"{game_id} seat {seat}" + (f" ({bot})" if bot else "")
    _WHERE.set(label)
    return label


class GameFilter(logging.Filter):
    """Prefix each record logged inside a seat's task with its label (`playing`); others pass unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        where = _WHERE.get()
        if where and not getattr(record, "league_where", ""):
            record.league_where = where
            record.msg = f"{where.replace('%', '%%')}: {record.msg}"  # a bot's name may hold a % sign
        return True


class _Stderr:
    """Whatever `sys.stderr` is when a line is written (rich's progress bar swaps it for one that prints
    above the bar), not the stream it was when logging was set up."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def install(level: int = logging.WARNING, fmt: str = "%(levelname)s %(name)s: %(message)s") -> None:
    """Give this process a stderr handler that prefixes game ids, unless its logging is set up already
    (then the caller's configuration stays as it is)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(logging.Formatter(fmt))
    handler.addFilter(GameFilter())
    root.addHandler(handler)
    root.setLevel(level)
