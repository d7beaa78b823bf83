"""`SeatTracker` against the true game after every input, in many seeded matches (`knowledge_games`).

Every seat of every match follows its own events as the host rendered them and reads its GetView; after
each input each seat's position must show what the true game shows it, its knowledge must hold for the
true hidden cards, a determinization of it must deal every card in play, and GetView's `called_uno`
must be what the UnoCalled events said. The suite runs one short match per preset and house-rule set
(2 to 6 players in turn), a few seconds in all; `UNONET_KNOWLEDGE_SWEEP=N` plays every preset, every
house-rule set and every player count from 2 to 6 with N seeds each, whole matches (minutes).
Every third case deals by the fair shuffle, whose round seeds come from `secrets` as at a real host:
those deals differ from run to run (the policy's choices stay seeded); the others repeat exactly.
"""

from __future__ import annotations

import itertools
import os

import pytest
from knowledge_games import HOUSE_RULES, PRESETS, CheckedMatch, configurations

SWEEP = int(os.environ.get("UNONET_KNOWLEDGE_SWEEP", "0"))
QUICK_INPUTS = 150  # inputs per match in the suite's quick cases: past the deal, into the play


def _quick() -> list[tuple[str, str, int, int]]:
    players = itertools.cycle(range(2, 7))
    return [(preset, rules, next(players), seed) for seed, (preset, rules) in
            enumerate(itertools.product(PRESETS, HOUSE_RULES))]


def _sweep() -> list[tuple[str, str, int, int]]:
    return [(preset, rules, players, seed) for preset, rules, players in configurations() for seed in range(SWEEP)]


@pytest.mark.parametrize(("preset", "rules", "players", "seed"), _sweep() if SWEEP else _quick())
def test_every_seat_reads_back_the_position_it_knows_after_every_input(preset, rules, players, seed):
    checked = CheckedMatch(preset, {"target_score": 200, **HOUSE_RULES[rules]}, players, seed,
                           fair_shuffle=seed % 3 == 0)
    played = checked.play(max_inputs=None if SWEEP else QUICK_INPUTS)
    assert played.positions["PHASE_TURN"] > 0, played
    assert played.rounds >= 1
