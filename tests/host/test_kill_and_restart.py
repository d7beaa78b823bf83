"""Nothing lost: a real `unonet serve` process killed with SIGKILL mid-game and started again on its database.

Each test runs the host as a subprocess (tests/support/host_process.py) and talks to it over real
gRPC. After the kill, the restarted host must have the table back, accept the same tokens, continue
the event numbering with no gap and no duplicate, answer a retried command id with the first result
(not apply it again), and go on playing.
"""

from __future__ import annotations

import asyncio
import signal

from host_process import TIMEOUT, Running, host_process, new_table, play_one, read_until, view

from unonet.v1 import (
    lobby_service_pb2,
    play_service_pb2,
    watch_service_pb2,
)


async def test_sigkill_mid_game_loses_nothing_and_applies_nothing_twice(tmp_path) -> None:
    db, log = tmp_path / "host.db", tmp_path / "host.log"

    async with host_process(db, log) as first:
        assert first.restored == 0
        table_id, tokens = await new_table(first)
        streams = [first.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=token))
                   for token in tokens]
        seen: list[list] = [[], []]
        for i in range(5):
            _, request, result = await play_one(first, table_id, tokens, f"move-{i}")
        for stream, events in zip(streams, seen, strict=True):
            await read_until(stream, result.last_event_number, events)
        hands = [list((await view(first, table_id, token)).hand) for token in tokens]
        last_seen = result.last_event_number
        assert [e.number for e in seen[0]] == list(range(1, last_seen + 1))
        assert [e.number for e in seen[1]] == list(range(1, last_seen + 1))

        first.process.send_signal(signal.SIGKILL)
        assert await asyncio.wait_for(first.process.wait(), TIMEOUT) == -signal.SIGKILL
        for stream in streams:
            stream.cancel()

    async with host_process(db, log) as second:
        assert second.restored == 1
        listed = await second.lobby.ListTables(lobby_service_pb2.ListTablesRequest(), timeout=TIMEOUT)
        assert table_id in [t.table_id for t in listed.tables]

        # Both tokens still work and see the same state as before the kill: the only new events say
        # that both seats' streams were cut (SeatConnectionChanged).
        for seat, token in enumerate(tokens):
            v = await view(second, table_id, token)
            assert v.seat == seat and not v.is_spectator
            assert list(v.hand) == hands[seat]
        cut = await connection_events_after(second, table_id, tokens[0], last_seen)
        assert [(e.seat_connection_changed.seat, e.seat_connection_changed.connected) for e in cut] == [
            (0, False), (1, False)]
        last_seen = cut[-1].number

        # The last command retried with its command id returns its first result and changes nothing.
        again = await retry(second, request)
        assert again.result == result
        assert (await view(second, table_id, tokens[0])).event_number == last_seen

        # Each seat resumes after the last event it saw: nothing missed, and the numbering goes on.
        resumed = [second.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table_id, token=token, after_event_number=last_seen)) for token in tokens]
        _, _, next_result = await play_one(second, table_id, tokens, "after-restart")
        assert next_result.event_number > last_seen
        for stream in resumed:
            events: list = []
            await read_until(stream, next_result.last_event_number, events)
            assert [e.number for e in events] == list(range(last_seen + 1, next_result.last_event_number + 1))
            stream.cancel()

        # Play goes on.
        for i in range(4):
            _, _, later = await play_one(second, table_id, tokens, f"later-{i}")
            assert later.event_number > next_result.last_event_number  # after the closed streams' changes
            next_result = later


async def connection_events_after(host: Running, table_id: str, token: str, after: int) -> list:
    """The events after number `after` up to the table's last: a restart adds only the seats' connection
    changes (the streams cut by the kill, announced as closed; the new ones, as opened)."""
    last = (await view(host, table_id, token)).event_number
    events: list = []
    if last > after:
        stream = host.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(  # as a watcher: no seat's stream
            table_id=table_id, after_event_number=after))
        await read_until(stream, last, events)
        stream.cancel()
    return [e for e in events if e.number <= last]


async def retry(host: Running, request):
    """Send `request` again through the RPC its type belongs to."""
    by_type = {
        play_service_pb2.DrawRequest: host.play.Draw,
        play_service_pb2.PassRequest: host.play.Pass,
        play_service_pb2.PlayCardsRequest: host.play.PlayCards,
        play_service_pb2.ChooseColorRequest: host.play.ChooseColor,
    }
    return await by_type[type(request)](request, timeout=TIMEOUT)


async def test_sigterm_shuts_down_gracefully(tmp_path) -> None:
    db, log = tmp_path / "host.db", tmp_path / "host.log"
    async with host_process(db, log) as host:
        table_id, tokens = await new_table(host)
        _, _, result = await play_one(host, table_id, tokens, "before-term")
        stream = host.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[0]))
        await read_until(stream, result.last_event_number, [])
        host.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(host.process.wait(), TIMEOUT) == 0, log.read_text(errors="replace")
        stream.cancel()
    async with host_process(db, log) as again:
        assert again.restored == 1
        added = await connection_events_after(again, table_id, tokens[0], result.last_event_number)
        assert all(e.WhichOneof("payload") == "seat_connection_changed" for e in added), added
