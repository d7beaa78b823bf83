"""The trained policy's network in numpy, so that playing it needs neither torch nor stable-baselines3.

MaskablePPO's policy is an MLP: the scaled observation (`common.Scaled`: each number divided by its
field's bound, at most 16), two layers of 256 with tanh, then a linear layer to one logit per action of
the first `BASIC_ACTION_COUNT` (145) indices; the masked argmax of those logits is the action it plays
deterministically. The value network only trains: it is left out. `export_policy.py` writes those weights
(float32, as trained) to `policy.npz` with the divisor the observations were scaled by and a few hundred
observations with the actions the original model took on them, which `tests/rl/test_ppo_entrant.py`
replays without torch.

`policy.npz` holds:

- `layer{i}_weight` (out x in) and `layer{i}_bias` for i = 0, 1, 2: the two hidden layers and the
  action layer, as torch's `nn.Linear` stores them;
- `divisor`: what each observation number is divided by before the first layer;
- `check_observations` (uint8, raw as the environment gives them), `check_masks` (bool, 145 wide) and
  `check_actions`: the original model's deterministic action on each;
- `timesteps`, `players`, `preset`: what the policy was trained for.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = ["NumpyPolicy"]

_LAYERS = 3  # two hidden layers and the action layer


class NumpyPolicy:
    """The exported policy network (see the module): `NumpyPolicy.load(path)` reads `policy.npz`.

    Raises ValueError when the layers' shapes do not chain from the divisor's width.
    """

    def __init__(
        self,
        weights: list[npt.NDArray[np.float32]],
        biases: list[npt.NDArray[np.float32]],
        divisor: npt.NDArray[np.float32],
        *,
        timesteps: int = 0,
        players: int = 2,
        preset: str = "standard",
    ) -> None:
        if len(weights) != _LAYERS or len(biases) != _LAYERS:
            raise ValueError(f"{_LAYERS} layers, not {len(weights)} weights and {len(biases)} biases")
        self.weights = [np.asarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.divisor = np.asarray(divisor, np.float32)
        self.timesteps, self.players, self.preset = timesteps, players, preset
        width = self.divisor.shape[0]
        for weight, bias in zip(self.weights, self.biases, strict=True):
            if weight.shape[1] != width or bias.shape != (weight.shape[0],):
                raise ValueError(f"a layer of shape {weight.shape} (bias {bias.shape}) after {width} inputs")
            width = weight.shape[0]
        self.observation_size = self.divisor.shape[0]
        self.action_count = width

    @classmethod
    def load(cls, path: Path) -> NumpyPolicy:
        """The policy `export_policy.py` wrote to `path`. Raises KeyError when the file lacks an array,
        OSError when it cannot be read, ValueError as the constructor does."""
        with np.load(path) as data:
            return cls(
                [data[f"layer{i}_weight"] for i in range(_LAYERS)],
                [data[f"layer{i}_bias"] for i in range(_LAYERS)],
                data["divisor"],
                timesteps=int(data["timesteps"]),
                players=int(data["players"]),
                preset=str(data["preset"]),
            )

    def logits(self, observation: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        """One logit per action for a raw observation (the environment's uint8 vector)."""
        hidden = observation.astype(np.float32) / self.divisor
        last = _LAYERS - 1
        for i in range(_LAYERS):
            hidden = self.weights[i] @ hidden + self.biases[i]
            if i < last:
                hidden = np.tanh(hidden)
        return hidden

    def act(self, observation: npt.NDArray[np.uint8], mask: npt.NDArray[np.bool_]) -> int:
        """The action the policy plays deterministically: the highest logit among those `mask` allows.
        Raises ValueError when the mask allows none."""
        if not mask.any():
            raise ValueError("no action is allowed")
        return int(np.argmax(np.where(mask, self.logits(observation), -np.inf)))
