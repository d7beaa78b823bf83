"""The environments' observation, kept up to date per seat (`IncrementalEncoder`), equals the one built from
scratch (`ObservationLayout.encode`, the reference) at every step of random rounds of every preset, however
seldom each seat is observed, across rounds and redeals, and through the AEC environment itself. Run on both
builds (make compiled-test runs tests/rl on the compiled one)."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulesets import any_ruleset

from unonet.engine import PRESETS, Ruleset, determinize
from unonet.rl import raw_env
from unonet.rl.observation import IncrementalEncoder, ObservationLayout
from unonet.rl.table import LearningTable


def _differences(layout: ObservationLayout, kept: np.ndarray, fresh: np.ndarray) -> list[str]:
    return [
        f.name
        for f in layout.fields
        if not np.array_equal(kept[f.offset : f.offset + f.size], fresh[f.offset : f.offset + f.size])
    ]


def _play(ruleset: Ruleset, players: int, seeds: range, *, watch: float, max_steps: int = 600) -> int:
    """Play random rounds at one table with one encoder; at each step observe the seat asked and each
    other seat with probability `watch`, comparing with the reference. How many observations compared."""
    layout = ObservationLayout(players)
    encoder = IncrementalEncoder(layout)
    table = LearningTable(ruleset, players, max_steps=max_steps)
    compared = 0
    for seed in seeds:
        table.reset(seed)
        rng = random.Random(seed)
        while True:
            for seat in range(players):
                asked = seat == table.seat
                if not asked and rng.random() >= watch:
                    continue
                offer = asked and not table.required
                kept = encoder.encode(table.game, table.history, seat, offer=offer)
                fresh = layout.encode(table.game, table.history, seat, offer=offer)
                assert kept.dtype == fresh.dtype and kept.flags.writeable
                different = _differences(layout, kept, fresh)
                assert not different, f"seed {seed}, step {table.steps}, seat {seat}: {different}"
                compared += 1
            if table.is_over:
                break
            table.act(rng.choice(list(table.legal)))
    return compared


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_kept_observation_is_the_rebuilt_one_on_every_preset(preset, players):
    assert _play(PRESETS[preset], players, range(2), watch=0.5) > 100


@pytest.mark.parametrize("watch", [0.0, 1.0])
def test_the_kept_observation_is_the_rebuilt_one_however_often_a_seat_is_watched(watch):
    assert _play(PRESETS["house"], 4, range(3), watch=watch) > 150


def test_the_kept_observation_is_the_rebuilt_one_with_ten_players():
    assert _play(PRESETS["house"], 10, range(1), watch=0.3, max_steps=300) > 300


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=any_ruleset(), players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_the_kept_observation_is_the_rebuilt_one_on_drawn_rulesets(ruleset: Ruleset, players, seed):
    _play(ruleset, players, range(seed, seed + 2), watch=0.5, max_steps=300)


def test_a_redeal_and_back_is_seen_at_once():
    """A search's sampled position (a copy `LearningTable.redeal`s) is another game and another history:
    reading it, then the true round again, starts the kept vectors again each time."""
    layout = ObservationLayout(3)
    encoder = IncrementalEncoder(layout)
    table = LearningTable(PRESETS["house"], 3)
    rng = random.Random(4)
    redeals = 0
    for seed in range(4):
        table.reset(seed)
        while not table.is_over:
            seat = table.seat
            assert seat is not None
            tables = [table]
            if rng.random() < 0.2:
                sampled = table.copy()
                sampled.redeal(determinize(table.game, table.history.knowledge(seat), rng))
                tables = [table, sampled, table]
                redeals += 1
            for read in tables:
                for watched in range(3):
                    kept = encoder.encode(read.game, read.history, watched, offer=False)
                    fresh = layout.encode(read.game, read.history, watched, offer=False)
                    assert not _differences(layout, kept, fresh)
            table.act(rng.choice(list(table.legal)))
    assert redeals > 5


def test_the_environment_hands_out_the_rebuilt_observation_in_arrays_of_its_own():
    """Through `UnoEnv.last()`: the observation equals the reference's; each array is the learner's own
    (an array handed out keeps its values as the round goes on, and writing into one changes no later one)."""
    environment = raw_env(preset="house", players=4, max_steps=150)
    layout = environment.layout
    handed: list[tuple[np.ndarray, np.ndarray]] = []
    for seed in range(2):
        environment.reset(seed=seed)
        for agent in environment.agent_iter():
            observation, _reward, terminated, truncated, info = environment.last()
            table = environment.table
            seat = environment.possible_agents.index(agent)
            fresh = layout.encode(table.game, table.history, seat, offer=seat == table.seat and not table.required)
            assert not _differences(layout, observation["observation"], fresh)
            if len(handed) % 3 == 0:
                observation["observation"][:] = 7  # scribbled on by the learner
            handed.append((observation["observation"], observation["observation"].copy()))
            environment.step(None if terminated or truncated else info["legal_actions"][-1])
    assert len(handed) > 100
    assert all(np.array_equal(array, values) for array, values in handed)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_an_encoder_comes_back_as_a_fresh_one_that_encodes_alike(how):
    layout = ObservationLayout(3)
    encoder = IncrementalEncoder(layout)
    table = LearningTable(PRESETS["house"], 3)
    table.reset(2)
    rng = random.Random(2)
    for _ in range(20):
        encoder.encode(table.game, table.history, table.seat or 0, offer=False)
        table.act(rng.choice(list(table.legal)))
    again = pickle.loads(pickle.dumps(encoder)) if how == "pickle" else copy.deepcopy(encoder)
    assert type(again) is IncrementalEncoder and again.layout.size == layout.size
    for seat in range(3):
        assert np.array_equal(
            again.encode(table.game, table.history, seat, offer=False),
            encoder.encode(table.game, table.history, seat, offer=False),
        )
