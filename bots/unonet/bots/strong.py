"""`StrongBot` (kind `strong`): a search bot, Monte Carlo over deals sampled from a belief.

At each decision with more than one choice it rebuilds the position its seat knows from the events it
received (`unonet.bots.belief.Belief`, over `unonet.wire.knowledge.SeatTracker`), and plays whole
rounds on the engine's search API from it: each playout deals the unseen cards afresh by the belief
(hard facts, then what draws and Wild Draw Fours suggest), takes one candidate command and plays the
round out with greedy's own scoring as the playout policy (`unonet.bots.rollout`), so the search is a
policy-improvement step over greedy. Every candidate is played out on the same deals with the same
playout stream (common random numbers, so luck of the deal cancels between them), and sequential halving spends the
budget: each phase plays every remaining candidate equally often and keeps the better half, so the
playouts go to telling the close candidates apart. The candidate that wins most rounds is sent.

Budgets: a fixed number of playouts per decision, which makes a decision reproducible (the same seed
and the same events give the same command: leagues and `bench/bots.py` measure it so), and optionally
a time budget on top that stops the search early (for play at a real table). The levels map to budgets
(`LEVEL_BUDGETS`). A decision with one choice, or one the search cannot model (its position cannot be
rebuilt, say after joining mid-round, or not yet: a view read before the events that led to it arrived)
is answered at once, by greedy's rules when need be; so are the
optional reactions (catches, UNO calls, jump-ins), which greedy answers at once, as a fast human would.
Below the top level it forgets an UNO call and lets a catch go at its level's rates, as every level
does (`levels.slip`).
A Wild Draw Four to answer (challenge or draw) is decided by the odds the belief's deals give, not by
playouts (`StrongBot._answer_draw_four` says why).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from unonet.bots.belief import Belief
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.levels import LEVELS, TOP_LEVEL, slip
from unonet.bots.options import all_commands
from unonet.bots.policy import Bot, BotState
from unonet.bots.policy_seat import engine_actions
from unonet.bots.rollout import DEFAULT_EXPLORE, greedy_policy, remembered_lacks
from unonet.client import commands as cmd
from unonet.engine import Action, Color, Game, Knowledge, Play, Rank, UnoError, is_bluff, legal_actions
from unonet.engine.heuristic import play_out
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["LEVEL_BUDGETS", "Budget", "StrongBot", "decision_seconds_at", "level_note", "strong_at_level"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a decision may search.

    Attributes:
        playouts: the most playouts per decision (all candidates together); the search's fixed budget.
        seconds: when set, the search also stops once it has used this much CPU time (then the
            decision depends on the machine's speed, so reproducible measurements use `playouts` alone).
    """

    playouts: int
    seconds: float | None = None


PRIOR_MARGIN = 0.05
"""How much better than greedy's choice (in win rate over the same deals) a candidate must do to be sent."""
PRIOR_Z = 2.0
"""...and by how many standard errors of that difference."""

CHALLENGE_DEALS = 64
"""How many deals (at most the budget's playouts) estimate the chance that a Wild Draw Four was a bluff."""
CHALLENGE_ABOVE = 2 / (8 + 2)
"""A challenge turns 4 cards drawn into 4 for the accused when guilty (8 cards swing) and costs 2 more
when not: it pays above this chance of guilt (greedy's threshold too)."""

LEVEL_BUDGETS: dict[int, Budget] = {
    1: Budget(playouts=24),
    2: Budget(playouts=120),
    3: Budget(playouts=20_000, seconds=0.09),
}
"""Each level's budget: the top level searches for 90 ms of CPU time a decision (the issue's 100 ms
p99 target, with room for rebuilding the position; its playout cap is only a backstop: the compiled
engine plays some 900 playouts in that time, the pure one some 200), the lower ones fixed, smaller
budgets."""


class StrongBot(Bot):
    """The search of the module docstring, at `budget`, its choices drawn from `seed`.

    Args:
        seed: seeds every deal and playout (the same seed and events give the same decisions when
            `budget.seconds` is None).
        budget: the search's budget per decision.
        level: the level it plays at, for its name and a lower level's human-like pause.
        explore: the playout policy's share of random plays (`unonet.bots.rollout`).
        clock: seconds, for the time budget (injectable for tests); by default this thread's CPU time,
            so a decision searches as much on a busy machine as on an idle one (its strength does not
            depend on what else runs there; its wall-clock time grows with the load like any program's).
    """

    kind = "strong"

    def __init__(
        self,
        seed: int | None = None,
        *,
        budget: Budget | None = None,
        level: int = TOP_LEVEL,
        explore: float = DEFAULT_EXPLORE,
        margin: float = PRIOR_MARGIN,
        z: float = PRIOR_Z,
        clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self.budget = budget or LEVEL_BUDGETS[level]
        self.level = level
        self.kind = "strong" if level == TOP_LEVEL else f"strong:{level}"  # as `levels.Leveled` names them
        self.rng = random.Random(seed)
        self.pauses = random.Random(None if seed is None else seed ^ 0x7A05E)
        self.slips = random.Random(None if seed is None else seed ^ 0x5119)
        self.explore = explore
        self.margin = margin
        self.z = z
        self.clock = clock
        self.greedy = GreedyBot(seed)
        self.belief: Belief | None = None
        self.backlog: list[events_pb2.Event] = []  # events seen before the seat was known
        self.last_playouts = 0  # how many playouts the last decision took (for tests and benchmarks)
        self.decisions = 0  # decide() calls
        self.searches = 0  # decisions searched
        # Per searched decision (playouts, not a Wild Draw Four's odds): its playouts, the clock's seconds
        # it took, and why it stopped: "time", "playouts" (its budget spent) or "deals" (the belief
        # could deal no more). What `stats` reports, so a test or bench sees the budget was reached.
        self.search_log: list[tuple[int, float, str]] = []
        self.last_refusal = ""  # why the last position could not be rebuilt
        self.ahead = 0  # decisions on a view newer than the events passed on so far (greedy answered)
        self.unsearchable = 0  # decisions with choices whose position could not be rebuilt (greedy answered)

    def on_event(self, event: events_pb2.Event) -> None:
        """Follow the event: greedy's memory (for the reactions) and the belief."""
        self.greedy.on_event(event)
        if self.belief is None:
            self.backlog.append(event)
        else:
            self.belief.observe(event)

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """Greedy's reactions: every catch, UNO call, slap and coloured jump-in, at once (below the top
        level, a call forgotten or a catch let go now and then: `levels.slip`)."""
        return self._slip(self.greedy.respond(legal, state))

    def stats(self) -> dict[str, Any]:
        """Its decisions: how many, how many searched (and why the others were not), and each search's
        playouts, seconds (by its clock, CPU time by default) and stop, with the budget they had."""
        stops: dict[str, int] = {}
        for _, _, stop in self.search_log:
            stops[stop] = stops.get(stop, 0) + 1
        return {
            "kind": self.kind, "decisions": self.decisions, "searches": self.searches,
            "unsearchable": self.unsearchable, "ahead": self.ahead,
            "budget_playouts": self.budget.playouts, "budget_seconds": self.budget.seconds,
            "search_playouts": [playouts for playouts, _, _ in self.search_log],
            "search_seconds": [round(seconds, 6) for _, seconds, _ in self.search_log],
            "search_stops": stops,
        }

    def think_seconds(self, view: views_pb2.SeatView) -> float:
        """Below the top level, the level's human-like pause (the search itself takes milliseconds)."""
        think = LEVELS[self.level].think_s
        return think * self.pauses.uniform(0.5, 1.5) if think else 0.0

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """The candidate that wins most playouts; greedy's choice when the position cannot be searched.
        Below the top level its UNO call is forgotten now and then, as `levels.Leveled` forgets one."""
        return self._slip(self._decide(view, state))

    def _slip(self, command: cmd.Command | None) -> cmd.Command | None:
        """The level's slips (`levels.slip`), from a generator of their own: the search draws the same."""
        return command if self.level == TOP_LEVEL else slip(command, LEVELS[self.level], self.slips)

    def _decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        self.last_playouts = 0
        self.decisions += 1
        legal = view.legal_actions
        if legal.react_window_ids:  # a blocking window: answer it at once, as everybody does
            return cmd.React(legal.react_window_ids[0])
        belief = self._belief(state.seat)
        commands = _candidates(view)
        if len(commands) <= 1:
            return commands[0] if commands else self.greedy.decide(view, state)
        if view.event_number > belief.tracker.last_event_number:
            # A runner reads the view again right after its own command (a colour to name, the drawn
            # card to play or keep) before the events that led there reach the bot: that position is
            # not known yet, and greedy's rules answer these follow-up decisions well.
            self.ahead += 1
            return self.greedy.decide(view, state)
        try:
            game, knowledge = belief.position(view)
        except UnoError as error:
            self.unsearchable += 1
            self.last_refusal = str(error)
            return self.greedy.decide(view, state)
        if game.to_act != state.seat:
            self.unsearchable += 1
            return self.greedy.decide(view, state)
        allowed = legal_actions(game, state.seat)
        options: list[tuple[cmd.Command, tuple[Action, ...]]] = []
        for command in commands:
            try:
                actions = engine_actions(state.seat, command)
            except (UnoError, TypeError):
                continue
            if actions and actions[0] in allowed:
                options.append((command, actions))
        if is_bluff(game, state.seat):
            # Playouts never challenge a bluff the seat played (only the opponents' own), so a search
            # would rate one too well: like greedy, it never bluffs while anything else is allowed.
            honest = [option for option in options if not _plays_wild_draw_four(option[1])]
            options = honest or options
        if len(options) <= 1:
            return options[0][0] if options else self.greedy.decide(view, state)
        if all(isinstance(command, cmd.Challenge | cmd.Draw) for command, _ in options):
            return self._answer_draw_four(game, knowledge, [command for command, _ in options])
        self.searches += 1
        prior = _index_of(self.greedy.decide(view, state), [command for command, _ in options])
        return options[self._search(game, knowledge, [actions for _, actions in options], state.seat, prior)][0]

    def _answer_draw_four(self, game: Game, knowledge: Knowledge, commands: list[cmd.Command]) -> cmd.Command:
        """Challenge a Wild Draw Four when the belief's deals find it a bluff more often than
        `CHALLENGE_ABOVE`, else draw.

        Not searched: the two answers differ by two cards drawn (or four given) and every draw after
        them, so playouts tell them apart only with far more than a decision's budget, while the chance
        of guilt itself is what the deals measure well (`Belief` makes most of them fair, as most
        players are, but at the accused's bluff rate).
        """
        assert self.belief is not None
        self.searches += 1
        guilty = dealt = 0
        for _ in range(min(CHALLENGE_DEALS, self.budget.playouts)):
            try:
                deal = self.belief.sample(game, knowledge, self.rng)
            except UnoError:
                break
            obligation = deal.obligation
            if obligation is None or obligation.bluff is None:
                break
            dealt += 1
            guilty += not obligation.bluff.is_fair
        self.last_playouts = dealt  # deals, not playouts, but the same budget
        challenge = next((c for c in commands if isinstance(c, cmd.Challenge)), None)
        draw = next((c for c in commands if isinstance(c, cmd.Draw)), commands[0])
        if challenge is not None and dealt and guilty / dealt > CHALLENGE_ABOVE:
            return challenge
        return draw

    def _belief(self, seat: int) -> Belief:
        if self.belief is None or self.belief.seat != seat:
            self.belief = Belief(seat)
            for event in self.backlog:
                self.belief.observe(event)
            self.backlog = []
        return self.belief

    def _search(
        self, game: Game, knowledge: Knowledge, candidates: list[tuple[Action, ...]], seat: int, prior: int | None
    ) -> int:
        """The index of the candidate with the best win rate, by sequential halving under the budget.

        `prior` (greedy's choice) is never dropped, and another candidate is chosen over it only when,
        on the deals both were played out on, it won more by at least `PRIOR_MARGIN` and by
        `PRIOR_Z` standard errors of that paired difference: with a few hundred playouts the
        estimates are noisy, and a search that overrides sound heuristics only on a clear gain does not
        play worse than them by chance.
        """
        assert self.belief is not None
        budget = self.budget
        started = self.clock()
        deadline = None if budget.seconds is None else started + budget.seconds
        stop = "playouts"
        alive = list(range(len(candidates)))
        results: list[list[float]] = [[] for _ in candidates]  # per candidate, per deal played, 1 for a win
        phases = max(1, math.ceil(math.log2(len(candidates))))
        left = budget.playouts
        lacks = remembered_lacks(self.greedy.memory)
        memory = self.greedy.memory
        rates = {s: memory.bluff_rate(s) for s in range(game.num_players)}
        for phase in range(phases):
            if left <= 0:
                break
            per_arm = max(1, (left // (phases - phase)) // len(alive))
            timed_out = False
            for _ in range(per_arm):
                if deadline is not None and self.clock() >= deadline:
                    timed_out, stop = True, "time"
                    break
                try:
                    deal = self.belief.sample(game, knowledge, self.rng)
                except UnoError:
                    timed_out, stop = True, "deals"
                    break
                stream = self.rng.getrandbits(64)  # every candidate's playout of this deal draws alike
                for index in alive:
                    results[index].append(self._playout(deal, candidates[index], seat, stream, lacks, rates))
                    left -= 1
            if timed_out:
                break
            if len(alive) > 1 and phase < phases - 1:
                alive.sort(key=lambda i: (-_mean(results[i]), i))
                kept = alive[: (len(alive) + 1) // 2]
                alive = kept if prior is None or prior in kept or prior not in alive else [*kept, prior]
        self.last_playouts = sum(len(r) for r in results)
        self.search_log.append((self.last_playouts, self.clock() - started, stop))
        best = max(alive, key=lambda i: (_mean(results[i]), -i))
        if prior is None or best == prior or not results[best]:
            return best if prior is None else prior
        # Every candidate still alive, the prior among them, was played out on every deal: pair them.
        ours, theirs = results[best], results[prior]
        diffs = [a - b for a, b in zip(ours, theirs, strict=True)]
        gain = _mean(diffs)
        spread = statistics.pstdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
        return best if gain >= self.margin and gain >= self.z * spread else prior

    def _playout(
        self,
        deal: Game,
        actions: tuple[Action, ...],
        seat: int,
        stream: int,
        lacks: dict[int, frozenset[Color]],
        rates: dict[int, float],
    ) -> float:
        """1 when `seat` wins the round played out from `deal` after `actions`, else 0; the playout's
        choices drawn from `stream`, so that every candidate's playout of one deal draws the same."""
        game = deal.copy()
        for action in actions:
            game.step(action)
        if game.is_over:
            return 1.0 if game.winner == seat else 0.0
        rng = random.Random(stream)
        return 1.0 if play_out(game, rng, greedy_policy(rng, self.explore, lacks, rates)).winner == seat else 0.0


def _candidates(view: views_pb2.SeatView) -> list[cmd.Command]:
    """The commands worth searching: every one the legal actions allow, but for the reactions a
    turn's decision also lists (greedy's `respond` makes those), and a play that would leave one card
    only with its UNO call (nobody gains by forgetting it)."""
    out: list[cmd.Command] = []
    commands = all_commands(view.legal_actions, len(view.hand))
    calls = {_key(c) for c in commands if isinstance(c, cmd.Play) and c.call_uno}
    for command in commands:
        if isinstance(command, cmd.CatchUno | cmd.CallUno | cmd.React):
            continue
        if isinstance(command, cmd.Play) and not command.call_uno and _key(command) in calls:
            continue
        out.append(command)
    return out


def _plays_wild_draw_four(actions: tuple[Action, ...]) -> bool:
    return any(isinstance(action, Play) and action.cards[-1].rank is Rank.WILD_DRAW_FOUR for action in actions)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _index_of(choice: cmd.Command | None, commands: list[cmd.Command]) -> int | None:
    """Where greedy's `choice` is among `commands` (a play matched by its cards, since greedy may
    name the colour with it), or None."""
    if isinstance(choice, cmd.Play):
        key = _key(choice)
        plays = [(i, c) for i, c in enumerate(commands) if isinstance(c, cmd.Play) and _key(c) == key]
        plays.sort(key=lambda pair: not pair[1].call_uno)  # with its UNO call, when it may make one
        return plays[0][0] if plays else None
    return next((i for i, c in enumerate(commands) if c == choice), None)


def _key(play: cmd.Play) -> tuple[object, ...]:
    """A play's cards and window, hashable (protobuf messages are not)."""
    return (*(card.SerializeToString() for card in play.cards), play.reaction_window_id)


def level_note(level: int) -> str:
    """What `strong` at `level` does differently: its budget, its slips and its pause (for `kinds.describe`)."""
    budget, detail = LEVEL_BUDGETS[level], LEVELS[level]
    limit = " (reproducible)"
    if budget.seconds is not None:
        limit = f", or {budget.seconds:g} s of CPU time, whichever comes first"
    slips = f"; forgets UNO {detail.forget_uno:.0%} of the time" if detail.forget_uno else ""
    pause = f"; thinks about {detail.think_s:g} s a move" if detail.think_s else "; no pause"
    return f"up to {budget.playouts} playouts a decision{limit}{slips}{pause}."


PLAYOUT_S = 0.002
"""A generous bound on one playout's time, for a fixed budget's decision time: the pure build plays some
200 in 90 ms (0.45 ms each), the compiled one some 900."""
POSITION_S = 0.05
"""A bound on rebuilding the position and sampling before the playouts start."""


def decision_seconds_at(level: int) -> float:
    """The longest a decision takes at `level` on an idle machine (the registry's `decision_s`): its
    CPU-time budget, or its playouts at `PLAYOUT_S`, whichever is less, plus `POSITION_S` and the
    longest human-like pause of the level (1.5 times its typical one)."""
    budget = LEVEL_BUDGETS[level]
    search = budget.playouts * PLAYOUT_S
    if budget.seconds is not None:
        search = min(search, budget.seconds)
    return search + POSITION_S + 1.5 * LEVELS[level].think_s


def strong_at_level(level: int, seed: int | None = None) -> StrongBot:
    """`strong` at `level` (`LEVEL_BUDGETS`): the registry's `at_level`."""
    return StrongBot(seed, level=level)
