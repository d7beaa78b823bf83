"""The engine-level fallback of a timed-out turn: a reasonable action straight from the engine's list.

A timed-out turn draws, then passes (`Table`'s timeout). When the rules allow neither (a colour to name,
a swap target to choose), `choose_action` picks from the engine's actions without any policy. Bot seats
are not played here: the `unonet.bots` policy of each seat's kind plays it (`unonet.host.bot_seats`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from unonet.engine import PLAYABLE_COLORS, Action, CallUno, CatchUno, ChooseColor, Draw, Game, Pass, Play, React


def choose_action(game: Game, seat: int, options: Sequence[Action], rng: random.Random) -> Action:
    """A reasonable move from `options` (never empty for the seat to act)."""
    urgent = reaction_for(game, seat, options)
    if urgent is not None:
        return urgent
    colors = [a for a in options if isinstance(a, ChooseColor)]
    if colors:
        held = Counter(card.color for card in game.hands[seat] if not card.is_black)
        best = max(PLAYABLE_COLORS, key=lambda color: held[color])
        return next(a for a in colors if a.color is best)
    plays = [a for a in options if isinstance(a, Play) and (a.call_uno or len(game.hands[seat]) - len(a.cards) != 1)]
    if plays:
        return rng.choice(plays)
    others = [a for a in options if not isinstance(a, Draw | Pass)]
    if others:
        return rng.choice(others)
    return options[0]


def reaction_for(game: Game, seat: int, options: Sequence[Action]) -> Action | None:
    """What a bot does out of turn: answer windows at once and catch anyone who forgot UNO."""
    for action in options:
        if isinstance(action, React | CallUno | CatchUno):
            return action
    return None
