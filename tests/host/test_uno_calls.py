"""`SeatState.called_uno` follows the UnoCalled events (`unonet.host.uno_calls`): a seat shows a call only
after announcing it, and only until its hand changes; one card reached by a swap, a five-swap or a
catch window that passed is no call (U1, U3). tests/wire/test_knowledge_stress.py checks GetView against
the events after every input of many matches."""

from __future__ import annotations

from unonet.engine import Card, Color, Rank
from unonet.engine import events as ev
from unonet.host.uno_calls import UnoCalls

RED_5 = Card.of(Color.RED, Rank.FIVE)


def test_a_call_stands_until_its_callers_hand_changes():
    calls = UnoCalls()
    calls.follow(ev.Played(0, (RED_5,), hand_size=1, called_uno=True))
    calls.follow(ev.UnoCalled(0))
    assert calls.has_called(0) and not calls.has_called(1)
    calls.follow(ev.Drew(1, 1, ev.DrawReason.TURN, (RED_5,), 6))  # another hand: the call stands
    calls.follow(ev.Drew(0, 0, ev.DrawReason.TURN, (), 1))  # nothing left to draw: the hand is the same
    assert calls.has_called(0)
    calls.follow(ev.Drew(0, 1, ev.DrawReason.TURN, (RED_5,), 2))
    assert not calls.has_called(0)


def test_a_hand_of_one_card_from_a_swap_or_a_five_swap_carries_no_call():
    calls = UnoCalls()
    calls.follow(ev.UnoCalled(0))
    calls.follow(ev.HandsSwapped(0, 1))  # seat 1 now holds seat 0's one card: seat 1 never called
    assert not calls.has_called(0) and not calls.has_called(1)
    calls.follow(ev.UnoCalled(2))
    calls.follow(ev.SwapOffered(2, 1, RED_5))  # the giver's hand changed, whatever comes back
    assert not calls.has_called(2)
    calls.follow(ev.UnoCalled(3))
    calls.follow(ev.HandsRotated(1, ((), (), (), ())))
    calls.follow(ev.UnoCalled(1))
    calls.follow(ev.RoundStarted(2, 0, (0, 1, 2, 3)))
    assert not any(calls.has_called(seat) for seat in range(4))
