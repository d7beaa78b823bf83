"""The training curve: the learner's win rate over its last 1,000 rounds, against the steps taken."""

from __future__ import annotations

import csv
import sys
from collections import deque
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

WINDOW = 1_000


def plot(progress: Path, picture: Path) -> None:
    steps, rates = [], []
    recent: deque[float] = deque(maxlen=WINDOW)
    with progress.open() as file:
        for row in csv.DictReader(file):
            recent.append(1.0 if float(row["reward"]) > 0 else 0.0)
            if len(recent) == WINDOW:
                steps.append(int(row["timesteps"]))
                rates.append(sum(recent) / WINDOW)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(steps, rates)
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xlabel("learner steps")
    axes.set_ylabel(f"win rate, last {WINDOW:,} rounds")
    axes.set_title("MaskablePPO heads-up against unonet's random bot (standard rules)")
    axes.set_ylim(0, 1)
    figure.tight_layout()
    figure.savefig(picture, dpi=100)


if __name__ == "__main__":
    plot(Path(sys.argv[1]), Path(sys.argv[2]))
