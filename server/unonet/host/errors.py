"""Host errors and the one place that maps every refusal to a gRPC status with a machine reason.

Clients read the reason from the trailing metadata key `unonet-error-bin` (a serialized
`unonet.v1.ErrorDetail`), so bots in any language can branch on `NOT_YOUR_TURN` without parsing text.
"""

from __future__ import annotations

import logging

import grpc

from unonet.engine import GameOver, IllegalAction, MalformedAction, RulesetError, UnoError
from unonet.v1 import errors_pb2

ERROR_METADATA_KEY = "unonet-error-bin"
log = logging.getLogger(__name__)


class HostError(Exception):
    """A refusal decided by the host rather than the rules: unknown table, bad token, full table."""

    def __init__(
        self, code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.metadata = metadata or {}  # ErrorDetail.metadata: facts a program may branch on


def not_found(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.NOT_FOUND, reason, message)


def invalid(reason: str, message: str, metadata: dict[str, str] | None = None) -> HostError:
    return HostError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, metadata)


def denied(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.PERMISSION_DENIED, reason, message)


def exists(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.ALREADY_EXISTS, reason, message)


def precondition(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.FAILED_PRECONDITION, reason, message)


def exhausted(reason: str, message: str) -> HostError:
    return HostError(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, message)


def status_for(error: Exception) -> tuple[grpc.StatusCode, str, str]:
    """The status code, reason and message for an error raised while serving a call."""
    if isinstance(error, HostError):
        return error.code, error.reason, str(error)
    if isinstance(error, MalformedAction | RulesetError):
        return grpc.StatusCode.INVALID_ARGUMENT, error.reason, str(error)
    if isinstance(error, IllegalAction | GameOver):
        return grpc.StatusCode.FAILED_PRECONDITION, error.reason, str(error)
    if isinstance(error, UnoError):
        return grpc.StatusCode.FAILED_PRECONDITION, error.reason, str(error)
    raise TypeError(f"not a refusal: {error!r}")


async def abort(context: grpc.aio.ServicerContext[object, object], error: Exception) -> None:
    """End the call with the mapped status and the machine-readable detail in trailing metadata."""
    code, reason, message = status_for(error)
    facts = error.metadata if isinstance(error, HostError | UnoError) else {}
    detail = errors_pb2.ErrorDetail(reason=reason, metadata=facts).SerializeToString()
    context.set_trailing_metadata(((ERROR_METADATA_KEY, detail),))
    await context.abort(code, message)
