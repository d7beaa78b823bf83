"""Pickling and deep copies: the compiled build's native classes need their own `__reduce__`, so each
class of unonet.rl that holds no engine round is round-tripped here on both builds (make compiled-test)."""

from __future__ import annotations

import copy
import os
import pickle
import random

import numpy as np
import pytest

from unonet.engine import PRESETS
from unonet.rl import raw_env
from unonet.rl.observation import ObservationLayout
from unonet.rl.table import LearningTable

COPIES = {"pickle": lambda value: pickle.loads(pickle.dumps(value)), "deepcopy": copy.deepcopy}


@pytest.mark.parametrize("how", COPIES)
def test_a_layout_and_its_fields_come_back_equal(how):
    layout = ObservationLayout(4)
    again = COPIES[how](layout)
    assert type(again) is ObservationLayout and again.fields == layout.fields and again.size == layout.size
    assert np.array_equal(again.high, layout.high)
    assert COPIES[how](layout.fields[3]) == layout.fields[3]


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("preset", ["house", "russian"])
def test_a_history_mid_round_comes_back_and_goes_on_as_the_original(how, preset):
    rng = random.Random(5)
    followed = 0
    for seed in range(6):
        table = LearningTable(PRESETS[preset], 4)
        table.reset(seed)
        for _ in range(60):  # into the round: known hands, exclusions, verdicts where the rules make them
            if table.is_over:
                break
            table.act(rng.choice(list(table.legal)))
        if table.is_over:
            continue
        again = COPIES[how](table.history)
        table.listeners.append(lambda events, again=again, table=table: again.follow(events, table.game))
        layout = ObservationLayout(4)
        while not table.is_over:
            for seat in range(4):
                assert np.array_equal(
                    layout.encode(table.game, again, seat, offer=False),
                    layout.encode(table.game, table.history, seat, offer=False),
                )
                assert again.knowledge(seat) == table.history.knowledge(seat)
            table.act(rng.choice(list(table.legal)))
            followed += 1
    assert followed > 50


@pytest.mark.skipif(
    os.environ.get("UNONET_BUILD", "pure") == "compiled",
    reason="the engine's compiled Game and Ruleset do not pickle yet; LearningTable.copy() copies a round",
)
@pytest.mark.parametrize("how", COPIES)
def test_an_environment_mid_round_comes_back_and_plays_on_alike(how):
    env = raw_env(preset="house", players=3)
    env.reset(seed=8)
    for _ in range(30):
        env.step(env.infos[env.agent_selection]["legal_actions"][0])
    again = COPIES[how](env)
    for _ in range(40):
        if not env.agents:
            break
        observed, reobserved = env.last(), again.last()
        assert np.array_equal(observed[0]["observation"], reobserved[0]["observation"])
        action = None if observed[2] or observed[3] else observed[4]["legal_actions"][-1]
        env.step(action)
        again.step(action)
