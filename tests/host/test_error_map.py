"""host/errors.py is the one map from refusals to status codes: every refusal root, and nothing else."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from unonet.engine import GameOver, IllegalAction, MalformedAction, NotYourTurn, RulesetError, UnoError
from unonet.host.errors import REFUSALS, HostError, IllegalEntropy, MalformedEntropy, ShuffleRefused, status_for
from unonet.v1 import trailers

PROTOS = Path(__file__).parents[2] / "protos" / "unonet" / "v1"


@pytest.mark.parametrize(("error", "code"), [
    (MalformedEntropy("a commitment is 32 bytes, not 3", reason="INVALID_FIELD"), grpc.StatusCode.INVALID_ARGUMENT),
    (IllegalEntropy("seat 1 has already committed", reason="ALREADY_COMMITTED"), grpc.StatusCode.FAILED_PRECONDITION),
    (MalformedAction("no such card", reason="NO_SUCH_CARD"), grpc.StatusCode.INVALID_ARGUMENT),
    (RulesetError("unknown preset"), grpc.StatusCode.INVALID_ARGUMENT),
    (IllegalAction("does not match", reason="CARD_DOES_NOT_MATCH"), grpc.StatusCode.FAILED_PRECONDITION),
    (NotYourTurn("it is seat 2's turn"), grpc.StatusCode.FAILED_PRECONDITION),
    (GameOver("the round is over", reason="GAME_OVER"), grpc.StatusCode.FAILED_PRECONDITION),
    (HostError(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", "no table 'x'"), grpc.StatusCode.NOT_FOUND),
])
def test_each_refusal_maps_to_its_code_with_its_reason_and_message(error: Exception, code: grpc.StatusCode) -> None:
    assert isinstance(error, REFUSALS)
    mapped, reason, message = status_for(error)
    assert mapped is code and reason == error.reason and message == str(error)


def test_a_shuffle_refusal_is_a_host_refusal_of_one_of_two_kinds() -> None:
    assert issubclass(ShuffleRefused, HostError)
    assert {MalformedEntropy, IllegalEntropy} == set(ShuffleRefused.__subclasses__())
    assert not issubclass(ShuffleRefused, UnoError)


def test_anything_else_is_a_bug_not_a_refusal() -> None:
    with pytest.raises(TypeError, match="not a refusal"):
        status_for(ValueError("oops"))


def test_the_trailer_keys_are_the_ones_errors_proto_documents() -> None:
    documented = (PROTOS / "errors.proto").read_text()
    assert f"`{trailers.ERROR_DETAIL_KEY}`" in documented and f"`{trailers.STATUS_DETAILS_KEY}`" in documented
