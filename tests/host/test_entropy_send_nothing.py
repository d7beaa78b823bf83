"""docs/protocol.md, "Contributing to the shuffle": a client that cannot commit-reveal sends nothing.

Over a real server: the seat is asked (its event stream is open), never sends CommitEntropy or
RevealEntropy, and the host must list it with `revealing = false` at the commit deadline, deal without
it, and never list it as a seat that committed and withheld its reveal (`revealing = true`).
"""

from __future__ import annotations

import asyncio

from google.protobuf.duration_pb2 import Duration

from unonet.fairness import commit_seat_entropy
from unonet.v1 import events_pb2, lobby_service_pb2, play_service_pb2, table_pb2, watch_service_pb2

REACTION_S = 1.0  # each phase's deadline, enforced by the host's driver: short, yet ample to commit in time
VALUE = bytes(range(32))


async def first_round_shuffle(stubs, *, commit: bool) -> tuple[int, list[events_pb2.Event]]:
    """Seat a player beside a bot, start, and collect the player's events up to the first deck_committed.

    With `commit`, the player commits when asked but never reveals; without, it sends nothing at all.
    """
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="silent", seat_count=2, manual_start=True,
        clock=table_pb2.ClockSettings(reaction_time=Duration(nanos=int(REACTION_S * 1e9)))), timeout=10)
    table_id = created.table.table_id
    joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="ann", role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=10)
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=joined.token))
    seen: list[events_pb2.Event] = []
    try:
        async with asyncio.timeout(10):
            async for response in stream:  # the stream is open (so the seat is asked) once an event arrives
                seen.append(response.event)
                break
            await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
                table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=10)
            async for response in stream:
                event = response.event
                seen.append(event)
                if commit and event.your_legal_actions.commit_entropy:
                    commitment = commit_seat_entropy(joined.seat, VALUE, table_id=table_id, round_no=1)
                    await stubs.play.CommitEntropy(play_service_pb2.CommitEntropyRequest(
                        table_id=table_id, token=joined.token, command_id="c", commitment=commitment), timeout=10)
                if event.HasField("deck_committed"):
                    break
    finally:
        stream.cancel()
    return joined.seat, seen


def timeouts(seen: list[events_pb2.Event]) -> list[events_pb2.ShuffleTimedOut]:
    return [e.shuffle_timed_out for e in seen if e.HasField("shuffle_timed_out")]


async def test_a_seat_that_sends_nothing_is_listed_as_not_taking_part_and_the_deal_goes_on(stubs) -> None:
    seat, seen = await first_round_shuffle(stubs, commit=False)
    committed = next(e.shuffle_committed for e in seen if e.HasField("shuffle_committed"))
    assert seat in committed.entropy_seats, "the seat was asked: its stream was open"
    assert [(list(t.seats), t.revealing) for t in timeouts(seen)] == [([seat], False)]
    assert not any(e.your_legal_actions.reveal_entropy for e in seen), "never committed, so never asked to reveal"
    assert not any(e.HasField("seat_entropy_committed") and e.seat_entropy_committed.seat == seat for e in seen)
    deck = seen[-1].deck_committed
    assert deck.round_number == 1 and seat not in deck.contributing_seats and list(deck.contributing_seats)


async def test_a_seat_that_commits_and_withholds_its_reveal_is_the_one_listed_as_revealing(stubs) -> None:
    """The contrast the page draws: committing without revealing is what `revealing = true` means."""
    seat, seen = await first_round_shuffle(stubs, commit=True)
    assert [(list(t.seats), t.revealing) for t in timeouts(seen)] == [([seat], True)]
    assert seat not in seen[-1].deck_committed.contributing_seats
