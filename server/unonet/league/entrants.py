"""Turning a league file's `[[bot]]` entries into policies.

- `kind = "NAME"` or `"NAME:LEVEL"`: a public kind from the bots' one registry (`unonet.bots.kinds`,
  built by its `make_bot`); the measurement-only kinds (the oracle, which sees every hand) are refused.
- `python = "module:Class"`: a `unonet.bots.Bot` subclass (or any callable taking a seed and giving
  a Bot) imported from the Python path; trusted code, played in this process by `--inprocess`.
- `exec = "CMD"` (a program speaking the bots' JSON-lines bridge, `unonet.bots.bridge`) and
  `launch = "CMD"` (a gRPC bot in any language, started by the launch convention, `unonet.bots.launch`):
  a `Program`, split like a shell line (`shlex`) and run from the runner's working directory. A
  program plays only over gRPC (`unonet.league.programs`); `--inprocess`, which plays policies on the
  engine in this process, refuses a league that has one before any game is played.

Each game gives each bot a seed of its own derived from the deal's seed and the bot's name (and its
`seed` offset), never from its seat: in a duplicate deal a bot meets the same chances from every seat.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass

from unonet.bots import Bot
from unonet.bots.kinds import UnknownBotKind, make_bot
from unonet.league.config import BotSpec

__all__ = ["EntrantError", "Program", "bot_seed", "entrant", "factory"]

Factory = Callable[[int | None], Bot]

#: The sources whose entrant is a program of its own, played only over gRPC.
PROGRAM_SOURCES = ("exec", "launch")


class EntrantError(ValueError):
    """A bot entry cannot be played: unknown kind, a class that cannot be imported, a program that
    cannot be found, or a program where only Python policies can play (`--inprocess`)."""


@dataclass(frozen=True, slots=True)
class Program:
    """An `exec` or `launch` entrant: the command line that starts it (`source` says which protocol it
    speaks: "exec", JSON lines on stdin and stdout; "launch", gRPC itself, told its seat by the launch
    convention)."""

    source: str
    argv: tuple[str, ...]


def bot_seed(spec: BotSpec, deal_seed: int) -> int:
    """The seed `spec`'s policy gets in the game dealt from `deal_seed`."""
    digest = hashlib.sha256(f"unonet-league-bot:{deal_seed}:{spec.name}:{spec.seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def entrant(spec: BotSpec) -> Factory | Program:
    """What plays `spec`: a policy factory, or the program to start. Raises EntrantError for an entry
    that cannot be played (for a program: a command line that does not split, or whose program is not
    found on PATH or is not executable)."""
    if spec.source not in PROGRAM_SOURCES:
        return factory(spec)
    try:
        argv = tuple(shlex.split(spec.target))
    except ValueError as error:
        raise EntrantError(f"bot {spec.name!r}: {spec.source} = {spec.target!r} does not split: {error}") from None
    if not argv:
        raise EntrantError(f"bot {spec.name!r}: {spec.source} names no program")
    if shutil.which(argv[0]) is None:
        raise EntrantError(
            f"bot {spec.name!r}: {spec.source} = {spec.target!r}: {argv[0]!r} is not an executable program "
            "(not on PATH, or, for a path, missing or without its executable bit)"
        )
    return Program(spec.source, argv)


def factory(spec: BotSpec) -> Factory:
    """What builds `spec`'s policy from a seed: a policy this process can play (`--inprocess`, or a seat
    of the gRPC path). Raises EntrantError for an entry that is not one (a program among them)."""
    if spec.source in PROGRAM_SOURCES:
        raise EntrantError(
            f"bot {spec.name!r}: {spec.source} = {spec.target!r} is a program of its own, which plays only "
            "over gRPC: run the league without --inprocess (which plays built-in kinds and "
            "python = 'module:Class' bots on the engine)"
        )
    if spec.source == "kind":
        try:
            make_bot(spec.target, 0, public_only=True)  # checks the kind and its level
        except UnknownBotKind as error:
            raise EntrantError(f"bot {spec.name!r}: {error} (unknown kind)") from None
        return functools.partial(_kind, spec.target)
    if spec.source == "python":
        return _imported(spec)
    raise EntrantError(f"bot {spec.name!r}: unknown source {spec.source!r}")


def _kind(name: str, seed: int | None) -> Bot:
    return make_bot(name, seed, public_only=True)


def _imported(spec: BotSpec) -> Factory:
    module_name, _, attribute = spec.target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise EntrantError(f"bot {spec.name!r}: cannot import {module_name!r}: {error}") from error
    target = getattr(module, attribute, None)
    if target is None:
        raise EntrantError(f"bot {spec.name!r}: {module_name!r} has no {attribute!r}")
    if isinstance(target, type) and not issubclass(target, Bot):
        raise EntrantError(f"bot {spec.name!r}: {spec.target} is not a unonet.bots.Bot")
    if not callable(target):
        raise EntrantError(f"bot {spec.name!r}: {spec.target} is not callable")

    def build(seed: int | None) -> Bot:
        bot = target(seed)
        if not isinstance(bot, Bot):
            raise EntrantError(f"bot {spec.name!r}: {spec.target}(seed) did not give a unonet.bots.Bot")
        return bot

    return build
