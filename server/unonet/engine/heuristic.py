"""Greedy play on engine actions, fast enough for every step of thousands of playouts per decision.

A search bot measures a candidate by how the round goes on after it, everybody then playing like its
playout policy. `unonet.bots.strong` plays its playouts with greedy's own scoring (so the search is a
policy-improvement step over greedy, the rollout algorithm of Tesauro and Galperin), and that scoring
is the cost of a playout: written as a policy callback in the bot, each step went from the engine's loop
back into Python. Here it is engine code, so the compiled build (`[tool.unonet.compiled]`) runs
`play_out`'s whole loop, policy included, natively: `GreedyPlayer.choose` is a native method call.

`GreedyPlayer` mirrors `unonet.bots.greedy_bot.GreedyBot.score_play` and `best_color` term for term,
on engine cards instead of protobuf ones (tests/bots/test_rollout.py checks it picks greedy's action at
each of greedy's decisions, and tests/engine/test_heuristic.py that both builds play alike):

- a play scores 10 per card and 0.3 per point, +6 for a Skip, Reverse or draw card (+40 when the next
  seat is down to two cards or fewer), -30 more for a Wild Draw Four that is not needed so, -25 for a
  black card while more than one card stays, +4 per card left of the colour it leaves in force, and
  +6 (+15 when threatening) when that colour is one the next seat drew on; going out beats everything,
  a Wild Draw Four that would be a bluff is never played;
- the colour named is the one held most (points break ties), towards one the next seat drew on;
- a drawn black card is kept while more than three cards are held and the next seat is not threatened;
- a Wild Draw Four is challenged by greedy's odds: the chance that the accused holds a card of the
  colour it replaced, counted from the cards the challenger cannot see, times its bluff rate;
- the UNO call is always made; with no play, a draw, and after the draw a pass.

"Drew on" is followed inside the playout: a player starts from what the table showed (the colours each
seat drew on for its turn and has not played since) and adds the draws its playout makes, so make one
player per playout. With probability `explore` a seat plays a uniformly random play instead (0 by
default: a deterministic policy makes every candidate's playouts differ by the candidate alone).

Standard library and engine only, like the rest of the engine; mypyc compiles it, so it keeps to what
native classes allow (a plain class, no decorators).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Final

from unonet.engine._members import BLACK, ROUND_OVER, WILD_DRAW_FOUR
from unonet.engine.actions import Action, Challenge, ChooseColor, Draw, Pass, Play
from unonet.engine.cards import CARDS, PLAYABLE_COLORS, Color, Rank, color_slot
from unonet.engine.game import Game
from unonet.engine.legal import legal_actions
from unonet.engine.playout import PlayoutLimit
from unonet.engine.search import MAX_PLAYOUT_STEPS, PlayoutResult, finished, settle_blocking

__all__ = ["BLUFF_PRIOR", "COLORS", "GreedyPlayer", "play_out"]

COLORS: Final = PLAYABLE_COLORS  # so `cards.color_slot` is a colour's place here too
"""Greedy's order of the nameable colours (its `NAMEABLE`): a full tie goes to the first."""
BLUFF_PRIOR: Final = 0.5
"""The bluff rate a challenger assumes of a seat it has no rate for (greedy's Laplace rule before any
challenge)."""
_CHALLENGE_ABOVE: Final = 2 / (8 + 2)  # greedy's threshold on the chance of guilt
_COLOR_CARDS: Final = 25  # cards of one colour in the standard deck
_HITS: Final = frozenset({Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.PLUS_ONE, Rank.PLUS_TWO})

# What greedy's scoring reads of a card, per `Card.index`: read off tables instead of enums.
_SLOT: Final[list[int]] = [COLORS.index(card.color) if card.color is not BLACK else -1 for card in CARDS]
_POINTS: Final[list[int]] = [card.points for card in CARDS]
_HIT: Final[list[bool]] = [card.rank in _HITS for card in CARDS]
_WD4: Final[list[bool]] = [card.rank is WILD_DRAW_FOUR for card in CARDS]


class GreedyPlayer:
    """Greedy's choices for every seat of one playout (the module docstring); a `search.Policy` too.

    Args:
        rng: draws the exploration's random plays (and a pick among options greedy has no rule for).
        explore: the share of random plays.
        lacks: per seat, the colours it drew on for its turn and has not played since, as the table
            showed them; the player keeps its own copy and adds the playout's draws.
        bluff_rates: per seat, its bluff rate as greedy counts it from the challenges the table saw; a
            seat not in it has `BLUFF_PRIOR`.
    """

    def __init__(
        self,
        rng: random.Random,
        explore: float = 0.0,
        lacks: Mapping[int, frozenset[Color]] | None = None,
        bluff_rates: Mapping[int, float] | None = None,
    ) -> None:
        self.rng = rng
        self.explore = explore
        self.rates: dict[int, float] = dict(bluff_rates) if bluff_rates else {}
        # Per seat, the colours it drew on as a bitmask over `COLORS`; grown as seats appear.
        self.drew_on: list[int] = []
        for seat, colors in (lacks or {}).items():
            mask = 0
            for color in colors:
                slot = color_slot(color)
                if slot < 4:  # a colour of `COLORS` (black names none)
                    mask |= 1 << slot
            self._add_lacks(seat, mask)

    def __call__(self, game: Game, options: list[Action]) -> Action:
        """`choose`, so that a player is a `search.Policy` (`search.playout(game, rng, player)`)."""
        return self.choose(game, options)

    def choose(self, game: Game, options: list[Action]) -> Action:
        """Greedy's pick among `options`, the legal actions of the seat `game` waits for."""
        seat = options[0].seat  # every engine action names its seat
        plays: list[Play] = []
        for action in options:
            if isinstance(action, Play):
                plays.append(action)
        if plays:
            explore = self.explore
            if explore and self.rng.random() < explore:
                share: float = self.rng.random()
                return plays[int(share * len(plays))]
            best = self._best_play(game, seat, plays)
            if best is not None:
                if best.cards[-1].color is BLACK and len(game.hands[seat]) > 3:
                    # a drawn black card (Pass allowed) is kept while many cards remain, unthreatened
                    kept = any(isinstance(action, Pass) for action in options)
                    if kept and not self._threatened(game, seat):
                        best = None
                if best is not None:
                    self._played(seat, best)
                    return best
        first = options[0]
        if isinstance(first, ChooseColor):
            return self._name_color(game, seat, options)
        for action in options:
            if isinstance(action, Challenge):
                if self._should_challenge(game, seat):
                    return action
                break
        for action in options:
            if isinstance(action, Draw):
                if game.obligation is None and game.color is not None:
                    slot = color_slot(game.color)
                    if slot < 4:
                        self._add_lacks(seat, 1 << slot)
                return action
        for action in options:
            if isinstance(action, Pass):
                return action
        pick: float = self.rng.random()
        return options[int(pick * len(options))]

    # ---------------------------------------------------------------------------------- helpers

    def _add_lacks(self, seat: int, mask: int) -> None:
        drew_on = self.drew_on
        while len(drew_on) <= seat:
            drew_on.append(0)
        drew_on[seat] |= mask

    def _lacks(self, seat: int) -> int:
        drew_on = self.drew_on
        return drew_on[seat] if seat < len(drew_on) else 0

    def _played(self, seat: int, play: Play) -> None:
        mask = self._lacks(seat)
        if mask:
            for card in play.cards:
                slot = _SLOT[card.index]
                if slot >= 0:
                    mask &= ~(1 << slot)
            self.drew_on[seat] = mask

    def _threatened(self, game: Game, seat: int) -> bool:
        return len(game.hands[_next_seat(game, seat)]) <= 2

    def _best_play(self, game: Game, seat: int, plays: list[Play]) -> Play | None:
        """Greedy's best play among `plays` (UNO called where it may be), or None when the best is a bluff."""
        hand = game.hands[seat]
        nxt = _next_seat(game, seat)
        threatened = len(game.hands[nxt]) <= 2
        blocked = self._lacks(nxt)
        counts = [0, 0, 0, 0]
        values = [0, 0, 0, 0]
        for card in hand:
            slot = _SLOT[card.index]
            if slot >= 0:
                counts[slot] += 1
                values[slot] += _POINTS[card.index]
        hit = 40.0 if threatened else 6.0
        lacking = 15.0 if threatened else 6.0
        named = -1  # the colour a black card would name, once needed (the same for every single black card)
        bluff = -1  # unknown; then 0 or 1
        best: Play | None = None
        best_score = -1e9
        size = len(hand)
        for action in plays:
            cards = action.cards
            count = len(cards)
            if size - count <= 0:
                return action  # going out beats everything
            last = cards[-1].index
            wd4 = _WD4[last]
            if wd4:
                if bluff < 0:
                    bluff = 0
                    for card in hand:
                        if card.color is game.color:
                            bluff = 1
                            break
                if bluff:
                    continue
            score = 10.0 * count
            index = _SLOT[last]
            if count == 1:
                score += 0.3 * _POINTS[last]
                if index >= 0:
                    left = counts[index] - 1
                else:
                    if named < 0:
                        named = _favourite(counts, values, blocked, threatened)
                    index = named
                    left = counts[named]
                    if size > 2:
                        score -= 25.0
            else:
                rest_counts = list(counts)
                rest_values = list(values)
                for card in cards:
                    card_index = card.index
                    card_slot = _SLOT[card_index]
                    score += 0.3 * _POINTS[card_index]
                    if card_slot >= 0:
                        rest_counts[card_slot] -= 1
                        rest_values[card_slot] -= _POINTS[card_index]
                if index < 0:
                    if size - count > 1:
                        score -= 25.0
                    index = _favourite(rest_counts, rest_values, blocked, threatened)
                left = rest_counts[index]
            if _HIT[last]:
                score += hit
                if wd4 and not threatened:
                    score -= 30.0
            score += 4.0 * left
            if blocked >> index & 1:
                score += lacking
            if action.call_uno:
                score += 0.5  # the same play with its UNO call
            if score > best_score:
                best = action
                best_score = score
        return best

    def _name_color(self, game: Game, seat: int, options: list[Action]) -> Action:
        counts = [0, 0, 0, 0]
        values = [0, 0, 0, 0]
        for card in game.hands[seat]:
            slot = _SLOT[card.index]
            if slot >= 0:
                counts[slot] += 1
                values[slot] += _POINTS[card.index]
        nxt = _next_seat(game, seat)
        wanted = COLORS[_favourite(counts, values, self._lacks(nxt), len(game.hands[nxt]) <= 2)]
        for action in options:
            if isinstance(action, ChooseColor) and action.color is wanted:
                return action
        return options[0]

    def _should_challenge(self, game: Game, seat: int) -> bool:
        """Greedy's odds: the chance that the accused held a card of the colour the Wild Draw Four
        replaced, from the cards `seat` cannot see, times the accused's bluff rate, above 1 in 5."""
        obligation = game.obligation
        if obligation is None or obligation.bluff is None:
            return False
        before = obligation.bluff.previous_color
        if before is None or before is BLACK:
            return False
        accused = obligation.bluff.accused
        held = 0
        for card in game.hands[seat]:
            if card.color is before:
                held += 1
        shown = 0
        for card in game.discard:
            if card.color is before:
                shown += 1
        unseen_of_color = max(0, _COLOR_CARDS - shown - held)
        unseen_total = len(game.draw_pile)
        for other, other_hand in enumerate(game.hands):
            if other != seat:
                unseen_total += len(other_hand)
        none = 1.0
        for i in range(min(len(game.hands[accused]), unseen_total)):
            remaining = unseen_total - i
            none *= max(0, remaining - unseen_of_color) / remaining
        return (1.0 - none) * self.rates.get(accused, BLUFF_PRIOR) > _CHALLENGE_ABOVE


def _next_seat(game: Game, seat: int) -> int:
    """The next seat with cards after `seat` in the direction of play."""
    n = game.num_players
    step = game.direction
    hands = game.hands
    nxt = (seat + step) % n
    while not hands[nxt] and nxt != seat:
        nxt = (nxt + step) % n
    return nxt


def _favourite(counts: list[int], values: list[int], blocked: int, threatened: bool) -> int:
    """Greedy's `best_color`, as an index in `COLORS`: held most (plus a weight for a colour the next
    seat drew on, `blocked` a bitmask), points break ties, the first colour wins a full tie."""
    weight = 3.0 if threatened else 0.6
    best = 0
    best_count = -1.0
    best_value = -1
    for index in range(4):
        count = counts[index] + (weight if blocked >> index & 1 else 0.0)
        value = values[index]
        if count > best_count or (count == best_count and value > best_value):
            best = index
            best_count = count
            best_value = value
    return best


def play_out(
    game: Game, rng: random.Random, player: GreedyPlayer, *, max_steps: int = MAX_PLAYOUT_STEPS
) -> PlayoutResult:
    """Play `game` to the end of its round with `player` choosing for every seat, as
    `search.playout(game, rng, player)` does, but without leaving compiled code per step.

    Blocking windows are settled by `search.settle_blocking` from `rng`. Changes `game`: pass a copy to
    keep the position. Raises PlayoutLimit past `max_steps`.
    """
    steps = 0
    while game.phase is not ROUND_OVER:
        seat = game.to_act
        if seat is None:
            settle_blocking(game, rng)
        else:
            game.step(player.choose(game, legal_actions(game, seat)))
        steps += 1
        if steps > max_steps:
            raise PlayoutLimit(f"round {game.round_no} did not end after {max_steps} steps")
    return finished(game, steps)
