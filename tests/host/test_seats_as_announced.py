"""A seat is what its events announced: each bot seated by StartTable announced before the match (and a
start journalled before bots were announced replaying without them), a seat shown connected as its
last connection event said and that event the last of its own stream's backlog, an eliminated seat
holding no cards from its PlayerEliminated on. Promises a client written from the protos and
docs/protocol.md alone relies on; over real gRPC on 127.0.0.1:0 where a client meets them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from host_stubs import TIMEOUT, create, eventually, join

from unonet.bots.kinds import DEFAULT_BOT_KIND
from unonet.engine import events as ev
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import events_pb2, lobby_service_pb2, watch_service_pb2


async def events_until(stubs: Any, table_id: str, token: str, last: int) -> list[events_pb2.Event]:
    """Every event of the table from the first up to number `last`, as `token` reads them."""
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=token))
    seen: list[events_pb2.Event] = []
    try:
        async with asyncio.timeout(TIMEOUT):
            async for response in stream:
                seen.append(response.event)
                if response.event.number >= last:
                    break
    finally:
        stream.cancel()
    return seen


async def test_start_table_filling_with_bots_announces_each_bot_before_the_match(stubs: Any) -> None:
    """events.proto BotSeated: "a bot took an empty seat (AddBots, or StartTable filling the table)"."""
    table_id, owner = await create(stubs, seat_count=3, manual_start=True)
    token = await join(stubs, table_id, "ann")
    started = await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, fill_with_bots=True), timeout=TIMEOUT)
    events = await events_until(stubs, table_id, token, started.event_number)
    kinds = [event.WhichOneof("payload") for event in events]
    assert kinds[-1] == "match_started", "StartTable's event_number names MatchStarted"
    seated = [event.bot_seated for event in events if event.HasField("bot_seated")]
    assert [(bot.seat, bot.name, bot.bot_kind) for bot in seated] == [(1, "bot-1", DEFAULT_BOT_KIND),
                                                                      (2, "bot-2", DEFAULT_BOT_KIND)]
    named = {seat.seat: seat.name for seat in events[-1].match_started.seats}
    assert all(named[bot.seat] == bot.name for bot in seated), "the names agree with MatchStarted's"


def test_a_start_journalled_before_bots_were_announced_replays_without_them() -> None:
    """An entry a host recorded before must replay to the events it produced then (no BotSeated)."""
    host = Host(MemoryStore())
    host._ensure_driver = lambda table: None  # type: ignore[method-assign]  # nothing runs by itself here
    for entry, expected in ((journal.decode({"k": "start", "fill": True, "bot_kind": ""}), 0),
                            (journal.Start(fill=True, version=2), 2)):
        table = host.create_table(TableSettings(name="t", seat_count=3, preset="standard", overrides={},
                                                manual_start=True))
        table.record(journal.Join(0, "ann", "tok"))
        produced = table.record(entry)
        kinds = [e.event.WhichOneof("payload") for e in produced if isinstance(e.event, events_pb2.Event)]
        assert kinds.count("bot_seated") == expected
        assert kinds.index("match_started") == expected, "the bots are announced before the match starts"


def connection_events(table: Table) -> list[tuple[int, bool]]:
    return [(e.event.seat_connection_changed.seat, e.event.seat_connection_changed.connected) for e in table.log
            if isinstance(e.event, events_pb2.Event) and e.event.HasField("seat_connection_changed")]


def test_a_view_shows_a_seat_connected_as_its_last_connection_event_said() -> None:
    """A snapshot numbered N must agree with events 1..N: a stream that closed is announced at the
    table's next step, and until then the view still shows the seat connected, so a client that starts
    from the snapshot and then reads the disconnection sees the seat alternate, not disconnect twice."""
    host = Host(MemoryStore())
    host._ensure_driver = lambda table: None  # type: ignore[method-assign]  # the test steps the table itself
    table = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={}))
    for seat, name in enumerate(("ann", "bob")):
        table.record(journal.Join(seat, name, f"tok{seat}"))
    stream = table.subscribe(0)
    assert connection_events(table) == [(0, True)] and table.seat_states()[0].connected
    table.unsubscribe(stream)
    assert table.seat_states()[0].connected, "the closing is not announced yet: the view agrees with the events"
    table.sync_connections()
    assert connection_events(table) == [(0, True), (0, False)] and not table.seat_states()[0].connected
    again = table.subscribe(0)  # reopened: announced at once, before the stream reads anything
    assert connection_events(table)[-1] == (0, True) and table.seat_states()[0].connected
    table.unsubscribe(again)
    table.subscribe(0)  # closed and reopened between two steps: nothing to announce, still alternating
    table.sync_connections()
    assert connection_events(table) == [(0, True), (0, False), (0, True)]


async def test_a_seats_own_connection_event_is_the_last_of_its_streams_backlog(stubs: Any) -> None:
    """events.proto and the guide agree: the opening is the last event of the stream's backlog (the
    stream reads it), and a stream started with a snapshot gets a view that includes it."""
    table_id, owner = await create(stubs, seat_count=3, manual_start=True)
    token = await join(stubs, table_id, "ann")
    await stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(table_id=table_id, owner_token=owner), timeout=TIMEOUT)
    last = (await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
            ).table.last_event_number
    backlog = await events_until(stubs, table_id, token, last + 1)
    assert [e.number for e in backlog] == list(range(1, last + 2))
    assert backlog[-1].seat_connection_changed == events_pb2.SeatConnectionChanged(seat=0, connected=True)
    await eventually(lambda: not stubs.host.tables[table_id].seats[0].shown_connected, "the closing announced")
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=token, start_with_snapshot=True))
    try:
        first = (await asyncio.wait_for(stream.read(), TIMEOUT)).event
    finally:
        stream.cancel()
    # The opening (last + 2 after the closing, last + 3) is in the snapshot's view, not after it.
    assert first.HasField("snapshot") and first.number == last + 3
    assert first.snapshot.view.seats[0].connected




def test_an_eliminated_seat_holds_no_cards_from_its_player_eliminated_event_on() -> None:
    """events.proto PlayerEliminated: the seat's cards leave play with it. A view after that event shows
    the seat eliminated with no cards (hosts before showed the ended round's count, then 0 at the next
    deal with no event saying so)."""
    clock = [1_700_000_000_000_000_000]
    host = Host(MemoryStore(), clock_ns=lambda: clock[0])
    host._ensure_driver = lambda table: None  # type: ignore[method-assign]  # the test steps the driver itself
    settings = TableSettings(name="t", seat_count=4, preset="standard", manual_start=True,
                             overrides={"scoring": "elimination", "target_score": 30})
    table = host.create_table(settings, seed=5)
    table.record(journal.Start(fill=True, version=2))
    checked = 0
    for _ in range(200_000):
        last = table.last_number
        if table.match is not None and table.match.is_over:
            break
        wait = host._step(table)
        assert wait is not None, "the table waits for nothing but the match is not over"
        clock[0] += int(wait * 1e9) + 1 if wait > 0 else 0
        new = [e for e in table.log if e.number > last]
        out = {e.event.seat for e in new if isinstance(e.event, ev.PlayerEliminated)}
        for seat_state in table.seat_states():
            if seat_state.seat in out:
                assert seat_state.eliminated and seat_state.hand_size == 0, seat_state
                checked += 1
    assert table.match is not None and table.match.is_over
    assert checked >= 2, "the match eliminated seats by score"
