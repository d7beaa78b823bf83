"""What the example's scripts share: the environment as the agent sees it (observations scaled to 0-1)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

import unonet.rl  # registers unonet/Uno-v0
from unonet.rl.actions import BASIC_ACTION_COUNT
from unonet.rl.gym_env import UnoGymEnv

# Counts are scaled by their field's bound, but never by more than 16: a hand of 7 cards must not read as 0.06.
_MOST_SCALE = 16.0


def scale_for(env: UnoGymEnv) -> npt.NDArray[np.float32]:
    """The divisor of each observation number: its field's bound, at most 16 (at least 1)."""
    return np.clip(env.layout.high.astype(np.float32), 1.0, _MOST_SCALE)


class Scaled(gymnasium.ObservationWrapper[npt.NDArray[np.float32], int, npt.NDArray[np.uint8]]):
    """The uint8 observation as float32 in about 0-1, which an MLP learns from better, and the action space
    cut to its first `BASIC_ACTION_COUNT` indices: the standard rules never unmask the others
    (`unonet.rl.actions`), and a 145-way output trains about ten times faster than a 13,421-way one."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        self.divisor = scale_for(env.unwrapped)  # type: ignore[arg-type]
        self.observation_space = gymnasium.spaces.Box(0.0, 16.0, env.observation_space.shape, np.float32)
        self.action_space = gymnasium.spaces.Discrete(BASIC_ACTION_COUNT)

    def observation(self, observation: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        return observation.astype(np.float32) / self.divisor

    def action_masks(self) -> npt.NDArray[np.bool_]:
        mask = self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
        if mask[BASIC_ACTION_COUNT:].any():
            raise ValueError("these rules unmask actions past the basic ones: train on the full action space")
        return mask[:BASIC_ACTION_COUNT]  # type: ignore[no-any-return]


def make_env(opponents: str = "random", seat: int = 0, preset: str = "standard") -> Scaled:
    """Heads-up UNO against `opponents`, the learner at `seat`, observations scaled."""
    return Scaled(gymnasium.make(unonet.rl.ENV_ID, preset=preset, players=2, opponents=opponents, seat=seat).unwrapped)
