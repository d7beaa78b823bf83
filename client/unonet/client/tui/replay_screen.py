"""`unonet replay` on the game screen: a finished game stepped through, from any point of view.

The game screen's model is a pure function of the events a point of view received, so step k of a
replay is simply the model fed `Replay.received(pov)[:k]` (`unonet.client.replay`): the same screen a
player saw, read-only (no command can leave), with the replay's own keys bound first: Left/Right step
one event, PgUp/PgDn ten, Home/End to the first and the last, and V switches the point of view
(public, each seat in turn, every hand open) at the same step. Countdowns show what was left at the
step's own time.

A step is a move: each one the log tells in words (a play, a draw, a call, a round's end), shown with
the events that follow it up to the next move (the next turn starting, a window opening), so the turn
marker always points at whoever acts next, as the log's last line leaves the table. The replay opens
at the first play, the set-up (seats, shuffle, deal) behind it (Home goes back to it). The status line
keeps the step counter and the point of view whatever else is said.

Every point of view has one event per step, so switching keeps the step. The every-hand-open view
shows each seat's cards in a panel above the log, from `Replay.snapshots(OPEN)`: the hands rebuilt
from the revealed seeds' openings and checked by the `Verifier` when the replay was built. A table
dealt without fair shuffles has nothing to rebuild: the screen stays on the public view and says why,
and a round whose seed never came says so in the panel.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from unonet.client.narrate import describe
from unonet.client.replay import OPEN, PointOfView, Replay, Snapshot
from unonet.client.tui.model import ConnectionState, GameModel, face_of
from unonet.client.tui.render import render_card
from unonet.client.tui.screen import GameScreen
from unonet.v1 import events_pb2

__all__ = ["ReplayScreen", "pov_words"]

_HELP = [
    "  Left/Right  step back / forward one event (PgUp/PgDn: ten; Home/End: first / last)",
    "  V           switch the point of view: public, each seat, every hand open",
]


def _stops(events: Sequence[events_pb2.Event]) -> list[int]:
    """The steps each move ends at: a move is an event the log tells (`narrate.describe`); it ends just
    before the next one, or the round's end, so its following turn start and windows come with it."""
    told = [i for i, event in enumerate(events, start=1) if describe(event)]
    stops = [later - 1 for later in told[1:]] + ([len(events)] if told else [])
    return sorted({stop for stop in stops if stop >= 1})


def pov_words(pov: PointOfView, names: list[str]) -> str:
    """A point of view in a few words, for the replay's status line."""
    if pov is OPEN:
        return "every hand open"
    if pov is None:
        return "public view"
    name = names[pov] if pov < len(names) and names[pov] else ""
    return f"seat {pov}" + (f" ({name})" if name else "") + "'s view"


class ReplayScreen:
    """A read-only game screen over an audited replay, at a step and a point of view the keys move.

    Args:
        replay: the audited game (`unonet.client.replay.Replay`).
        pov: the point of view to start from: None (public), a seat, or `OPEN`. A table without fair
            shuffles (and no seat logs) starts on the public view whatever is asked (there is no hand to show).
    """

    def __init__(self, replay: Replay, pov: PointOfView = None, *, title: str = "", colour_blind: bool = False,
                 input: Input | None = None, output: Output | None = None) -> None:
        self.replay = replay
        self.title = title or replay.table_id
        #: The points of view V goes through, in order: only the public one without fair shuffles.
        self.povs: list[PointOfView] = [None]
        if replay.has_hands:  # a fair table's, or a league game's (its seat logs)
            self.povs += [*range(replay.seat_count), OPEN]
        self.pov: PointOfView = pov if pov in self.povs else None
        self.refused_pov = self.pov != pov  # asked for hands a plain shuffle cannot show
        self.model = GameModel(seat=self._seat(), connection=ConnectionState.CONNECTED)
        self.step = 0
        #: The steps a move ends at (1-based event numbers): each told in words, with what follows it.
        self.stops = _stops(replay.events)
        self.screen = GameScreen(
            self.model, host_clock=self._time_of_step, colour_blind=colour_blind, input=input, output=output,
            extra_keys={"left": lambda: self.move(-1), "right": lambda: self.move(1),
                        "pageup": lambda: self.move(-10), "pagedown": lambda: self.move(10),
                        "home": lambda: self.go(1), "end": lambda: self.go(len(self.replay)),
                        "v": self.next_view},
            extra_help=_HELP, extra_panel=self.render_panel,
        )
        self.go(self.first_play)

    @property
    def first_play(self) -> int:
        """The step the replay opens at: the first turn of the first round (the set-up behind it)."""
        first = next((i for i, e in enumerate(self.replay.events, start=1) if e.HasField("turn_started")), 1)
        return next((stop for stop in self.stops if stop >= first), first)

    def move(self, moves: int) -> None:
        """Step `moves` moves forwards (backwards when negative), from the move shown now."""
        at = bisect.bisect_right(self.stops, self.step) - 1  # the last stop at or before the step shown
        if moves < 0 and (at < 0 or self.stops[at] < self.step):
            at += 1  # between stops (Home's first event): the previous move is the one before it
        target = max(0, min(len(self.stops) - 1, at + moves))
        self.go(self.stops[target] if self.stops else self.step + moves)

    def _seat(self) -> int | None:
        return self.pov if isinstance(self.pov, int) else None

    def next_view(self) -> None:
        """V: the next point of view (public, seat 0, 1, ..., every hand open), at the same step."""
        if len(self.povs) == 1:
            self.screen.ui.hint = "public view only: " + (self.replay.hidden_reason(0) or "")
            return
        self.pov = self.povs[(self.povs.index(self.pov) + 1) % len(self.povs)]
        self.refused_pov = False
        self.go(self.step)
        self.screen.ui.hint = f"now: {pov_words(self.pov, self.replay.names)}"

    def go(self, step: int) -> None:
        """Show the table after event `step` (clamped to the log), rebuilt from the first event."""
        received = self.replay.received(self.pov)
        self.step = max(1, min(len(received), step))
        fresh = GameModel(seat=self._seat(), connection=ConnectionState.CONNECTED)
        for event in received[: self.step]:
            fresh.apply(event)
        for item in dataclasses.fields(GameModel):  # in place: the screen renders this very object
            setattr(self.model, item.name, getattr(fresh, item.name))
        # The whole log passed the Verifier when the replay was built: the header says how many checks.
        self.model.fairness_on = self.replay.is_fair
        self.model.fairness_checks = sum(self.replay.verifier.checks.values())
        self.model.table_name = self.model.table_name or self.title
        move = bisect.bisect_right(self.stops, self.step)
        self.screen.ui.status = (f"move {move}/{len(self.stops)} · {pov_words(self.pov, self.replay.names)} · "
                                 f"event {self.step}/{len(received)} · ←→ V ? Q")

    def snapshot(self) -> Snapshot:
        """The replay's own fold of the current step for the current point of view."""
        return self.replay.snapshots(self.pov)[self.step - 1]

    def render_panel(self) -> StyleAndTextTuples:
        """Above the log: every seat's cards in the open view, and why a view hides what it does."""
        lines: list[StyleAndTextTuples] = []
        snapshot = self.snapshot()
        if self.pov is OPEN:
            width = max((len(seat.name[:14]) for seat in snapshot.seats), default=0)
            turn = self.model.seat_to_act  # the table's marker, so both say the same
            for seat in snapshot.seats:
                line: StyleAndTextTuples = [("class:turn" if seat.seat == turn else "",
                                             f" {'▶' if seat.seat == turn else ' '}{seat.seat:>2} "
                                             f"{seat.name[:14]:<{width}} {seat.count:>2} ")]
                known = sorted(face_of(card) for card in seat.cards if card is not None)
                if not known:
                    line.append(("class:dim", f"{seat.count} hidden card(s)" if seat.count else "(no cards)"))
                for face in known:
                    line += render_card(face, self.screen.ui)
                if 0 < len(known) < seat.count:
                    line.append(("class:dim", f" +{seat.count - len(known)} hidden"))
                lines.append(line)
        reason = snapshot.hidden_reason if self.pov is not None else None
        if self.refused_pov or len(self.povs) == 1:
            reason = self.replay.hidden_reason(0)
        if reason:
            lines.append([("class:alert", " " + reason)])
        out: StyleAndTextTuples = []
        for line in lines:
            out += [*line, ("", "\n")]
        return out[:-1]

    def _time_of_step(self) -> float:
        received = self.replay.received(self.pov)
        if not received:
            return 0.0
        stamp = received[self.step - 1].time
        return stamp.seconds + stamp.nanos / 1e9

    async def run(self) -> None:
        """Show the replay until Q."""
        await self.screen.application.run_async()
