"""UNO as a PettingZoo AEC environment: `unonet.rl.env(preset="house", players=4)`.

Agents are `player_0` ... `player_{N-1}`, one per seat. The agent selected is the seat the round asks
next (`unonet.rl.table.LearningTable`: the seat to act, or a seat offered an out-of-turn chance, which
it may DECLINE); docs/rl.md says how races become turns. Each agent's observation is a dict:

- `observation`: the seat's knowledge as a flat uint8 vector (`unonet.rl.observation`, field by field
  in docs/rl.md);
- `action_mask`: int8, 1 for each index of the fixed action space (`unonet.rl.actions`, 13,421 indices)
  the agent may take now; all 0 for an agent that is not selected.

The selected agent's info also lists its legal indices, `infos[agent]["legal_actions"]` (in the engine's
order), so a policy that samples among them need not scan the 13,421-long mask; the others' infos are {}.

An episode is one round. When it ends every agent is terminated (or, past `max_steps` decisions,
truncated) and gets its reward (`reward="win"`: 1 for the winner, -1 for the others; `"points"`: what the
round scores for the seat, negative under the scorings where points count against it); PettingZoo then
steps each terminated agent with None. `reset(seed=s)` deals the same round and rules every race the
same way for the same s; `reset()` without a seed goes on with the stream the last seed started.

A masked action raises ValueError and changes nothing. `render_mode="ansi"` returns the table as text
with every hand shown (for people watching, not an observation); `"human"` prints it.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from unonet.engine import find_ruleset
from unonet.rl.actions import ACTION_COUNT
from unonet.rl.observation import ObservationLayout, masked_observation
from unonet.rl.render import render_table
from unonet.rl.table import LearningTable

__all__ = ["UnoEnv", "env", "raw_env"]

Observation = dict[str, npt.NDArray[Any]]


class UnoEnv(AECEnv[str, Observation, int | None]):  # type: ignore[misc]  # PettingZoo ships no types
    """One round of UNO under any preset and options, as an AEC game (see the module).

    Args:
        preset: a preset of `unonet.engine.PRESETS` (RULES.md "Presets").
        players: 2 to 10 seats.
        reward: "win" or "points".
        max_steps: decisions and offers after which a round is truncated.
        render_mode: None, "ansi" or "human".
        **options: rule options overriding the preset (`find_ruleset(preset, **options)`), e.g.
            `stacking=True`.

    Raises RulesetError for an unknown preset or option, MalformedAction for a bad player count,
    ValueError for an unknown reward or render mode.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "unonet_uno_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        preset: str = "standard",
        players: int = 2,
        *,
        reward: str = "win",
        max_steps: int = 10_000,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.ruleset = find_ruleset(preset, **options)
        self.table = LearningTable(self.ruleset, players, reward=reward, max_steps=max_steps)
        self.layout = ObservationLayout(players)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation = spaces.Box(0, self.layout.high, (self.layout.size,), np.uint8)
        mask = spaces.Box(0, 1, (ACTION_COUNT,), np.int8)
        self._observation_space = spaces.Dict({"observation": observation, "action_mask": mask})
        self._action_space = spaces.Discrete(ACTION_COUNT)
        self.observation_spaces = {agent: self._observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: self._action_space for agent in self.possible_agents}
        self._episodes: random.Random | None = None
        self._no_mask = np.zeros(ACTION_COUNT, np.int8)
        self._no_mask.flags.writeable = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    # ---------------------------------------------------------------------------------- the AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._episodes is None:
            self._episodes = random.Random(seed)
        self.table.reset(self._episodes.getrandbits(64))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._select()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is not done: it must take an action, not None")
        self._cumulative_rewards[agent] = 0.0
        # `rewards` is all 0 while the round goes on (only its end rewards), so PettingZoo's clearing and
        # accumulating before and after every step would change nothing but on the last one.
        self.table.act(int(action))
        if self._select():
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        return masked_observation(self.layout, self.table, self._seat_of[agent], self._no_mask)

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's `last`, observing in one compiled call (`observe` is the same call, a frame deeper)."""
        agent = self.agent_selection
        return (
            masked_observation(self.layout, self.table, self._seat_of[agent], self._no_mask) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = render_table(self.table)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the env holds no resources beyond memory."""

    # ---------------------------------------------------------------------------------- internals

    def _select(self) -> bool:
        """Select the agent the table asks next (its info listing its legal indices); when the round is
        over, end every agent and give it its reward. True when the round is over."""
        table = self.table
        self.infos[self.agent_selection] = {}
        seat = table.seat
        if seat is not None:
            self.agent_selection = agent = self.possible_agents[seat]
            self.infos[agent] = {"legal_actions": list(table.legal)}
            return False
        done = self.terminations if not table.truncated else self.truncations
        for seat, agent in enumerate(self.possible_agents):
            done[agent] = True
            self.rewards[agent] = table.rewards[seat]
        # the dead agents are stepped with None from the first one on (`_was_dead_step` finds them)
        self.agent_selection = self.agents[0]
        return True


def raw_env(**kwargs: Any) -> UnoEnv:
    """The environment without PettingZoo's wrappers (`UnoEnv(**kwargs)`)."""
    return UnoEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv[str, Observation, int | None]:
    """The environment as PettingZoo hands out its own: wrapped so that calls out of order fail clearly."""
    return wrappers.OrderEnforcingWrapper(UnoEnv(**kwargs))
