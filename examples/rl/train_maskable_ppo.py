"""Train MaskablePPO (sb3-contrib) heads-up against the random bot, on one core, for a wall-clock budget.

    python examples/rl/train_maskable_ppo.py --minutes 90 --out examples/rl/run

Writes, under --out: `progress.csv` (after every round: total steps, the round's reward, seconds since
the start), `checkpoint.zip` every five minutes and `policy.zip` at the end, and `training_curve.png`
(the win rate over the last 1,000 rounds against the steps taken). The learner sits at seat 0; each
round's dealer is drawn by the rules (S2), so it plays first as often as second.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import torch
from common import make_env
from plot_curve import plot
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback


class Budget(BaseCallback):
    """Logs each finished round, checkpoints every `every_s` seconds, stops after `seconds`."""

    def __init__(self, out: Path, seconds: float, every_s: float = 300.0) -> None:
        super().__init__()
        self.out, self.seconds, self.every_s = out, seconds, every_s
        self.start = time.monotonic()
        self.saved = self.start
        self.file = (out / "progress.csv").open("w", newline="")
        self.rows = csv.writer(self.file)
        self.rows.writerow(["timesteps", "reward", "seconds"])

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
            if done and "episode" in info:
                self.rows.writerow([self.num_timesteps, info["episode"]["r"], round(time.monotonic() - self.start, 1)])
        now = time.monotonic()
        if now - self.saved > self.every_s:
            self.file.flush()
            self.model.save(self.out / "checkpoint.zip")
            self.saved = now
        return now - self.start < self.seconds

    def _on_training_end(self) -> None:
        self.file.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=90.0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)  # one core
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(make_env("random"))
    model = MaskablePPO(
        "MlpPolicy",
        env,
        seed=args.seed,
        verbose=0,
        n_steps=4096,
        batch_size=512,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.995,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        device="cpu",
    )
    model.learn(total_timesteps=10**9, callback=Budget(args.out, args.minutes * 60))
    model.save(args.out / "policy.zip")
    plot(args.out / "progress.csv", args.out / "training_curve.png")
    print(f"trained for {model.num_timesteps:,} steps; policy in {args.out / 'policy.zip'}")


if __name__ == "__main__":
    main()
