"""Hostile input the fuzzer found gets a precise status and reason, never UNKNOWN, and no traceback.

Real gRPC on 127.0.0.1:0 (the `stubs` fixture): bytes that are no request, a token with non-ASCII
characters, page tokens that only look like numbers, and Ping timestamps outside Timestamp's range.
"""

from __future__ import annotations

import logging

import grpc
import pytest
from google.protobuf import timestamp_pb2
from host_stubs import PLAYER, TIMEOUT, create, expect_error, join, state, two_player_table, view

from unonet.host.undecodable import BadInputLog, Undecodable
from unonet.v1 import cards_pb2, lobby_service_pb2, play_service_pb2, time_service_pb2, watch_service_pb2

GARBAGE = b"\xff\xff\xff\xff\x0f"  # a field number 0 with an impossible wire type: no message parses it


async def test_undecodable_bytes_are_invalid_argument_with_one_log_line(stubs, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    for path in ("/unonet.v1.PlayService/PlayCards", "/unonet.v1.LobbyService/CreateTable",
                 "/unonet.v1.TimeService/Ping", "/unonet.v1.WatchService/GetView"):
        call = stubs.channel.unary_unary(path)(GARBAGE, timeout=TIMEOUT)
        error = await expect_error(call, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert "do not parse as a unonet.v1." in (error.details() or "")
    stream = stubs.channel.unary_stream("/unonet.v1.WatchService/WatchEvents")(GARBAGE, timeout=TIMEOUT)
    await expect_error(stream.read(), grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    lines = [r for r in caplog.records if "undecodable" in r.getMessage()]
    assert len(lines) <= 1, [r.getMessage() for r in lines]


def test_the_bad_input_log_says_one_line_per_interval_with_a_count(caplog) -> None:
    now = [100.0]
    noted = BadInputLog(interval_s=10.0, clock=lambda: now[0])
    bad = Undecodable("/unonet.v1.PlayService/Draw", "unonet.v1.DrawRequest", 5, "corrupt")
    with caplog.at_level(logging.WARNING, logger="unonet.host.undecodable"):
        for _ in range(1000):
            noted.note(bad)
        now[0] += 10.0
        noted.note(bad)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert messages[0].startswith("refused 1 ") and messages[1].startswith("refused 1000 ")
    assert all(not r.exc_info for r in caplog.records)


@pytest.mark.parametrize("token", ["t\u00f6ken", "\u00b2", "\U0001f0cf" * 24])
async def test_a_non_ascii_token_is_bad_token(stubs, token: str) -> None:
    table_id, _ = await two_player_table(stubs)
    await expect_error(stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=token, command_id="c"),
                                       timeout=TIMEOUT), grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")
    await expect_error(stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=token),
                                           timeout=TIMEOUT), grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")


async def test_a_non_ascii_owner_token_is_not_owner(stubs) -> None:
    table_id, _ = await create(stubs, manual_start=True)
    await join(stubs, table_id, "ann", PLAYER)
    await expect_error(stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token="\u00e9" * 32), timeout=TIMEOUT), grpc.StatusCode.PERMISSION_DENIED, "NOT_OWNER")


@pytest.mark.parametrize("page_token", ["\u00b2:x", "\u0663:x", "99999999999999999999999:abc",
                                        "9223372036854775808:abc", "-1:abc", "12:", ":abc", "abc"])
async def test_a_page_token_the_host_never_returned_is_bad_page_token(stubs, page_token: str) -> None:
    await create(stubs)
    await expect_error(stubs.lobby.ListTables(lobby_service_pb2.ListTablesRequest(page_token=page_token),
                                              timeout=TIMEOUT), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN")


@pytest.mark.parametrize(("seconds", "nanos"), [(0, -1), (0, 1_000_000_000), (253_402_300_800, 0),
                                                (-62_135_596_801, 0), (2**62, 0)])
async def test_a_ping_timestamp_out_of_range_is_invalid_field(stubs, seconds: int, nanos: int) -> None:
    table_id, tokens = await two_player_table(stubs)
    bad = timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)
    good = timestamp_pb2.Timestamp(seconds=1_700_000_000)
    error = await expect_error(stubs.time.Ping(time_service_pb2.PingRequest(client_send_time=bad), timeout=TIMEOUT),
                               grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")
    assert "client_send_time" in (error.details() or "")
    previous = time_service_pb2.PingReport(sequence=1, client_receive_time=bad)
    await expect_error(stubs.time.Ping(time_service_pb2.PingRequest(
        table_id=table_id, token=tokens[0], sequence=2, client_send_time=good, previous=previous), timeout=TIMEOUT),
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")


# ------------------------------------------------------------------ which refusal comes first

async def test_a_malformed_commitment_outside_a_shuffle_is_invalid_field_not_no_shuffle_pending(stubs) -> None:
    """The request's own form is checked before the table's state (docs/protocol.md, "Which refusal
    comes first"): the length rule holds whatever the phase; a well-formed one is then out of phase."""
    table_id, tokens = await two_player_table(stubs)  # dealt: no shuffle is pending
    before = await state(stubs, table_id, tokens)

    def commit(commitment: bytes, command_id: str):
        return stubs.play.CommitEntropy(play_service_pb2.CommitEntropyRequest(
            table_id=table_id, token=tokens[0], command_id=command_id, commitment=commitment), timeout=TIMEOUT)

    error = await expect_error(commit(bytes(5), "short"), grpc.StatusCode.INVALID_ARGUMENT, "INVALID_FIELD")
    assert "32 bytes, not 5" in (error.details() or "")
    await expect_error(commit(bytes(32), "whole"), grpc.StatusCode.FAILED_PRECONDITION, "NO_SHUFFLE_PENDING")
    assert await state(stubs, table_id, tokens) == before


async def test_a_command_id_of_the_wrong_form_is_refused_before_the_turn_is_judged(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    waiting = 1 - (await view(stubs, table_id, tokens[0])).seat_to_act
    card = (await view(stubs, table_id, tokens[waiting])).hand[0].card
    for command_id, reason in (("", "COMMAND_ID_MISSING"), ("x" * 65, "COMMAND_ID_TOO_LONG"), ("é", "INVALID_FIELD")):
        play = stubs.play.PlayCards(play_service_pb2.PlayCardsRequest(
            table_id=table_id, token=tokens[waiting], command_id=command_id, cards=[card],
            color=cards_pb2.COLOR_RED if card.color == cards_pb2.COLOR_BLACK else cards_pb2.COLOR_UNSPECIFIED),
            timeout=TIMEOUT)
        await expect_error(play, grpc.StatusCode.INVALID_ARGUMENT, reason)  # not NOT_YOUR_TURN
