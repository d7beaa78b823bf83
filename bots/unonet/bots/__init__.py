"""unonet's Python bots: the policies (`RandomBot`, `BasicBot`, `GreedyBot`) and the runner that plays one.

A bot is a policy, `decide(view, state) -> command`, with no I/O (`unonet.bots.policy`);
`BotRunner` (`unonet.bots.runner`) owns the connection, the reaction delay, pings, the shuffle's
entropy and the fairness checks. Both speak through the client SDK, `unonet.client` (`TableClient`,
its commands and typed errors). Bots may use `unonet.engine` to simulate, but nothing here requires
it, and nothing imports `unonet.host`. `python -m unonet.bots` plays one bot at a table.
"""

from __future__ import annotations

from unonet.bots.basic_bot import BasicBot
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.kinds import BOT_KINDS, DEFAULT_BOT_KIND, BotKind, make_bot
from unonet.bots.policy import Bot, BotState, default_command
from unonet.bots.random_bot import RandomBot
from unonet.bots.runner import BotRunner, ReactionDelay, fixed_delay

__all__ = [
    "BOT_KINDS",
    "DEFAULT_BOT_KIND",
    "BasicBot",
    "Bot",
    "BotKind",
    "BotRunner",
    "BotState",
    "GreedyBot",
    "RandomBot",
    "ReactionDelay",
    "default_command",
    "fixed_delay",
    "make_bot",
]
