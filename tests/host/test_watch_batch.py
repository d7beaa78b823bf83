"""WatchEventsRequest.batch over real gRPC: several events per message, the same events as one per message."""

from __future__ import annotations

import asyncio
import time

from google.protobuf import duration_pb2
from host_stubs import TIMEOUT, contiguous, read_until, two_player_table, view

from unonet.v1 import lobby_service_pb2, play_service_pb2, watch_service_pb2


async def read_batched_until(stream, last: int) -> tuple[list, int]:
    events, messages = [], 0
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            messages += 1
            assert not response.HasField("event")
            assert 1 <= len(response.events) <= 64
            events.extend(response.events)
            if events[-1].number >= last:
                return events, messages
    raise AssertionError(f"the stream ended before event {last}")


async def _draw_a_few(stubs, table_id: str, tokens: list[str], count: int) -> None:
    for i in range(count):
        v = await view(stubs, table_id, tokens[0])
        token = tokens[v.seat_to_act]
        legal = (await view(stubs, table_id, token)).legal_actions
        if legal.HasField("draw"):
            await stubs.play.Draw(play_service_pb2.DrawRequest(
                table_id=table_id, token=token, command_id=f"d{i}"), timeout=TIMEOUT)
        elif legal.pass_turn:
            await stubs.play.Pass(play_service_pb2.PassRequest(
                table_id=table_id, token=token, command_id=f"p{i}"), timeout=TIMEOUT)


async def test_a_batched_stream_carries_the_same_events_as_an_unbatched_one(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    live = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[0], batch=8))
    await _draw_a_few(stubs, table_id, tokens, 6)
    last = (await view(stubs, table_id, tokens[0])).event_number

    single = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[0]))
    expected = await read_until(single, last)
    single.cancel()
    backlog = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[0], batch=8))
    replayed, messages = await read_batched_until(backlog, last)
    backlog.cancel()
    streamed, _ = await read_batched_until(live, last)
    live.cancel()

    assert contiguous(expected, 1) and expected[-1].number == last
    assert replayed == expected and streamed == expected  # cards, legal actions and all
    assert messages <= -(-last // 8)  # a backlog goes out 8 events to a message
    assert any(event.HasField("your_legal_actions") for event in streamed)


async def test_a_batched_resume_and_snapshot_follow_the_same_rules(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    await _draw_a_few(stubs, table_id, tokens, 3)
    last = (await view(stubs, table_id, tokens[1])).event_number
    resumed = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[1], after_event_number=last - 2, batch=2))
    events, _ = await read_batched_until(resumed, last)
    resumed.cancel()
    assert contiguous(events, last - 1) and events[-1].number == last

    snap = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[1], start_with_snapshot=True, batch=4))
    events, _ = await read_batched_until(snap, last)
    snap.cancel()
    # Numbered as the view it carries: `last`, or later by the seat's streams opening and closing.
    assert events[0].WhichOneof("payload") == "snapshot" and events[0].number >= last
    assert events[0].number == events[0].snapshot.view.event_number


async def test_a_delayed_spectator_gets_each_event_no_sooner_than_its_delay(stubs) -> None:
    delay_ns = 300_000_000
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=2, spectator_delay=duration_pb2.Duration(nanos=delay_ns)),
        timeout=TIMEOUT)
    table_id = created.table.table_id
    tokens = []
    for name in ("ann", "bob"):
        joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)
        tokens.append(joined.token)
    streams = [stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, batch=batch))
               for batch in (0, 8)]
    await _draw_a_few(stubs, table_id, tokens, 4)
    last = (await view(stubs, table_id, tokens[0])).event_number
    for stream in streams:
        seen = []
        async with asyncio.timeout(TIMEOUT):
            async for response in stream:
                now = time.time_ns()
                for event in response.events or [response.event]:
                    assert now >= event.time.ToNanoseconds() + delay_ns - 5_000_000, event.number
                    assert not event.HasField("your_legal_actions")
                    seen.append(event)
                if seen[-1].number >= last:
                    break
        stream.cancel()
        assert contiguous(seen, 1)
