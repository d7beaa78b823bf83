"""Requests whose bytes do not parse: refused by the handler with a reason, not by gRPC with UNKNOWN.

grpc.aio deserializes a request before any handler runs; when the bytes are not a serialized message
of the RPC's request type it logs a traceback and answers UNKNOWN, so random bytes would flood the
host's log. `tolerant` wraps each method's deserializer: bytes that do not parse become an
`Undecodable` value, which the servicer refuses as INVALID_ARGUMENT with the reason
`MALFORMED_REQUEST` (service.py), and `BadInputLog` notes them in at most one log line per interval.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

log = logging.getLogger(__name__)
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
