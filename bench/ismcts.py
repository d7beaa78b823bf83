"""OpenSpiel's ISMCTS bot against unonet's `strong:3` and `greedy`, heads-up, on duplicate deals.

    .venv/bin/python bench/ismcts.py --deals 30            # every pairing, a few minutes per deal
    .venv/bin/python bench/ismcts.py --deals 2 --quick     # a smoke run

A bot none of us wrote: OpenSpiel's own Information Set MCTS (`open_spiel.python.algorithms.ismcts`,
the Python one: OpenSpiel 2.0.2's C++ `pyspiel.ISMCTSBot` and `pyspiel.MCTSBot` crash with a
segmentation fault on any Python game, OpenSpiel's own `python_kuhn_poker` and `python_tic_tac_toe`
included), with its random-rollout evaluator (`mcts.RandomRolloutEvaluator`, one rollout a leaf), UCT
constant 2, playing the game `python_unonet` (`unonet.rl.openspiel`): it samples worlds with
`resample_from_infostate` (the engine's `determinize`) and keys its tree on information-state strings.

The round is played on a `LearningTable` (`unonet.rl.table`, races as turns); unonet's bot sits at
the other seat behind `unonet.rl.bot_seats.BotSeats`, fed as a host feeds it. ISMCTS searches a copy
of the true round (`UnoGame.state_at`) for a CPU-time budget per decision (this thread's CPU time):
`strong:3`'s own, 0.09 s (`unonet.bots.strong.LEVEL_BUDGETS`), and 4x that. A decision with one legal
action is taken without a search. Every deal is played twice, the seats swapped (duplicate deals), so
the cards favour neither side. Win rates come with 95% Wilson intervals; the mean CPU time per
decision of each side is printed next to them.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

import unonet.rl.openspiel  # noqa: F401 - registers python_unonet
from unonet.bots.strong import LEVEL_BUDGETS
from unonet.engine import find_ruleset
from unonet.rl.bot_seats import BotSeats
from unonet.rl.openspiel import UnoGame
from unonet.rl.table import LearningTable

STRONG_SECONDS = LEVEL_BUDGETS[3].seconds or 0.09


class TimedISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTS, its simulations run until a CPU-time budget is spent (at least two: the first
    only expands the root)."""

    def __init__(self, game, seconds: float, seed: int) -> None:
        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        super().__init__(game, evaluator, uct_c=2.0, max_simulations=1, random_state=rng)
        self.seconds = seconds
        self.simulations = 0

    def run_search(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        deadline = time.thread_time() + self.seconds
        self.reset()
        self._root_node = self.create_new_node(state)
        done = 0
        while done < 2 or time.thread_time() < deadline:
            self.run_simulation(self.sample_root_state(state))
            done += 1
        self.simulations += done
        return self.get_final_policy(state, self._root_node)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play(opponent: str, seconds: float, deal: int, ismcts_seat: int, max_steps: int) -> dict[str, float]:
    """One round from deal `deal`: ISMCTS at `ismcts_seat`, `opponent` at the other seat."""
    ruleset = find_ruleset("standard")
    game = UnoGame({"players": 2, "preset": "standard", "max_steps": max_steps})
    table = LearningTable(ruleset, 2, max_steps=20_000)
    other = 1 - ismcts_seat
    bots = BotSeats(table, {other: opponent})
    bots.reset(deal)
    table.reset(deal)
    searcher = TimedISMCTS(game, seconds, seed=deal * 2 + ismcts_seat)
    cpu = {"ismcts": 0.0, "bot": 0.0}
    decisions = {"ismcts": 0, "bot": 0}
    while not table.is_over:
        seat = table.seat
        start = time.thread_time()
        if seat == ismcts_seat:
            table.act(searcher.step(game.state_at(table)))
            side = "ismcts"
        else:
            bots.play(seat)  # type: ignore[arg-type]
            side = "bot"
        cpu[side] += time.thread_time() - start
        decisions[side] += 1
    winner = table.game.winner if not table.truncated else -1
    return {
        "won": float(winner == ismcts_seat),
        "lost": float(winner == other),
        "ismcts_cpu": cpu["ismcts"],
        "ismcts_decisions": decisions["ismcts"],
        "bot_cpu": cpu["bot"],
        "bot_decisions": decisions["bot"],
        "simulations": searcher.simulations,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=30, help="deals per pairing; each is played twice")
    parser.add_argument("--opponents", default="strong:3,greedy")
    parser.add_argument("--multiples", default="1,4", help="ISMCTS's budget as multiples of strong:3's")
    parser.add_argument("--max-steps", type=int, default=2_000, help="the rollouts' game length cap")
    parser.add_argument("--first-deal", type=int, default=1_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for multiple in (float(m) for m in args.multiples.split(",")):
        for opponent in args.opponents.split(","):
            rows = [
                play(opponent, STRONG_SECONDS * multiple, deal, seat, args.max_steps)
                for deal in range(args.first_deal, args.first_deal + args.deals)
                for seat in (0, 1)
            ]
            games = len(rows)
            wins = int(sum(r["won"] for r in rows))
            low, high = wilson(wins, games)
            result = {
                "opponent": opponent,
                "budget_s": STRONG_SECONDS * multiple,
                "multiple": multiple,
                "deals": args.deals,
                "games": games,
                "ismcts_wins": wins,
                "opponent_wins": int(sum(r["lost"] for r in rows)),
                "ismcts_win_rate": wins / games,
                "ci95": [round(low, 3), round(high, 3)],
                "ismcts_cpu_per_decision_s": sum(r["ismcts_cpu"] for r in rows)
                / max(1, sum(r["ismcts_decisions"] for r in rows)),
                "bot_cpu_per_decision_s": sum(r["bot_cpu"] for r in rows)
                / max(1, sum(r["bot_decisions"] for r in rows)),
                "simulations_per_round": sum(r["simulations"] for r in rows) / games,
            }
            results.append(result)
            print(
                f"ISMCTS at {multiple:g}x ({result['budget_s'] * 1000:.0f} ms CPU) vs {opponent}: "
                f"{wins}/{games} = {wins / games:.1%} [{low:.1%}, {high:.1%}]; "
                f"CPU per decision: ISMCTS {result['ismcts_cpu_per_decision_s'] * 1000:.0f} ms, "
                f"{opponent} {result['bot_cpu_per_decision_s'] * 1000:.1f} ms; "
                f"{result['simulations_per_round']:.0f} simulations a round",
                flush=True,
            )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
