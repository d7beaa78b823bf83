"""The two helpers every enum table of `unonet.wire` shares: a lookup that names the forgotten value, and
a protocol enum value's name for an error message.

Enum spellings differ between the engine and the protocol in places (engine `NO_MATCHING_COLOUR`, proto
`WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR`), so every enum is mapped with an explicit table, never by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

_E = TypeVar("_E")
_V = TypeVar("_V")


def lookup(table: Mapping[_E, _V], value: _E, what: str) -> _V:
    """One enum table lookup that names the table when a value was forgotten (a programming error)."""
    try:
        return table[value]
    except KeyError:
        raise ValueError(f"no protocol value for {what} {value!r}") from None


def enum_name(enum: Any, value: int) -> str:
    """A protocol enum value's name for a message (`COLOR_BLACK`), or its number when it has none."""
    try:
        return str(enum.Name(value))
    except ValueError:
        return str(value)
