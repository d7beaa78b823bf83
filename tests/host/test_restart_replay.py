"""A restarted `unonet serve` gives back exactly the events it sent, the match's start included.

The start is where a table's events used to depend on more than its journal: MatchStarted lists each
seat as connected and with its latency, which a table that starts by itself (its last seat joined,
as `unonet host` plays) read from the streams open at that instant and from the seats' pings, neither
journalled. Each test plays the start the way a person meets it (a seat's stream open and its client
pinging before the match begins), by StartTable and by the last join, then stops the host process
with SIGTERM or SIGKILL and starts it again on its database: no DATA LOSS may be logged, every seat
resumes after the last event it saw, each seat's stream read again from event 1 is, byte for byte,
what that seat was sent, and a client that goes on pinging (its first ping to the new process reporting
one the old process took) is not refused.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from host_process import TIMEOUT, Running, host_process, view

from unonet.host import journal
from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import TableSettings
from unonet.v1 import (
    events_pb2,
    lobby_service_pb2,
    time_service_pb2,
    time_service_pb2_grpc,
    watch_service_pb2,
)

REPORTED_DELAY_NS = 80_000_000  # each ping's response is reported as arriving 80 ms after it was sent


class Pinging:
    """A seat's client pinging as the SDK does, each ping reporting the previous one's arrival, across
    the host's restarts: the host then knows the seat's latency (the reported arrival makes it tens of
    milliseconds even on loopback)."""

    def __init__(self, table_id: str, token: str) -> None:
        self.table_id, self.token = table_id, token
        self.sequence = 0
        self.previous: time_service_pb2.PingReport | None = None

    async def ping(self, host: Running, times: int = 3) -> None:
        stub = time_service_pb2_grpc.TimeServiceStub(host.channel)
        for _ in range(times):
            self.sequence += 1
            sent = Timestamp()
            sent.GetCurrentTime()
            request = time_service_pb2.PingRequest(table_id=self.table_id, token=self.token,
                                                   sequence=self.sequence, client_send_time=sent)
            if self.previous is not None:
                request.previous.CopyFrom(self.previous)
            await stub.Ping(request, timeout=TIMEOUT)  # after a restart, refused BAD_PING_REPORT before the fix
            arrived = Timestamp()
            arrived.FromNanoseconds(sent.ToNanoseconds() + REPORTED_DELAY_NS)
            self.previous = time_service_pb2.PingReport(sequence=self.sequence, client_receive_time=arrived)


class Seat:
    """One seat's event stream, every response kept as the bytes it arrived as."""

    def __init__(self, host: Running, table_id: str, token: str, after: int = 0) -> None:
        self.token = token
        self.pinging = Pinging(table_id, token)
        self.raw: list[bytes] = []
        self.stream = host.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table_id, token=token, after_event_number=after))

    @property
    def events(self) -> list[events_pb2.Event]:
        return [watch_service_pb2.WatchEventsResponse.FromString(raw).event for raw in self.raw]

    async def read_until(self, last: int) -> None:
        async with asyncio.timeout(TIMEOUT):
            while not self.raw or self.events[-1].number < last:
                response = await self.stream.read()
                assert response is not None, "the stream ended"
                self.raw.append(response.SerializeToString())

    async def read_until_payload(self, payload: str) -> events_pb2.Event:
        async with asyncio.timeout(TIMEOUT):
            while True:
                response = await self.stream.read()
                assert response is not None, f"the stream ended before a {payload}"
                self.raw.append(response.SerializeToString())
                if response.event.WhichOneof("payload") == payload:
                    return response.event


async def _join(host: Running, table_id: str, name: str) -> str:
    joined = await host.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)
    return joined.token


async def _play_a_start(host: Running, by: str) -> tuple[str, list[Seat]]:
    """A table whose first seat has its stream open and pings before the match starts, started `by`
    the last join or StartTable (then the second seat streams and pings too). Returns the table and
    its seats' streams, read up to the table's last event."""
    created = await host.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="restarted", preset="standard", seat_count=2, manual_start=by == "start_table"), timeout=TIMEOUT)
    table_id = created.table.table_id
    seats = [Seat(host, table_id, await _join(host, table_id, "ann"))]
    await seats[0].read_until_payload("seat_connection_changed")
    await seats[0].pinging.ping(host)
    bob = await _join(host, table_id, "bob")  # by the last join: the match starts here
    if by == "start_table":
        seats.append(Seat(host, table_id, bob))
        await seats[1].read_until_payload("seat_connection_changed")
        await seats[1].pinging.ping(host)
        await host.lobby.StartTable(lobby_service_pb2.StartTableRequest(
            table_id=table_id, owner_token=created.owner_token), timeout=TIMEOUT)
    else:
        seats.append(Seat(host, table_id, bob))
    started = await seats[0].read_until_payload("match_started")
    shown = [(seat.connected, seat.latency_ms) for seat in started.match_started.seats]
    assert shown[0][0] and shown[0][1] >= 20, f"the first seat streamed and pinged before the start: {shown}"
    if by == "start_table":
        assert shown[1][0] and shown[1][1] >= 20, shown
    last = (await view(host, table_id, seats[0].token)).event_number
    for seat in seats:
        await seat.read_until(last)
    return table_id, seats


@pytest.mark.parametrize("by", ["last_join", "start_table"])
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
async def test_a_restarted_host_gives_back_the_events_it_sent_from_the_start(
        tmp_path: Path, by: str, stop: signal.Signals) -> None:
    db, log = tmp_path / "host.db", tmp_path / "host.log"
    async with host_process(db, log) as first:
        table_id, seats = await _play_a_start(first, by)
        first.process.send_signal(stop)
        code = await asyncio.wait_for(first.process.wait(), TIMEOUT)
        assert code == (0 if stop is signal.SIGTERM else -signal.SIGKILL), log.read_text(errors="replace")
        for seat in seats:
            seat.stream.cancel()

    async with host_process(db, log) as second:
        assert second.restored == 1
        assert "DATA LOSS" not in log.read_text(errors="replace")
        for seat in seats:
            await seat.pinging.ping(second, times=1)  # its first ping reports one the host took before
            seen = seat.events[-1].number
            resumed = Seat(second, table_id, seat.token, after=seen)  # refused DATA_LOSS before the fix
            await resumed.read_until(seen + 1)
            assert resumed.events[0].number == seen + 1
            resumed.stream.cancel()
            again = Seat(second, table_id, seat.token)
            await again.read_until(seen)
            assert again.raw[:len(seat.raw)] == seat.raw, "a seat's stream read again is what it was sent"
            again.stream.cancel()
        assert "DATA LOSS" not in log.read_text(errors="replace")


@pytest.mark.parametrize("start", ["last_join", "start_v1", "start_v2"])
async def test_starts_journalled_before_their_measurements_replay_as_they_were_sent(
        tmp_path: Path, start: str, caplog: pytest.LogCaptureFixture) -> None:
    """A journal an earlier host wrote has no `measured` part: its start replays to the MatchStarted it
    stored as it sent it, not to the streams and pings of the replay's instant (none)."""
    db = tmp_path / "host.db"
    store = SqliteStore(db)
    host = Host(store)
    table = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={},
                                            manual_start=start != "last_join"))
    table.join("ann", None, False)
    table.subscribe(0)  # a stream open, and pings, before the start
    now = host.clock_ns()
    table.races.ping(0, 1, now, now + 1_000, now + 2_000, None)
    table.races.ping(0, 2, now + 1_000_000, now + 1_001_000, now + 1_002_000, (1, now + REPORTED_DELAY_NS))
    table.join("bob", None, False)
    if start != "last_join":
        table.record(journal.Start(version=1 if start == "start_v1" else 2))
    sent = [table.render_bytes(entry, None, cache=False) for entry in table.log]
    started = next(event for event in map(events_pb2.Event.FromString, sent) if event.HasField("match_started"))
    assert started.match_started.seats[0].connected and started.match_started.seats[0].latency_ms >= 20
    await host.stop()
    store.close()
    with sqlite3.connect(db) as connection:  # the journal as a host before `measured` wrote it
        changed = connection.execute("UPDATE journal SET entry = json_remove(entry, '$.measured')"
                                     " WHERE json_extract(entry, '$.measured') IS NOT NULL").rowcount
    assert changed == 1

    restored = Host(SqliteStore(db))
    try:
        assert restored.restore() == 1
        again = restored.tables[table.table_id]
        assert again.diverged == [] and "DATA LOSS" not in caplog.text
        assert [again.render_bytes(entry, None, cache=False) for entry in again.log][:len(sent)] == sent
    finally:
        await restored.stop()
        restored.store.close()
