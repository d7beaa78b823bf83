"""Which games a league plays: who sits where, and which deal each game is dealt.

A schedule is a list of cycles. A cycle plays every group of bots once per seating rotation: a group
is a set of bots for one table (round robin: every combination of bots of each table size; gauntlet:
the challenger with every combination of the pool), its seating order is shuffled from the league's
seed, then rotated so every bot of the group sits in every seat exactly once. Seats are therefore
balanced after every whole cycle, and a league plays whole cycles: `games` is rounded up.

Duplicate deals (the default): the rotations of a group share one deal, so every bot plays that hand
from every seat and the luck of the deal cancels out. Without them every game gets a deal of its own.
A deal is a 64-bit seed the league derives from its own, or takes from a deal book (`deals`): the
engine's shuffle, dealer draw and reshuffles all come from it, so the same deal is the same deck order
whoever sits where.

Games are numbered in schedule order and named `g000001`, ...; the results database is keyed by that
id, and `deal`/`rotation` let a later stage (the heads-up SPRT) pair the games of one deal.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from unonet.league.config import LeagueConfig
from unonet.league.deals import derived_seed as deal_seed

__all__ = ["GameSpec", "cycle_length", "deal_seed", "game_id", "groups", "schedule"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One scheduled game: `seats[i]` is the bot sitting at seat i; `deal` numbers the deal and
    `seed` is its seed; `rotation` is how far the group's seating was rotated for this game."""

    index: int
    game_id: str
    cycle: int
    deal: int
    seed: int
    rotation: int
    seats: tuple[str, ...]


def game_id(index: int) -> str:
    """The id of the game at 0-based schedule position `index`."""
    return f"g{index + 1:06d}"


def groups(config: LeagueConfig) -> list[tuple[str, ...]]:
    """The groups of bots that meet at one table, in schedule order."""
    names = [spec.name for spec in config.bots]
    out: list[tuple[str, ...]] = []
    for size in config.table_sizes:
        if config.schedule == "gauntlet":
            assert config.challenger is not None
            pool = [name for name in names if name != config.challenger]
            out += [(config.challenger, *rest) for rest in itertools.combinations(pool, size - 1)]
        else:
            out += list(itertools.combinations(names, size))
    return out


def cycle_length(config: LeagueConfig) -> int:
    """Games per cycle: one per seat of every group."""
    return sum(len(group) for group in groups(config))


def schedule(config: LeagueConfig, games: int | None = None) -> list[GameSpec]:
    """The league's games: whole cycles until at least `games` (default: the file's) are listed."""
    wanted = config.games if games is None else games
    per_cycle = cycle_length(config)
    cycles = max(1, -(-wanted // per_cycle))
    return list(_games(config, cycles))


def _games(config: LeagueConfig, cycles: int) -> Iterator[GameSpec]:
    index = deal = 0
    base = groups(config)
    for cycle in range(cycles):
        for number, group in enumerate(base):
            order = _seating(config.seed, cycle, number, group)
            for rotation in range(len(order)):
                if rotation == 0 or not config.duplicate:
                    deal += 1
                yield GameSpec(
                    index=index,
                    game_id=game_id(index),
                    cycle=cycle,
                    deal=deal,
                    seed=config.deal_seed(deal),
                    rotation=rotation,
                    seats=order[rotation:] + order[:rotation],
                )
                index += 1


def _seating(seed: int, cycle: int, number: int, group: Sequence[str]) -> tuple[str, ...]:
    """The group's seating order before rotation, shuffled per cycle so neighbours vary."""
    order = list(group)
    random.Random(f"{seed}:{cycle}:{number}").shuffle(order)
    return tuple(order)
