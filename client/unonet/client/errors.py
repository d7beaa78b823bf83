"""Typed exceptions for every refusal the host can give, made in one place (dm_env_rpc `error.py`).

The host refuses a call with a standard gRPC status code, a readable message, and an `ErrorDetail`
(`unonet.v1.errors_pb2`) serialized in the trailing metadata key `unonet-error-bin` (see
`docs/protocol.md`, "Errors"). Code that plays should branch on the exception class (the status code)
first, then on `reason`; an unknown reason must be treated like the class alone.

`from_rpc_error` is the only function that looks inside a `grpc.RpcError`; the SDK calls it for every
RPC, so client and bot code never sees a raw `AioRpcError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from unonet.v1 import errors_pb2
from unonet.v1.trailers import ERROR_DETAIL_KEY

__all__ = [
    "ERROR_DETAIL_KEY",
    "AlreadyExists",
    "Cancelled",
    "DeadlineExceeded",
    "FailedPrecondition",
    "InvalidArgument",
    "NotFound",
    "NotYourTurnError",
    "PermissionDenied",
    "ResourceExhausted",
    "Unavailable",
    "Unimplemented",
    "UnonetError",
    "from_rpc_error",
    "is_transient",
]

# A reason at the start of the status message, as in "NOT_YOUR_TURN: it is seat 2's turn", used only
# when the trailing ErrorDetail is missing or unreadable.
_LEADING_REASON = re.compile(r"^\s*\[?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\]?\s*(?::|-|$)")


class UnonetError(Exception):
    """A call the host (or the transport) refused.

    Attributes:
        code: the gRPC status code.
        reason: the machine-readable reason, such as ``"NOT_YOUR_TURN"``; empty when the status came
            without one (for example from the transport).
        message: the human-readable status message, quoting the input and the state.
        metadata: the ErrorDetail's extra facts (``field``, ``value``, ``seat``, ``event_number``...).
    """

    #: The status code this class stands for; the base class stands for any code.
    default_code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        code: grpc.StatusCode | None = None,
        reason: str = "",
        message: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        self.code = code if code is not None else self.default_code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})
        super().__init__(code, reason, message)

    def __str__(self) -> str:
        name = self.code.name if isinstance(self.code, grpc.StatusCode) else str(self.code)
        head = f"{name} {self.reason}" if self.reason else name
        return f"{head}: {self.message}" if self.message else head

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, reason={self.reason!r}, message={self.message!r})"


class InvalidArgument(UnonetError):
    """The request is malformed; resending it unchanged can never succeed."""

    default_code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(UnonetError):
    """The request is well formed but not allowed in the table's current state; it may succeed later."""

    default_code = grpc.StatusCode.FAILED_PRECONDITION


class NotYourTurnError(FailedPrecondition):
    """A FAILED_PRECONDITION whose reason is ``NOT_YOUR_TURN``.

    The other classes are named after their status code; this one, named after a reason, says
    ``Error`` so that it is never mistaken for the engine's own `unonet.engine.NotYourTurn`.
    """


class NotFound(UnonetError):
    """No such table (``TABLE_NOT_FOUND``)."""

    default_code = grpc.StatusCode.NOT_FOUND


class PermissionDenied(UnonetError):
    """The token does not entitle the caller to this (``BAD_TOKEN``, ``SPECTATOR_TOKEN``, ``NOT_OWNER``)."""

    default_code = grpc.StatusCode.PERMISSION_DENIED


class AlreadyExists(UnonetError):
    """A seat is taken, the table is full, or a command id was reused for another request."""

    default_code = grpc.StatusCode.ALREADY_EXISTS


class ResourceExhausted(UnonetError):
    """Too large, too fast, too many, or an event stream read too slowly (``SUBSCRIBER_TOO_SLOW``)."""

    default_code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(UnonetError):
    """The host could not be reached, or went away: retry commands with the same id, resume streams."""

    default_code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(UnonetError):
    """The call's deadline passed before an answer came; the command may or may not have been applied."""

    default_code = grpc.StatusCode.DEADLINE_EXCEEDED


class Cancelled(UnonetError):
    """The call was cancelled."""

    default_code = grpc.StatusCode.CANCELLED


class DataLoss(UnonetError):
    """The host's store lost or altered events this client saw (``EVENTS_LOST``): the events after
    ``metadata["event_number"]`` are not the table's any more; resume from there with a snapshot."""

    default_code = grpc.StatusCode.DATA_LOSS


class Unimplemented(UnonetError):
    """The host does not offer this RPC (yet), such as ``CommitEntropy`` before provably fair shuffles."""

    default_code = grpc.StatusCode.UNIMPLEMENTED


_BY_CODE: dict[grpc.StatusCode, type[UnonetError]] = {
    cls.default_code: cls
    for cls in (
        InvalidArgument,
        FailedPrecondition,
        NotFound,
        PermissionDenied,
        AlreadyExists,
        ResourceExhausted,
        Unavailable,
        DeadlineExceeded,
        Cancelled,
        DataLoss,
        Unimplemented,
    )
}

# Reasons that have a class of their own, below the class of their status code.
_BY_REASON: dict[tuple[grpc.StatusCode, str], type[UnonetError]] = {
    (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"): NotYourTurnError,
}

_TRANSIENT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED})


def error_class(code: grpc.StatusCode, reason: str = "") -> type[UnonetError]:
    """The exception class for a status code and reason: the most specific one known."""
    return _BY_REASON.get((code, reason)) or _BY_CODE.get(code, UnonetError)


def read_error_detail(trailing_metadata: Iterable[Any] | None) -> errors_pb2.ErrorDetail | None:
    """Parse the ErrorDetail from trailing metadata; None when it is absent or unreadable.

    A detail that does not parse is ignored rather than raised: the status code alone still says what
    happened, and a client must cope with statuses that carry no detail anyway.
    """
    for item in trailing_metadata or ():
        try:
            key, value = item
        except (TypeError, ValueError):
            continue
        if str(key).lower() != ERROR_DETAIL_KEY:
            continue
        raw = value.encode("latin-1") if isinstance(value, str) else bytes(value)
        try:
            return errors_pb2.ErrorDetail.FromString(raw)
        except DecodeError:
            return None
    return None


def reason_from_details(details: str) -> str:
    """The reason quoted at the start of a status message (``"NOT_YOUR_TURN: ..."``), or empty."""
    match = _LEADING_REASON.match(details or "")
    return match.group(1) if match else ""


def from_rpc_error(error: grpc.RpcError) -> UnonetError:
    """Turn a gRPC error (normally a `grpc.aio.AioRpcError`) into the matching `UnonetError`.

    The reason comes from the `unonet-error-bin` trailer; without one, from a reason quoted at the
    start of the status details. Never raises: anything unexpected becomes the base class.
    """
    code = _call(error, "code") or grpc.StatusCode.UNKNOWN
    details = _call(error, "details") or ""
    detail = read_error_detail(_call(error, "trailing_metadata"))
    if detail is not None and detail.reason:
        reason, metadata = detail.reason, dict(detail.metadata)
    else:
        reason, metadata = reason_from_details(details), dict(detail.metadata) if detail is not None else {}
    return error_class(code, reason)(code, reason, details, metadata)


def is_transient(error: UnonetError | grpc.RpcError) -> bool:
    """True for transport trouble (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED by the host): resend, resume."""
    code = error.code if isinstance(error, UnonetError) else _call(error, "code")
    return code in _TRANSIENT


def _call(error: object, name: str) -> Any:
    method = getattr(error, name, None)
    if not callable(method):
        return None
    try:
        return method()
    except Exception:  # a half-built error object must not hide the original failure
        return None
