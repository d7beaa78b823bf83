"""Slow subscribers are cut off as documented, with raw HTTP/2 clients that stop reading (h2_clients.py).

Three kinds of slow reader against a real host on 127.0.0.1:0, its write timeout 1 s:

* the flow-control stall: the client keeps its connection healthy (reads frames, answers pings) but
  never reopens its stream's window. The host's write stays pending, so it cuts the stream; the
  status, RESOURCE_EXHAUSTED / SUBSCRIBER_TOO_SLOW, waits behind the unread data and arrives as soon
  as the client reads again;
* the TCP stall: the client never reads its socket again. The host cuts the stream the same way; no
  status can reach it, and the host ends the call without a traceback and serves everyone else;
* the slow reader: it reads, slower than the table plays, so a write waits for it longer than the
  write timeout. The host cuts it, and the status arrives in band after what it had not read yet;
* a backlog longer than a queue (a resume from event 0 of a long table) is not falling behind.

The events come from the table's own `chat` (thousands of 280-character messages, in process): the
test is about the stream, not about the RPC that produces them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import grpc
import pytest
from h2_clients import RawStream, open_stream

from unonet.host.fanout import SUBSCRIBER_QUEUE
from unonet.host.host import Host
from unonet.host.limits import Limits
from unonet.host.server import create_server
from unonet.host.table import Table
from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc, watch_service_pb2, watch_service_pb2_grpc

TIMEOUT = 20
TEXT = "x" * 280


@dataclass
class Served:
    host: Host
    port: int
    table: Table
    token: str
    watch: watch_service_pb2_grpc.WatchServiceStub

    def request(self) -> watch_service_pb2.WatchEventsRequest:
        return watch_service_pb2.WatchEventsRequest(table_id=self.table.table_id, token=self.token)

    async def chat(self, count: int, tag: str) -> None:
        for i in range(count):
            async with self.table.lock:
                self.table.chat(self.token, f"{tag}-{i}", TEXT)
            if i % 64 == 0:
                await asyncio.sleep(0)  # let the streams and the group commit run


@pytest.fixture(params=[1.0])
async def served(caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    """A host whose write timeout is 1 s, and whose hang-up time (how long a cut stream's status may wait
    behind unread data) is the parameter: 1 s unless a test asks for longer."""
    caplog.set_level(logging.INFO)
    host = Host(write_timeout_s=1.0, limits=Limits.off(), hang_up_after_s=request.param)
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name="t", seat_count=2, manual_start=True), timeout=TIMEOUT)
        token = (await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=created.table.table_id, name="eve", role=lobby_service_pb2.JOIN_ROLE_SPECTATOR),
            timeout=TIMEOUT)).token
        yield Served(host, port, host.tables[created.table.table_id], token,
                     watch_service_pb2_grpc.WatchServiceStub(channel))
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
    errors = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]  # no ExecuteBatchError, no traceback


async def eventually(predicate: Callable[[], bool], what: str) -> None:
    try:
        async with asyncio.timeout(TIMEOUT):
            while not predicate():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


async def whole_log(served: Served, last: int) -> list[int]:
    """The numbers a new stream from event 0 (64 events a message) reads up to event `last`."""
    stream = served.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=served.table.table_id, token=served.token, after_event_number=0, batch=64), timeout=TIMEOUT)
    numbers: list[int] = []
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            numbers.extend(event.number for event in response.events)
            if numbers[-1] >= last:
                break
    stream.cancel()
    return numbers


async def still_served(served: Served) -> None:
    """Another reader of the same table gets the latest event at once."""
    view = await served.watch.GetView(watch_service_pb2.GetViewRequest(
        table_id=served.table.table_id, token=served.token), timeout=TIMEOUT)
    assert view.view.event_number == served.table.last_number


@pytest.mark.parametrize("served", [TIMEOUT], indirect=True)  # it reads again well before a hang-up
async def test_a_stream_stalled_by_flow_control_is_cut_and_told_once_it_reads(served: Served) -> None:
    stream: RawStream = await open_stream(served.port, served.request(), window=1024)
    stream.start_reading()  # frames are read, pings answered: the window alone stays shut
    try:
        await eventually(lambda: len(served.table.subscribers) == 1, "the stream subscribed")
        await served.chat(400, "a")
        await eventually(lambda: not served.table.subscribers, "the stalled stream was cut off")
        assert stream.received <= 1024 + 512  # the window, and nothing more, reached it
        await still_served(served)
        stream.open_window()  # the client reads again: what was sent, then the status
        async with asyncio.timeout(TIMEOUT):
            await stream.ended.wait()
        assert stream.trailers.get("grpc-status") == str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0])
        assert stream.reason == "SUBSCRIBER_TOO_SLOW"
    finally:
        await stream.close()


async def test_a_stream_stalled_by_flow_control_that_never_reads_again_sees_its_connection_end(
        served: Served, caplog: pytest.LogCaptureFixture) -> None:
    """Its status cannot pass the data it does not read: within the hang-up time its connection is hung
    up, so the client sees its stream end (and not only when the host shuts down), and it resumes."""
    stream: RawStream = await open_stream(served.port, served.request(), window=1024)
    stream.start_reading()  # frames are read, pings answered: the window alone stays shut, for good
    try:
        await eventually(lambda: len(served.table.subscribers) == 1, "the stream subscribed")
        await served.chat(400, "a")
        await eventually(lambda: not served.table.subscribers, "the stalled stream was cut off")
        async with asyncio.timeout(TIMEOUT):  # before: never, while the host ran
            await stream.ended.wait()
        assert not stream.trailers, "no status could pass the unread data: the connection ended instead"
        assert "its connection was hung up" in caplog.text
        await still_served(served)
        last = served.table.last_number
        assert await whole_log(served, last) == list(range(1, last + 1))  # it resumes, nothing lost
    finally:
        await stream.close()


async def test_a_stream_stalled_at_the_tcp_level_is_cut_cleanly(served: Served) -> None:
    # An unbounded window: flow control never stops the host, the socket does.
    stream = await open_stream(served.port, served.request(), window=2**31 - 1, receive_buffer=4096)
    try:
        await eventually(lambda: len(served.table.subscribers) == 1, "the stream subscribed")
        subscriber = served.table.subscribers[0]
        for round_no in range(40):  # until the kernel's buffers are full and a write stays pending
            await served.chat(500, f"b{round_no}")
            if subscriber.writing_since or subscriber not in served.table.subscribers:
                break
        await eventually(lambda: not served.table.subscribers, "the stalled stream was cut off")
        assert subscriber.overflowed
        await still_served(served)
        await served.chat(100, "after")  # nothing more is queued for it
        assert subscriber.queue.qsize() == 0
    finally:
        await stream.close()


@pytest.mark.parametrize("served", [TIMEOUT], indirect=True)  # it drains what it has before a hang-up
async def test_a_reader_slower_than_the_table_is_cut_with_the_status_in_band(served: Served) -> None:
    stream = await open_stream(served.port, served.request(), window=65_535)
    stream.acknowledge, stream.pause_s = True, 0.02  # reads and gives the window back, slowly
    stream.start_reading()
    try:
        await eventually(lambda: len(served.table.subscribers) == 1, "the stream subscribed")
        await served.chat(SUBSCRIBER_QUEUE + 1000, "c")
        await eventually(lambda: not served.table.subscribers, "the slow reader was cut off")
        stream.pause_s = 0.0
        async with asyncio.timeout(TIMEOUT):
            await stream.ended.wait()
        assert not stream.reset
        assert stream.reason == "SUBSCRIBER_TOO_SLOW"
        assert stream.received < (SUBSCRIBER_QUEUE + 1000) * len(TEXT)  # it was cut before the end
        await still_served(served)
    finally:
        await stream.close()


async def test_a_backlog_longer_than_a_queue_is_not_falling_behind(served: Served) -> None:
    await served.chat(SUBSCRIBER_QUEUE + 500, "old")
    last = served.table.last_number
    assert await whole_log(served, last) == list(range(1, last + 1))  # the whole backlog, and no SUBSCRIBER_TOO_SLOW
