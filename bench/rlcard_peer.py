"""The reference point for `bench/engine.py`: RLCard's UNO, driven through its raw `UnoGame` loop.

RLCard (https://github.com/datamllab/rlcard) is the usual Python UNO environment for reinforcement
learning. Its `UnoGame` is one round of UNO, from the deal to the first player out, so one RLCard game
is compared with one unonet round.

The loop is the one RLCard's own `Env` runs underneath, minus the observation encoding: `init_game()`,
then `step(action)` until `is_over()`. Each step picks uniformly among the legal actions RLCard lists.
The legal actions are read from the state `step` already returns rather than by calling
`get_legal_actions()` again, which is the cheapest correct way to drive it: the comparison favours
RLCard, never us.

What RLCard's rules leave out, so actions per game are not directly comparable (the bench prints both):
- `draw` is offered only when no card can be played; a drawn card that fits is played at once, in the
  same action. There is no keep-or-play choice.
- A Wild or Wild Draw Four names its colour in the same action (`r-wild`, ...), so each black card
  appears as four actions; a Wild Draw Four is offered only when nothing else can be played (no
  bluffing, no challenge).
- No UNO call, no catching, no stacking; the first card is the only set-up rule.

Run on its own: `python bench/rlcard_peer.py [GAMES] [PLAYERS]`. Needs the `bench` extra.
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np
from batch import Batch
from rlcard.games.uno.game import UnoGame

MAX_STEPS = 100_000


def play_rlcard(games: int, num_players: int = 2, seed: int = 0) -> Batch:
    """Play `games` complete RLCard UNO games with uniformly random legal actions, on one core.

    RLCard shuffles with the game's numpy `RandomState` (seeded here, once, for the whole batch, so the
    run is reproducible); the actions are chosen with a seeded `random.Random`. Raises RuntimeError if a
    game runs past MAX_STEPS, which would mean the rules loop.
    """
    chooser = random.Random(seed)
    game = UnoGame(num_players=num_players)
    game.np_random = np.random.RandomState(seed)
    choice = chooser.choice
    actions = 0
    start = time.perf_counter()
    for _ in range(games):
        state, _player = game.init_game()
        steps = 0
        while not game.is_over():
            state, _player = game.step(choice(state["legal_actions"]))
            steps += 1
            if steps > MAX_STEPS:
                raise RuntimeError(f"an RLCard game ran past {MAX_STEPS} actions")
        actions += steps
    seconds = time.perf_counter() - start
    return Batch(games, actions, seconds)


def play_rlcard_env_run(games: int, num_players: int = 2, seed: int = 0) -> Batch:
    """Play `games` RLCard UNO games the way its documentation runs them: `rlcard.make("uno")`, a
    `RandomAgent` per seat and `env.run(is_training=False)` per game, which also encodes every
    observation and keeps the trajectories. For the record (`ratio_2p_env_run`): the raw loop above is
    the fair comparison, this is what an RL user's loop costs."""
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"seed": seed, "game_num_players": num_players})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(num_players)])
    np.random.seed(seed)  # RandomAgent picks with numpy's global generator
    actions = 0
    start = time.perf_counter()
    for _ in range(games):
        trajectories, _payoffs = env.run(is_training=False)
        actions += sum(len(trajectory) // 2 for trajectory in trajectories)  # state, action, ..., state
    seconds = time.perf_counter() - start
    return Batch(games, actions, seconds)


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2000
    players = int(argv[1]) if len(argv) > 1 else 2
    play_rlcard(min(games, 200), players, seed=1)  # warm up
    result = play_rlcard(games, players)
    print(
        f"RLCard {players}p: {result.games} games in {result.seconds:.2f} s = {result.games_per_s:,.0f} games/s, "
        f"{result.actions_per_game:.1f} actions/game"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
