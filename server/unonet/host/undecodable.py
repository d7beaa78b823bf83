"""Requests whose bytes do not parse: refused by the handler with a reason, not by gRPC with UNKNOWN.

grpc.aio deserializes a request before any handler runs; when the bytes are not a serialized message
of the RPC's request type it logs a traceback and answers UNKNOWN, so random bytes would flood the
host's log. `tolerant` wraps each method's deserializer: bytes that do not parse become an
`Undecodable` value, refused as INVALID_ARGUMENT with the reason `MALFORMED_REQUEST` (`refusal`), and
`BadInputLog` notes them in at most one log line per interval. Every service is registered through a
`Registering`, which hands each method's handler to an `adapt` function: the host's own servicers check
their requests themselves (service.py), and the ones it serves from grpcio's packages (health checking,
reflection, server.py) get `refusing`, which does it for them, for unary and streamed requests alike.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from unonet.host.errors import HostError, abort, invalid

log = logging.getLogger(__name__)
Handler = Any  # grpc.RpcMethodHandler: its stubs do not type `_replace`
Context = grpc.aio.ServicerContext[Any, Any]
# At most one line per this many seconds about undecodable requests, however many arrive.
BAD_INPUT_LOG_INTERVAL_S = 10.0


@dataclass(frozen=True, slots=True)
class Undecodable:
    """What a handler receives instead of a request whose bytes did not parse."""

    method: str  # the RPC's path, /unonet.v1.PlayService/PlayCards
    message_type: str  # the request type it should have been, unonet.v1.PlayCardsRequest
    size: int
    error: str

    def ByteSize(self) -> int:  # noqa: N802  # as a message's: the size check runs before anything else
        return self.size


class BadInputLog:
    """One warning line per `interval_s` at most, counting the undecodable requests since the last."""

    def __init__(self, interval_s: float = BAD_INPUT_LOG_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._interval_s = interval_s
        self._clock = clock
        self._last = -float("inf")
        self._unlogged = 0

    def note(self, request: Undecodable) -> None:
        self._unlogged += 1
        now = self._clock()
        if now - self._last < self._interval_s:
            return
        log.warning("refused %d undecodable request(s) since the last such line; the latest: %d bytes for %s",
                    self._unlogged, request.size, request.method)
        self._last, self._unlogged = now, 0


def tolerant(method: str, deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any]:
    """`deserializer`, but bytes it cannot parse become an `Undecodable` instead of an exception."""

    descriptor = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    message_type = descriptor.full_name if descriptor is not None else "request message"

    def parse(data: bytes) -> Any:
        if deserializer is None:
            return data
        try:
            return deserializer(data)
        except (DecodeError, ValueError, RecursionError) as error:  # what protobuf's parsers raise
            return Undecodable(method, message_type, len(data), str(error)[:200])

    return parse


bad_input = BadInputLog()  # the host's one line about undecodable requests, whichever service got them


def refusal(request: Undecodable) -> HostError:
    """The refusal of an undecodable request (INVALID_ARGUMENT, MALFORMED_REQUEST), noted in the log line."""
    bad_input.note(request)
    return invalid("MALFORMED_REQUEST", f"the request's bytes do not parse as a {request.message_type} "
                   f"({request.error})")


async def _refuse(request: object, context: Context) -> None:
    if isinstance(request, Undecodable):
        await abort(context, refusal(request))


def refusing(method: str, handler: Handler) -> Handler:
    """`handler` of a servicer that does not know `Undecodable`, with a `tolerant` deserializer and a
    behaviour that refuses an undecodable request (MALFORMED_REQUEST) before the servicer sees it; for
    a streamed request, at the first undecodable message, which ends the call."""
    handler = handler._replace(request_deserializer=tolerant(method, handler.request_deserializer))
    if handler.unary_unary is not None:
        return handler._replace(unary_unary=_checking_request(handler.unary_unary))
    if handler.unary_stream is not None:
        return handler._replace(unary_stream=_checking_request(handler.unary_stream))
    if handler.stream_unary is not None:
        return handler._replace(stream_unary=_checking_requests(handler.stream_unary))
    return handler._replace(stream_stream=_checking_requests(handler.stream_stream))


def _checking_request(behaviour: Callable[..., Any]) -> Callable[..., Any]:
    """A one-request behaviour, refusing an undecodable request; of the same kind (an async generator
    or a coroutine), since grpc.aio tells the two apart."""
    if inspect.isasyncgenfunction(behaviour):
        async def streaming(request: object, context: Context) -> AsyncIterator[Any]:
            await _refuse(request, context)
            async for response in behaviour(request, context):
                yield response
        return streaming

    async def answering(request: object, context: Context) -> Any:
        await _refuse(request, context)
        return await behaviour(request, context)
    return answering


def _checking_requests(behaviour: Callable[..., Any]) -> Callable[..., Any]:
    """A streamed-request behaviour, fed its requests through a check that refuses the first undecodable."""
    async def checked(requests: AsyncIterable[object], context: Context) -> AsyncIterator[object]:
        async for request in requests:
            await _refuse(request, context)
            yield request

    if inspect.isasyncgenfunction(behaviour):
        async def streaming(requests: AsyncIterable[object], context: Context) -> AsyncIterator[Any]:
            async for response in behaviour(checked(requests, context), context):
                yield response
        return streaming

    async def answering(requests: AsyncIterable[object], context: Context) -> Any:
        return await behaviour(checked(requests, context), context)
    return answering


class Registering:
    """The server as a generated `add_..._to_server` sees it: each method's handler goes through
    `adapt(method path, handler)` before it is registered.

    The generated code registers each service twice, as a generic handler and as registered method
    handlers. Only a generic handler reaches the server, built from the registered handlers (the only
    call that names the methods): grpc.aio's server keeps one pending request per registered method
    and waits on all of them (`asyncio.wait`) for every call it accepts, which with the host's 32
    methods cost each call ~16 us more of the loop's time than the one generic request does (a no-op
    wait on uvloop: 6.9 us over 1 future, 22.8 us over 33). Every method is served all the same: the
    server finds a generic handler by the call's full method name.
    """

    def __init__(self, server: grpc.aio.Server, adapt: Callable[[str, Handler], Handler] = refusing) -> None:
        self._server = server
        self._adapt = adapt

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        """Ignored: `add_registered_method_handlers` registers the same methods (as a generic handler)."""

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Handler]) -> None:
        served = {name: self._adapt(f"/{service}/{name}", handler) for name, handler in handlers.items()}
        self._server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, served),))
