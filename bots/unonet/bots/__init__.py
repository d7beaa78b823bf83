"""The Python bot SDK for unonet: a typed asyncio client (`TableClient`), a `Bot` base class, bots.

It needs only the generated protocol code (`unonet.v1`); bots may use `unonet.engine` to simulate,
but nothing here requires it, and nothing imports `unonet.host`.
"""

from __future__ import annotations

from collections.abc import Callable

from unonet.bots.base import Bot, BotState, ReactionDelay, default_command, fixed_delay
from unonet.bots.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    NotYourTurn,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
    UnonetError,
    from_rpc_error,
)
from unonet.bots.random_bot import RandomBot
from unonet.bots.sdk import CreatedTable, JoinedSeat, PingResult, TableClient

#: The bot kinds `python -m unonet.bots --kind` knows, by name. Each is called as
#: ``factory(seed, reaction_delay=..., ping_interval=...)``.
BOT_KINDS: dict[str, Callable[..., Bot]] = {RandomBot.kind: RandomBot}

__all__ = [
    "BOT_KINDS",
    "AlreadyExists",
    "Bot",
    "BotState",
    "CreatedTable",
    "FailedPrecondition",
    "InvalidArgument",
    "JoinedSeat",
    "NotFound",
    "NotYourTurn",
    "PermissionDenied",
    "PingResult",
    "RandomBot",
    "ReactionDelay",
    "ResourceExhausted",
    "TableClient",
    "Unavailable",
    "UnonetError",
    "default_command",
    "fixed_delay",
    "from_rpc_error",
]
