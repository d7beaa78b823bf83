"""How fast the unonet rules engine plays, and how that compares with RLCard's UNO.

One "game" here is one round, from the deal to the first player out: RLCard's `UnoGame` is one round,
so rounds are what can be compared. Everything runs in this one process, on one core, with fixed seeds,
after a warm-up; times come from `time.perf_counter()` and include dealing.

Cases:
- `2p`, `4p`: the standard rules (`find_ruleset("standard")`), 2 and 4 players.
- `4p_house`: 4 players with every house rule on (see HOUSE below).
- `rlcard_2p`: as many RLCard games as the `2p` case, 2 players (`bench/rlcard_peer.py`).
- `floor_2p`: as many rounds of `bench/floor.py`, the fastest plain pure-Python 2-player random playout
  we could write (core rules only, no validation, no events): what any pure-Python engine could reach
  here, and so how much of the 5x target is reachable at all.
- `playout_*`: the search API (`bench/playouts.py`): whole rounds from the deal by `unonet.engine.playout`
  with its built-in random policy, against RLCard playing whole games in the same process, standard
  rules and every house rule, 2 and 4 players; and `Game.copy()` against `copy.deepcopy`.
- `*_compiled` and the compiled `playout_ratio_*`: the same loops on the compiled build (`make compiled`:
  the engine's hot modules compiled by mypyc, in `.venv-compiled`), in a second process on that
  environment, each against RLCard measured in that same process (`--part core` is what it runs).
  `playout_ratio_2p` and `playout_ratio_4p` are the compiled build's when it is there (the pure build's
  are `playout_ratio_*_pure`); `builds` says which build every ratio used.
- `ratio_2p_env_run`: the API path against RLCard's documented `env.run` (a RandomAgent per seat, every
  observation encoded), for the record: the raw loop is the fair comparison.
- the policy alone: the 2p option lists recorded, then replayed through the policy with no engine call,
  beside the 5x target as microseconds per round (`policy_us_per_game_2p`, `budget_us_per_game_5x`).

The policy, the same for every unonet case: the seat the game waits for (`game.to_act`) lists its legal
actions; if any of them is a `Play` it picks uniformly among the `Play`s (UNO-calling variants included,
as the engine lists them), otherwise uniformly among everything listed (Draw, Pass, Challenge,
ChooseColor, ChooseSwapTarget, ...). That matches RLCard, which offers `draw` only when no card can be
played and plays a drawn card that fits at once. Seats that are not to act never act: nobody jumps in,
cuts a run or catches a missed UNO out of turn.

Blocking reaction windows (UNO slap, Sound Wild, run cut) are answered by default: every eligible seat
reacts in a random order (`game.resolve_window`), so only the slowest draws, as at a real table (a React
is a legal action like any other). `--windows close` instead closes them at once with nobody answering,
as a host would at its deadline; under U5 and H12 everyone then draws two, which makes house-rule rounds
very long. The run always reports the house case both ways; `--windows` chooses which one
`games_per_s_4p_house` is.

The engines do not count actions alike (RLCard names a Wild's colour in the same action and never
calls UNO; unonet has a separate ChooseColor and may keep a drawn card), so actions per game and
actions per second are printed next to games per second.

Usage:
    python bench/engine.py                   # the full run, a readable table (a few minutes)
    python bench/engine.py --quick --json    # under a minute; the last line is one JSON object
    python bench/engine.py --profile         # cProfile of the 2p case, top functions by own time
    python bench/engine.py --part core --json   # only the figures measured on each build (what the
                                                # compiled process runs)

Note for profiles: every dataclass `__init__` (events, actions) is compiled from "<string>" at line 2,
so `pstats` shows them as one `<string>:2(__init__)` row that keeps only one class's figures.

Needs the `bench` extra (`pip install -e '.[bench]'`) for RLCard.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.machinery
import json
import os
import platform
import pstats
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import unonet.engine.game
from unonet.engine import Game, Play, React, Ruleset, WindowKind, find_ruleset, legal_actions

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is a folder of scripts, not a package

from batch import Batch
from compiled_env import NOT_FOR_BENCHES, PYTHON, built_for_benches
from floor import play_floor
from playouts import copy_us, determinize_us, play_playouts, playout_against_rlcard

ROOT = Path(__file__).resolve().parents[1]
COMPILED_PYTHON = PYTHON
SEED = 20260101
WARMUP_SEED = 7
MAX_ACTIONS = 1_000_000  # per round: past this the rules (or the policy) loop

STANDARD = find_ruleset("standard")
HOUSE = find_ruleset(
    "standard",
    stacking=True,
    deflecting=True,
    runs=True,
    multi_play=True,
    jump_in=True,
    super_jump_in=True,
    jump_in_wilds=True,
    skip_escape=True,
    seven_o=True,
    five_swap=True,
    silent_two=True,
    uno_slap=True,
    sound_wilds=True,
    blank_cards=True,
    h2o_wilds=True,
    false_call_penalty=True,
).replace(name="every_house_rule")

# Games per case: (2p and RLCard 2p, 4p, 4p house with windows closed, 4p house with reactions).
SIZES = {"full": (20_000, 10_000, 200, 2_000), "quick": (5_000, 2_000, 50, 400)}
# The 2p comparison alternates between the engines in this many slices, so a machine that slows down
# or speeds up during the run (other work, CPU boost) affects both alike.
SLICES = 5
REACTED = (WindowKind.UNO_SLAP, WindowKind.SOUND_WILD)


class RoundTooLong(RuntimeError):
    """A round ran past MAX_ACTIONS."""


def play_rounds(ruleset: Ruleset, players: int, games: int, seed: int, *, react: bool = False) -> Batch:
    """Play `games` complete rounds with the policy of the module docstring; the dealer rotates.

    Raises RoundTooLong if a round runs past MAX_ACTIONS.
    """
    deck_rng = random.Random(seed)
    chooser = random.Random(seed + 1)
    choice = chooser.choice
    actions = windows = 0
    start = time.perf_counter()
    for number in range(games):
        game = Game(ruleset, players, deck_rng, dealer=number % players)
        apply = game.apply
        taken = 0
        while not game.is_over:
            seat = game.to_act
            if seat is None:  # a blocking window holds the turn
                window = next(w for w in game.windows.values() if w.is_blocking)
                if react and window.kind in REACTED:
                    seats = list(window.eligible)
                    chooser.shuffle(seats)
                    game.resolve_window(window.id, [React(s, window.id) for s in seats])
                else:
                    game.close_window(window.id)
                windows += 1
                continue
            options = legal_actions(game, seat)
            plays = [action for action in options if type(action) is Play]
            apply(choice(plays or options))
            taken += 1
            if taken > MAX_ACTIONS:
                raise RoundTooLong(f"a {players}-player round ({ruleset.name}) ran past {MAX_ACTIONS} actions")
        actions += taken
    return Batch(games, actions, time.perf_counter() - start, windows)


def policy_us_per_game(games: int, seed: int) -> float:
    """What the policy alone costs per 2-player game: the option lists of `games` rounds are recorded,
    then replayed through the policy (keep the plays, pick one uniformly) with no engine call at all.
    Against the 5x budget (1e6 / (5 x RLCard's games/s) microseconds per game) it shows how little of
    the budget any engine under this API would have left."""
    deck_rng, chooser = random.Random(seed), random.Random(seed + 1)
    recorded: list[list[object]] = []
    for number in range(games):
        game = Game(STANDARD, 2, deck_rng, dealer=number % 2)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None  # standard rules open no blocking window
            options = legal_actions(game, seat)
            recorded.append(options)
            plays = [action for action in options if type(action) is Play]
            game.apply(chooser.choice(plays or options))
    choice = random.Random(seed + 2).choice
    start = time.perf_counter()
    for options in recorded:
        plays = [action for action in options if type(action) is Play]
        choice(plays or options)
    return (time.perf_counter() - start) / games * 1e6


def measure(size: str, windows: str) -> dict[str, float | int | str]:
    """Warm up, then time every case; returns the figures the JSON line carries."""
    from rlcard_peer import play_rlcard

    n_2p, n_4p, n_house, n_house_react = SIZES[size]
    play_rounds(STANDARD, 2, 200, WARMUP_SEED)
    play_rounds(HOUSE, 4, 3, WARMUP_SEED, react=True)
    play_rlcard(200, 2, seed=WARMUP_SEED)
    play_floor(200, WARMUP_SEED)

    ours_slices, theirs_slices, floor_slices = [], [], []
    for index in range(SLICES):
        games = n_2p // SLICES + (index < n_2p % SLICES)
        ours_slices.append(play_rounds(STANDARD, 2, games, SEED + index))
        theirs_slices.append(play_rlcard(games, 2, seed=SEED + index))
        floor_slices.append(play_floor(games, SEED + index))
    ours_2p = _total(ours_slices)
    theirs_2p = _total(theirs_slices)
    floor_2p = _total(floor_slices)
    ours_4p = play_rounds(STANDARD, 4, n_4p, SEED)
    house_closed = play_rounds(HOUSE, 4, n_house, SEED)
    house_react = play_rounds(HOUSE, 4, n_house_react, SEED, react=True)
    house = house_react if windows == "react" else house_closed
    policy_us = policy_us_per_game(n_2p // SLICES, SEED)
    ours_env, env_run = against_env_run(n_2p // 5)
    play_playouts(STANDARD, 2, 200, WARMUP_SEED)
    playout_2p, playout_rlcard_2p = playout_against_rlcard(STANDARD, 2, n_2p, SEED)
    playout_4p, playout_rlcard_4p = playout_against_rlcard(STANDARD, 4, n_4p, SEED)
    playout_house_2p, playout_house_rlcard_2p = playout_against_rlcard(HOUSE, 2, n_house_react, SEED)
    playout_house_4p, playout_house_rlcard_4p = playout_against_rlcard(HOUSE, 4, n_house_react, SEED)
    copy_us_4p, deepcopy_us_4p = copy_us(STANDARD, 4, SEED)
    determinize_us_4p = determinize_us(STANDARD, 4, SEED)

    import rlcard

    return {
        "games_per_s_2p": round(ours_2p.games_per_s, 1),
        "games_per_s_4p": round(ours_4p.games_per_s, 1),
        "games_per_s_4p_house": round(house.games_per_s, 2),
        "rlcard_games_per_s_2p": round(theirs_2p.games_per_s, 1),
        "ratio_2p": round(ours_2p.games_per_s / theirs_2p.games_per_s, 3),
        "rlcard_env_run_games_per_s_2p": round(env_run.games_per_s, 1),
        "ratio_2p_env_run": round(ours_env.games_per_s / env_run.games_per_s, 3),
        "floor_games_per_s_2p": round(floor_2p.games_per_s, 1),
        "floor_ratio_2p": round(floor_2p.games_per_s / theirs_2p.games_per_s, 3),
        "floor_actions_per_game_2p": round(floor_2p.actions_per_game, 1),
        # The 5x target as time per game, and what the policy alone (no engine) spends of it.
        "budget_us_per_game_5x": round(1e6 / (5 * theirs_2p.games_per_s), 1),
        "policy_us_per_game_2p": round(policy_us, 1),
        "us_per_game_2p": round(1e6 / ours_2p.games_per_s, 1),
        "actions_per_game_2p": round(ours_2p.actions_per_game, 1),
        "actions_per_game_4p": round(ours_4p.actions_per_game, 1),
        "actions_per_game_4p_house": round(house.actions_per_game, 1),
        "rlcard_actions_per_game_2p": round(theirs_2p.actions_per_game, 1),
        "actions_per_s_2p": round(ours_2p.actions_per_s),
        "rlcard_actions_per_s_2p": round(theirs_2p.actions_per_s),
        "house_windows": windows,
        "games_per_s_4p_house_closed": round(house_closed.games_per_s, 2),
        "actions_per_game_4p_house_closed": round(house_closed.actions_per_game, 1),
        "games_per_s_4p_house_react": round(house_react.games_per_s, 2),
        "actions_per_game_4p_house_react": round(house_react.actions_per_game, 1),
        "games_2p": n_2p,
        "games_4p": n_4p,
        "games_4p_house_closed": n_house,
        "games_4p_house_react": n_house_react,
        # The search API (bench/playouts.py): whole rounds from the deal by `playout()`, against RLCard
        # playing whole games in the same process; `_house` with every house rule on.
        "build": engine_build(),
        "playout_build": engine_build(),
        "playout_games_per_s_2p": round(playout_2p.games_per_s, 1),
        "playout_games_per_s_4p": round(playout_4p.games_per_s, 1),
        "playout_ratio_2p": round(playout_2p.games_per_s / playout_rlcard_2p.games_per_s, 3),
        "playout_ratio_4p": round(playout_4p.games_per_s / playout_rlcard_4p.games_per_s, 3),
        "playout_games_per_s_2p_house": round(playout_house_2p.games_per_s, 1),
        "playout_games_per_s_4p_house": round(playout_house_4p.games_per_s, 1),
        "playout_ratio_2p_house": round(playout_house_2p.games_per_s / playout_house_rlcard_2p.games_per_s, 3),
        "playout_ratio_4p_house": round(playout_house_4p.games_per_s / playout_house_rlcard_4p.games_per_s, 3),
        "playout_steps_per_game_2p": round(playout_2p.actions_per_game, 1),
        "copy_us_4p": round(copy_us_4p, 1),
        "deepcopy_us_4p": round(deepcopy_us_4p, 1),
        "copy_speedup_vs_deepcopy": round(deepcopy_us_4p / copy_us_4p, 1),
        "determinize_us_4p": round(determinize_us_4p, 1),
        "python": platform.python_version(),
        "rlcard": rlcard.__version__,
    }


def engine_build() -> str:
    """Which build of the engine this process runs: "compiled" when mypyc's extension is what imported."""
    origin = unonet.engine.game.__spec__.origin if unonet.engine.game.__spec__ else None
    return "compiled" if origin and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) else "pure-python"


def measure_core(size: str) -> dict[str, float | int | str]:
    """The figures measured on each build, each against RLCard in this same process: the API path's 2p
    loop (raw loop and env.run), and `playout()` rounds, standard and every house rule, 2 and 4 players."""
    from rlcard_peer import play_rlcard

    n_2p, n_4p, _, n_house_react = SIZES[size]
    play_rounds(STANDARD, 2, 200, WARMUP_SEED)
    play_rlcard(200, 2, seed=WARMUP_SEED)
    play_playouts(STANDARD, 2, 200, WARMUP_SEED)
    ours_slices, theirs_slices = [], []
    for index in range(SLICES):
        games = n_2p // SLICES + (index < n_2p % SLICES)
        ours_slices.append(play_rounds(STANDARD, 2, games, SEED + index))
        theirs_slices.append(play_rlcard(games, 2, seed=SEED + index))
    ours, theirs = _total(ours_slices), _total(theirs_slices)
    ours_env, env_run = against_env_run(n_2p // 5)
    playout_2p, playout_rlcard_2p = playout_against_rlcard(STANDARD, 2, n_2p, SEED)
    playout_4p, playout_rlcard_4p = playout_against_rlcard(STANDARD, 4, n_4p, SEED)
    playout_house_2p, playout_house_rlcard_2p = playout_against_rlcard(HOUSE, 2, n_house_react, SEED)
    playout_house_4p, playout_house_rlcard_4p = playout_against_rlcard(HOUSE, 4, n_house_react, SEED)
    return {
        "build": engine_build(),
        "games_per_s_2p": round(ours.games_per_s, 1),
        "rlcard_games_per_s_2p": round(theirs.games_per_s, 1),
        "ratio_2p": round(ours.games_per_s / theirs.games_per_s, 3),
        "rlcard_env_run_games_per_s_2p": round(env_run.games_per_s, 1),
        "ratio_2p_env_run": round(ours_env.games_per_s / env_run.games_per_s, 3),
        "playout_games_per_s_2p": round(playout_2p.games_per_s, 1),
        "playout_games_per_s_4p": round(playout_4p.games_per_s, 1),
        "playout_ratio_2p": round(playout_2p.games_per_s / playout_rlcard_2p.games_per_s, 3),
        "playout_ratio_4p": round(playout_4p.games_per_s / playout_rlcard_4p.games_per_s, 3),
        "playout_games_per_s_2p_house": round(playout_house_2p.games_per_s, 1),
        "playout_games_per_s_4p_house": round(playout_house_4p.games_per_s, 1),
        "playout_ratio_2p_house": round(playout_house_2p.games_per_s / playout_house_rlcard_2p.games_per_s, 3),
        "playout_ratio_4p_house": round(playout_house_4p.games_per_s / playout_house_rlcard_4p.games_per_s, 3),
        "playout_steps_per_game_2p": round(playout_2p.actions_per_game, 1),
    }


def against_env_run(games: int) -> tuple[Batch, Batch]:
    """(API-path 2p rounds, RLCard `env.run` games), `games` each, alternating in slices after a warm-up.
    env.run is several times slower than RLCard's raw loop, hence fewer games than the other cases."""
    from rlcard_peer import play_rlcard_env_run

    play_rlcard_env_run(20, 2, seed=WARMUP_SEED)
    ours, theirs = [], []
    for index in range(SLICES):
        count = games // SLICES + (index < games % SLICES)
        ours.append(play_rounds(STANDARD, 2, count, SEED + 100 + index))
        theirs.append(play_rlcard_env_run(count, 2, seed=SEED + index))
    return _total(ours), _total(theirs)


def measure_compiled(size: str, python: Path) -> dict[str, float | int | str] | None:
    """`measure_core` in a second process on the compiled environment, or None when it is not built.

    Raises subprocess.CalledProcessError when that process fails (its stderr is passed through).
    """
    if not python.exists():
        return None
    if not built_for_benches(python):
        raise RuntimeError(NOT_FOR_BENCHES)
    command = [str(python), str(Path(__file__).resolve()), "--part", "core", "--json"]
    if size == "quick":
        command.append("--quick")
    env = {**os.environ, "PYTHONPATH": ""}  # the compiled wheel's engine, never the source tree's
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env)
    figures: dict[str, float | int | str] = json.loads(done.stdout.strip().splitlines()[-1])
    if figures["build"] != "compiled":
        raise RuntimeError(f"{python} runs the {figures['build']} engine: rebuild it with make compiled")
    return figures


def merge_builds(
    pure: dict[str, float | int | str], compiled: dict[str, float | int | str] | None
) -> dict[str, float | int | str | dict[str, str]]:
    """The pure process's figures with the compiled process's beside them, and which build each ratio used.

    `playout_*` are the compiled build's when there is one (the issue's target is on it); the pure
    build's stay as `playout_*_pure`.
    """
    out: dict[str, float | int | str | dict[str, str]] = dict(pure)
    builds = {"ratio_2p": "pure-python", "ratio_2p_env_run": "pure-python", "floor_ratio_2p": "pure-python"}
    playout_keys = [key for key in pure if key.startswith("playout_") and key != "playout_build"]
    for key in playout_keys:
        out[f"{key}_pure"] = pure[key]
    if compiled is None:
        out["ratio_2p_compiled"] = "missing: run make compiled"
        builds.update({key: "pure-python" for key in playout_keys if "ratio" in key})
    else:
        out["ratio_2p_compiled"] = compiled["ratio_2p"]
        out["games_per_s_2p_compiled"] = compiled["games_per_s_2p"]
        out["rlcard_games_per_s_2p_compiled_process"] = compiled["rlcard_games_per_s_2p"]
        out["ratio_2p_env_run_compiled"] = compiled["ratio_2p_env_run"]
        for key in playout_keys:
            out[key] = compiled[key]
        out["playout_build"] = "compiled"
        builds.update({"ratio_2p_compiled": "compiled", "ratio_2p_env_run_compiled": "compiled"})
        builds.update({key: "compiled" for key in playout_keys if "ratio" in key})
        builds.update({f"{key}_pure": "pure-python" for key in playout_keys if "ratio" in key})
    out["builds"] = builds
    return out


def _total(results: list[Batch]) -> Batch:
    return Batch(sum(r.games for r in results), sum(r.actions for r in results), sum(r.seconds for r in results))


def print_table(figures: dict[str, Any]) -> None:
    rows = [
        ("unonet 2p standard", "games_2p", "games_per_s_2p", "actions_per_game_2p"),
        ("RLCard 2p", "games_2p", "rlcard_games_per_s_2p", "rlcard_actions_per_game_2p"),
        ("floor 2p (bench/floor.py)", "games_2p", "floor_games_per_s_2p", "floor_actions_per_game_2p"),
        ("unonet 4p standard", "games_4p", "games_per_s_4p", "actions_per_game_4p"),
        ("unonet 4p house, windows closed", "games_4p_house_closed", "games_per_s_4p_house_closed",
         "actions_per_game_4p_house_closed"),
        ("unonet 4p house, seats react", "games_4p_house_react", "games_per_s_4p_house_react",
         "actions_per_game_4p_house_react"),
    ]  # fmt: skip
    print(f"Python {figures['python']}, RLCard {figures['rlcard']}; one game = one round, one core\n")
    print(f"{'case':<34}{'games':>8}{'games/s':>12}{'actions/game':>14}{'actions/s':>12}")
    for label, games, rate, per_game in rows:
        g, r, a = figures[games], float(figures[rate]), float(figures[per_game])
        print(f"{label:<34}{g:>8}{r:>12,.1f}{a:>14.1f}{r * a:>12,.0f}")
    print(f"\nratio unonet/RLCard, 2 players: {figures['ratio_2p']:.2f}x games/s (target: at least 5x)")
    floor = float(figures["floor_ratio_2p"])
    print(
        f"ratio floor/RLCard, 2 players: {floor:.2f}x games/s, the fastest pure-Python playout we could write: "
        f"{min(floor / 5, 1):.0%} of the target"
    )
    print(
        f"5x RLCard means {figures['budget_us_per_game_5x']} us per 2-player game; the random policy alone "
        f"(no engine) spends {figures['policy_us_per_game_2p']} us of it; unonet takes {figures['us_per_game_2p']} us"
    )
    print(f"ratio unonet/RLCard env.run, 2 players: {figures['ratio_2p_env_run']:.2f}x (for the record)")
    compiled = figures["ratio_2p_compiled"]
    if isinstance(compiled, str):
        print(f"compiled build: {compiled}")
    else:
        print(f"ratio unonet/RLCard, 2 players, compiled build: {compiled:.2f}x games/s (target: at least 3x)")
        print(
            f"playout() from the deal vs RLCard, pure-python: {figures['playout_ratio_2p_pure']:.2f}x 2p, "
            f"{figures['playout_ratio_4p_pure']:.2f}x 4p standard"
        )
    print(
        f"playout() from the deal vs RLCard ({figures['playout_build']}): {figures['playout_ratio_2p']:.2f}x 2p, "
        f"{figures['playout_ratio_4p']:.2f}x 4p standard; {figures['playout_ratio_2p_house']:.2f}x 2p, "
        f"{figures['playout_ratio_4p_house']:.2f}x 4p every house rule (target: at least 5x 2p, compiled)"
    )
    print(
        f"Game.copy(): {figures['copy_us_4p']} us, copy.deepcopy: {figures['deepcopy_us_4p']} us "
        f"({figures['copy_speedup_vs_deepcopy']}x), determinize: {figures['determinize_us_4p']} us, 4 players"
    )
    seats = "seats react" if figures["house_windows"] == "react" else "windows closed"
    print(f"games_per_s_4p_house reports the house case with {seats} (--windows)")


def profile(games: int) -> None:
    """cProfile the 2p standard case and print the top functions by own time, then by cumulative time."""
    play_rounds(STANDARD, 2, 100, WARMUP_SEED)
    profiler = cProfile.Profile()
    profiler.runcall(play_rounds, STANDARD, 2, games, SEED)
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(25)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games: under a minute in all")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument(
        "--windows",
        choices=("close", "react"),
        default="react",
        help="which house-rule run games_per_s_4p_house reports (default: every eligible seat reacts)",
    )
    parser.add_argument("--profile", action="store_true", help="profile the 2p case instead of timing")
    parser.add_argument(
        "--part",
        choices=("all", "core"),
        default="all",
        help="core: only the figures measured on each build, in this process (what the compiled process runs)",
    )
    parser.add_argument(
        "--compiled-python",
        type=Path,
        default=COMPILED_PYTHON,
        help="the compiled environment's interpreter (default: .venv-compiled/bin/python, from make compiled)",
    )
    args = parser.parse_args(argv)
    try:
        import rlcard  # noqa: F401
    except ImportError:
        sys.exit("RLCard is missing: install the bench extra with  .venv/bin/pip install -e '.[bench]'")
    if args.profile:
        profile(200 if args.quick else 2_000)
        return
    size = "quick" if args.quick else "full"
    if args.part == "core":
        print(json.dumps(measure_core(size)))
        return
    figures = merge_builds(measure(size, args.windows), measure_compiled(size, args.compiled_python))
    if args.json:
        print(json.dumps(figures))
    else:
        print_table(figures)


if __name__ == "__main__":
    main()
