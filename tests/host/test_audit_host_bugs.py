"""Regression tests for the host bugs the issue-3 audit found, each a promise of the published protocol
that the host broke until commit 8ea95dc: a turn's deadline in TurnStarted and LegalActions
(events.proto, actions.proto); MESSAGE_TOO_LARGE as the reason of an oversized request (errors.proto);
a taken-over seat's token refused with SEAT_TAKEN_OVER (table.proto TAKEOVER_POLICY_BOT); impossible
clocks refused and a zero clock meaning no clock (ClockSettings); a retried chat message shown once
(chat_service.proto). Over real gRPC, because bot authors meet these promises only there.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from test_bad_input import TIMEOUT, create, expect_error, join, reason_of, two_player_table, view

from unonet.v1 import (
    chat_service_pb2,
    lobby_service_pb2,
    play_service_pb2,
    table_pb2,
    watch_service_pb2,
)


async def test_a_turn_under_a_clock_carries_its_deadline(stubs: Any) -> None:
    """A client learns its deadline from the event that starts its wait, not only from GetView."""
    clock = table_pb2.ClockSettings(turn_time=duration_pb2.Duration(seconds=30))
    table_id, tokens = await two_player_table(stubs, clock=clock)
    v = await view(stubs, table_id, tokens[0])
    # One turn passes, so the next one surely begins with a turn_started event.
    mover = tokens[v.seat_to_act]
    await stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=mover, command_id="d"),
                          timeout=TIMEOUT)
    if (await view(stubs, table_id, mover)).legal_actions.pass_turn:
        await stubs.play.Pass(play_service_pb2.PassRequest(table_id=table_id, token=mover, command_id="p"),
                              timeout=TIMEOUT)
    v = await view(stubs, table_id, tokens[0])
    assert v.HasField("turn_deadline"), "the view does carry the clock"
    waiting = tokens[v.seat_to_act]
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=waiting))
    turn = None
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            event = response.event
            if event.WhichOneof("payload") == "turn_started" and event.turn_started.seat == v.seat_to_act:
                turn = event
            if event.number >= v.event_number:
                break
    stream.cancel()
    assert turn is not None and turn.your_legal_actions.required
    assert turn.turn_started.HasField("deadline"), "TurnStarted.deadline is unset under a 30 s clock"
    assert turn.your_legal_actions.HasField("deadline"), "LegalActions.deadline is unset under a 30 s clock"
    assert (await view(stubs, table_id, waiting)).legal_actions.HasField("deadline")


async def test_an_oversized_request_carries_a_machine_reason(stubs: Any) -> None:
    """Issue 3 asks for a machine reason on oversized messages; the transport alone gives none."""
    table_id, _ = await create(stubs)
    ann = await join(stubs, table_id, "ann")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
            table_id=table_id, token=ann, text="x" * (70 * 1024)), timeout=TIMEOUT)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(caught.value) == "MESSAGE_TOO_LARGE"


async def test_a_taken_over_seat_can_no_longer_act(stubs: Any) -> None:
    """After a takeover the bot owns the seat; its old player acting too would play the seat twice."""
    clock = table_pb2.ClockSettings(
        turn_time=duration_pb2.Duration(nanos=300_000_000), strikes_before_takeover=1,
        takeover_policy=table_pb2.TAKEOVER_POLICY_BOT)
    table_id, owner = await create(stubs, seat_count=3, manual_start=True, clock=clock)
    ann = await join(stubs, table_id, "ann")
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=ann))
    await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, fill_with_bots=True), timeout=TIMEOUT)
    taken = False
    async with asyncio.timeout(30):  # ann never acts: her first turn times out and the bot takes over
        async for response in stream:
            payload = response.event.WhichOneof("payload")
            if payload == "seat_taken_over" and response.event.seat_taken_over.seat == 0:
                taken = True
                break
            if payload == "match_ended":
                break
    stream.cancel()
    assert taken, "ann's seat was taken over"
    info = (await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)).table
    assert info.seats[0].taken_over and info.seats[0].is_bot
    await expect_error(
        stubs.play.CallUno(play_service_pb2.CallUnoRequest(table_id=table_id, token=ann, command_id="still-here"),
                           timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN_OVER")


async def test_impossible_clock_settings_are_refused(stubs: Any) -> None:
    """A negative turn or an unknown takeover bot is a malformed table, refused before it exists."""
    request = lobby_service_pb2.CreateTableRequest
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.lobby.CreateTable(request(name="t", seat_count=2, clock=table_pb2.ClockSettings(
            turn_time=duration_pb2.Duration(seconds=-5))), timeout=TIMEOUT)
    assert caught.value.code() == invalid
    await expect_error(stubs.lobby.CreateTable(request(name="t", seat_count=2, clock=table_pb2.ClockSettings(
        turn_time=duration_pb2.Duration(seconds=5), takeover_bot_kind="no-such-bot")), timeout=TIMEOUT),
        invalid, "UNKNOWN_BOT_KIND")


async def test_a_clock_of_zero_means_no_clock_and_no_takeover(stubs: Any) -> None:
    """ClockSettings promises that zero turns the clock (and takeovers) off; the host must not fill in 30 s."""
    clock = table_pb2.ClockSettings(turn_time=duration_pb2.Duration(seconds=0), strikes_before_takeover=0,
                                    takeover_policy=table_pb2.TAKEOVER_POLICY_BOT)
    table_id, _ = await create(stubs, clock=clock)
    info = (await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)).table
    assert info.settings.clock.turn_time.ToNanoseconds() == 0
    assert info.settings.clock.strikes_before_takeover == 0


async def test_a_retried_chat_message_is_shown_once(stubs: Any) -> None:
    """A chat is a command: under silent_two a retry shown twice would also be penalised twice."""
    table_id, _ = await create(stubs)
    ann = await join(stubs, table_id, "ann")
    request = chat_service_pb2.SendChatRequest(table_id=table_id, token=ann, command_id="hello-1", text="hello")
    first = await stubs.chat.SendChat(request, timeout=TIMEOUT)
    again = await stubs.chat.SendChat(request, timeout=TIMEOUT)
    assert again.result == first.result
    assert stubs.host.tables[table_id].last_number == first.result.last_event_number
