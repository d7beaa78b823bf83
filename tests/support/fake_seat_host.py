"""A tiny in-test grpc.aio host for one seat at one table, shared by the SDK and the bot runner tests.

`FakeHost` keeps one table's event log and implements just enough of WatchService, PlayService and
TimeService. Scripted streams drop, end, repeat and skip events so a client's resume logic is proven
against a real gRPC transport on 127.0.0.1:0; `serve_fake_host()` starts it there with a
`TableClient` attached to seat 0, and stops both. Nothing sleeps to synchronise; every await is
bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc

from unonet.client import errors
from unonet.client.table_client import TableClient
from unonet.v1 import (
    actions_pb2,
    errors_pb2,
    events_pb2,
    play_service_pb2,
    play_service_pb2_grpc,
    time_service_pb2,
    time_service_pb2_grpc,
    views_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 10.0
TABLE = "T1"
TOKEN = "seat-0-token"


def trailer(reason, **metadata):
    detail = errors_pb2.ErrorDetail(reason=reason, metadata=metadata)
    return ((errors.ERROR_DETAIL_KEY, detail.SerializeToString()),)


def chat(number, legal=None):
    event = events_pb2.Event(number=number, chat_message=events_pb2.ChatMessage(name="x", text=f"event {number}"))
    if legal is not None:
        event.your_legal_actions.CopyFrom(legal)
    return event


@dataclass
class Abort:
    code: grpc.StatusCode
    reason: str = ""
    metadata: dict[str, str] = field(default_factory=dict)  # the ErrorDetail's facts (`event_number`, ...)


@dataclass
class Snapshot:
    number: int


END = "end"


@dataclass
class FakeHost(
    watch_service_pb2_grpc.WatchServiceServicer,
    play_service_pb2_grpc.PlayServiceServicer,
    time_service_pb2_grpc.TimeServiceServicer,
):
    """One table. Streams follow `scripts` (one list of steps per connection) while any are left,
    and afterwards replay the log and wait for new events. Commands answer from `answers`."""

    log: list[events_pb2.Event] = field(default_factory=list)
    view: views_pb2.SeatView = field(default_factory=views_pb2.SeatView)
    scripts: list[list[object]] = field(default_factory=list)
    watch_requests: list[watch_service_pb2.WatchEventsRequest] = field(default_factory=list)
    commands: list[tuple[str, object]] = field(default_factory=list)
    answers: dict[str, list[object]] = field(default_factory=dict)
    on_command: object = None
    view_reads: int = 0
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def append(self, *events):
        async with self.changed:
            self.log.extend(events)
            self.changed.notify_all()

    # WatchService -----------------------------------------------------------------------------

    async def WatchEvents(self, request, context):
        self.watch_requests.append(request)
        if request.token != TOKEN:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "unknown token", trailer("BAD_TOKEN"))
        if self.scripts:
            for step in self.scripts.pop(0):
                if isinstance(step, int):
                    yield watch_service_pb2.WatchEventsResponse(event=self.log[step - 1])
                elif isinstance(step, Snapshot):
                    view = views_pb2.SeatView(table_id=TABLE, event_number=step.number)
                    event = events_pb2.Event(number=step.number, snapshot=events_pb2.Snapshot(view=view))
                    yield watch_service_pb2.WatchEventsResponse(event=event)
                elif isinstance(step, Abort):
                    await context.abort(step.code, f"scripted {step.code.name}", trailer(step.reason, **step.metadata))
                elif step == END:
                    return
            return
        sent = request.after_event_number
        while True:
            async with self.changed:
                await self.changed.wait_for(lambda: len(self.log) > sent)  # noqa: B023 - read at once
                pending = self.log[sent:]
            for event in pending:
                yield watch_service_pb2.WatchEventsResponse(event=event)
            sent += len(pending)

    async def GetView(self, request, context):
        self.view_reads += 1
        view = views_pb2.SeatView()
        view.CopyFrom(self.view)
        view.event_number = len(self.log)
        return watch_service_pb2.GetViewResponse(view=view)

    # PlayService ------------------------------------------------------------------------------

    async def _command(self, name, request, context, response_type):
        self.commands.append((name, request))
        queue = self.answers.get(name) or []
        answer = queue.pop(0) if queue else None
        if isinstance(answer, Abort):
            await context.abort(answer.code, f"{answer.reason}: scripted refusal", trailer(answer.reason, seat="2"))
        first = len(self.log) + 1
        if self.on_command is not None:
            await self.on_command(name, request)
        last = max(first, len(self.log))
        result = actions_pb2.CommandResult(
            event_number=first, last_event_number=last, outcome=actions_pb2.COMMAND_OUTCOME_APPLIED
        )
        return response_type(result=result)

    async def PlayCards(self, request, context):
        return await self._command("PlayCards", request, context, play_service_pb2.PlayCardsResponse)

    async def Draw(self, request, context):
        return await self._command("Draw", request, context, play_service_pb2.DrawResponse)

    async def CatchUno(self, request, context):
        return await self._command("CatchUno", request, context, play_service_pb2.CatchUnoResponse)

    async def React(self, request, context):
        return await self._command("React", request, context, play_service_pb2.ReactResponse)

    # TimeService ------------------------------------------------------------------------------

    async def Ping(self, request, context):
        self.commands.append(("Ping", request))
        queue = self.answers.get("Ping") or []
        answer = queue.pop(0) if queue else None
        if isinstance(answer, Abort):
            await context.abort(answer.code, f"{answer.reason}: scripted refusal", trailer(answer.reason))
        response = time_service_pb2.PingResponse(sequence=request.sequence, client_send_time=request.client_send_time)
        response.receive_time.GetCurrentTime()
        response.send_time.GetCurrentTime()
        return response


@contextlib.asynccontextmanager
async def serve_fake_host() -> AsyncIterator[tuple[FakeHost, TableClient]]:
    """A `FakeHost` on 127.0.0.1:0 and a `TableClient` attached to its seat 0; both stopped after."""
    fake = FakeHost()
    server = grpc.aio.server()
    watch_service_pb2_grpc.add_WatchServiceServicer_to_server(fake, server)
    play_service_pb2_grpc.add_PlayServiceServicer_to_server(fake, server)
    time_service_pb2_grpc.add_TimeServiceServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await asyncio.wait_for(server.start(), TIMEOUT)
    client = TableClient(
        grpc.aio.insecure_channel(f"127.0.0.1:{port}"),
        owns_channel=True,
        timeout=TIMEOUT,
        reconnect_delay=0,
        retry_delay=0,
    )
    client.attach(TABLE, TOKEN, 0)
    try:
        yield fake, client
    finally:
        await asyncio.wait_for(client.close(), TIMEOUT)
        await asyncio.wait_for(server.stop(None), TIMEOUT)


async def take(client, count, **kwargs):
    """The first `count` events of a fresh `client.events(...)`."""
    seen = []
    async with contextlib.aclosing(client.events(**kwargs)) as stream:
        async for event in stream:
            seen.append(event)
            if len(seen) == count:
                break
    return seen

