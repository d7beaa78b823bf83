"""The strong bot's playout policy: greedy's main habits on the engine's own actions, cheap enough to
run for every step of thousands of playouts per decision (`unonet.engine.search.playout`).

Random playouts measure a position as if everybody played at random from it, which rates the plays
that only pay off against careful play (holding a wild, shedding points) no better than the rest. This
policy plays like a sound human instead, at a cost of one pass over the legal actions: the most cards
and the most points first, action cards early, black cards only when no coloured card plays, the UNO
call always, the colour held most when naming one, a challenge only of a bluff (the playout sees the
deal, as a good judge of the odds nearly does), else a draw. With probability
`explore` a seat plays a uniformly random play instead, so the playouts still cover what others may do.
"""

from __future__ import annotations

import random

from unonet.engine import Action, Challenge, ChooseColor, Color, Draw, Game, Pass, Play, Policy

__all__ = ["DEFAULT_EXPLORE", "greedy_policy"]

#: How often a playout seat plays a random play rather than the greedy one.
DEFAULT_EXPLORE = 0.1
_BLACK = Color.BLACK


def greedy_policy(rng: random.Random, explore: float = DEFAULT_EXPLORE) -> Policy:
    """The playout policy of the module docstring, drawing its exploration from `rng`."""
    uniform = rng.random

    def choose(game: Game, options: list[Action]) -> Action:
        plays = [action for action in options if action.__class__ is Play]
        if plays:
            if uniform() < explore:
                return plays[int(uniform() * len(plays))]
            return max(plays, key=_play_score)
        colors = [action for action in options if isinstance(action, ChooseColor)]
        if colors:
            return _held_most(game, colors)
        for action in options:
            if action.__class__ is Challenge:  # a playout's challenger sees the deal: it challenges a bluff
                obligation = game.obligation
                if obligation is not None and obligation.bluff is not None and not obligation.bluff.is_fair:
                    return action
        for wanted in (Draw, Pass):
            for action in options:
                if action.__class__ is wanted:
                    return action
        return options[int(uniform() * len(options))]

    return choose


def _play_score(action: Action) -> int:
    """Greedy's order of plays: more cards, then points (action cards score 20), coloured before black,
    the UNO call made."""
    assert isinstance(action, Play)
    card = action.cards[-1]
    score = 100 * len(action.cards) + card.points
    if card.color is _BLACK:
        score -= 200
    return score + 1 if action.call_uno else score


def _held_most(game: Game, colors: list[ChooseColor]) -> ChooseColor:
    """The ChooseColor naming the colour the chooser holds most of."""
    counts: dict[Color, int] = {}
    for card in game.hands[colors[0].seat]:
        counts[card.color] = counts.get(card.color, 0) + 1
    return max(colors, key=lambda action: counts.get(action.color, 0))
