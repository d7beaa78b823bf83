"""Levels for people: a kind at level 1, 2 or 3 (`greedy:1`), weaker and slower the lower it goes.

A level wraps any policy (`Leveled`). Below the top it makes the mistakes people make: now and then
it plays a random legal card instead of its choice, forgets to call UNO, lets a catch go (`slip`, which a
kind that levels itself, `strong`, applies too); and it thinks for a human-like moment before each
decision (`Bot.think_seconds`: the `BotRunner` and the host's bot seats wait that long at a table with
a person; in-process tables, benchmarks and tables of bots only do not). The top level is the policy
itself, with no mistakes and no pause.

Every level also has a reaction time (`Level.reaction_s`, drawn per race by `reaction_seconds`): how
long a bot takes to answer a race (an UNO catch or call, a slap, a jump-in) at a table with a person, so
that a person can beat it. Runners that pace themselves for people (the host's bot seats, a `BotRunner`
given `human_pace`) wait it out; every draw comes from a generator of its own, so a level's choices are
the same with or without it. Median reaction times, from the top level down: 0.4, 0.65 and 1.0 s, each
draw log-normal around the median (`REACTION_SPREAD`) and kept within half and twice it: people's
reaction to a card they must notice and a key they must find, slower than a plain key press (0.25 s).

Names: ``KIND`` is the top level, ``KIND:N`` level N (`parse_kind`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from unonet.bots.options import all_commands
from unonet.bots.policy import Bot, BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["LEVELS", "REACTION_BOUNDS", "REACTION_SPREAD", "TOP_LEVEL", "Level", "Leveled", "parse_kind",
           "reaction_seconds", "slip"]


@dataclass(frozen=True, slots=True)
class Level:
    """How a level plays.

    Attributes:
        number: 1 (weakest) to TOP_LEVEL.
        blunder: the chance, per decision with plays to choose from, of a random play instead.
        forget_uno: the chance of not calling UNO with the second-to-last card (or when it may).
        miss_catch: the chance of letting a seat that forgot UNO go.
        think_s: the typical pause before a decision, in seconds (each pause is 0.5 to 1.5 times it).
        reaction_s: the median time it takes to answer a race at a table with a person, in seconds
            (`reaction_seconds` draws one per race).
    """

    number: int
    blunder: float
    forget_uno: float
    miss_catch: float
    think_s: float
    reaction_s: float


LEVELS: dict[int, Level] = {
    1: Level(1, blunder=0.35, forget_uno=0.5, miss_catch=0.6, think_s=1.2, reaction_s=1.0),
    2: Level(2, blunder=0.12, forget_uno=0.15, miss_catch=0.25, think_s=0.7, reaction_s=0.65),
    3: Level(3, blunder=0.0, forget_uno=0.0, miss_catch=0.0, think_s=0.0, reaction_s=0.4),
}
TOP_LEVEL = max(LEVELS)
REACTION_SPREAD = 0.25
"""The sigma of a reaction draw's logarithm: about two draws in three within 22% of the median."""
REACTION_BOUNDS = (0.5, 2.0)
"""A reaction draw is kept within these multiples of its level's median."""


def reaction_seconds(level: Level, rng: random.Random) -> float:
    """One race's reaction time at `level`: log-normal around `level.reaction_s`, within `REACTION_BOUNDS`."""
    low, high = REACTION_BOUNDS
    drawn = level.reaction_s * math.exp(rng.gauss(0.0, REACTION_SPREAD))
    return min(max(drawn, low * level.reaction_s), high * level.reaction_s)


def slip(command: cmd.Command | None, level: Level, rng: random.Random) -> cmd.Command | None:
    """`command` as a person at `level` might send it: its UNO call forgotten (the play without it, a
    late CallUno not sent) at `level.forget_uno`, a catch let go at `level.miss_catch`; one draw of
    `rng` for each command that could slip, none for the others."""
    if isinstance(command, cmd.Play) and command.call_uno and rng.random() < level.forget_uno:
        return cmd.Play(command.cards, color=command.color, reaction_window_id=command.reaction_window_id)
    if isinstance(command, cmd.CallUno) and rng.random() < level.forget_uno:
        return None
    if isinstance(command, cmd.CatchUno) and rng.random() < level.miss_catch:
        return None
    return command


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
        return slip(command, self.level, self.rng)

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """The policy's reaction, but a catch let go or an UNO call forgotten at the level's rates."""
        return slip(self.bot.respond(legal, state), self.level, self.rng)

    def on_event(self, event: events_pb2.Event) -> None:
        self.bot.on_event(event)

    def think_seconds(self, view: views_pb2.SeatView) -> float:
        """The level's pause, varied so that it does not feel mechanical."""
        return self.level.think_s * self.pause_rng.uniform(0.5, 1.5) if self.level.think_s else 0.0
