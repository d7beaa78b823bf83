"""Levels for people: a kind at level 1, 2 or 3 (`greedy:1`), weaker and slower the lower it goes.

A level wraps any policy (`Leveled`). Below the top it makes the mistakes people make: now and then
it plays a random legal card instead of its choice, forgets to call UNO, lets a catch go; and it thinks
for a human-like moment before each decision (`Bot.think_seconds`: the `BotRunner` and the host's bot
seats wait that long; in-process tables and benchmarks do not). The top level is the policy itself,
with no mistakes and no pause.

Names: ``KIND`` is the top level, ``KIND:N`` level N (`parse_kind`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from unonet.bots.options import all_commands
from unonet.bots.policy import Bot, BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["LEVELS", "TOP_LEVEL", "Level", "Leveled", "parse_kind"]


@dataclass(frozen=True, slots=True)
class Level:
    """How a level plays.

    Attributes:
        number: 1 (weakest) to TOP_LEVEL.
        blunder: the chance, per decision with plays to choose from, of a random play instead.
        forget_uno: the chance of not calling UNO with the second-to-last card (or when it may).
        miss_catch: the chance of letting a seat that forgot UNO go.
        think_s: the typical pause before a decision, in seconds (each pause is 0.5 to 1.5 times it).
    """

    number: int
    blunder: float
    forget_uno: float
    miss_catch: float
    think_s: float


LEVELS: dict[int, Level] = {
    1: Level(1, blunder=0.35, forget_uno=0.5, miss_catch=0.6, think_s=1.2),
    2: Level(2, blunder=0.12, forget_uno=0.15, miss_catch=0.25, think_s=0.7),
    3: Level(3, blunder=0.0, forget_uno=0.0, miss_catch=0.0, think_s=0.0),
}
TOP_LEVEL = max(LEVELS)


def parse_kind(name: str) -> tuple[str, int]:
    """``"greedy:2"`` -> ``("greedy", 2)``; a bare kind is its top level.

    Raises ValueError for a level that is not a number from 1 to TOP_LEVEL.
    """
    kind, sep, level = name.partition(":")
    if not sep:
        return kind, TOP_LEVEL
    if not level.isdigit() or int(level) not in LEVELS:
        raise ValueError(f"{name!r}: a level is a number from 1 to {TOP_LEVEL}")
    return kind, int(level)


class Leveled(Bot):
    """`bot` played at `level`: its choices, but for the level's mistakes, after the level's pause."""

    def __init__(self, bot: Bot, level: Level, seed: int | None = None) -> None:
        self.bot = bot
        self.level = level
        self.kind = f"{bot.kind}:{level.number}"
        self.rng = random.Random(seed)
        # The pause has a generator of its own, so the level's choices are the same whether or not a
        # runner asks for its pauses (a BotRunner does, an in-process table does not).
        self.pause_rng = random.Random(None if seed is None else f"pause:{seed}")

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """The policy's command, a random play instead now and then, maybe without its UNO call."""
        plays = [
            option for option in all_commands(view.legal_actions, len(view.hand))
            if isinstance(option, cmd.Play) and not option.call_uno
        ]
        if plays and self.rng.random() < self.level.blunder:
            command: cmd.Command | None = self.rng.choice(plays)
        else:
            command = self.bot.decide(view, state)
        return self._slip(command)

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """The policy's reaction, but a catch let go or an UNO call forgotten at the level's rates."""
        return self._slip(self.bot.respond(legal, state))

    def on_event(self, event: events_pb2.Event) -> None:
        self.bot.on_event(event)

    def think_seconds(self, view: views_pb2.SeatView) -> float:
        """The level's pause, varied so that it does not feel mechanical."""
        return self.level.think_s * self.pause_rng.uniform(0.5, 1.5) if self.level.think_s else 0.0

    def _slip(self, command: cmd.Command | None) -> cmd.Command | None:
        if isinstance(command, cmd.Play) and command.call_uno and self.rng.random() < self.level.forget_uno:
            return cmd.Play(command.cards, color=command.color, reaction_window_id=command.reaction_window_id)
        if isinstance(command, cmd.CallUno) and self.rng.random() < self.level.forget_uno:
            return None
        if isinstance(command, cmd.CatchUno) and self.rng.random() < self.level.miss_catch:
            return None
        return command
