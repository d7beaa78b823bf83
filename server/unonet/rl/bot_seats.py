"""`BotSeats`: unonet's own bots at some seats of a `LearningTable`, fed what a host would feed them.

Each bot is a `unonet.bots` policy behind a `PolicySeat`: it follows every event as its seat may see it
(`unonet.wire.convert.event_to_pb`) and decides from its `SeatView` (`convert.view_to_pb`), as at a
host's table and on the bots' own in-process table (`unonet.bots.engine_table.EngineTable`, whose retry
rule this keeps: a refused command is asked for again once, then the host's default, Draw else Pass,
then the first legal action). An offered chance is answered with the policy's `respond`; None declines.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from unonet.bots.kinds import make_bot
from unonet.bots.policy import default_command
from unonet.bots.policy_seat import PolicySeat
from unonet.client import commands as cmd
from unonet.engine import Event, UnoError
from unonet.rl.table import LearningTable
from unonet.v1 import table_pb2, views_pb2
from unonet.wire import convert

__all__ = ["BotSeats"]

_POLICY_ATTEMPTS = 2


class BotSeats:
    """The bots of `kinds` (seat to kind name, `unonet.bots.kinds.make_bot`) at `table`'s seats.

    Raises UnknownBotKind for a kind the registry does not have.
    """

    def __init__(self, table: LearningTable, kinds: Mapping[int, str]) -> None:
        self.table = table
        self.kinds = dict(kinds)
        for kind in self.kinds.values():
            make_bot(kind, 0)  # an unknown kind fails now, not at the first reset
        self.seats: dict[int, PolicySeat] = {}
        self.settings = table_pb2.TableSettings(ruleset=convert.ruleset_to_pb(table.ruleset), seat_count=table.players)
        self.seat_states = [
            table_pb2.SeatState(
                seat=seat, occupied=True, is_bot=seat in self.kinds, bot_kind=self.kinds.get(seat, ""), connected=True
            )
            for seat in range(table.players)
        ]
        table.listeners.append(self._follow)

    def reset(self, seed: int) -> None:
        """New bots for a new round, each seeded from `seed` and its seat."""
        rng = random.Random(seed ^ 0xB07)
        self.seats = {seat: PolicySeat(make_bot(kind, rng.getrandbits(32)), seat) for seat, kind in self.kinds.items()}

    def play(self, seat: int) -> None:
        """The bot at `seat`, which the table asks now, decides or answers its offer."""
        table = self.table
        policy = self.seats[seat]
        view = self._view(seat)
        if not table.required:
            command = policy.respond(view.legal_actions)
            if command is None or not self._send(seat, command):
                table.decline()
            return
        for attempt in range(_POLICY_ATTEMPTS + 1):
            command = policy.decide(view) if attempt < _POLICY_ATTEMPTS else default_command(view.legal_actions)
            if command is not None and self._send(seat, command):
                return
            view = self._view(seat)
        table.act_actions([table.legal_for(seat)[0]])  # the host's own choice: the first legal action

    def _send(self, seat: int, command: cmd.Command) -> bool:
        try:
            actions = self.seats[seat].actions(command)
            self.table.act_actions(actions)
        except (UnoError, TypeError, ValueError):
            return False
        return True

    def _view(self, seat: int) -> views_pb2.SeatView:
        return convert.view_to_pb(
            self.table.match.view_for(seat), table_id="unonet-rl", event_number=0, seats=self.seat_states,
            settings=self.settings, status=table_pb2.TABLE_STATUS_PLAYING,
        )  # fmt: skip

    def _follow(self, events: list[Event]) -> None:
        for seat, policy in self.seats.items():
            for event in events:
                policy.follow(convert.event_to_pb(event, seat))
