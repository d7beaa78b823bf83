"""Python policies that fail on purpose, for league tests: `python = "league_bots:CrashingBot"`."""

from __future__ import annotations

from unonet.bots import RandomBot
from unonet.bots.policy import BotState
from unonet.client import commands as cmd
from unonet.v1 import views_pb2


class CrashingBot(RandomBot):
    """Raises at its third decision (in-process, the crash forfeits its seat)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.decisions = 0

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        self.decisions += 1
        if self.decisions == 3:
            raise RuntimeError("the policy has a bug")
        return super().decide(view, state)


class PassingBot(RandomBot):
    """Answers Pass at the start of each turn, when the rules want a play or a draw: an illegal command."""

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        if not view.legal_actions.pass_turn:
            return cmd.Pass()
        return super().decide(view, state)
