"""The AEC environment's steps per second against RLCard's UNO environment, in the same process.

    .venv/bin/python bench/rl.py            # pure build here, compiled build in a second process
    .venv/bin/python bench/rl.py --quick    # fewer rounds
    .venv/bin/python bench/rl.py --part core --json   # this process only (what the compiled process runs)

What is measured, on one core, fixed seeds, after a warm-up:

- **unonet**: `unonet.rl.raw_env` (the PettingZoo AEC environment, `unonet.rl.aec`), the loop a
  PettingZoo user writes: `for agent in env.agent_iter(): observation, reward, terminated, truncated,
  info = env.last()`, then a random legal index (from `info["legal_actions"]`, the selected agent's
  legal indices), `env.step(action)`; `reset(seed=...)` between rounds. The policy is bench/engine.py's
  and RLCard's own random agent's: uniform among the plays when there is one (a card, a run, a
  multi-play, a jump-in), else among the other actions (draw, pass, a colour, a challenge, DECLINE...),
  so hands stay the size they have in RLCard's rounds. Every `last()` builds
  the agent's observation and its action mask. One step is one `step` call, the terminated agents'
  `None` steps at the end of a round included (as the loop makes them).
- **RLCard**: `rlcard.make("uno")` and its `env.step` loop: `reset()`, then `env.step(random legal
  action)` until `is_over()`; every step encodes RLCard's observation too.
- **The observation's share**: the same unonet loop run again with `last(observe=False)` and the action
  drawn from the same list; the share is the difference over the full loop's time. The goal: no more
  than a third of a step. That loop's own ratio to RLCard is printed too (`ratio_without_observation`):
  what a step would be worth if the observation cost nothing.

**Timing on a shared machine.** Each figure is this thread's CPU time (`time.thread_time`), not the
wall clock, so other processes' load does not count as ours; and each case runs its three loops (RLCard,
unonet, unonet without observations) in turn, `REPEATS` times over the same seeds, keeping each loop's
fastest repeat (the one least disturbed: caches and the core shared with others still slow a repeat,
never speed it). A ratio is two such minima from the same process and the same minutes.

Cases: 2 and 4 players, the standard rules and every house rule (bench/engine.py's `HOUSE`). RLCard has
one rule set (its own, close to standard), so every unonet case is compared with RLCard at the same
number of players. The two engines play different amounts per round (unonet's rounds offer races,
keep-or-play and UNO calls; random play draws often), which is why the figure is steps per second.

The compiled build (`make compiled`) runs in a second process on `.venv-compiled`, against RLCard
measured in that process; without it the compiled figures say `missing: run make compiled`. The goal is
at least 5x RLCard's steps per second on the compiled build.
"""

from __future__ import annotations

import argparse
import functools
import importlib.machinery
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import rlcard

import unonet.engine.game
from unonet.engine import Ruleset, find_ruleset
from unonet.rl import raw_env
from unonet.rl.actions import DRAW, RUNS

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is a folder of scripts, not a package

from compiled_env import NOT_FOR_BENCHES, PYTHON, built_for_benches

ROOT = Path(__file__).resolve().parent.parent
COMPILED_PYTHON = PYTHON
HOUSE = find_ruleset(
    "standard", stacking=True, deflecting=True, runs=True, multi_play=True, jump_in=True, super_jump_in=True,
    jump_in_wilds=True, skip_escape=True, seven_o=True, five_swap=True, silent_two=True, uno_slap=True,
    sound_wilds=True, blank_cards=True, h2o_wilds=True, false_call_penalty=True,
).replace(name="every_house_rule")  # fmt: skip
CASES = [("standard", 2), ("standard", 4), ("house", 2), ("house", 4)]
RULESETS = {"standard": find_ruleset("standard"), "house": HOUSE}


def engine_build() -> str:
    origin = unonet.engine.game.__spec__.origin if unonet.engine.game.__spec__ else None
    return "compiled" if origin and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else "pure-python"


def unonet_loop(ruleset: Ruleset, players: int, rounds: int, *, observe: bool, seed: int = 0) -> tuple[int, float]:
    """Steps taken and CPU seconds spent by `rounds` rounds of the AEC loop (see the module)."""
    env = raw_env(players=players, max_steps=5_000, **ruleset.options())
    pick = random.Random(seed).choice
    steps = 0
    start = time.thread_time()
    for r in range(rounds):
        env.reset(seed=seed * 100_003 + r)
        for _agent in env.agent_iter():
            _observation, _reward, terminated, truncated, info = env.last(observe)
            if terminated or truncated:
                env.step(None)
            else:
                legal = info["legal_actions"]
                plays = [index for index in legal if index < DRAW or index >= RUNS]
                env.step(pick(plays or legal))
            steps += 1
    return steps, time.thread_time() - start


def rlcard_loop(players: int, rounds: int, seed: int = 0) -> tuple[int, float]:
    """Steps taken and CPU seconds spent by `rounds` rounds of RLCard's `env.step` loop."""
    env = rlcard.make("uno", config={"seed": seed, "game_num_players": players})
    pick = random.Random(seed).choice
    steps = 0
    start = time.thread_time()
    for _ in range(rounds):
        state, _player = env.reset()
        while not env.is_over():
            state, _player = env.step(pick(list(state["legal_actions"])))
            steps += 1
    return steps, time.thread_time() - start


REPEATS = 5


def fastest(loop: Callable[[], tuple[int, float]], times: list[float]) -> int:
    """Run `loop` once, adding its seconds a step to `times`; the steps it took."""
    steps, seconds = loop()
    times.append(seconds / steps)
    return steps


def measure_core(quick: bool) -> dict[str, object]:
    """Every case on the build this process runs, each against RLCard in this process (see the module)."""
    rounds = {"standard": 20 if quick else 60, "house": 8 if quick else 25}
    rlcard_rounds = 60 if quick else 250
    repeats = 3 if quick else REPEATS
    unonet_loop(RULESETS["standard"], 2, 3, observe=True, seed=99)  # warm-up
    rlcard_loop(2, 50, seed=99)
    out: dict[str, object] = {
        "build": engine_build(),
        "python": platform.python_version(),
        "rlcard": rlcard.__version__,
        "timing": f"thread CPU time, fastest of {repeats} interleaved repeats",
    }
    for name, players in CASES:
        case = f"{name}_{players}p"
        ruleset = RULESETS[name]
        peer: list[float] = []
        full: list[float] = []
        bare: list[float] = []
        for _ in range(repeats):
            fastest(functools.partial(rlcard_loop, players, rlcard_rounds), peer)
            steps = fastest(functools.partial(unonet_loop, ruleset, players, rounds[name], observe=True), full)
            fastest(functools.partial(unonet_loop, ruleset, players, rounds[name], observe=False), bare)
        per_step, bare_per_step, peer_per_step = min(full), min(bare), min(peer)
        out[f"rlcard_steps_per_s_{case}"] = round(1 / peer_per_step)
        out[f"steps_per_s_{case}"] = round(1 / per_step)
        out[f"ratio_{case}"] = round(peer_per_step / per_step, 2)
        out[f"observation_share_{case}"] = round(max(0.0, 1 - bare_per_step / per_step), 3)
        out[f"us_per_step_{case}"] = round(per_step * 1e6, 2)
        out[f"us_per_step_without_observation_{case}"] = round(bare_per_step * 1e6, 2)
        out[f"ratio_without_observation_{case}"] = round(peer_per_step / bare_per_step, 2)
        out[f"steps_per_round_{case}"] = round(steps / rounds[name], 1)
    return out


def measure_compiled(quick: bool) -> dict[str, object] | None:
    """`measure_core` in a second process on `.venv-compiled`, or None when it is not built."""
    if not COMPILED_PYTHON.exists():
        return None
    if not built_for_benches():
        raise RuntimeError(NOT_FOR_BENCHES)
    command = [str(COMPILED_PYTHON), str(Path(__file__).resolve()), "--part", "core", "--json"]
    if quick:
        command.append("--quick")
    env = {**os.environ, "PYTHONPATH": ""}  # the compiled wheel's modules, never the source tree's
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env, cwd="/")
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    if figures["build"] != "compiled":
        raise RuntimeError(f"{COMPILED_PYTHON} runs the {figures['build']} engine: rebuild it with make compiled")
    return figures


def report(pure: dict[str, object], compiled: dict[str, object] | None) -> None:
    for label, figures in (("pure", pure), ("compiled", compiled)):
        if figures is None:
            print(f"{label} build: missing: run make compiled")
            continue
        print(f"{label} build ({figures['build']}; {figures['timing']}):")
        for name, players in CASES:
            case = f"{name}_{players}p"
            rate, ratio = figures[f"steps_per_s_{case}"], figures[f"ratio_{case}"]
            step, share = figures[f"us_per_step_{case}"], figures[f"observation_share_{case}"]
            peer, per_round = figures[f"rlcard_steps_per_s_{case}"], figures[f"steps_per_round_{case}"]
            bare = figures[f"ratio_without_observation_{case}"]
            print(
                f"  {case:12} {rate:>9,} steps/s = {ratio:.2f}x RLCard's {peer:,}; "
                f"{step:.1f} us a step, observation {share:.0%} of it ({bare:.2f}x without); {per_round} steps a round"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["all", "core"], default="all")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    pure = measure_core(args.quick)
    if args.part == "core":
        print(json.dumps(pure))
        return
    compiled = measure_compiled(args.quick)
    report(pure, compiled)
    if args.json:
        print(json.dumps({"pure": pure, "compiled": compiled}))


if __name__ == "__main__":
    main(sys.argv[1:])
