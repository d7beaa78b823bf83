"""The strong bot's playout policy: `greedy`'s own scoring on the engine's actions, for every step of
thousands of playouts per decision.

Why greedy's scoring and not a random player: a playout measures a candidate by how the round goes on
after it, and the search's opponents (and the strong seat's own later turns) play like the policy the
playouts use. When that policy is `greedy`'s, the search is a policy-improvement step over greedy (the
rollout algorithm of Tesauro and Galperin): each candidate followed by greedy play, the best one
taken, which can only do better than greedy when the estimates are right.

The scoring itself is engine code, `unonet.engine.heuristic.GreedyPlayer` (it mirrors
`unonet.bots.greedy_bot.GreedyBot` term for term, on engine cards), so that the compiled build plays a
whole playout without coming back into Python per step (`heuristic.play_out`). This module is the bot's
side of it: what the table showed (greedy's `TableMemory`) turned into the player's inputs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from unonet.bots.memory import TableMemory
from unonet.engine import Color
from unonet.engine.heuristic import BLUFF_PRIOR, GreedyPlayer
from unonet.v1 import cards_pb2

__all__ = ["BLUFF_PRIOR", "DEFAULT_EXPLORE", "Lacks", "greedy_policy", "remembered_lacks"]

#: How often a playout seat plays a random play rather than the greedy one.
DEFAULT_EXPLORE = 0.0
Lacks = Mapping[int, frozenset[Color]]
"""Per seat, the colours it drew on for its turn and has not played since (greedy's `TableMemory.lacks`)."""


def remembered_lacks(memory: TableMemory) -> dict[int, frozenset[Color]]:
    """The colours each seat drew on and has not played since, as greedy's `memory` counted them."""
    return {
        seat: frozenset(Color[cards_pb2.Color.Name(color).removeprefix("COLOR_")] for color in colors)
        for seat, colors in memory.lacks.items()
        if colors
    }


def greedy_policy(
    rng: random.Random,
    explore: float = DEFAULT_EXPLORE,
    lacks: Lacks | None = None,
    bluff_rates: Mapping[int, float] | None = None,
) -> GreedyPlayer:
    """The playout policy for one playout (`heuristic.GreedyPlayer`, a `search.Policy`), drawing its
    exploration from `rng`.

    `lacks` is what the table showed before the playout; the player keeps its own copy and adds to it,
    so make one per playout. `bluff_rates` is each seat's bluff rate as greedy counts it from the
    challenges the table saw (`TableMemory.bluff_rate`); a seat not in it has `BLUFF_PRIOR`.
    """
    return GreedyPlayer(rng, explore, lacks, bluff_rates)
