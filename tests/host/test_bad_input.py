"""Bad input gets a clear error and loses nothing: real gRPC on 127.0.0.1:0 (the `stubs` fixture).

Every refusal is checked for its status code and its machine reason (trailing metadata
`unonet-error-bin`), and the table is compared before and after: same last event number, same hands
(and, for the lobby, the same `table_info`), because "a refused command changes nothing" is the
promise bot authors rely on when they retry. Covered: every token-taking RPC with a forged or foreign
token, every RPC with an unknown table, the malformed requests a bot author is most likely to send
(missing and malformed fields, unspecified or undefined enum numbers, impossible settings), a full
table or a taken seat, an oversized request, a command id retried concurrently, a snapshot resume.
Misbehaving connections (a reader that never reads, a client gone mid-turn, hundreds of streams
opened and dropped at once) must leave the host serving and its subscriber lists clean.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from google.protobuf.message import Message
from host_stubs import (
    PLAYER,
    SPECTATOR,
    TIMEOUT,
    contiguous,
    create,
    eventually,
    expect_error,
    first_message,
    join,
    read_until,
    reason_of,
    state,
    table_info,
    two_player_table,
    view,
)

from unonet.host.fanout import SUBSCRIBER_QUEUE
from unonet.v1 import (
    cards_pb2,
    chat_service_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    table_pb2,
    time_service_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

INVALID = grpc.StatusCode.INVALID_ARGUMENT

# ------------------------------------------------------------------------------------ refused commands


async def test_a_card_not_in_the_hand_is_invalid_and_changes_nothing(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    v = await view(stubs, table_id, tokens[0])
    token = tokens[v.seat_to_act]
    held = {(ref.card.color, ref.card.rank) for ref in (await view(stubs, table_id, token)).hand}
    missing = next((color, rank) for color in range(1, 5) for rank in range(1, 11) if (color, rank) not in held)
    request = play_service_pb2.PlayCardsRequest(
        table_id=table_id, token=token, command_id="ghost",
        cards=[cards_pb2.Card(color=missing[0], rank=missing[1])])
    await expect_error(stubs.play.PlayCards(request, timeout=TIMEOUT),
                       grpc.StatusCode.INVALID_ARGUMENT, "CARD_NOT_IN_HAND")
    assert await state(stubs, table_id, tokens) == before
    # The refused command id was not consumed: the same id now carries a legal command.
    drew = await stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=token, command_id="ghost"),
                                 timeout=TIMEOUT)
    assert drew.result.event_number == before[0] + 1


async def test_a_command_id_reused_for_another_command_is_refused(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    v = await view(stubs, table_id, tokens[0])
    token = tokens[v.seat_to_act]
    await stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=token, command_id="same"),
                          timeout=TIMEOUT)
    before = await state(stubs, table_id, tokens)
    await expect_error(
        stubs.play.Pass(play_service_pb2.PassRequest(table_id=table_id, token=token, command_id="same"),
                        timeout=TIMEOUT),
        grpc.StatusCode.ALREADY_EXISTS, "COMMAND_ID_REUSED")
    assert await state(stubs, table_id, tokens) == before


async def test_a_spectator_token_cannot_act(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    eve = await join(stubs, table_id, "eve", SPECTATOR)
    before = await state(stubs, table_id, tokens)
    await expect_error(
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=eve, command_id="peek"),
                        timeout=TIMEOUT),
        grpc.StatusCode.PERMISSION_DENIED, "SPECTATOR")
    assert await state(stubs, table_id, tokens) == before


async def test_the_other_seats_token_acts_as_that_seat(stubs) -> None:
    """Seat B's token always means seat B: used on A's turn it is B acting out of turn, never A."""
    table_id, tokens = await two_player_table(stubs)
    v = await view(stubs, table_id, tokens[0])
    other = tokens[1 - v.seat_to_act]
    before = await state(stubs, table_id, tokens)
    await expect_error(
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=other, command_id="impostor"),
                        timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert await state(stubs, table_id, tokens) == before


async def test_a_token_of_another_table_is_refused(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    _, foreign = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    await expect_error(
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=foreign[0], command_id="x"),
                        timeout=TIMEOUT),
        grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")
    assert await state(stubs, table_id, tokens) == before


async def test_join_role_unspecified_is_invalid(stubs) -> None:
    table_id, _ = await create(stubs)
    await expect_error(
        stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name="who", role=lobby_service_pb2.JOIN_ROLE_UNSPECIFIED), timeout=TIMEOUT),
        grpc.StatusCode.INVALID_ARGUMENT, "UNSPECIFIED_ENUM")
    info = (await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)).table
    assert not any(seat.occupied for seat in info.seats) and info.spectator_count == 0


async def test_acting_after_the_match_ended_is_refused(stubs) -> None:
    """A one-round match: the player leaves, a bot takes the seat over and the bots finish it."""
    table_id, owner = await create(stubs, manual_start=True, target_score=1)
    ann = await join(stubs, table_id, "ann")
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id))
    await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, fill_with_bots=True), timeout=TIMEOUT)
    await stubs.lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(table_id=table_id, token=ann), timeout=TIMEOUT)
    async with asyncio.timeout(60):
        async for response in stream:
            if response.event.WhichOneof("payload") == "match_ended":
                break
    stream.cancel()
    before = await view(stubs, table_id, ann)
    assert before.status == table_pb2.TABLE_STATUS_FINISHED
    await expect_error(
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=ann, command_id="too-late"),
                        timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    after = await view(stubs, table_id, ann)
    assert after.event_number == before.event_number and list(after.hand) == list(before.hand)


# ------------------------------------------------------------------------------------ misbehaving connections


async def test_a_subscriber_that_never_reads_is_cut_off_and_can_resume(stubs) -> None:
    table_id, _ = await create(stubs, manual_start=True)
    eve = await join(stubs, table_id, "eve", SPECTATOR)
    table = stubs.host.tables[table_id]
    # A tiny receive window and no window growth: the host's writes block as soon as ~1 KiB is unread.
    slow_channel = grpc.aio.insecure_channel(
        stubs.address, options=[("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)])
    try:
        slow = watch_service_pb2_grpc.WatchServiceStub(slow_channel).WatchEvents(
            watch_service_pb2.WatchEventsRequest(table_id=table_id, token=eve))
        await eventually(lambda: len(table.subscribers) == 1, "the slow stream subscribed")
        subscriber = table.subscribers[0]
        for i in range(200):  # ~60 KB of public events that the slow reader never takes
            await stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
                table_id=table_id, token=eve, text=f"{i:03d} " + "x" * 250), timeout=TIMEOUT)
        assert subscriber.queue.qsize() <= SUBSCRIBER_QUEUE
        # The host gives up on it after write_timeout_s (2 s in the fixture) and drops it from the table.
        await eventually(lambda: subscriber not in table.subscribers, "the slow subscriber was cut off")
        assert subscriber.overflowed
        queued = subscriber.queue.qsize()
        for i in range(20):  # nothing more is queued for it: its memory stays flat
            await stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
                table_id=table_id, token=eve, text=f"after {i}"), timeout=TIMEOUT)
        assert subscriber.queue.qsize() <= queued

        # Reading now: whatever was already on the wire, then RESOURCE_EXHAUSTED / SUBSCRIBER_TOO_SLOW.
        received = []
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async with asyncio.timeout(TIMEOUT):
                async for response in slow:
                    received.append(response.event)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(caught.value) == "SUBSCRIBER_TOO_SLOW"
        assert contiguous(received, 1)
    finally:
        await slow_channel.close()

    # It resumes after the last event it saw and gets exactly the rest.
    last_seen = received[-1].number if received else 0
    last = table.last_number
    resumed = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=eve, after_event_number=last_seen))
    rest = await read_until(resumed, last)
    resumed.cancel()
    assert contiguous(rest, last_seen + 1) and rest[-1].number == last


async def test_a_client_gone_mid_turn_does_not_stop_the_table_and_resumes(stubs) -> None:
    clock = table_pb2.ClockSettings(turn_time=duration_pb2.Duration(seconds=1), strikes_before_takeover=10)
    table_id, tokens = await two_player_table(stubs, clock=clock)
    table = stubs.host.tables[table_id]
    v = await view(stubs, table_id, tokens[0])
    gone = v.seat_to_act
    stays = 1 - gone

    own_channel = grpc.aio.insecure_channel(stubs.address)
    stream = watch_service_pb2_grpc.WatchServiceStub(own_channel).WatchEvents(
        watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[gone]))
    seen = await read_until(stream, v.event_number)
    assert table.seats[gone].connected == 1
    await own_channel.close()  # gone without a word, in the middle of its turn
    await eventually(lambda: table.seats[gone].connected == 0, "the host noticed the client left")

    # The table goes on: the turn clock acts for the missing seat and the other seat sees it.
    watcher = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[stays], after_event_number=v.event_number))
    timed_out = None
    async with asyncio.timeout(TIMEOUT):
        async for response in watcher:
            event = response.event
            if event.WhichOneof("payload") == "turn_timed_out" and event.turn_timed_out.seat == gone:
                timed_out = event.number
                break
    watcher.cancel()
    assert timed_out is not None

    # Back with the same token and the last number it saw: exactly what it missed, timeout included.
    last_seen = seen[-1].number
    resumed = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[gone], after_event_number=last_seen))
    missed = await read_until(resumed, timed_out)
    assert contiguous(missed, last_seen + 1)
    assert table.seats[gone].connected == 1
    resumed.cancel()
    assert (await view(stubs, table_id, tokens[gone])).seat == gone


async def test_many_streams_opened_and_dropped_at_once_leave_the_host_clean(stubs) -> None:
    table_id, tokens = await two_player_table(stubs)
    eve = await join(stubs, table_id, "eve", SPECTATOR)
    table = stubs.host.tables[table_id]
    before = await state(stubs, table_id, tokens)
    watch_tokens = [tokens[0], tokens[1], eve, ""]

    async def open_and_drop(i: int) -> None:
        channel = grpc.aio.insecure_channel(stubs.address)
        try:
            stream = watch_service_pb2_grpc.WatchServiceStub(channel).WatchEvents(
                watch_service_pb2.WatchEventsRequest(table_id=table_id, token=watch_tokens[i % 4]))
            first = await asyncio.wait_for(stream.read(), TIMEOUT)
            assert first.event.number == 1
            if i % 2:
                stream.cancel()  # half cancel the call, half just drop the connection
        finally:
            await channel.close()

    await asyncio.wait_for(asyncio.gather(*(open_and_drop(i) for i in range(200))), 60)
    await eventually(lambda: not table.subscribers, "every dropped stream was unsubscribed")
    assert all(seat.connected == 0 for seat in table.seats)
    await eventually(lambda: not any(seat.shown_connected for seat in table.seats), "every closed stream announced")
    after = await state(stubs, table_id, tokens)
    assert after[1] == before[1], "no hand changed"
    added = [entry.event.WhichOneof("payload") for entry in table.log[before[0]:]]
    assert added and set(added) == {"seat_connection_changed"}, "only the seats' streams opening and closing"

    # Still serving: a new stream gets the whole log, and play goes on.
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[0]))
    assert contiguous(await read_until(stream, after[0]), 1)
    stream.cancel()
    v = await view(stubs, table_id, tokens[0])
    drew = await stubs.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=tokens[v.seat_to_act], command_id="alive"), timeout=TIMEOUT)
    assert drew.result.event_number > v.event_number


@pytest.mark.parametrize(("color", "rank"), [(cards_pb2.COLOR_RED, 77), (77, cards_pb2.RANK_ONE)],
                         ids=["rank", "colour"])
async def test_an_undefined_enum_number_inside_a_card_is_unspecified_enum(stubs: Any, color: int, rank: int) -> None:
    """errors.proto: UNSPECIFIED_ENUM is "a number the enum does not define" too; NO_SUCH_CARD is a
    pairing of real colours and ranks that does not exist. The guide says the same for every request."""
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    v = await view(stubs, table_id, tokens[0])
    error = await expect_error(stubs.play.PlayCards(play_service_pb2.PlayCardsRequest(
        table_id=table_id, token=tokens[v.seat_to_act], command_id="c",
        cards=[cards_pb2.Card(color=color, rank=rank)]), timeout=TIMEOUT),  # type: ignore[arg-type]
        grpc.StatusCode.INVALID_ARGUMENT, "UNSPECIFIED_ENUM")
    assert "77" in error.details()
    assert await state(stubs, table_id, tokens) == before


async def test_an_oversized_request_carries_a_machine_reason(stubs: Any) -> None:
    """An oversized request is refused with a machine reason, which the transport alone does not give."""
    table_id, _ = await create(stubs)
    ann = await join(stubs, table_id, "ann")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
            table_id=table_id, token=ann, text="x" * (70 * 1024)), timeout=TIMEOUT)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(caught.value) == "MESSAGE_TOO_LARGE"


async def test_malformed_and_missing_fields_are_refused_with_reasons_and_change_nothing(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    info = await table_info(stubs, table_id)
    v = await view(stubs, table_id, tokens[0])
    seat = v.seat_to_act
    token = tokens[seat]
    play = play_service_pb2

    def cards(*pairs: tuple[int, int]) -> list[cards_pb2.Card]:
        return [cards_pb2.Card(color=color, rank=rank) for color, rank in pairs]

    refusals: list[tuple[str, Any, str]] = [
        ("no cards", stubs.play.PlayCards(play.PlayCardsRequest(
            table_id=table_id, token=token, command_id="a"), timeout=TIMEOUT), "NO_CARDS"),
        ("a black five", stubs.play.PlayCards(play.PlayCardsRequest(
            table_id=table_id, token=token, command_id="a",
            cards=cards((cards_pb2.COLOR_BLACK, cards_pb2.RANK_FIVE))), timeout=TIMEOUT), "NO_SUCH_CARD"),
        ("an unknown colour number", stubs.play.PlayCards(play.PlayCardsRequest(
            table_id=table_id, token=token, command_id="a", cards=cards((99, cards_pb2.RANK_TWO))),
            timeout=TIMEOUT), "UNSPECIFIED_ENUM"),
        ("RANK_UNSPECIFIED", stubs.play.PlayCards(play.PlayCardsRequest(
            table_id=table_id, token=token, command_id="a", cards=cards((cards_pb2.COLOR_RED, 0))),
            timeout=TIMEOUT), "UNSPECIFIED_ENUM"),
        ("COLOR_UNSPECIFIED", stubs.play.ChooseColor(play.ChooseColorRequest(
            table_id=table_id, token=token, command_id="a"), timeout=TIMEOUT), "UNSPECIFIED_ENUM"),
        ("no token", stubs.play.Draw(play.DrawRequest(
            table_id=table_id, command_id="a"), timeout=TIMEOUT), "TOKEN_MISSING"),
        ("no command id", stubs.play.Draw(play.DrawRequest(
            table_id=table_id, token=token), timeout=TIMEOUT), "COMMAND_ID_MISSING"),
        ("a 65-character command id", stubs.play.Draw(play.DrawRequest(
            table_id=table_id, token=token, command_id="x" * 65), timeout=TIMEOUT), "COMMAND_ID_TOO_LONG"),
        ("catching oneself", stubs.play.CatchUno(play.CatchUnoRequest(
            table_id=table_id, token=token, command_id="a", target_seat=seat), timeout=TIMEOUT), "CATCH_SELF"),
        ("a seat outside the table", stubs.play.CatchUno(play.CatchUnoRequest(
            table_id=table_id, token=token, command_id="a", target_seat=7), timeout=TIMEOUT), "BAD_SEAT"),
        ("an empty chat", stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
            table_id=table_id, token=token, text=""), timeout=TIMEOUT), "MISSING_FIELD"),
        ("a 281-character chat", stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
            table_id=table_id, token=token, text="x" * 281), timeout=TIMEOUT), "TEXT_TOO_LONG"),
        ("a spectator without a name", stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, role=SPECTATOR), timeout=TIMEOUT), "MISSING_FIELD"),
        ("a 33-character name", stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name="n" * 33, role=SPECTATOR), timeout=TIMEOUT), "NAME_TOO_LONG"),
        ("a ping without its send time", stubs.time.Ping(time_service_pb2.PingRequest(
            table_id=table_id, token=token, sequence=1), timeout=TIMEOUT), "MISSING_FIELD"),
    ]
    for what, call, reason in refusals:
        error = await expect_error(call, INVALID, reason)
        assert error.details(), f"{what}: a refusal quotes the input in its message"
    await expect_error(first_message(stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=token, after_event_number=before[0] + 100))), INVALID, "BAD_EVENT_NUMBER")

    assert await state(stubs, table_id, tokens) == before
    assert await table_info(stubs, table_id) == info


async def test_unspecified_enums_and_bad_settings_are_refused_and_create_no_table(stubs: Any) -> None:
    known = set(stubs.host.tables)
    create_table = stubs.lobby.CreateTable
    request = lobby_service_pb2.CreateTableRequest
    await expect_error(create_table(request(
        name="t", seat_count=2, overrides=rules_pb2.Ruleset(jump_in_penalty=rules_pb2.JUMP_IN_PENALTY_UNSPECIFIED)),
        timeout=TIMEOUT), INVALID, "UNSPECIFIED_ENUM")
    await expect_error(create_table(request(name="t", seat_count=11), timeout=TIMEOUT), INVALID, "BAD_SEAT_COUNT")
    await expect_error(create_table(request(name="t", seat_count=1), timeout=TIMEOUT), INVALID, "BAD_SEAT_COUNT")
    await expect_error(create_table(request(name="t", seat_count=2, preset="no-such-preset"), timeout=TIMEOUT),
                       INVALID, "UNKNOWN_PRESET")
    await expect_error(create_table(request(name="n" * 65, seat_count=2), timeout=TIMEOUT), INVALID, "NAME_TOO_LONG")
    assert set(stubs.host.tables) == known


async def test_an_unknown_table_is_not_found_on_every_service_and_nothing_is_created(stubs: Any) -> None:
    _, tokens = await two_player_table(stubs)
    known = set(stubs.host.tables)
    ghost = "no-such-table"
    token = tokens[0]
    calls = [
        stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=ghost), timeout=TIMEOUT),
        stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(table_id=ghost, name="a", role=PLAYER),
                              timeout=TIMEOUT),
        stubs.lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(table_id=ghost, token=token), timeout=TIMEOUT),
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=ghost, token=token, command_id="a"), timeout=TIMEOUT),
        stubs.chat.SendChat(chat_service_pb2.SendChatRequest(table_id=ghost, token=token, text="hi"),
                            timeout=TIMEOUT),
        stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=ghost, token=token), timeout=TIMEOUT),
        first_message(stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=ghost))),
        # A missing table id is an unknown table, too (there is no table "").
        stubs.play.Draw(play_service_pb2.DrawRequest(token=token, command_id="a"), timeout=TIMEOUT),
    ]
    for call in calls:
        await expect_error(call, grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
    assert set(stubs.host.tables) == known


async def test_forged_and_foreign_tokens_are_refused_by_every_rpc_that_takes_one(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    _, foreign = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    info = await table_info(stubs, table_id)
    denied = grpc.StatusCode.PERMISSION_DENIED
    for bad in ("forged-token-that-no-seat-has", foreign[0]):
        calls = [
            stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=bad, command_id="a"),
                            timeout=TIMEOUT),
            stubs.chat.SendChat(chat_service_pb2.SendChatRequest(table_id=table_id, token=bad, text="hi"),
                                timeout=TIMEOUT),
            stubs.lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(table_id=table_id, token=bad),
                                   timeout=TIMEOUT),
            stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=bad), timeout=TIMEOUT),
            first_message(stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=bad))),
        ]
        for call in calls:
            await expect_error(call, denied, "BAD_TOKEN")
        # The owner's calls refuse any token but the owner token, a seat token included.
        for owner_token in (bad, tokens[0]):
            await expect_error(stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(
                table_id=table_id, owner_token=owner_token), timeout=TIMEOUT), denied, "NOT_OWNER")
            await expect_error(stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
                table_id=table_id, owner_token=owner_token), timeout=TIMEOUT), denied, "NOT_OWNER")
    assert await state(stubs, table_id, tokens) == before
    assert await table_info(stubs, table_id) == info


async def test_joining_a_full_table_or_a_taken_seat_is_refused_and_changes_nothing(stubs: Any) -> None:
    table_id, owner = await create(stubs, seat_count=3, manual_start=True)
    ann = await join(stubs, table_id, "ann")
    info = await table_info(stubs, table_id)
    exists = grpc.StatusCode.ALREADY_EXISTS
    await expect_error(stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="bob", role=PLAYER, seat=0), timeout=TIMEOUT), exists, "SEAT_TAKEN")
    await expect_error(stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="bob", role=PLAYER, seat=3), timeout=TIMEOUT), INVALID, "BAD_SEAT")
    await expect_error(stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(
        table_id=table_id, owner_token=owner, count=3), timeout=TIMEOUT), exists, "TABLE_FULL")
    await expect_error(stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner), timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION, "SEATS_EMPTY")
    await expect_error(stubs.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=ann, command_id="early"), timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION, "NOT_STARTED")
    assert await table_info(stubs, table_id) == info

    await join(stubs, table_id, "bob")
    await join(stubs, table_id, "cy")
    full = await table_info(stubs, table_id)
    await expect_error(stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="dee", role=PLAYER), timeout=TIMEOUT), exists, "TABLE_FULL")
    await expect_error(stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(
        table_id=table_id, owner_token=owner, count=1), timeout=TIMEOUT), exists, "TABLE_FULL")
    assert await table_info(stubs, table_id) == full
    # A full table still takes spectators: watching is not sitting.
    assert await join(stubs, table_id, "eve", SPECTATOR)


async def test_an_oversized_request_is_refused_and_changes_nothing(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    info = await table_info(stubs, table_id)
    v = await view(stubs, table_id, tokens[0])
    token = tokens[v.seat_to_act]
    huge = "x" * (70 * 1024)
    for call in (
        stubs.chat.SendChat(chat_service_pb2.SendChatRequest(table_id=table_id, token=token, text=huge),
                            timeout=TIMEOUT),
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=token, command_id=huge),
                        timeout=TIMEOUT),
    ):
        try:
            await call
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.details()
        else:
            raise AssertionError("a request over 64 KiB was accepted")
    assert await state(stubs, table_id, tokens) == before
    assert await table_info(stubs, table_id) == info
    # The connection and the host are fine afterwards: the same seat's next command is applied.
    drew = await stubs.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=token, command_id="after-oversized"), timeout=TIMEOUT)
    assert drew.result.event_number == before[0] + 1


async def test_a_command_id_sent_many_times_at_once_is_applied_once(stubs: Any) -> None:
    """A client that retries before the first answer came back: the copies race; one is applied."""
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    v = await view(stubs, table_id, tokens[0])
    drawing = (await view(stubs, table_id, tokens[v.seat_to_act])).legal_actions.draw.count  # 2 after a Draw Two
    request = play_service_pb2.DrawRequest(table_id=table_id, token=tokens[v.seat_to_act], command_id="retry")
    results = await asyncio.gather(*(stubs.play.Draw(request, timeout=TIMEOUT) for _ in range(8)))
    assert len({r.result.SerializeToString() for r in results}) == 1
    after = await view(stubs, table_id, tokens[0])
    assert after.event_number == results[0].result.last_event_number
    assert results[0].result.event_number == before[0] + 1
    # And the drawer holds exactly the cards of one draw more.
    drawer = await view(stubs, table_id, tokens[v.seat_to_act])
    assert drawing >= 1 and len(drawer.hand) == len(before[1][v.seat_to_act]) + drawing


def _faces(message: Message) -> list[str]:
    """The path of every card face (`CardRef.card`) anywhere inside a message."""
    found: list[str] = []
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            values = list(value.values())
        elif isinstance(value, Message):
            values = [value]
        else:
            values = list(value)  # a repeated message field
        for item in values:
            if not isinstance(item, Message):
                continue  # a map of scalars
            if item.DESCRIPTOR.full_name == "unonet.v1.CardRef" and item.HasField("card"):
                found.append(field.name)
            found += [f"{field.name}.{path}" for path in _faces(item)]
    return found


_PUBLIC_FACES = {
    "cards_played", "first_card_turned", "first_card_returned", "wrong_jump_in", "illegal_play",
    "card_taken_back", "round_ended", "dealer_chosen", "snapshot",
    "reaction_window_opened",  # the card a window is about: one just played, public
}


async def test_a_spectator_sees_no_hidden_card_in_a_whole_match_nor_in_its_snapshot(stubs: Any) -> None:
    """Four bots under the house rules (seven-0 swaps hands) play a match; a spectator watches it all."""
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="watched", preset="house", seat_count=4, manual_start=True,
        overrides=rules_pb2.Ruleset(target_score=60)), timeout=TIMEOUT)
    table_id = created.table.table_id
    eve = await join(stubs, table_id, "eve", SPECTATOR)
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=eve))
    await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=TIMEOUT)
    kinds: set[str] = set()
    numbers: list[int] = []
    async with asyncio.timeout(90):
        async for response in stream:
            event = response.event
            kind = event.WhichOneof("payload") or ""
            kinds.add(kind)
            numbers.append(event.number)
            assert not event.HasField("your_legal_actions"), "a spectator has no legal actions"
            if kind not in _PUBLIC_FACES:
                assert not _faces(event), f"event {event.number} ({kind}) shows a hidden card: {_faces(event)}"
            if kind == "match_ended":
                break
    stream.cancel()
    assert numbers == list(range(1, len(numbers) + 1))
    assert {"cards_dealt", "cards_drawn"} <= kinds

    snapshot = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=eve, start_with_snapshot=True))
    first = await first_message(snapshot)
    snapshot.cancel()
    assert first.event.WhichOneof("payload") == "snapshot"
    assert not first.event.snapshot.view.hand and first.event.snapshot.view.is_spectator


async def test_a_snapshot_resume_is_followed_by_the_rest_without_a_gap(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[1], after_event_number=1, start_with_snapshot=True))
    first = await first_message(stream)
    now = await view(stubs, table_id, tokens[1])
    assert first.event.WhichOneof("payload") == "snapshot"
    assert first.event.number == now.event_number
    assert first.event.snapshot.view.hand == now.hand and first.event.snapshot.view.seat == 1

    # Moves made after the snapshot arrive next, numbered on from it.
    for i in range(3):
        v = await view(stubs, table_id, tokens[0])
        legal = (await view(stubs, table_id, tokens[v.seat_to_act])).legal_actions
        command = stubs.play.Pass if legal.pass_turn else stubs.play.Draw
        request_type = play_service_pb2.PassRequest if legal.pass_turn else play_service_pb2.DrawRequest
        await command(request_type(table_id=table_id, token=tokens[v.seat_to_act], command_id=f"m{i}"),
                      timeout=TIMEOUT)
    last = (await view(stubs, table_id, tokens[1])).event_number
    rest = []
    while not rest or rest[-1].number < last:
        rest.append((await first_message(stream)).event)  # read(), as the snapshot was: no mixing
    stream.cancel()
    assert contiguous(rest, first.event.number + 1) and rest[-1].number == last
