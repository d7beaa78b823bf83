"""The one registry of bot kinds: each kind's name, what it does in a sentence, and its policy factory.

`python -m unonet.bots --kind` builds a policy from it, and the host reads it too: `ListBotKinds`
lists these kinds, and `AddBots` / a takeover accept only their names. A host seat is played by the
host's own in-process stand-in (`unonet.host.bots`), under the kind's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from unonet.bots.policy import Bot
from unonet.bots.random_bot import RandomBot

__all__ = ["BOT_KINDS", "DEFAULT_BOT_KIND", "BotKind"]


@dataclass(frozen=True, slots=True)
class BotKind:
    """A kind of bot: its name on the wire, a sentence for people choosing one, and its policy."""

    name: str
    description: str
    factory: Callable[[int | None], Bot]
    """Called as ``factory(seed)``; gives the policy a `BotRunner` plays."""


BOT_KINDS: Mapping[str, BotKind] = MappingProxyType({kind.name: kind for kind in (
    BotKind(RandomBot.kind, "Plays a random legal card, prefers playing to drawing, never forgets UNO.", RandomBot),
)})
"""Every bot kind, by name."""

DEFAULT_BOT_KIND = RandomBot.kind
"""The kind of a seat filled or taken over without a kind named."""
