"""The search API: what a bot that simulates continuations needs, thousands of times per decision.

A search copies the position (`Game.copy`, `Match.copy`), deals the cards its seat cannot see at
random (`determinize`, from a `Knowledge`), and plays continuations with the trusted `Game.step`,
settling blocking windows itself (`settle_blocking`) and finishing the round with `playout`. The
validating, event-emitting `Game.apply` stays the host's path; `step` reaches the same states
(tests/engine/test_search.py) and builds no events: while it runs, the handlers a playout goes through
skip theirs in their one place (`Game._quiet`), and the rarer ones add theirs to a scratch list nobody
reads.

One search iteration, for the seat `me` that must decide in `game` (a `Game` it holds, or the one
`unonet.wire.knowledge.SeatTracker.position` reads from its view)::

    dealt = determinize(game, knowledge, rng)  # the unseen cards dealt at random; `game` is untouched
    dealt.step(candidate)                      # an action from legal_actions(dealt, me)
    result = playout(dealt, rng)               # the round to its end: result.winner, result.points

The built-in playout policy is RLCard's random player, so its speed compares with RLCard's raw loop
(bench/engine.py): the seat the game waits for picks uniformly among the `Play`s it may make (UNO-calling
variants included, as `legal_actions` lists them), or among everything listed when it has none (Draw,
Pass, Challenge, ChooseColor, ...). Seats not to act never act (nobody jumps in, cuts a run or catches a
missed UNO out of turn); a blocking window is settled as `settle_blocking` says.

What `determinize` uses of a seat's knowledge (the hard constraints only):
- every card it can see stays where it is: its own hand, the discard pile, the card a 5-swap holds aside,
  a run waiting to be cut, the card another seat just drew and may still play (it is not redrawn);
- each other hand keeps its size, and the cards the seat knows are in it (`Knowledge.known`: seen in a
  7-0 swap or rotation, a challenge reveal, a card it gave in a 5-swap);
- `Knowledge.excluded`: cards none of a hand's unknown cards can be (a Wild Draw Four ruled fair under
  `no_matching_colour` says the accused held no card of the colour then; the constraint lasts until that
  hand takes a card the seat did not see).
Drawing says nothing for sure (T3 lets a player draw by choice), so a draw on a colour is no constraint.
The draw pile gets every other unseen card, in a random order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from unonet.engine._frozen import fast_init
from unonet.engine._members import ROUND_OVER, RUN_CUT_WINDOW
from unonet.engine.actions import Action, Play, React
from unonet.engine.cards import Card
from unonet.engine.errors import MalformedAction
from unonet.engine.game import Game, shuffle_like_random
from unonet.engine.legal import legal_actions, policy_choices
from unonet.engine.playout import PlayoutLimit
from unonet.engine.scoring import round_points

Policy = Callable[[Game, list[Action]], Action]
"""A playout policy: given the game and the legal actions of the seat it waits for, the action to take.
It may read the game but must not change it."""

MAX_PLAYOUT_STEPS: Final = 100_000
DETERMINIZE_TRIES: Final = 50


@dataclass(frozen=True, slots=True)
class PlayoutResult:
    """How a played-out round ended: its winner, what each seat scores for it (`scoring.round_points`,
    as a `Match` would add it to the totals) and how many steps it took (actions and settled windows)."""

    winner: int
    points: tuple[int, ...]
    steps: int

    def __init__(self, winner: int, points: tuple[int, ...], steps: int) -> None:
        # One per playout, written out so that mypyc compiles it (why: `_frozen`'s docstring); the pure
        # build's is `fast_init`'s.
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "steps", steps)


fast_init(PlayoutResult)


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What `seat` knows about the cards it cannot see: the input to `determinize`.

    `known[s]`: cards known to be in seat s's hand (as a multiset); `excluded[s]`: cards none of seat s's
    other cards can be. Both are indexed by seat and may be left empty; the seat's own entries are
    ignored (it sees its whole hand).
    """

    seat: int
    known: tuple[tuple[Card, ...], ...] = ()
    excluded: tuple[frozenset[Card], ...] = ()


def settle_blocking(game: Game, rng: random.Random) -> None:
    """Settle the blocking window that holds the turn, in step-land, as a live table might.

    An UNO slap or Sound Wild window (U5, H12): every eligible seat reacts, in a random order, so the
    slowest draws (the last reaction closes the window). A run-cut window (H4): the one seat that may cut
    picks uniformly among its cuts and letting the run land (closing the window unanswered). Needs a
    blocking window open.
    """
    window = next(w for w in game.windows.values() if w.is_blocking)
    if window.kind is RUN_CUT_WINDOW:
        cutter = window.eligible[0]
        cuts = [action for action in legal_actions(game, cutter) if action.__class__ is Play]
        pick = rng.randrange(len(cuts) + 1)
        if pick < len(cuts):
            game.step(cuts[pick])
        else:
            game.close_window(window.id)
        return
    reacted = game.reacted(window.id)
    seats = [seat for seat in window.eligible if seat not in reacted]
    rng.shuffle(seats)
    for seat in seats:
        game.step(React(seat, window.id))
    if window.id in game.windows:  # nobody was left to react
        game.close_window(window.id)


def random_action(game: Game, rng: random.Random) -> Action:
    """The built-in policy's pick for the seat the game waits for (see the module docstring)."""
    seat = game.to_act
    assert seat is not None, "a blocking window holds the turn: settle it first"
    return rng.choice(policy_choices(game, seat))


def playout(
    game: Game, rng: random.Random, policy: Policy | None = None, *, max_steps: int = MAX_PLAYOUT_STEPS
) -> PlayoutResult:
    """Play `game` to the end of its round with `policy` (by default the built-in random one) and
    return the result. Changes `game`: pass a copy to keep the position.

    All choices, the built-in policy's and the blocking windows' (`settle_blocking`), come from `rng`;
    the round's own chance (rebuilding the pile) from the game's. Raises PlayoutLimit past `max_steps`.
    """
    steps = 0
    uniform = rng.random  # `pick[int(uniform() * len(pick))]`: `rng.choice` without its two Python calls
    while game.phase is not ROUND_OVER:
        seat = game.to_act
        if seat is None:
            settle_blocking(game, rng)
        elif policy is None:
            pick = policy_choices(game, seat)
            share: float = uniform()  # typed, so that the compiled build multiplies a native float
            game.step(pick[int(share * len(pick))])  # `game.step`, not a local alias: a native call compiled
        else:
            game.step(policy(game, legal_actions(game, seat)))
        steps += 1
        if steps > max_steps:
            raise PlayoutLimit(f"round {game.round_no} did not end after {max_steps} steps")
    return finished(game, steps)


def finished(game: Game, steps: int) -> PlayoutResult:
    """The result of a round played out to its end in `steps` steps (`playout`, `heuristic.play_out`)."""
    winner = game.winner
    assert winner is not None
    return PlayoutResult(winner, tuple(round_points(game, winner)), steps)


def determinize(game: Game, knowledge: Knowledge, rng: random.Random) -> Game:
    """A copy of `game` with every card `knowledge.seat` cannot see dealt at random, consistently with
    what it knows (see the module docstring), and a random stream of its own drawn from `rng`, so the
    copy's future reshuffles are not the true game's.

    Raises MalformedAction when the knowledge contradicts the position (a known card that is nowhere
    unseen, more known cards than a hand holds) or when no deal meets the exclusions.
    """
    seat = knowledge.seat
    n = game.num_players
    known = [list(knowledge.known[s]) if s < len(knowledge.known) and s != seat else [] for s in range(n)]
    excluded = [knowledge.excluded[s] if s < len(knowledge.excluded) and s != seat else frozenset() for s in range(n)]
    current = game.current
    if game.drawn is not None and current != seat and game.drawn not in known[current]:
        known[current].append(game.drawn)  # kept, not redrawn: it must stay playable (AFTER_DRAW)
    run = game.pending_run
    if run is not None and run[0] != seat:
        known[run[0]] += [card for card in run[1] if card not in known[run[0]]]
    unseen = [card for s in range(n) if s != seat for card in game.hands[s]] + game.draw_pile
    others = [s for s in range(n) if s != seat and game.in_play[s]]
    for s in others:
        if len(known[s]) > len(game.hands[s]):
            raise MalformedAction(
                f"{len(known[s])} cards known in seat {s}'s hand of {len(game.hands[s])}", reason="BAD_POSITION"
            )
        for card in known[s]:
            if card not in unseen:
                raise MalformedAction(
                    f"{card}, known in seat {s}'s hand, is not among the unseen cards", reason="BAD_POSITION"
                )
            unseen.remove(card)
    # `unseen` is in the order the cards lie, but each deal shuffles it uniformly: the order says nothing.
    order = sorted(others, key=lambda s: -len(excluded[s]))  # the most constrained first
    for _ in range(DETERMINIZE_TRIES):
        hands = _deal_unseen(game, known, excluded, order, unseen, rng)
        if hands is not None:
            break
    else:
        raise MalformedAction(f"no deal of the unseen cards meets seat {seat}'s knowledge", reason="BAD_POSITION")
    dealt, rest = hands
    new_hands = [list(game.hands[s]) if s == seat or not game.in_play[s] else dealt[s] for s in range(n)]
    clone = game.copy()
    clone.rng = random.Random(rng.getrandbits(64))
    clone.redeal_unseen(new_hands, rest)
    return clone


def _deal_unseen(
    game: Game,
    known: Sequence[list[Card]],
    excluded: Sequence[frozenset[Card]],
    order: Sequence[int],
    unseen: Sequence[Card],
    rng: random.Random,
) -> tuple[dict[int, list[Card]], list[Card]] | None:
    """One random deal: each hand in `order` takes its missing cards from the unseen ones it may hold.
    Returns the hands and the draw pile left, or None when a hand could not be filled."""
    pool = list(unseen)
    shuffle_like_random(rng, pool)
    hands: dict[int, list[Card]] = {}
    for s in order:
        need = len(game.hands[s]) - len(known[s])
        ban = excluded[s]
        if ban:
            allowed = [i for i, card in enumerate(pool) if card not in ban]
            if len(allowed) < need:
                return None
            taken = set(allowed[:need])  # `pool` is shuffled, so the first allowed are a random choice
            hands[s] = list(known[s]) + [pool[i] for i in allowed[:need]]
            pool = [card for i, card in enumerate(pool) if i not in taken]
        else:
            hands[s] = list(known[s]) + pool[len(pool) - need :]
            del pool[len(pool) - need :]
    return hands, pool
