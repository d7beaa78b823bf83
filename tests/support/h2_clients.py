"""Raw HTTP/2 clients (the `h2` library) that open one WatchEvents stream and then misbehave as no gRPC
library lets a client misbehave: a stream whose flow-control window never reopens on a connection
that stays healthy, a connection whose socket is never read again (the TCP-level stall), and a reader
that reads, slower than the table plays. Loopback only."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import socket
import struct
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.settings

from unonet.v1 import errors_pb2, watch_service_pb2

PATH = "/unonet.v1.WatchService/WatchEvents"


@dataclass
class RawStream:
    """One WatchEvents stream on its own raw HTTP/2 connection."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    connection: h2.connection.H2Connection
    stream_id: int
    received: int = 0  # bytes of DATA received
    trailers: dict[str, str] = field(default_factory=dict)
    reset: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    acknowledge: bool = False  # give the window back as data arrives
    pause_s: float = 0.0  # a slow reader: the pause after each DATA frame
    task: asyncio.Task[None] | None = None

    @property
    def reason(self) -> str:
        """The ErrorDetail reason in the trailers, if any came."""
        raw = self.trailers.get("unonet-error-bin", "")
        if not raw:
            return ""
        return errors_pb2.ErrorDetail.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4))).reason

    def start_reading(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._read())

    def open_window(self) -> None:
        """Reopen the window (and the connection's) and acknowledge whatever comes from now on."""
        self.acknowledge = True
        self.connection.increment_flow_control_window(1 << 24, self.stream_id)
        self.connection.increment_flow_control_window(1 << 24)
        self.writer.write(self.connection.data_to_send())

    async def _read(self) -> None:
        while not self.ended.is_set():
            data = await self.reader.read(65536)
            if not data:
                self.ended.set()
                return
            for event in self.connection.receive_data(data):
                if isinstance(event, h2.events.DataReceived):
                    self.received += len(event.data)
                    if self.pause_s:
                        await asyncio.sleep(self.pause_s)
                    if self.acknowledge:
                        self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.TrailersReceived):
                    self.trailers = {k.decode(): v.decode() for k, v in event.headers}
                elif isinstance(event, h2.events.StreamReset):
                    self.reset = True
                if isinstance(event, h2.events.StreamEnded | h2.events.StreamReset | h2.events.ConnectionTerminated):
                    self.ended.set()
            self.writer.write(self.connection.data_to_send())

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


async def open_stream(port: int, request: watch_service_pb2.WatchEventsRequest, *, window: int,
                      receive_buffer: int | None = None) -> RawStream:
    """Dial 127.0.0.1:`port`, announce a stream window of `window` bytes, and send the request."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if receive_buffer is not None:
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    connection.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    stream_id = connection.get_next_available_stream_id()
    connection.send_headers(stream_id, [
        (":method", "POST"), (":scheme", "http"), (":path", PATH), (":authority", f"127.0.0.1:{port}"),
        ("content-type", "application/grpc"), ("te", "trailers")])
    body = request.SerializeToString()
    connection.send_data(stream_id, b"\0" + struct.pack(">I", len(body)) + body, end_stream=True)
    writer.write(connection.data_to_send())
    await writer.drain()
    return RawStream(reader, writer, connection, stream_id)
