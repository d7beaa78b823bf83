"""`LearningTable.reset`: a seed deals what the engine's own S2 dealer choice and deal give for it."""

from __future__ import annotations

import random

import pytest

from unonet.engine import PRESETS, Match
from unonet.rl.table import LearningTable


@pytest.mark.parametrize("preset", ["standard", "house", "russian"])
@pytest.mark.parametrize("players", [2, 4, 7])
def test_reset_deals_as_a_match_that_draws_its_own_dealer(preset, players):
    ruleset = PRESETS[preset]
    for seed in range(40):
        table = LearningTable(ruleset, players)
        batches = []
        table.listeners.append(batches.append)
        table.reset(seed)
        rng = random.Random(seed)
        match = Match(ruleset, players, random.Random(rng.getrandbits(64)), auto_deal=False)
        events = match.start() + match.deal()
        assert batches[0] == events  # the dealer's draws (S2), the deal, the first card
        game = match.game
        assert (table.game.dealer, table.game.hands, table.game.draw_pile) == (game.dealer, game.hands, game.draw_pile)
        assert table.match.rng.getstate() == match.rng.getstate()  # later shuffles go on alike
