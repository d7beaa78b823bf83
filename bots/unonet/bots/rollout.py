"""The strong bot's playout policy: `greedy`'s own scoring on the engine's actions, cheap enough to run
for every step of thousands of playouts per decision (`unonet.engine.search.playout`).

Why greedy's scoring and not a random player: a playout measures a candidate by how the round goes on
after it, and the search's opponents (and the strong seat's own later turns) play like the policy the
playouts use. When that policy is `greedy`'s, the search is a policy-improvement step over greedy (the
rollout algorithm of Tesauro and Galperin): each candidate followed by greedy play, the best one
taken, which can only do better than greedy when the estimates are right. So this mirrors
`unonet.bots.greedy_bot.GreedyBot.score_play` and `best_color` term for term, on engine cards instead
of protobuf ones:

- a play scores 10 per card and 0.3 per point, +6 for a Skip, Reverse or draw card (+40 when the next
  seat is down to two cards or fewer), -30 more for a Wild Draw Four that is not needed so, -25 for a
  black card while more than one card stays, +4 per card left of the colour it leaves in force, and
  +6 (+15 when threatening) when that colour is one the next seat drew on; going out beats everything,
  a Wild Draw Four that would be a bluff is never played;
- the colour named is the one held most (points break ties), towards one the next seat drew on;
- a drawn black card is kept while more than three cards are held and the next seat is not threatened;
- a Wild Draw Four is challenged by greedy's odds: the chance that the accused holds a card of the
  colour it replaced, counted from the cards the challenger cannot see, times a prior bluff rate;
- the UNO call is always made; with no play, a draw, and after the draw a pass.

"Drew on" is followed inside the playout: `Lacks` starts from what the table showed (the colours each
seat drew on for its turn and has not played since) and each playout adds the draws it makes.
With probability `explore` a seat plays a uniformly random play instead (0 by default: a deterministic
policy makes every candidate's playouts differ by the candidate alone, on the same deal).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from unonet.bots.memory import TableMemory
from unonet.engine import (
    Action,
    Card,
    Challenge,
    ChooseColor,
    Color,
    Draw,
    Game,
    Pass,
    Play,
    Policy,
    Rank,
    standard_deck,
)
from unonet.v1 import cards_pb2

__all__ = ["DEFAULT_EXPLORE", "Lacks", "greedy_policy", "remembered_lacks"]

#: How often a playout seat plays a random play rather than the greedy one.
DEFAULT_EXPLORE = 0.0
Lacks = Mapping[int, frozenset[Color]]
"""Per seat, the colours it drew on for its turn and has not played since (greedy's `TableMemory.lacks`)."""

_BLACK = Color.BLACK
_COLORS = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)  # greedy's NAMEABLE order: ties go to the first
_HITS = frozenset({Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.PLUS_ONE, Rank.PLUS_TWO})
_WD4 = Rank.WILD_DRAW_FOUR
_COLOR_CARDS = 25  # cards of one colour in the standard deck
_CHALLENGE_ABOVE = 2 / (8 + 2)  # greedy's threshold on the chance of guilt
BLUFF_PRIOR = 0.5
"""The bluff rate a playout's challenger assumes (greedy's Laplace rule before any challenge)."""


def remembered_lacks(memory: TableMemory) -> dict[int, frozenset[Color]]:
    """The colours each seat drew on and has not played since, as greedy's `memory` counted them."""
    return {
        seat: frozenset(Color[cards_pb2.Color.Name(color).removeprefix("COLOR_")] for color in colors)
        for seat, colors in memory.lacks.items()
        if colors
    }


def greedy_policy(
    rng: random.Random,
    explore: float = DEFAULT_EXPLORE,
    lacks: Lacks | None = None,
    bluff_rates: Mapping[int, float] | None = None,
) -> Policy:
    """The playout policy of the module docstring for one playout, drawing its exploration from `rng`.

    `lacks` is what the table showed before the playout; the policy keeps its own copy and adds to it,
    so make one policy per playout. `bluff_rates` is each seat's bluff rate as greedy counts it from the
    challenges the table saw (`TableMemory.bluff_rate`); a seat not in it has `BLUFF_PRIOR`.
    """
    rates = bluff_rates or {}
    uniform = rng.random
    drew_on: dict[int, set[Color]] = {seat: set(colors) for seat, colors in (lacks or {}).items()}

    def choose(game: Game, options: list[Action]) -> Action:
        plays = [action for action in options if action.__class__ is Play]
        seat = options[0].seat  # every engine action names its seat
        if plays:
            if explore and uniform() < explore:
                return plays[int(uniform() * len(plays))]
            best = _best_play(game, seat, plays, drew_on)
            if best is not None:
                kept = best.cards[-1].color is _BLACK and any(a.__class__ is Pass for a in options)
                if not (kept and len(game.hands[seat]) > 3 and not _threatened(game, seat)):
                    _played(drew_on, seat, best)
                    return best
        first = options[0]
        if first.__class__ is ChooseColor:
            return _name_color(game, seat, options, drew_on)
        for action in options:
            if action.__class__ is Challenge:
                if _should_challenge(game, seat, rates):
                    return action
                break
        for action in options:
            if action.__class__ is Draw:
                if game.obligation is None and game.color is not None:
                    drew_on.setdefault(seat, set()).add(game.color)
                return action
        for action in options:
            if action.__class__ is Pass:
                return action
        return options[int(uniform() * len(options))]

    return choose


def _next_seat(game: Game, seat: int) -> int:
    """The next seat with cards after `seat` in the direction of play."""
    n = game.num_players
    step = game.direction
    hands = game.hands
    nxt = (seat + step) % n
    while not hands[nxt] and nxt != seat:
        nxt = (nxt + step) % n
    return nxt


def _threatened(game: Game, seat: int) -> bool:
    return len(game.hands[_next_seat(game, seat)]) <= 2


def _card_facts(card: Card) -> tuple[int, int, bool, bool]:
    """(its colour's index in `_COLORS` or -1 for black, its points, whether it hits, whether a WD4)."""
    index = _COLORS.index(card.color) if card.color is not _BLACK else -1
    return index, card.points, card.rank in _HITS, card.rank is _WD4


_FACTS: dict[int, tuple[int, int, bool, bool]] = {
    card.key: _card_facts(card) for card in standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)
}
"""Per card key, what greedy's scoring reads of it: looked up once per card instead of read off enums."""


def _tally(hand: list[Card], facts: dict[int, tuple[int, int, bool, bool]] = _FACTS) -> tuple[list[int], list[int]]:
    """Per colour (in `_COLORS` order), how many coloured cards `hand` holds and their points."""
    counts = [0, 0, 0, 0]
    values = [0, 0, 0, 0]
    for card in hand:
        index, value, _, _ = facts[card.key]
        if index >= 0:
            counts[index] += 1
            values[index] += value
    return counts, values


def _best_play(
    game: Game, seat: int, plays: list[Play], drew_on: Mapping[int, set[Color]],
    facts: dict[int, tuple[int, int, bool, bool]] = _FACTS,
) -> Play | None:
    """Greedy's best play among `plays` (UNO called where it may be), or None when the best is a bluff."""
    hand = game.hands[seat]
    nxt = _next_seat(game, seat)
    threatened = len(game.hands[nxt]) <= 2
    blocked = [color in drew_on[nxt] for color in _COLORS] if drew_on.get(nxt) else [False] * 4
    counts, values = _tally(hand)
    hit = 40.0 if threatened else 6.0
    lacking = 15.0 if threatened else 6.0
    named = -1  # the colour a black card would name, once needed (the same for every single black card)
    bluff: bool | None = None
    best: Play | None = None
    best_score = -1e9
    size = len(hand)
    for action in plays:
        cards = action.cards
        if size - len(cards) <= 0:
            return action  # going out beats everything
        index, value, hits, wd4 = facts[cards[-1].key]
        if wd4:
            if bluff is None:
                bluff = any(card.color is game.color for card in hand)
            if bluff:
                continue
        score = 10.0 * len(cards)
        if len(cards) == 1:
            score += 0.3 * value
            if index >= 0:
                left = counts[index] - 1
            else:
                if named < 0:
                    named = _favourite(counts, values, blocked, threatened)
                index, left = named, counts[named]
                if size > 2:
                    score -= 25.0
        else:
            rest_counts, rest_values = list(counts), list(values)
            for card in cards:
                card_index, card_value, _, _ = facts[card.key]
                score += 0.3 * card_value
                if card_index >= 0:
                    rest_counts[card_index] -= 1
                    rest_values[card_index] -= card_value
            if index < 0:
                if size - len(cards) > 1:
                    score -= 25.0
                index = _favourite(rest_counts, rest_values, blocked, threatened)
            left = rest_counts[index]
        if hits:
            score += hit
            if wd4 and not threatened:
                score -= 30.0
        score += 4.0 * left
        if blocked[index]:
            score += lacking
        if action.call_uno:
            score += 0.5  # the same play with its UNO call
        if score > best_score:
            best, best_score = action, score
    return best


def _favourite(counts: list[int], values: list[int], blocked: list[bool], threatened: bool) -> int:
    """Greedy's `best_color`, as an index in `_COLORS`: held most (plus a weight for a colour the next
    seat drew on), points break ties, the first colour wins a full tie."""
    weight = 3.0 if threatened else 0.6
    best, best_key = 0, (-1.0, -1)
    for index in range(4):
        key = (counts[index] + (weight if blocked[index] else 0.0), values[index])
        if key > best_key:
            best, best_key = index, key
    return best


def _name_color(game: Game, seat: int, options: list[Action], drew_on: Mapping[int, set[Color]]) -> Action:
    counts, values = _tally(game.hands[seat])
    nxt = _next_seat(game, seat)
    lacks = drew_on.get(nxt)
    blocked = [color in lacks for color in _COLORS] if lacks else [False] * 4
    wanted = _COLORS[_favourite(counts, values, blocked, len(game.hands[nxt]) <= 2)]
    for action in options:
        if isinstance(action, ChooseColor) and action.color is wanted:
            return action
    return options[0]


def _played(drew_on: dict[int, set[Color]], seat: int, play: Play) -> None:
    colors = drew_on.get(seat)
    if colors:
        for card in play.cards:
            colors.discard(card.color)


def _should_challenge(game: Game, seat: int, rates: Mapping[int, float]) -> bool:
    """Greedy's odds: the chance that the accused held a card of the colour the Wild Draw Four replaced,
    from the cards `seat` cannot see, times the accused's bluff rate, above 1 in 5."""
    obligation = game.obligation
    if obligation is None or obligation.bluff is None:
        return False
    before = obligation.bluff.previous_color
    if before is None or before is _BLACK:
        return False
    accused = obligation.bluff.accused
    held = sum(1 for card in game.hands[seat] if card.color is before)
    shown = sum(1 for card in game.discard if card.color is before)
    unseen_of_color = max(0, _COLOR_CARDS - shown - held)
    unseen_total = len(game.draw_pile) + sum(len(h) for s, h in enumerate(game.hands) if s != seat)
    none = 1.0
    for i in range(min(len(game.hands[accused]), unseen_total)):
        remaining = unseen_total - i
        none *= max(0, remaining - unseen_of_color) / remaining
    return (1.0 - none) * rates.get(accused, BLUFF_PRIOR) > _CHALLENGE_ABOVE

