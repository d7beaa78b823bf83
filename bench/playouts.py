"""The search API's figures for `bench/engine.py`: whole rounds played by `unonet.engine.playout` from
the deal, against RLCard's raw loop in the same process, and what a position copy costs.

A playout is the engine's own loop (`Game.step`, no events kept, the built-in random policy: RLCard's
random player, see `unonet.engine.search`), so this measures what a search bot gets per simulated
round. RLCard plays whole games with uniformly random legal actions (`rlcard_peer.play_rlcard`). The two
alternate in slices, as the 2p case of bench/engine.py does, so a machine that changes speed during the
run affects both alike. A search bot's iteration is one `determinize` and one playout, so
`determinize_us_4p` is printed beside them.
"""

from __future__ import annotations

import copy
import random
import time

from batch import Batch
from rlcard_peer import play_rlcard

from unonet.engine import Game, Knowledge, Ruleset, determinize, playout

SLICES = 5


def play_playouts(ruleset: Ruleset, players: int, games: int, seed: int) -> Batch:
    """Deal and play out `games` rounds with the built-in policy; the dealer rotates."""
    deck_rng = random.Random(seed)
    chooser = random.Random(seed + 1)
    steps = 0
    start = time.perf_counter()
    for number in range(games):
        steps += playout(Game(ruleset, players, deck_rng, dealer=number % players), chooser).steps
    return Batch(games, steps, time.perf_counter() - start)


def playout_against_rlcard(ruleset: Ruleset, players: int, games: int, seed: int) -> tuple[Batch, Batch]:
    """(playouts, RLCard games) of `players` seats, `games` each, alternating in slices."""
    ours: list[Batch] = []
    theirs: list[Batch] = []
    for index in range(SLICES):
        count = games // SLICES + (index < games % SLICES)
        ours.append(play_playouts(ruleset, players, count, seed + index))
        theirs.append(play_rlcard(count, players, seed=seed + index))
    return _total(ours), _total(theirs)


def copy_us(ruleset: Ruleset, players: int, seed: int, copies: int = 2_000) -> tuple[float, float]:
    """Microseconds per `Game.copy()` and per `copy.deepcopy(game)` of a freshly dealt round."""
    game = Game(ruleset, players, random.Random(seed))
    start = time.perf_counter()
    for _ in range(copies):
        game.copy()
    cheap = (time.perf_counter() - start) / copies * 1e6
    deep_copies = max(copies // 20, 10)
    start = time.perf_counter()
    for _ in range(deep_copies):
        copy.deepcopy(game)
    deep = (time.perf_counter() - start) / deep_copies * 1e6
    return cheap, deep


def determinize_us(ruleset: Ruleset, players: int, seed: int, deals: int = 2_000) -> float:
    """Microseconds per `determinize` of a freshly dealt round, for seat 0 knowing only its own hand."""
    game = Game(ruleset, players, random.Random(seed))
    knowledge, rng = Knowledge(0), random.Random(seed)
    start = time.perf_counter()
    for _ in range(deals):
        determinize(game, knowledge, rng)
    return (time.perf_counter() - start) / deals * 1e6


def _total(results: list[Batch]) -> Batch:
    return Batch(sum(r.games for r in results), sum(r.actions for r in results), sum(r.seconds for r in results))
