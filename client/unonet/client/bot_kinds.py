"""Which of the bot kinds a host offers (ListBotKinds) to seat against a human, by name alone.

A host names its kinds `family` or `family:level` (``random``, ``greedy:2``, ``strong:3``). A client
that seats bots for a person (`make play`, the lobby's form, the game screen's "add a bot") wants the
strongest the host offers, so each name is ranked by its family (`FAMILIES`, weakest first; a family
this client does not know ranks above ``random`` and below every known one, in the host's order) and
then by its level (a higher level plays better; no level is level 0). The host's own default
(`BotKind.is_default`) is what it seats when no kind is named, which is not necessarily its strongest:
it is the choice only when nothing ranks higher.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from unonet.v1 import table_pb2

__all__ = ["FAMILIES", "best_bot_kind", "by_strength", "strength"]

#: Bot families from the weakest to the strongest.
FAMILIES: Final = ("random", "basic", "heuristic", "greedy", "mcts", "strong", "expert")


def strength(name: str) -> tuple[int, int]:
    """A kind name's rank, (family, level): a higher one plays better (see the module docstring)."""
    family, _, level = name.partition(":")
    rank = FAMILIES.index(family) * 2 if family in FAMILIES else 1
    return rank, int(level) if level.isdigit() else 0


def by_strength(kinds: Sequence[table_pb2.BotKind]) -> list[table_pb2.BotKind]:
    """The kinds from the strongest to the weakest (the host's order among equals)."""
    return sorted(kinds, key=lambda kind: strength(kind.name), reverse=True)


def best_bot_kind(kinds: Sequence[table_pb2.BotKind]) -> str:
    """The name of the strongest kind offered; "" (the host's default) when it offers none."""
    ranked = by_strength(kinds)
    return ranked[0].name if ranked else ""
