"""A rematch over the protocol as it is: the same settings at a new table, the same seats, an invitation in chat.

The protocol has no rematch call, and needs none. At the match's end, N on a player's screen:

- the table's creator (its client holds the owner token) creates a new table with the finished one's
  settings (`plan`: the preset and every option, the seats, the clock) under the same name with
  "(rematch)" after it, and takes its own seat number there. When every other seat was a bot's (a
  local game, `make play`), bots of the same kinds take them and the match starts at once. With other
  people at the table, the creator's client writes an invitation in the old table's chat
  (`invitation`), which every client there recognises (`GameModel.rematch`): friends see "ann invites
  you to a rematch: N joins" on their match-end screen, and N takes their old seat number at the new
  table. The creator starts it with S when they are in (bots then fill the seats nobody took back, so
  bots sit where they sat when everyone came);
- anyone else's N joins the table an invitation named, or says that only the creator can set one up.

A friend who quit before the invitation finds the new table in the lobby under the same name.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Final

from unonet.client.table_client import TableClient
from unonet.v1 import rules_pb2, table_pb2

__all__ = ["RematchPlan", "create", "invitation", "parse_invitation", "plan"]

_INVITATION: Final = re.compile(r"^rematch: table (?P<id>[A-Za-z0-9_-]{1,64}) \(N on the match's end joins it\)$")


def invitation(table_id: str) -> str:
    """The chat line that invites a table's players to the rematch at `table_id`."""
    return f"rematch: table {table_id} (N on the match's end joins it)"


def parse_invitation(text: str) -> str | None:
    """The table id a rematch invitation names, or None for any other chat line."""
    found = _INVITATION.match(text.strip())
    return found.group("id") if found else None


@dataclass(frozen=True, slots=True)
class RematchPlan:
    """What a rematch creates: the finished table's settings, and who sits where."""

    preset: str
    overrides: rules_pb2.Ruleset
    seat_count: int
    clock: table_pb2.ClockSettings | None
    name: str
    #: The seat this player takes again.
    seat: int
    #: The seats bots held, with their kinds.
    bots: dict[int, str]
    #: The seats other people held (their players may come back).
    people: tuple[int, ...]

    @property
    def bot_kind(self) -> str:
        """The kind most of the bots were (the kind S fills the empty seats with)."""
        return Counter(self.bots.values()).most_common(1)[0][0] if self.bots else ""


def plan(settings: table_pb2.TableSettings, seats: list[tuple[int, bool, str]], my_seat: int) -> RematchPlan:
    """The rematch of a table with these `settings` and `seats` (seat, is a bot, bot kind), for `my_seat`."""
    overrides = rules_pb2.Ruleset()
    overrides.CopyFrom(settings.ruleset)
    overrides.ClearField("preset")
    clock = None
    if settings.HasField("clock"):
        clock = table_pb2.ClockSettings()
        clock.CopyFrom(settings.clock)
    bots = {seat: kind for seat, is_bot, kind in seats if is_bot and seat != my_seat}
    people = tuple(seat for seat, is_bot, _ in seats if not is_bot and seat != my_seat)
    name = settings.name if settings.name.endswith("(rematch)") else f"{settings.name[:53]} (rematch)".strip()
    return RematchPlan(settings.ruleset.preset or "standard", overrides, settings.seat_count, clock, name, my_seat,
                       bots, people)


async def create(client: TableClient, rematch: RematchPlan, name: str) -> tuple[str, str, str]:
    """Create the rematch's table and take this player's seat at it; with bots only beside this player,
    seat them (their kinds where they sat) and start. Returns (table id, seat token, owner token).

    Raises the client's typed errors (the host refused the table, the seat, the bots)."""
    holder = TableClient(client.channel)
    created = await holder.create_table(rematch.preset, rematch.overrides, rematch.seat_count, name=rematch.name,
                                        clock=rematch.clock, manual_start=True)
    joined = await holder.join(created.table_id, name, rematch.seat)
    if not rematch.people:
        for seat in sorted(rematch.bots):  # one at a time, lowest empty seat first: each where it sat
            await holder.add_bots(1, rematch.bots[seat], table_id=created.table_id)
        await holder.start_table(table_id=created.table_id)
    return created.table_id, joined.token, created.owner_token
