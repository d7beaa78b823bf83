"""`unonet replay` on the game screen: a finished game stepped through forwards and backwards.

The game screen's model is a pure function of the events a point of view received, so step k of a
replay is simply the model fed `Replay.received(pov)[:k]` (`unonet.client.replay`): the same screen a
player saw, read-only (no command can leave), with the replay's own keys bound first: Left/Right step
one event, PgUp/PgDn ten, Home/End to the first and the last. Countdowns show what was left at the
step's own time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from unonet.client.tui.model import ConnectionState, GameModel
from unonet.client.tui.screen import GameScreen
from unonet.v1 import events_pb2

__all__ = ["ReplayScreen"]

_HELP = [
    "  Left/Right  step back / forward one event (PgUp/PgDn: ten; Home/End: first / last)",
]


class ReplayScreen:
    """A read-only game screen over recorded events (one point of view's), at a step the keys move."""

    def __init__(self, events: Sequence[events_pb2.Event], seat: int | None, *, title: str = "",
                 colour_blind: bool = False, input: Input | None = None, output: Output | None = None) -> None:
        self.events = list(events)
        self.seat = seat
        self.title = title
        self.model = GameModel(seat=seat, connection=ConnectionState.CONNECTED)
        self.step = 0
        self.screen = GameScreen(
            self.model, host_clock=self._time_of_step, colour_blind=colour_blind, input=input, output=output,
            extra_keys={"left": lambda: self.go(self.step - 1), "right": lambda: self.go(self.step + 1),
                        "pageup": lambda: self.go(self.step - 10), "pagedown": lambda: self.go(self.step + 10),
                        "home": lambda: self.go(1), "end": lambda: self.go(len(self.events))},
            extra_help=_HELP,
        )
        self.go(1)

    def go(self, step: int) -> None:
        """Show the table after event `step` (clamped to the log), rebuilt from the first event."""
        self.step = max(1, min(len(self.events), step))
        fresh = GameModel(seat=self.seat, connection=ConnectionState.CONNECTED)
        for event in self.events[: self.step]:
            fresh.apply(event)
        for item in dataclasses.fields(GameModel):  # in place: the screen renders this very object
            setattr(self.model, item.name, getattr(fresh, item.name))
        where = f"{self.title} · " if self.title else ""
        self.model.notice = f"replay {where}step {self.step}/{len(self.events)} · ←/→ step · ? keys · Q quits"

    def _time_of_step(self) -> float:
        if not self.events:
            return 0.0
        stamp = self.events[self.step - 1].time
        return stamp.seconds + stamp.nanos / 1e9

    async def run(self) -> None:
        """Show the replay until Q."""
        await self.screen.application.run_async()
