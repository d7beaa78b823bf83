"""Where `strong` departs from `greedy`, by kind of decision, and whether each departure helped.

`strong` plays `greedy` heads-up on the bench's duplicated deals (`bench/bots.py`'s seeds). At every
decision it searched, greedy's choice for the same view is asked too; where the two differ, both are
played out from the true round (every hand as it is, only the draw pile's order drawn afresh for each
playout, `--playouts` times, the same orders for both), with greedy's own play for every seat after it
(`unonet.bots.rollout`, whose choices match greedy's). The difference of the two win rates is what the
departure was worth with the cards as they lay: the search's error against an oracle's view of the
same position, free of the luck of the round that decides a game.

Per kind (a colour to name, a Wild Draw Four to answer, the card drawn to play or keep, which card to
play), it prints how often strong agreed with greedy, how often it departed, and the mean gain of a
departure with its 95% interval; ``total`` sums the gains per game: roughly the win rate the
departures added. A kind whose departures lose is where the search still misjudges.

Usage:
    python bench/strong_decisions.py --deals 20 --seat strong:1 [--budget 5000,0.09] [--margin 0 --z 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import defaultdict

from unonet.bots.arena import play_round
from unonet.bots.kinds import make_bot
from unonet.bots.policy import BotState
from unonet.bots.policy_seat import engine_actions
from unonet.bots.rollout import greedy_policy, remembered_lacks
from unonet.bots.strong import Budget, StrongBot
from unonet.client import commands as cmd
from unonet.engine import Action, Game, Play, UnoError, find_ruleset, playout
from unonet.v1 import views_pb2

SEED = 20261202  # bench/bots.py's
Z95 = statistics.NormalDist().inv_cdf(0.975)


def engine_build() -> str:
    """``compiled`` on the mypyc build (`make compiled`), else ``pure`` (as bench/bots.py says it)."""
    from unonet.engine import game

    return "compiled" if not game.__file__ or not game.__file__.endswith(".py") else "pure"


def kind_of(view: views_pb2.SeatView) -> str:
    legal = view.legal_actions
    if legal.choose_color:
        return "color"
    if legal.challenge:
        return "challenge"
    if legal.pass_turn:
        return "drawn_card"
    return "play"


def true_value(game: Game, actions: tuple[Action, ...], seat: int, lacks: dict, rates: dict, seeds: list[int]) -> float:
    """`seat`'s win rate after `actions` in the true `game`, the draw pile reordered by each seed."""
    wins = 0
    for seed in seeds:
        clone = game.copy()
        pile = list(clone.draw_pile)
        random.Random(seed).shuffle(pile)
        clone.redeal_unseen(clone.hands, pile)
        clone.rng = random.Random(seed + 1)
        for action in actions:
            clone.step(action)
        if not clone.is_over:
            rng = random.Random(seed + 2)
            playout(clone, rng, greedy_policy(rng, 0.0, lacks, rates))
        wins += clone.winner == seat
    return wins / len(seeds)


class Audited(StrongBot):
    """`strong` that is shown the true round (the arena's `reveal`) to judge its own departures."""

    def __init__(self, seed: int, gains: dict[str, list[float]], agreed: dict[str, int], playouts: int,
                 **kwargs: object) -> None:
        super().__init__(seed, **kwargs)  # type: ignore[arg-type]
        self.gains, self.agreed, self.playouts = gains, agreed, playouts
        self.true: Game | None = None

    def reveal(self, game: Game) -> None:
        self.true = game

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        searched = self.searches
        mine = super().decide(view, state)
        theirs = self.greedy.decide(view, state)
        if self.searches == searched or mine is None or theirs is None or self.true is None:
            return mine
        try:
            ours, greedy = engine_actions(state.seat, mine), engine_actions(state.seat, theirs)
        except UnoError:
            return mine
        kind = kind_of(view)
        first, other = ours[0], greedy[0]
        if first == other or (isinstance(first, Play) and isinstance(other, Play) and first.cards == other.cards):
            self.agreed[kind] += 1
            return mine
        memory = self.greedy.memory
        rates = {seat: memory.bluff_rate(seat) for seat in range(self.true.num_players)}
        lacks = remembered_lacks(memory)
        seeds = [self.rng.getrandbits(32) for _ in range(self.playouts)]
        gain = (true_value(self.true, ours, state.seat, lacks, rates, seeds)
                - true_value(self.true, greedy, state.seat, lacks, rates, seeds))
        self.gains[kind].append(gain)
        return mine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--seat", default="strong:1", help="the strong level whose budget to search at")
    parser.add_argument("--budget", default=None, metavar="PLAYOUTS[,SECONDS]",
                        help="override the level's budget: playouts per decision, and CPU seconds if given")
    parser.add_argument("--margin", type=float, default=None, help="override the gate's margin")
    parser.add_argument("--z", type=float, default=None, help="override the gate's standard errors")
    parser.add_argument("--playouts", type=int, default=200, help="playouts per side to judge a departure")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    level = make_bot(args.seat)
    assert isinstance(level, StrongBot), f"{args.seat} is not a strong level"
    budget = level.budget
    if args.budget is not None:
        playouts, _, seconds = args.budget.partition(",")
        budget = Budget(int(playouts), float(seconds) if seconds else None)
    extra: dict[str, object] = {"budget": budget}
    if args.margin is not None:
        extra["margin"] = args.margin
    if args.z is not None:
        extra["z"] = args.z
    ruleset = find_ruleset("standard")
    gains: dict[str, list[float]] = defaultdict(list)
    agreed: dict[str, int] = defaultdict(int)
    wins = games = 0
    for deal in range(args.first_deal, args.first_deal + args.deals):
        seed = SEED + deal
        for a_seat in range(2):
            bots = [Audited(seed * 97 + a_seat * 11 + s, gains, agreed, args.playouts, **extra) if s == a_seat
                    else make_bot("greedy", seed=seed * 97 + a_seat * 11 + s) for s in range(2)]
            wins += play_round(ruleset, bots, seed, dealer=deal % 2).winner == a_seat
            games += 1
    out: dict[str, object] = {"seat": args.seat, "budget": f"{budget.playouts} playouts, {budget.seconds} s",
                              "gate": {k: v for k, v in extra.items() if k != "budget"},
                              "deals": args.deals, "games": games, "strong_wins": wins,
                              "judged_by_playouts": args.playouts, "engine_build": engine_build()}
    print(f"{args.seat} ({out['budget']}) vs greedy, {games} games ({wins} won), {out['engine_build']} engine; "
          f"departures judged on the true round by {args.playouts} playouts each side")
    print(f"{'decision':<12}{'agreed':>8}{'departed':>10}{'mean gain':>11}{'95% interval':>20}{'total/game':>12}")
    for kind in sorted(set(gains) | set(agreed)):
        values = gains[kind]
        mean = statistics.fmean(values) if values else 0.0
        half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else None
        total = sum(values) / games
        span = f"{mean - half:.3f} - {mean + half:.3f}" if half is not None else "-"
        print(f"{kind:<12}{agreed[kind]:>8}{len(values):>10}{mean:>11.3f}{span:>20}{total:>12.4f}")
        ci = [round(mean - half, 4), round(mean + half, 4)] if half is not None else None
        out[kind] = {"agreed": agreed[kind], "departed": len(values), "mean_gain": round(mean, 4),
                     "mean_gain_ci95": ci, "gain_per_game": round(total, 4)}
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
