"""The commonest events' bytes, written without building a message (event_bytes.py), are exactly protobuf's
serialization of the message the log would build: the stored renderings are linked into the log's head chain
and rendered again at a restart, so a byte of difference would be a table that no longer restores."""

from __future__ import annotations

import collections
import os

import pytest
from played_tables import played_table

from unonet.engine import PRESETS
from unonet.engine import events as ev
from unonet.engine.cards import Card, Color, Rank
from unonet.host.event_bytes import event_bytes
from unonet.host.framing import LEGAL_ACTIONS_TAG, length_delimited
from unonet.wire import convert
from unonet.wire.refs import EventRefs, Ref

WRITTEN = {ev.Played, ev.Drew, ev.TurnStarted, ev.Dealt}
EVERY_HOUSE_RULE = {"seven_o": True, "five_swap": True, "jump_in": True, "bluffing": True, "stacking": True,
                    "runs": True}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("league", [False, True], ids=["fair", "league"])
async def test_every_event_a_stream_sends_is_protobufs_own_bytes(preset: str, league: bool) -> None:
    await _check_table(preset, {}, league=league, turn_time_s=600)


@pytest.mark.parametrize("turn_time_s", [0, 600], ids=["no-clock", "clock"])
async def test_every_house_rule_with_and_without_a_clock(turn_time_s: float) -> None:
    await _check_table("standard", EVERY_HOUSE_RULE, league=False, turn_time_s=turn_time_s)


async def _check_table(preset: str, overrides: dict, *, league: bool, turn_time_s: float) -> None:
    written: collections.Counter[str] = collections.Counter()
    for seed in (1, 2):
        table = await played_table(preset, overrides, seed, league=league, turn_time_s=turn_time_s)
        if table.log[0].number == 1:  # the deal is still in memory (a long round leaves it in the store)
            written["round starts"] += 1
        for entry in table.log:
            for seat in (None, 0, 1, 2, 3):
                message = table.render(entry, seat)
                message.ClearField("your_legal_actions")  # appended to the payload's bytes, as streams send it
                legal = entry.legal.get(seat) if entry.legal is not None and seat is not None else None
                suffix = b"" if legal is None else length_delimited(LEGAL_ACTIONS_TAG, legal)
                assert table.render_bytes(entry, seat) == message.SerializeToString() + suffix, (entry.number, seat)
                if type(entry.event) in WRITTEN:
                    written[type(entry.event).__name__] += 1
    # Not vacuous: each kind written directly was met, for every receiver (the deal where it was in memory).
    assert {"Played", "Drew", "TurnStarted"} <= set(written), written
    assert ("Dealt" in written) == ("round starts" in written), written


RED_SEVEN, WILD = Card(Color.RED, Rank.SEVEN), Card(Color.BLACK, Rank.WILD)


def _ref(card: Card, position: int, deck_no: int = 0) -> Ref:
    return Ref(card, os.urandom(32), os.urandom(16), deck_no, position)


def _protobufs(event: ev.Event, seat: int | None, refs: EventRefs | None, number: int, time_ns: int,
               turn: tuple[int, int, int] | None) -> bytes:
    """What EventLog builds and serializes for the event (its `_payload`)."""
    message = convert.event_to_pb(event, seat, refs=refs)
    message.number = number
    convert.set_timestamp(message.time, time_ns)
    if turn is not None:
        started = message.turn_started
        convert.set_timestamp(started.deadline, turn[0])
        started.turn_time.FromNanoseconds(turn[1])
        started.time_bank_remaining.FromNanoseconds(turn[2])
    return message.SerializeToString()


EDGES = [
    # Zeros everywhere protobuf leaves a default out: seat 0, hand 0, the first pile's position 0.
    (ev.Played(0, (RED_SEVEN,)), EventRefs(((_ref(RED_SEVEN, 0),),)), None),
    (ev.Played(3, (RED_SEVEN, RED_SEVEN), jump_in=True, hand_size=2, called_uno=True, window=300), None, None),
    (ev.Played(1, (WILD,), run_cut=True, window=7), EventRefs(((_ref(WILD, 107, deck_no=3),),)), None),
    (ev.Drew(2, 2, ev.DrawReason.UNO_PENALTY, (RED_SEVEN, WILD), 9, 0),
     EventRefs(((_ref(RED_SEVEN, 5), _ref(WILD, 0)),)), None),
    (ev.Drew(0, 4, ev.DrawReason.OBLIGATION, (), 0, 4), EventRefs(((),)), None),  # all forgiven (T5)
    (ev.Drew(3, 4, ev.DrawReason.OBLIGATION, (WILD,), 6, 3), EventRefs(((_ref(WILD, 9),),)), None),
    # Empty bytes are left out as protobuf leaves them (no real commitment is empty).
    (ev.Played(2, (WILD,), hand_size=1), EventRefs(((Ref(WILD, b"", b"", 0, 0),),)), None),
    (ev.Drew(1, 1, ev.DrawReason.TURN, (WILD,), 1, 0), None, None),
    (ev.Dealt(0, 2, (RED_SEVEN, WILD), dealer=3, draw_pile=86), EventRefs(((_ref(RED_SEVEN, 1), _ref(WILD, 5)),)),
     None),
    (ev.TurnStarted(0), None, None),
    # A clock's parts at 0 are still set: a TurnStarted with a clock always has all three.
    (ev.TurnStarted(2), None, (1_765_000_000_000_000_000, 30_000_000_000, 0)),
    (ev.TurnStarted(1), None, (1_765_000_000_999_999_999, 1_500_000_000, 12_000_000_001)),
]


@pytest.mark.parametrize(("event", "refs", "turn"), EDGES)
@pytest.mark.parametrize("number", [1, 127, 128, 2**40])
def test_edges_each_receiver(event: ev.Event, refs: EventRefs | None, turn, number: int) -> None:
    for seat in (None, 0, 1, 2, 3):
        for time_ns in (1, 1_000_000_000, 1_765_432_100_123_456_789):
            expected = _protobufs(event, seat, refs, number, time_ns, turn)
            assert event_bytes(event, seat, refs, number=number, time_ns=time_ns, turn=turn) == expected


def test_what_it_does_not_write_is_left_to_the_message() -> None:
    """Another kind, a clock on anything but a TurnStarted, a negative time, faces that are not the
    committed cards: None, and the log builds the message."""
    assert event_bytes(ev.Skipped(1), None, None, number=5, time_ns=10) is None
    assert event_bytes(ev.Played(0, (RED_SEVEN,)), None, None, number=5, time_ns=10, turn=(1, 2, 3)) is None
    assert event_bytes(ev.TurnStarted(0), None, None, number=5, time_ns=-1) is None
    mismatched = EventRefs(((_ref(RED_SEVEN, 0), _ref(WILD, 1)),))
    assert event_bytes(ev.Played(0, (RED_SEVEN,)), None, mismatched, number=5, time_ns=10) is None
