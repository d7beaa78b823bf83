"""Audit of issue 3's bad-input list, over real gRPC on 127.0.0.1:0 (the `stubs` fixture).

`test_bad_input.py` and `test_host.py` cover one example per item; these tests close the gaps an
audit found: every token-taking RPC with a forged or foreign token, every RPC with an unknown table,
the malformed requests a bot author is most likely to send, a full table, an oversized request, a
command id retried concurrently, and a snapshot resume. Each refusal is checked for its status code
and its machine reason, and the table is compared before and after, because "a refused command
changes nothing" is the promise bot authors rely on when they retry.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from google.protobuf.message import Message
from test_bad_input import (
    SPECTATOR,
    TIMEOUT,
    contiguous,
    create,
    expect_error,
    join,
    state,
    two_player_table,
    view,
)

from unonet.v1 import (
    cards_pb2,
    chat_service_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    time_service_pb2,
    watch_service_pb2,
)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
PLAYER = lobby_service_pb2.JOIN_ROLE_PLAYER


async def table_info(stubs: Any, table_id: str) -> tuple[Any, ...]:
    """The lobby's picture of a table (status, last event number, who sits where, hand sizes, strikes),
    without what moves by itself while nobody acts (the running clock, the time bank)."""
    reply = await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
    info = reply.table
    seats = tuple((s.seat, s.occupied, s.name, s.is_bot, s.hand_size, s.strikes, s.taken_over, s.eliminated)
                  for s in info.seats)
    return info.status, info.last_event_number, info.spectator_count, seats


async def first_message(stream: Any) -> Any:
    """The next message of a stream (bounded): a refused WatchEvents raises here, with its status."""
    return await asyncio.wait_for(stream.read(), TIMEOUT)


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


# The events whose cards are public once they happen (played, turned up, revealed at the round's end).
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
