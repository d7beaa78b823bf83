"""Where an AEC step's time goes, part by part, against RLCard's `env.step` and its game alone.

    .venv/bin/python bench/rl_breakdown.py                     # the pure build
    cd / && PYTHONPATH= /path/to/unonet/.venv-compiled/bin/python /path/to/unonet/bench/rl_breakdown.py

bench/rl.py measures whole steps; this splits one. It plays each case's rounds once with bench/rl.py's
loop and policy, recording every action, then replays them, timing each part alone (this thread's CPU
time, the fastest of `--repeats` repeats, per AEC step):

- `table`: `LearningTable.reset` and `act` alone: the engine's `apply`, the public history following the
  events, the offers of out-of-turn chances (each other seat's legal actions while a window is open),
  the legal actions of the seat asked and their indices. `reset` is also shown on its own.
- `encode`: `ObservationLayout.encode` for the seat asked, at each decision (the positions are copies
  taken during a table replay, encoded in a loop of their own).
- `mask`: the 13,421-long action mask (`mask_of` and its numpy array), likewise.
- `aec`: the rest of the full loop (`agent_iter`, `last`, `step`, `observe`'s dict, the rewards and
  infos): the full replay's time less the three above.
- `pick`: the bench policy's choice (plays first, then `random.choice`), which both sides pay.

RLCard is split the same way: its `env.step` loop against its `UnoGame` driven alone (the loop
bench/rlcard_peer.py runs), the difference being its observation encoding and its `Env` bookkeeping.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import numpy as np
from rl import CASES, RULESETS, engine_build, rlcard_loop
from rlcard.games.uno.game import UnoGame

from unonet.rl import raw_env
from unonet.rl.actions import DRAW, RUNS, mask_of

Recorded = list[tuple[int, list[int | None]]]  # each round: its reset seed, then every step's action
_INT8 = np.dtype(np.int8)


def record(name: str, players: int, rounds: int) -> tuple[Recorded, list[list[int]]]:
    """Play `rounds` rounds as bench/rl.py does; every round's actions, and every decision's legal list."""
    env = raw_env(players=players, max_steps=5_000, **RULESETS[name].options())
    pick = random.Random(0).choice
    played: Recorded = []
    legals: list[list[int]] = []
    for r in range(rounds):
        actions: list[int | None] = []
        env.reset(seed=r)
        for _agent in env.agent_iter():
            _observation, _reward, terminated, truncated, info = env.last(False)
            if terminated or truncated:
                actions.append(None)
            else:
                legal = info["legal_actions"]
                legals.append(legal)
                plays = [index for index in legal if index < DRAW or index >= RUNS]
                actions.append(pick(plays or legal))
            env.step(actions[-1])
        played.append((r, actions))
    return played, legals


def fastest(parts: dict[str, Callable[[], None]], repeats: int) -> dict[str, float]:
    """Each part's fastest run, the parts taking turns `repeats` times (so a spell of load on the machine
    falls on all of them, not on one)."""
    best = dict.fromkeys(parts, float("inf"))
    for _ in range(repeats):
        for name, part in parts.items():
            start = time.thread_time()
            part()
            best[name] = min(best[name], time.thread_time() - start)
    return best


def split(name: str, players: int, rounds: int, repeats: int) -> dict[str, float]:
    """Microseconds an AEC step spends in each part (see the module)."""
    played, legals = record(name, players, rounds)
    steps = sum(len(actions) for _seed, actions in played)
    env = raw_env(players=players, max_steps=5_000, **RULESETS[name].options())
    table, layout = env.table, env.layout
    table_seeds = [random.Random(seed).getrandbits(64) for seed, _actions in played]  # what env.reset(seed) deals

    def full() -> None:
        for seed, actions in played:
            env.reset(seed=seed)
            moves = iter(actions)
            for _agent in env.agent_iter():
                env.last()
                env.step(next(moves))

    def table_alone() -> None:
        for table_seed, (_seed, actions) in zip(table_seeds, played, strict=True):
            table.reset(table_seed)
            for action in actions:
                if action is None:
                    break
                table.act(action)
            assert table.is_over

    positions = []  # each decision's table, for the observation's parts alone
    for table_seed, (_seed, actions) in zip(table_seeds, played, strict=True):
        table.reset(table_seed)
        for action in actions:
            if action is None:
                break
            copy = table.copy()
            positions.append((copy.game, copy.history, copy.seat, not copy.required, copy.legal))
            table.act(action)

    def encodes() -> None:
        for game, history, seat, offer, _legal in positions:
            layout.encode(game, history, seat, offer=offer)  # type: ignore[arg-type]

    def masks() -> None:
        for _game, _history, _seat, _offer, legal in positions:
            np.frombuffer(mask_of(legal), _INT8)

    def resets() -> None:
        for table_seed in table_seeds:
            table.reset(table_seed)

    pick = random.Random(1).choice

    def picks() -> None:
        for legal in legals:
            plays = [index for index in legal if index < DRAW or index >= RUNS]
            pick(plays or legal)

    best = fastest(
        {
            "full": full,
            "table": table_alone,
            "encode": encodes,
            "mask": masks,
            "reset": resets,
            "pick": picks,
        },
        repeats,
    )
    micro = 1e6 / steps
    whole, alone = best["full"] * micro, best["table"] * micro
    encode, mask = best["encode"] * micro, best["mask"] * micro  # per step: decisions are most steps
    return {
        "step": whole + best["pick"] * micro,
        "table": alone,
        "reset": best["reset"] * micro,
        "encode": encode,
        "mask": mask,
        "aec": whole - alone - encode - mask,
        "pick": best["pick"] * micro,
        "steps_per_round": steps / rounds,
    }


def rlcard_game_loop(players: int, rounds: int, seed: int = 0) -> tuple[int, float]:
    """Steps and CPU seconds of RLCard's `UnoGame` driven alone, no `Env` (bench/rlcard_peer.py's loop)."""
    game = UnoGame(num_players=players)
    game.np_random = np.random.RandomState(seed)
    pick = random.Random(seed).choice
    steps = 0
    start = time.thread_time()
    for _ in range(rounds):
        state, _player = game.init_game()
        while not game.is_over():
            state, _player = game.step(pick(state["legal_actions"]))
            steps += 1
    return steps, time.thread_time() - start


def rlcard_split(players: int, rounds: int, repeats: int) -> dict[str, float]:
    env_step = game_step = float("inf")
    for _ in range(repeats):
        steps, seconds = rlcard_loop(players, rounds)
        env_step = min(env_step, seconds / steps * 1e6)
        steps, seconds = rlcard_game_loop(players, rounds)
        game_step = min(game_step, seconds / steps * 1e6)
    return {"env_step": env_step, "game_step": game_step}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict[str, object] = {"build": engine_build()}
    print(f"{engine_build()} build; microseconds of thread CPU time per step, fastest of {args.repeats}")
    print("case          step | table (reset) encode  mask   aec  pick | RLCard env.step (its game) | ratio")
    for name, players in CASES:
        parts = split(name, players, 60 if name == "standard" else 25, args.repeats)
        peer = rlcard_split(players, 250, args.repeats)
        case = f"{name}_{players}p"
        out[case] = {
            **{k: round(v, 2) for k, v in parts.items()},
            **{f"rlcard_{k}": round(v, 2) for k, v in peer.items()},
        }
        print(
            f"{case:12} {parts['step']:5.2f} | {parts['table']:5.2f} ({parts['reset']:4.2f}) {parts['encode']:6.2f} "
            f"{parts['mask']:5.2f} {parts['aec']:5.2f} {parts['pick']:5.2f} | "
            f"{peer['env_step']:15.2f} ({peer['game_step']:5.2f}) | {peer['env_step'] / parts['step']:5.2f}x"
        )
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
