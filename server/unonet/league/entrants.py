"""Turning a league file's `[[bot]]` entries into policies.

- `kind = "NAME"` or `"NAME:LEVEL"`: a public kind from the bots' one registry (`unonet.bots.kinds`,
  built by its `make_bot`); the measurement-only kinds (the oracle, which sees every hand) are refused.
- `python = "module:Class"`: a `unonet.bots.Bot` subclass (or any callable taking a seed and giving
  a Bot) imported from the Python path; trusted code, played in this process by `--inprocess`.
- `exec = "CMD"` (the bots' JSON-lines stdin bridge) and `launch = "CMD"` (a gRPC bot in any language,
  started with UNONET_ADDRESS, UNONET_TABLE and UNONET_TOKEN): not available in this version; such a
  league is refused before any game is played (`EntrantError`).

Each game gives each bot a seed of its own derived from the deal's seed and the bot's name (and its
`seed` offset), never from its seat: in a duplicate deal a bot meets the same chances from every seat.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Callable

from unonet.bots import Bot
from unonet.bots.kinds import UnknownBotKind, make_bot
from unonet.league.config import BotSpec

__all__ = ["EntrantError", "bot_seed", "factory"]

Factory = Callable[[int | None], Bot]


class EntrantError(ValueError):
    """A bot entry cannot be played: unknown kind, a class that cannot be imported, or a source that
    this version cannot run."""


def bot_seed(spec: BotSpec, deal_seed: int) -> int:
    """The seed `spec`'s policy gets in the game dealt from `deal_seed`."""
    digest = hashlib.sha256(f"unonet-league-bot:{deal_seed}:{spec.name}:{spec.seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def factory(spec: BotSpec) -> Factory:
    """What builds `spec`'s policy from a seed. Raises EntrantError for an entry this version cannot run."""
    if spec.source == "kind":
        try:
            make_bot(spec.target, 0, public_only=True)  # checks the kind and its level
        except UnknownBotKind as error:
            raise EntrantError(f"bot {spec.name!r}: {error} (unknown kind)") from None
        return functools.partial(_kind, spec.target)
    if spec.source == "python":
        return _imported(spec)
    raise EntrantError(
        f"bot {spec.name!r}: {spec.source} bots are not supported by this version of unonet league "
        "(use a built-in kind or python = 'module:Class')"
    )


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
