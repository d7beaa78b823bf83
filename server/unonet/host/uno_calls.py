"""Which seats' UNO calls stand, as the events told them: `SeatState.called_uno`.

A seat has called UNO for its last card when an `UnoCalled` event said so and its hand has not changed
since. The engine's `catchable` set cannot say it: a seat is also uncatchable when its hand dropped to
one card through a swap, a rotation or a five-swap (it owes no call, U1), and once the catch window on
an uncalled card closed (U3). A view showing `called_uno` there would tell a state change no event
came with (docs/protocol.md); following the engine's events keeps the view and the events alike, on a
replay too (the table appends the same events again).
"""

from __future__ import annotations

from unonet.engine import Event
from unonet.engine import events as ev

__all__ = ["UnoCalls"]


class UnoCalls:
    """Follows a table's engine events (`follow`, each in order); `has_called(seat)` says whether the
    seat's UNO call stands for the hand it holds."""

    def __init__(self) -> None:
        self._called: set[int] = set()

    def has_called(self, seat: int) -> bool:
        return seat in self._called

    def follow(self, event: Event) -> None:
        """Note a call, or forget the calls of the hands `event` changed."""
        match event:
            case ev.UnoCalled():
                self._called.add(event.seat)
            case ev.RoundStarted() | ev.HandsRotated():
                self._called.clear()
            case ev.Drew() if not event.count:
                pass  # nothing was left to draw: the hand is as it was
            case ev.Played() | ev.Drew() | ev.CardTakenBack() | ev.SwapOffered() | ev.PlayerEliminated():
                self._called.discard(event.seat)
            case ev.HandsSwapped() | ev.CardsExchanged():
                self._called.difference_update((event.seat, event.target))
            case _:
                pass
