"""The trained policy's win rate heads-up against unonet's bots, on duplicate deals.

    python examples/rl/evaluate.py --deals 1000                               # policy.npz, in numpy
    python examples/rl/evaluate.py --policy run/policy.zip --deals 1000      # a MaskablePPO model (torch)

Each deal (a seed of the Gymnasium environment) is played twice, the policy at seat 0 and then at
seat 1, against the same opponent with the same cards and the same opponent's seed, so luck of the
deal cancels out. The policy plays deterministically (its argmax over the legal actions). Prints the
win rate with its 95% Wilson interval for each opponent; `--json` adds one JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from common import Scaled, make_env
from numpy_policy import NumpyPolicy

#: A policy's deterministic choice from the environment (its mask) and the raw observation.
Chooser = Callable[[Scaled, np.ndarray], int]


def load_chooser(path: Path) -> Chooser:
    """The policy at `path`: an export (`.npz`, numpy only) or a MaskablePPO model (`.zip`, needs torch)."""
    if path.suffix == ".npz":
        policy = NumpyPolicy.load(path)
        return lambda env, raw: policy.act(raw, env.action_masks())
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = MaskablePPO.load(path, device="cpu")

    def choose(env: Scaled, raw: np.ndarray) -> int:
        return int(model.predict(env.observation(raw), action_masks=env.action_masks(), deterministic=True)[0])

    return choose


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def win_rate(choose: Chooser, opponent: str, deals: int, first: int) -> dict[str, object]:
    wins = games = 0
    for seat in (0, 1):
        env = make_env(opponent, seat=seat)
        raw_env = env.env  # the raw observations, which the chooser scales as it needs
        for deal in range(first, first + deals):
            observation, _ = raw_env.reset(seed=deal)
            while True:
                observation, reward, terminated, truncated, _ = raw_env.step(choose(env, observation))
                if terminated or truncated:
                    break
            games += 1
            wins += reward > 0
    low, high = wilson(wins, games)
    return {
        "opponent": opponent,
        "deals": deals,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci95": [round(low, 3), round(high, 3)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--policy", type=Path, default=Path(__file__).parent / "policy.npz")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--first-deal", type=int, default=10_000_000, help="deals training never saw")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    choose = load_chooser(args.policy)
    results = []
    for opponent in args.opponents.split(","):
        result = win_rate(choose, opponent, args.deals, args.first_deal)
        results.append(result)
        low, high = result["ci95"]  # type: ignore[misc]
        print(
            f"against {opponent}: {result['wins']}/{result['games']} rounds won = {result['win_rate']:.1%} "
            f"[{low:.1%}, {high:.1%}] over {args.deals} duplicate deals",
            flush=True,
        )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
