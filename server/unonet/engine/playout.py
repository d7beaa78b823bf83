"""Random playouts: uniformly random legal actions until the match (or round) ends.

Used by property tests and the speed benchmark, and by bots as a baseline. Blocking reaction windows
are answered by a random eligible seat or closed, as a host would at the deadline.
"""

from __future__ import annotations

import random

from unonet.engine.actions import Draw, Pass, Play, React
from unonet.engine.events import Event
from unonet.engine.match import Match


class PlayoutLimit(RuntimeError):
    """A playout exceeded its step budget: a sign the rules let a game run forever."""


def random_step(match: Match, chooser: random.Random, *, eagerness: float = 0.8) -> list[Event]:
    """Take one random step: the seat to act picks a legal action; open blocking windows get answered.

    With probability `eagerness` the pick is among the actions other than drawing or passing (when
    there are any): a player who never plays when they can makes rounds last for ever, which says
    nothing about the rules.
    """
    game = match.game
    to_act = game.to_act
    if to_act is None:
        window = next(w for w in game.windows.values() if w.is_blocking)
        options = [a for seat in window.eligible for a in match.legal_actions(seat) if _answers(a, window.id)]
        if options and chooser.random() < 0.95:
            return match.apply(chooser.choice(options))
        return match.close_window(window.id)
    actions = match.legal_actions(to_act)
    if chooser.random() < eagerness:
        keen = [action for action in actions if not isinstance(action, Draw | Pass)]
        if keen:
            return match.apply(chooser.choice(keen))
    return match.apply(chooser.choice(actions))


def play_random_match(match: Match, chooser: random.Random, *, max_steps: int = 200_000) -> int:
    """Play `match` to its end; returns the number of steps. Raises PlayoutLimit past `max_steps`."""
    steps = 0
    if match.round_no == 0:
        match.start()
    while not match.is_over:
        random_step(match, chooser)
        steps += 1
        if steps > max_steps:
            raise PlayoutLimit(f"no winner after {max_steps} steps")
    return steps


def play_random_round(match: Match, chooser: random.Random, *, max_steps: int = 100_000) -> int:
    """Play the current round to its end; returns the number of steps."""
    steps = 0
    if match.round_no == 0:
        match.start()
    round_no = match.round_no
    while match.round_no == round_no and not match.is_over:
        random_step(match, chooser)
        steps += 1
        if steps > max_steps:
            raise PlayoutLimit(f"round {round_no} did not end after {max_steps} steps")
    return steps


def _answers(action: object, window_id: int) -> bool:
    return isinstance(action, Play) or (isinstance(action, React) and action.window == window_id)
