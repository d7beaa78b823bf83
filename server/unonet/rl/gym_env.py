"""UNO as a Gymnasium environment: one learning seat against unonet's own bots, `unonet/Uno-v0`.

    import gymnasium, unonet.rl
    env = gymnasium.make("unonet/Uno-v0", opponents="greedy", players=2)

The learner plays seat `seat` (0 by default); every other seat is a bot of `unonet.bots.kinds`
(`"random"`, `"basic"`, `"greedy:2"`, `"strong:1"`, ...), one kind for all or one per opponent seat.
Each bot is fed exactly what it is fed at a host's table: the protobuf events its seat may see and its
`SeatView` at every decision (`unonet.bots.policy_seat.PolicySeat`), so it plays here as it plays
there. Races become turns as in the AEC environment (`unonet.rl.table`): a bot offered a chance answers
with its `respond`, and its required decisions with its `decide`, retried as a host retries a bot
(a refused command is asked again, then the host's default, then the first legal action).

The observation is the learner's vector of `unonet.rl.observation` (a uint8 Box); the action is an
index of `unonet.rl.actions`, and the legal ones are `action_masks()` (sb3-contrib's MaskablePPO reads
that method) and `info["action_mask"]`. `step` returns once the learner is asked again or the round
is over; the reward is the learner's at the round's end (`reward="win"` or `"points"`), 0 before.
A masked action is refused, as the engine refuses an illegal one: nothing changes, the reward is 0 and
`info["illegal_action"]` is True (Gymnasium's checker steps with unmasked samples, so it cannot raise);
every step counts towards `max_steps`, so a learner that ignores the mask is truncated, not stuck.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from unonet.engine import find_ruleset
from unonet.rl.actions import ACTION_COUNT
from unonet.rl.bot_seats import BotSeats
from unonet.rl.observation import ObservationLayout
from unonet.rl.render import render_table
from unonet.rl.table import LearningTable

__all__ = ["ENV_ID", "UnoGymEnv"]

ENV_ID = "unonet/Uno-v0"


class UnoGymEnv(gymnasium.Env[npt.NDArray[np.uint8], int]):
    """One seat of a round of UNO against bots (see the module).

    Args:
        preset, players, reward, max_steps, render_mode, **options: as `unonet.rl.aec.UnoEnv`.
        opponents: a bot kind for every other seat, or one kind per other seat in seat order.
        seat: the learner's seat.

    Raises UnknownBotKind for an unknown kind, ValueError for a wrong number of kinds or a seat that is
    not at the table, and what `UnoEnv` raises.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 - Env's own type

    def __init__(
        self,
        preset: str = "standard",
        players: int = 2,
        *,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        reward: str = "win",
        max_steps: int = 10_000,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of seats 0 to {players - 1}")
        self.ruleset = find_ruleset(preset, **options)
        self.table = LearningTable(self.ruleset, players, reward=reward, max_steps=max_steps)
        self.layout = ObservationLayout(players)
        self.seat = seat
        kinds = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(kinds) != players - 1:
            raise ValueError(f"{len(kinds)} opponent kinds for {players - 1} other seats")
        others = [s for s in range(players) if s != seat]
        self.bots = BotSeats(self.table, dict(zip(others, kinds, strict=True)))
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0, self.layout.high, (self.layout.size,), np.uint8)
        self.action_space = spaces.Discrete(ACTION_COUNT)  # type: ignore[assignment]  # its samples are numpy ints
        self._episodes: random.Random | None = None
        self.max_steps = max_steps
        self._steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or self._episodes is None:
            self._episodes = random.Random(seed)
        episode = self._episodes.getrandbits(64)
        self._steps = 0
        self.bots.reset(episode)
        self.table.reset(episode)
        self._play_bots()
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[npt.NDArray[np.uint8], SupportsFloat, bool, bool, dict[str, Any]]:
        table = self.table
        if table.is_over:
            raise ValueError("the round is over: reset first")
        self._steps += 1
        illegal = int(action) not in table.legal
        if not illegal:
            table.act(int(action))
            self._play_bots()
        if self.render_mode == "human":
            self.render()
        reward = table.rewards[self.seat] if table.is_over else 0.0
        terminated = table.is_over and not table.truncated
        truncated = table.truncated or (not terminated and self._steps >= self.max_steps)
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        return self._observe(), reward, terminated, truncated, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal indices now, as MaskablePPO reads them (all False once the round is over)."""
        mask = np.zeros(ACTION_COUNT, np.bool_)
        if not self.table.is_over:
            mask[list(self.table.legal)] = True
        return mask

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = render_table(self.table)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---------------------------------------------------------------------------------- internals

    def _play_bots(self) -> None:
        table = self.table
        while not table.is_over and table.seat != self.seat:
            self.bots.play(table.seat)  # type: ignore[arg-type]

    def _observe(self) -> npt.NDArray[np.uint8]:
        table = self.table
        offer = table.seat == self.seat and not table.required
        return self.layout.encode(table.game, table.history, self.seat, offer=offer)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8)}


def register() -> None:
    """Register `unonet/Uno-v0` with Gymnasium (importing `unonet.rl` does it); a second call does nothing."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="unonet.rl.gym_env:UnoGymEnv")
