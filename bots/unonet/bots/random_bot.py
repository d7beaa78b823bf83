"""`RandomBot` (kind `random`): uniform over the legal actions, the baseline the literature measures against.

It is the random agent of RLCard and the UNO papers, whose action space lists a play for each playable
card (a black card once per colour it may name) and offers drawing only when nothing can be played.
Here, likewise: when the seat may play, each play (a black card with each colour, a play that leaves one
card with and without calling UNO, as the rules engine lists them) is equally likely; otherwise each
other listed command (draw, pass, challenge, ...). It never takes a window it need not: no catches, no
jump-ins, and UNO only called with the play. (Uniform over every listed command, drawing included when
a card could be played, is a far weaker player: `greedy` won 99% of 600 heads-up rounds against it,
300 duplicated deals.)
The bot that plays whenever it can and keeps good habits is `basic` (`unonet.bots.basic_bot`).
"""

from __future__ import annotations

import random
from dataclasses import replace

from unonet.bots.hand import NAMEABLE
from unonet.bots.options import all_commands
from unonet.bots.policy import Bot, BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, cards_pb2, views_pb2

__all__ = ["RandomBot"]


class RandomBot(Bot):
    """Picks uniformly among the plays `view.legal_actions` allows, else among its other commands; seeded.

    When nothing is required it does nothing, but answer a blocking window (a UNO slap or Sound Wild,
    where not answering is a choice to draw 2) half the time.
    """

    kind = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """One of the plays, each as likely, else one of the other listed commands; None if none is listed."""
        options = all_commands(view.legal_actions, len(view.hand))
        plays = [option for option in options if isinstance(option, cmd.Play) and not option.reaction_window_id]
        if plays:
            return self.rng.choice(_with_colors(plays, view.legal_actions))
        others = [option for option in options if not isinstance(option, cmd.Play | cmd.CatchUno | cmd.CallUno)]
        return self.rng.choice(others) if others else None

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """A blocking window's answer half the time; never a catch, jump-in or early UNO call."""
        for window_id in legal.react_window_ids:
            if window_id not in state.answered_windows and self.rng.random() < 0.5:
                return cmd.React(window_id)
        return None


def _with_colors(plays: list[cmd.Play], legal: actions_pb2.LegalActions) -> list[cmd.Play]:
    """Each play whose last card names a colour, once per colour (RLCard's action space)."""
    needs = {tuple(map(_key, option.cards)) for option in legal.plays if option.needs_color}
    out: list[cmd.Play] = []
    for play in plays:
        if tuple(map(_key, play.cards)) in needs:
            out.extend(replace(play, color=color) for color in NAMEABLE)
        else:
            out.append(play)
    return out


def _key(card: cards_pb2.Card) -> tuple[int, int]:
    return card.color, card.rank
