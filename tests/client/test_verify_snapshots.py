"""The Verifier and a stream resumed with a snapshot (the SDK does so after the host lost events).

A snapshot's view shows the seat's hand, the top card and the open windows' cards as openings, so the
Verifier checks them: each against its commitment, and against the slot the round's pile published
when this copy saw the pile. It cannot go on checking the round from a snapshot, which shows no other
seat's hand, so it starts again with the next round's shuffle, and a finished log still verifies. A
forged snapshot (a changed salt, another face, a commitment moved to another slot) is caught.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fair_games import TABLE_ID, new_table, stream

from unonet.client.verify import Verifier
from unonet.fairness import ChangedSalt, UnknownCommitment, VerificationError, WrongCard
from unonet.host import journal
from unonet.v1 import cards_pb2, events_pb2

SEAT = 0


@pytest.fixture(scope="module")
def played() -> tuple[list[events_pb2.Event], events_pb2.Event]:
    """Seat 0's whole stream of a match of host bots that lasts two rounds or more, and a snapshot of its
    view taken mid-round. The fair shuffle deals from fresh entropy, so about one match in 40 is won in
    its first round (150 points): such a match is played again, up to 20 times."""
    for _ in range(20):
        played = _play_a_match()
        if played is not None:
            return played
    raise AssertionError("20 matches in a row ended in their first round")


def _play_a_match() -> tuple[list[events_pb2.Event], events_pb2.Event] | None:
    """One match's stream and snapshot (`played`), or None when the match ended in its first round."""
    host, table, clock = new_table(7, seats=3, target_score=150)
    table.record(journal.Start(fill=True))
    snapshot = None
    for _ in range(200_000):
        assert table.match is not None
        if table.match.is_over:
            break
        game = table.match.game if table.match.round_no else None
        if (snapshot is None and game is not None and table.shuffle is None and table.match.round_no == 1
                and len(game.discard) >= 6 and len(game.hands[SEAT]) >= 2):
            view = table.view(SEAT)
            snapshot = events_pb2.Event(number=view.event_number, snapshot=events_pb2.Snapshot(view=view))
        wait = host._step(table)
        assert wait is not None
        if wait > 0:
            clock[0] += int(wait * 1e9) + 1
    assert snapshot is not None and table.match is not None and table.match.is_over
    if table.match.round_no < 2:  # the record must start again with a later round
        return None
    return stream(table, SEAT), snapshot


def _resume(events: list[events_pb2.Event], snapshot: events_pb2.Event, *, lost: int) -> Verifier:
    """A copy that saw the events up to `lost` before the snapshot, then resumed with it."""
    verifier = Verifier(TABLE_ID, SEAT)
    for event in events:
        if event.number <= snapshot.number - lost:
            verifier.feed(event)
    verifier.feed(snapshot)
    return verifier


def test_a_resumed_stream_checks_the_snapshot_s_cards_and_later_rounds(played) -> None:
    events, snapshot = played
    verifier = _resume(events, snapshot, lost=4)
    shown = len(snapshot.snapshot.view.hand) + 1  # the hand and the top card, at least
    assert verifier.checks["snapshot card sits in its published slot"] >= shown
    assert verifier.checks["opening matches its commitment"] >= shown
    drawn = verifier.checks["card comes from the top of a committed pile"]
    for event in events:
        if event.number > snapshot.number:
            verifier.feed(event)
    verifier.finish()  # the interrupted round's seed is not required; every later round's is checked
    assert verifier.checks["card comes from the top of a committed pile"] > drawn
    assert sum(state.revealed for state in verifier.rounds.values()) >= 1


def test_a_stream_started_with_a_snapshot_checks_its_openings(played) -> None:
    events, snapshot = played
    verifier = Verifier(TABLE_ID, SEAT)
    verifier.feed(snapshot)
    assert verifier.checks["opening matches its commitment"] >= len(snapshot.snapshot.view.hand) + 1
    assert verifier.checks["snapshot card sits in its published slot"] == 0  # it saw no pile published
    for event in events:
        if event.number > snapshot.number:
            verifier.feed(event)
    verifier.finish()


Change = Callable[[cards_pb2.CardRef, cards_pb2.CardRef], None]


def _forged(snapshot: events_pb2.Event, change: Change) -> events_pb2.Event:
    forged = events_pb2.Event()
    forged.CopyFrom(snapshot)
    hand = forged.snapshot.view.hand
    change(hand[0], hand[1])
    return forged


@pytest.mark.parametrize(("lie", "error"), [
    ("salt", ChangedSalt),
    ("face", WrongCard),
    ("slot", UnknownCommitment),
])
def test_a_forged_snapshot_is_caught(played, lie: str, error: type[VerificationError]) -> None:
    events, snapshot = played

    def change(card: cards_pb2.CardRef, other: cards_pb2.CardRef) -> None:
        if lie == "salt":
            card.salt = bytes(32)
        elif lie == "face":
            card.card.rank = cards_pb2.RANK_ONE if card.card.rank != cards_pb2.RANK_ONE else cards_pb2.RANK_TWO
            card.card.color = cards_pb2.COLOR_RED if card.card.color != cards_pb2.COLOR_RED else cards_pb2.COLOR_BLUE
        else:  # another card's commitment and opening, claimed for a neighbouring slot of its pile
            card.CopyFrom(other)
            card.position = other.position + (1 if other.position == 0 else -1)

    assert len(snapshot.snapshot.view.hand) >= 2
    with pytest.raises(error):
        _resume(events, _forged(snapshot, change), lost=4)
