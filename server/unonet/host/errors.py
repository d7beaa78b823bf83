"""Host errors and the one place that maps every refusal to a gRPC status with a machine reason.

Two roots are refusals, each with one job: the engine's `UnoError` (the rules said no; its subclasses
say whether the input was malformed or just illegal now) and the host's `HostError` (the host said no:
unknown table, bad token, full table, a shuffle contribution it cannot take). `REFUSALS` names both;
`status_for` is the only map from them to status codes. Anything else raised while serving a call is a
bug: the servicer logs it and the call fails with INTERNAL.

The reason travels twice in the trailing metadata, so bots in any language can branch on `NOT_YOUR_TURN`
without parsing text: as a serialized `unonet.v1.ErrorDetail` under `unonet-error-bin` (what clients
written for unonet read), and as the standard gRPC rich status under `grpc-status-details-bin` (a
`google.rpc.Status` holding that same ErrorDetail in an `Any`), which stock gRPC libraries decode.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import google.rpc.status_pb2 as status_pb2
import grpc

from unonet.engine import MalformedAction, RulesetError, UnoError
from unonet.v1 import errors_pb2
from unonet.v1.trailers import ERROR_DETAIL_KEY, STATUS_DETAILS_KEY

log = logging.getLogger(__name__)


class HostError(Exception):
    """A refusal decided by the host rather than the rules: unknown table, bad token, full table."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str,
                 metadata: Mapping[str, str] | None = None) -> None:
        """`metadata`: the ErrorDetail's machine-readable facts, such as `field` (the request field at fault)."""
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.metadata: dict[str, str] = dict(metadata or {})


def not_found(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.NOT_FOUND, reason, message)


def invalid(reason: str, message: str, **metadata: str) -> HostError:
    """A malformed request; `metadata` names what is wrong with it (`field="command_id"`)."""
    return HostError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, metadata)


def denied(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.PERMISSION_DENIED, reason, message)


def exists(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.ALREADY_EXISTS, reason, message)


def precondition(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.FAILED_PRECONDITION, reason, message)


def exhausted(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, message)


class ShuffleRefused(HostError):
    """A seat's CommitEntropy or RevealEntropy that the round's shuffle cannot take; its subclass says
    which way (as the engine's `MalformedAction` / `IllegalAction` do for actions)."""

    code_for_class = grpc.StatusCode.FAILED_PRECONDITION

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(self.code_for_class, reason, message)


class MalformedEntropy(ShuffleRefused):
    """The input itself is wrong (a commitment of the wrong size, a value that does not open the
    commitment): INVALID_ARGUMENT, and resending it can never succeed."""

    code_for_class = grpc.StatusCode.INVALID_ARGUMENT


class IllegalEntropy(ShuffleRefused):
    """Well formed, but not the time for it (already committed, nothing pending): FAILED_PRECONDITION."""


REFUSALS: tuple[type[Exception], ...] = (HostError, UnoError)
"""What a handler may raise to refuse a call; `status_for` maps each."""


def status_for(error: Exception) -> tuple[grpc.StatusCode, str, str]:
    """The status code, reason and message for a refusal raised while serving a call.

    Raises:
        TypeError: `error` is not one of `REFUSALS` (a bug, not a refusal).
    """
    if isinstance(error, HostError):
        return error.code, error.reason, str(error)
    if isinstance(error, MalformedAction | RulesetError):
        return grpc.StatusCode.INVALID_ARGUMENT, error.reason, str(error)
    if isinstance(error, UnoError):  # IllegalAction, NotYourTurn, GameOver: the rules forbid it now
        return grpc.StatusCode.FAILED_PRECONDITION, error.reason, str(error)
    raise TypeError(f"not a refusal: {error!r}")


def trailers_for(error: Exception) -> tuple[grpc.StatusCode, str, tuple[tuple[str, bytes], ...]]:
    """The status code, the message and the trailing metadata that carry a refusal: the ErrorDetail
    under `unonet-error-bin`, and under `grpc-status-details-bin` a google.rpc.Status with the same
    code and message (gRPC libraries check that they match the call's) and the ErrorDetail packed in
    its `details`."""
    code, reason, message = status_for(error)
    detail = errors_pb2.ErrorDetail(reason=reason, metadata=getattr(error, "metadata", None) or {})
    status = status_pb2.Status(code=code.value[0], message=message)
    status.details.add().Pack(detail)
    return code, message, ((ERROR_DETAIL_KEY, detail.SerializeToString()),
                           (STATUS_DETAILS_KEY, status.SerializeToString()))


async def abort(context: grpc.aio.ServicerContext[object, object], error: Exception) -> None:
    """End the call with the mapped status and the machine-readable detail in trailing metadata."""
    code, message, trailers = trailers_for(error)
    await context.abort(code, message, trailing_metadata=trailers)
