"""How fast a host's own bots act at a table with a person, and that tables of bots only never wait.

A table has a person when one of its seats is held by a player (`Seat.is_player`: a token from
JoinTable, neither a host bot nor a forfeited seat). The host cannot tell a person from a program that
joined like one (a league's bots, `unonet bot play`) and counts both: only the host's own bots are
paced, and a table whose other seats are all such programs has none to pace. A table of host bots
only (benches, `unonet demo`, a match whose players all left) is never paced: it plays at the bots'
own speed, so leagues and benches never slow down.

At a table with a person, under a human `Pace` (what `--bot-delay` sets; `unonet local`, `unonet host`
and `unonet serve` default to `DEFAULT_BOT_DELAY_S`):
- a host bot's turn (any decision the game waits for: a play, a colour, a challenge) is sent
  `turn_s` after the event that gave it, plus its level's pause (`Bot.think_seconds`), so a person sees
  each move land;
- its answer to a race (an UNO catch or its own late call, a slap, a jump-in, a run cut) is sent its
  reaction time after the window opened, one draw per race from its level's distribution
  (`unonet.bots.levels.reaction_seconds`, the median 0.4 s at the top level, slower below), so a person
  can beat it; the race book then orders the answers by true reaction time as for anyone.
Draws come from a generator seeded by the table's secret seed, the seat and the window
(`reaction_seconds`), never from the policy's own: a bot's choices are those it makes at an instant
table, and nothing about its timing is journalled but when its answers arrived, as for any seat.

The host's own driver holds its cheap bots' decisions for that long on its clock (`bot_seats.py`); a
bot seat played by a worker process gets ``--human-pace`` and times itself by the same rule
(`unonet.bots.runner.BotRunner`, `human_pace`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from unonet.bots.kinds import race_reaction_seconds

__all__ = ["DEFAULT_BOT_DELAY_S", "INSTANT", "Pace", "reaction_seconds"]

DEFAULT_BOT_DELAY_S = 1.0
"""The command lines' `--bot-delay`: a second between a bot's turn and its move, plus its level's pause."""


@dataclass(frozen=True, slots=True)
class Pace:
    """How host bots act at a table with a person.

    Attributes:
        turn_s: the least time between the event that gives a bot its turn and its move; its level's
            pause comes on top while this is above zero.
        reactions: whether a bot answers races after its level's reaction time (else at once).
    """

    turn_s: float = 0.0
    reactions: bool = False

    @classmethod
    def from_bot_delay(cls, seconds: float) -> Pace:
        """What `--bot-delay SECONDS` means: that turn pause and human reactions; 0 makes bots instant."""
        return cls(turn_s=max(0.0, seconds), reactions=seconds > 0)

    @property
    def is_instant(self) -> bool:
        return self.turn_s <= 0 and not self.reactions


INSTANT = Pace()
"""Bots act as soon as they may, also with a person at the table (a `Host`'s default: tests, leagues)."""


def reaction_seconds(table_seed: int, seat: int, window_id: int, bot_kind: str) -> float:
    """The reaction time of the bot of kind `bot_kind` at `seat` in the race of `window_id`: one draw of
    its level's distribution, the same however often it is asked (a held answer is decided again when
    anything else happens at the table)."""
    rng = random.Random(f"reaction:{table_seed}:{seat}:{window_id}")
    return race_reaction_seconds(bot_kind, rng)
