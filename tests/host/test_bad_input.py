"""Bad input gets a clear error and loses nothing: real gRPC on 127.0.0.1:0 (the `stubs` fixture).

Every refusal is checked for its status code and its machine reason (trailing metadata
`unonet-error-bin`), and the table is compared before and after: same last event number, same hands.
Misbehaving connections (a reader that never reads, a client gone mid-turn, hundreds of streams
opened and dropped at once) must leave the host serving and its subscriber lists clean.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import pytest
from google.protobuf import duration_pb2

from unonet.host.fanout import SUBSCRIBER_QUEUE
from unonet.v1 import (
    cards_pb2,
    chat_service_pb2,
    errors_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    table_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 10
PLAYER = lobby_service_pb2.JOIN_ROLE_PLAYER
SPECTATOR = lobby_service_pb2.JOIN_ROLE_SPECTATOR


def reason_of(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "unonet-error-bin":
            return errors_pb2.ErrorDetail.FromString(value).reason
    return ""


async def expect_error(call, code: grpc.StatusCode, reason: str) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason, caught.value.details()
    return caught.value


async def eventually(predicate: Callable[[], bool], what: str) -> None:
    """Wait (bounded) for a condition the host reaches on its own, e.g. after a peer went away."""
    try:
        async with asyncio.timeout(TIMEOUT):
            while not predicate():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


async def create(stubs, *, seat_count: int = 2, manual_start: bool = False, clock=None, **overrides):
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=seat_count, manual_start=manual_start, clock=clock,
        overrides=rules_pb2.Ruleset(**overrides)), timeout=TIMEOUT)
    return created.table.table_id, created.owner_token


async def join(stubs, table_id: str, name: str, role=PLAYER) -> str:
    joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=role), timeout=TIMEOUT)
    return joined.token


async def two_player_table(stubs, **kwargs) -> tuple[str, list[str]]:
    """A started two-seat table whose seat to act is in an ordinary turn (a Wild turned up: colour chosen)."""
    table_id, _ = await create(stubs, **kwargs)
    tokens = [await join(stubs, table_id, name) for name in ("ann", "bob")]
    v = await view(stubs, table_id, tokens[0])
    token = tokens[v.seat_to_act]
    if (await view(stubs, table_id, token)).legal_actions.choose_color:
        await stubs.play.ChooseColor(play_service_pb2.ChooseColorRequest(
            table_id=table_id, token=token, command_id="first-colour", color=cards_pb2.COLOR_RED), timeout=TIMEOUT)
    return table_id, tokens


async def view(stubs, table_id: str, token: str):
    response = await stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=token),
                                         timeout=TIMEOUT)
    return response.view


async def state(stubs, table_id: str, tokens: list[str]):
    """What a refusal must not change: the last event number and every seat's hand."""
    views = [await view(stubs, table_id, token) for token in tokens]
    return views[0].event_number, [[ref.SerializeToString() for ref in v.hand] for v in views]


async def read_until(stream, last: int) -> list:
    events = []
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            events.append(response.event)
            if response.event.number >= last:
                return events
    raise AssertionError(f"the stream ended before event {last}")


def contiguous(events, first: int) -> bool:
    return [e.number for e in events] == list(range(first, first + len(events)))


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
