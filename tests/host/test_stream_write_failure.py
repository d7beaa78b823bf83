"""A stream whose write fails in gRPC's core (the call already over: its client cancelled, or its deadline
passed, while a loaded host was still writing) ends as cancelled with one log line: no traceback, no
error for gRPC to log, and the table forgets the stream (the wire fuzzer met this once under CI's load:
"ExecuteBatchError raised in core by servicer method [/unonet.v1.WatchService/WatchEvents]")."""

from __future__ import annotations

import asyncio
import logging

import pytest

from unonet.host.host import Host
from unonet.host.service import WatchService
from unonet.host.table import TableSettings
from unonet.v1 import watch_service_pb2


class ExecuteBatchError(Exception):
    """What grpc.aio's context.write raises once core takes no more batches on the call."""


class EndedCall:
    """A servicer context whose call core has already finished: every write fails."""

    def __init__(self) -> None:
        self.writes = 0

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5"

    async def write(self, data: bytes) -> None:
        self.writes += 1
        raise ExecuteBatchError("Failed \"execute_batch\": (<grpc._cython.cygrpc.SendMessageOperation>,)")


async def test_a_write_to_a_call_core_ended_ends_the_stream_as_cancelled(caplog: pytest.LogCaptureFixture) -> None:
    host = Host()
    table = host.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={},
                                            manual_start=True))
    token, _seat = table.join("ann", None, False)
    service = WatchService(host)
    context = EndedCall()
    request = watch_service_pb2.WatchEventsRequest(table_id=table.table_id, token=token)
    try:
        with caplog.at_level(logging.INFO, logger="unonet.host.service"), pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(service.WatchEvents(request, context), 10)  # type: ignore[arg-type]
    finally:
        await host.stop()
    assert context.writes == 1 and table.subscribers == []
    (line,) = [r for r in caplog.records if "its call is over" in r.getMessage()]
    assert line.levelno == logging.INFO and "ExecuteBatchError" in line.getMessage() and line.exc_info is None
