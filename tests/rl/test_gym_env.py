"""The Gymnasium environment `unonet/Uno-v0`: Gymnasium's own checker, bots from the registry as opponents."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import unonet.rl
from unonet.bots.kinds import UnknownBotKind
from unonet.rl.gym_env import UnoGymEnv


def make(**kwargs) -> UnoGymEnv:
    return gymnasium.make(unonet.rl.ENV_ID, **kwargs).unwrapped  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("preset", "players", "opponents"),
    [
        ("standard", 2, "random"),
        ("standard", 2, "greedy"),
        ("house", 3, "basic:2"),
        ("russian", 4, "greedy:1"),
        ("serbian", 2, ["strong:1"]),
        ("polish", 3, ["random", "greedy"]),
    ],
)
def test_check_env_passes(preset, players, opponents):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's advice counts as a failure here
        check_env(make(preset=preset, players=players, opponents=opponents), skip_render_check=False)


def test_check_env_passes_with_render_mode_ansi():
    check_env(make(render_mode="ansi"), skip_render_check=False)


def run_round(environment: UnoGymEnv, seed: int) -> tuple[list[bytes], float]:
    rng = np.random.default_rng(seed)
    observation, info = environment.reset(seed=seed)
    seen = [observation.tobytes()]
    while True:
        assert np.array_equal(info["action_mask"].astype(bool), environment.action_masks())
        action = int(rng.choice(np.flatnonzero(environment.action_masks())))
        observation, reward, terminated, truncated, info = environment.step(action)
        seen.append(observation.tobytes())
        if terminated or truncated:
            return seen, float(reward)
        assert reward == 0.0


def test_the_round_ends_with_the_learners_reward():
    environment = make(opponents="greedy", reward="win")
    rewards = {run_round(environment, seed)[1] for seed in range(8)}
    assert rewards <= {1.0, -1.0} and rewards


def test_the_same_seed_plays_the_same_round():
    environment = make(preset="house", players=3, opponents="greedy")
    assert run_round(environment, 4) == run_round(environment, 4)
    assert run_round(environment, 4) != run_round(environment, 5)


def test_a_masked_action_is_refused_and_changes_nothing():
    environment = make()
    observation, _ = environment.reset(seed=1)
    masked = int(np.flatnonzero(~environment.action_masks())[0])
    after, reward, terminated, truncated, info = environment.step(masked)
    assert info["illegal_action"] and reward == 0 and not terminated and not truncated
    assert np.array_equal(after, observation)


def test_a_learner_ignoring_the_mask_is_truncated_not_stuck():
    environment = make(max_steps=50)
    environment.reset(seed=1)
    masked = int(np.flatnonzero(~environment.action_masks())[0])
    for _ in range(50):
        *_, truncated, _info = environment.step(masked)
    assert truncated


def test_bad_opponents_fail_at_construction():
    with pytest.raises(UnknownBotKind):
        make(opponents="nobody")
    with pytest.raises(ValueError, match="opponent kinds"):
        make(players=3, opponents=["random"])
    with pytest.raises(ValueError, match="seat"):
        make(seat=2)


def test_the_learner_may_sit_anywhere():
    environment = make(players=3, seat=2, opponents="random")
    observation, _ = environment.reset(seed=0)
    assert environment.table.seat == 2 and observation.shape == environment.observation_space.shape
