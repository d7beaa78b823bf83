"""`SeatObserver`: the environments' observation for a seat that plays over the protocol.

A policy trained in `unonet.rl`'s environments reads `unonet.rl.observation`'s vector. At a host's table
(or in a league) a bot has only its seat's protobuf events and `SeatView`; this rebuilds the same vector
from them: the position the seat knows (`unonet.wire.knowledge.SeatTracker.position`, the bots' own
reading of a view, the unseen cards placed arbitrarily, which the vector never reads), and the public
history from the trackers the bots keep (`SeatTracker`'s discards, known cards and exclusions,
`unonet.bots.memory.TableMemory`'s colours drawn on and challenge verdicts, and the UNO calls that
stand, from the UnoCalled events until the caller's hand takes a card).
tests/rl/test_seat_observer.py holds it to the environment's own vector, decision by decision.

It reads positions where the seat must decide (`SeatTracker.position` refuses a blocking window, which
an environment offers as a chance instead).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from unonet.bots.memory import TableMemory
from unonet.engine import PLAYABLE_COLORS, Action, Game, legal_actions
from unonet.engine.cards import CARDS
from unonet.rl.actions import legal_indices
from unonet.rl.history import PublicHistory
from unonet.rl.observation import ObservationLayout
from unonet.v1 import events_pb2, views_pb2
from unonet.wire import convert
from unonet.wire.knowledge import SeatTracker

__all__ = ["SeatObserver"]

_SLOTS = {convert.color_to_pb(color): slot for slot, color in enumerate(PLAYABLE_COLORS)}


class SeatObserver:
    """Follows one seat's events (`follow`) and reads its observation at a decision (`observe`)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.layout = ObservationLayout(players)
        self.memory = TableMemory()
        self.tracker: SeatTracker | None = None
        self._pending: list[events_pb2.Event] = []
        self.uno_called = [False] * players  # as `PublicHistory.uno_called`: a call stands until the hand takes a card

    def follow(self, event: events_pb2.Event) -> None:
        """One event as the seat received it (any order of seats: the seat is learnt from its first view)."""
        self.memory.follow(event)
        self._follow_uno_calls(event)
        if self.tracker is None:
            self._pending.append(event)
        else:
            self.tracker.observe(event)

    def _follow_uno_calls(self, event: events_pb2.Event) -> None:
        kind = event.WhichOneof("payload")
        called = self.uno_called
        if kind == "uno_called" and event.uno_called.seat < self.players:
            called[event.uno_called.seat] = True
        elif kind == "cards_drawn" and event.cards_drawn.count and event.cards_drawn.seat < self.players:
            called[event.cards_drawn.seat] = False
        elif kind in ("round_started", "hands_rotated"):
            self.uno_called = [False] * self.players
        elif kind == "hands_swapped":
            for seat in (event.hands_swapped.seat, event.hands_swapped.target_seat):
                if seat < self.players:
                    called[seat] = False
        elif kind == "cards_exchanged":
            for seat in (event.cards_exchanged.seat, event.cards_exchanged.target_seat):
                if seat < self.players:
                    called[seat] = False

    def observe(self, view: views_pb2.SeatView) -> tuple[npt.NDArray[np.uint8], Game, dict[int, Action]]:
        """The seat's observation vector at `view`, the position it knows, and its legal indices there.

        Raises MalformedAction (BAD_POSITION) as `SeatTracker.position` does.
        """
        seat = view.seat
        if self.tracker is None:
            self.tracker = SeatTracker(seat)
            for event in self._pending:
                self.tracker.observe(event)
            self._pending.clear()
        game, _knowledge = self.tracker.position(view)
        history = self._history(view, game)
        observation = self.layout.encode(game, history, seat, offer=False)
        legal = legal_indices(legal_actions(game, seat), seat, self.players, game.windows)
        return observation, game, legal

    def _history(self, view: views_pb2.SeatView, game: Game) -> PublicHistory:
        tracker, memory, n = self.tracker, self.memory, self.players
        assert tracker is not None
        seat = view.seat
        history = PublicHistory(n, game.ruleset.wild_draw_four)
        for card in game.discard:
            history.discard[card.index] += 1
        for other, cards in tracker.known.items():
            if other != seat and cards.total():
                row = bytearray(len(CARDS))
                for card, count in cards.items():
                    row[card.index] += count
                history.known[seat][other] = row
                history.any_known = True
        for other, ban in tracker.excluded.items():
            if other != seat and ban:
                history.excluded[other] = bytes(1 if card in ban else 0 for card in CARDS)
        for other, colors in memory.lacks.items():
            for color in colors:
                slot = _SLOTS.get(color)
                if slot is not None and other < n:
                    history.lacks[other][slot] = 1
        for other in range(n):
            history.verdicts[other] = [memory.guilty[other], memory.innocent[other]]
        history.any_verdicts = any(guilty or innocent for guilty, innocent in history.verdicts)
        history.uno_called = list(self.uno_called)
        return history

    def __repr__(self) -> str:
        return f"SeatObserver(players={self.players}, seat={None if self.tracker is None else self.tracker.seat})"
