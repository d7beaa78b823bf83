"""unonet.client.errors: every refusal becomes a typed exception, reading the `unonet-error-bin` trailer."""

from __future__ import annotations

import grpc
import pytest

from unonet.client import errors
from unonet.v1 import errors_pb2


def rpc_error(code, details="", *, reason=None, metadata=None, raw=None):
    trailing = []
    if reason is not None:
        detail = errors_pb2.ErrorDetail(reason=reason, metadata=metadata or {})
        trailing.append((errors.ERROR_DETAIL_KEY, detail.SerializeToString()))
    if raw is not None:
        trailing.append((errors.ERROR_DETAIL_KEY, raw))
    return grpc.aio.AioRpcError(
        code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailing), details=details, debug_error_string=None
    )


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, errors.InvalidArgument),
        (grpc.StatusCode.FAILED_PRECONDITION, errors.FailedPrecondition),
        (grpc.StatusCode.NOT_FOUND, errors.NotFound),
        (grpc.StatusCode.PERMISSION_DENIED, errors.PermissionDenied),
        (grpc.StatusCode.ALREADY_EXISTS, errors.AlreadyExists),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, errors.ResourceExhausted),
        (grpc.StatusCode.UNAVAILABLE, errors.Unavailable),
        (grpc.StatusCode.DEADLINE_EXCEEDED, errors.DeadlineExceeded),
        (grpc.StatusCode.UNIMPLEMENTED, errors.Unimplemented),
    ],
)
def test_each_status_code_has_its_class(code, cls):
    error = errors.from_rpc_error(rpc_error(code, "refused", reason="SOME_REASON"))
    assert type(error) is cls
    assert isinstance(error, errors.UnonetError)
    assert error.code is code
    assert error.reason == "SOME_REASON"
    assert error.message == "refused"


def test_not_your_turn_is_a_failed_precondition_of_its_own():
    error = errors.from_rpc_error(
        rpc_error(
            grpc.StatusCode.FAILED_PRECONDITION,
            "it is seat 2's turn, not seat 0's",
            reason="NOT_YOUR_TURN",
            metadata={"seat": "2", "event_number": "41"},
        )
    )
    assert isinstance(error, errors.NotYourTurnError)
    assert isinstance(error, errors.FailedPrecondition)
    assert error.metadata == {"seat": "2", "event_number": "41"}
    assert str(error) == "FAILED_PRECONDITION NOT_YOUR_TURN: it is seat 2's turn, not seat 0's"


def test_other_failed_preconditions_are_not_not_your_turn():
    error = errors.from_rpc_error(rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "no", reason="CARD_NOT_IN_HAND"))
    assert type(error) is errors.FailedPrecondition
    assert error.reason == "CARD_NOT_IN_HAND"


def test_not_your_turn_reason_under_another_code_keeps_that_code():
    error = errors.from_rpc_error(rpc_error(grpc.StatusCode.INVALID_ARGUMENT, "odd", reason="NOT_YOUR_TURN"))
    assert type(error) is errors.InvalidArgument


def test_without_a_trailer_the_reason_comes_from_the_status_details():
    error = errors.from_rpc_error(rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN: seat 3 acts"))
    assert isinstance(error, errors.NotYourTurnError)
    assert error.reason == "NOT_YOUR_TURN"
    assert error.message == "NOT_YOUR_TURN: seat 3 acts"


def test_plain_details_give_no_reason():
    error = errors.from_rpc_error(rpc_error(grpc.StatusCode.UNAVAILABLE, "Connection refused"))
    assert type(error) is errors.Unavailable
    assert error.reason == ""
    assert error.metadata == {}


def test_the_trailer_wins_over_the_details():
    error = errors.from_rpc_error(
        rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE: something", reason="WINDOW_CLOSED")
    )
    assert error.reason == "WINDOW_CLOSED"


def test_an_unreadable_trailer_is_ignored():
    error = errors.from_rpc_error(
        rpc_error(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND: no table 'x'", raw=b"\xff\xff")
    )
    assert type(error) is errors.NotFound
    assert error.reason == "TABLE_NOT_FOUND"


def test_an_unknown_code_becomes_the_base_class():
    error = errors.from_rpc_error(rpc_error(grpc.StatusCode.INTERNAL, "boom"))
    assert type(error) is errors.UnonetError
    assert error.code is grpc.StatusCode.INTERNAL


def test_transient_codes():
    assert errors.is_transient(errors.from_rpc_error(rpc_error(grpc.StatusCode.UNAVAILABLE)))
    assert errors.is_transient(rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED))
    assert not errors.is_transient(errors.from_rpc_error(rpc_error(grpc.StatusCode.FAILED_PRECONDITION)))


def test_errors_can_be_raised_and_caught_by_class():
    with pytest.raises(errors.FailedPrecondition) as caught:
        raise errors.from_rpc_error(rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "x", reason="NOT_YOUR_TURN"))
    assert caught.value.reason == "NOT_YOUR_TURN"
    assert repr(caught.value).startswith("NotYourTurnError(")
