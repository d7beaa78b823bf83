"""The host over real gRPC on 127.0.0.1:0: lobby, per-seat streams, commands, errors, resume, restore."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.v1 import (
    cards_pb2,
    errors_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    watch_service_pb2,
)

TIMEOUT = 10


def reason_of(error: grpc.aio.AioRpcError) -> str:
    for key, value in error.trailing_metadata() or ():
        if key == "unonet-error-bin":
            return errors_pb2.ErrorDetail.FromString(value).reason
    return ""


async def two_player_table(stubs, **overrides):
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="t", preset="standard", seat_count=2, overrides=rules_pb2.Ruleset(**overrides)), timeout=TIMEOUT)
    table_id = created.table.table_id
    tokens = []
    for name in ("ann", "bob"):
        joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)
        tokens.append(joined.token)
    return table_id, tokens, created.owner_token


async def view(stubs, table_id, token):
    response = await stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=token),
                                         timeout=TIMEOUT)
    return response.view


async def safe_request(stubs, table_id, token, command_id):
    """A command the seat to act may always send: name a colour if asked (first card Wild), else draw."""
    v = await view(stubs, table_id, token)
    if v.legal_actions.choose_color:
        return stubs.play.ChooseColor, play_service_pb2.ChooseColorRequest(
            table_id=table_id, token=token, command_id=command_id, color=cards_pb2.COLOR_RED)
    return stubs.play.Draw, play_service_pb2.DrawRequest(table_id=table_id, token=token, command_id=command_id)


async def safe_move(stubs, table_id, token, command_id):
    call, request = await safe_request(stubs, table_id, token, command_id)
    return await call(request, timeout=TIMEOUT)


async def expect_error(call, code, reason):
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason
    return caught.value


async def test_each_seat_sees_its_own_hand_only(stubs) -> None:
    table_id, tokens, _ = await two_player_table(stubs)
    for seat, token in enumerate(tokens):
        v = await view(stubs, table_id, token)
        assert v.seat == seat and len(v.hand) >= 7 - 1
        stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=token))
        seen = []
        async with asyncio.timeout(TIMEOUT):
            async for response in stream:
                seen.append(response.event)
                if response.event.number == v.event_number:
                    break
        stream.cancel()
        numbers = [e.number for e in seen]
        assert numbers == list(range(1, len(numbers) + 1)), "gap or duplicate in the event numbers"
        dealt = [e.cards_dealt for e in seen if e.WhichOneof("payload") == "cards_dealt"]
        for hand_event in dealt:
            for hand in hand_event.hands:
                if hand.seat == seat:
                    assert len(hand.cards) == 7 and all(ref.HasField("card") for ref in hand.cards)
                else:
                    assert not any(ref.HasField("card") for ref in hand.cards), "another seat's cards leaked"


async def test_spectators_see_no_hidden_card(stubs) -> None:
    table_id, _, _ = await two_player_table(stubs)
    joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="eve", role=lobby_service_pb2.JOIN_ROLE_SPECTATOR), timeout=TIMEOUT)
    v = await view(stubs, table_id, joined.token)
    assert v.is_spectator and len(v.hand) == 0
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=joined.token))
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            event = response.event
            if event.WhichOneof("payload") == "cards_dealt":
                assert not any(ref.HasField("card") for hand in event.cards_dealt.hands for ref in hand.cards)
            if event.number == v.event_number:
                break
    stream.cancel()


async def test_out_of_turn_is_refused_and_changes_nothing(stubs) -> None:
    table_id, tokens, _ = await two_player_table(stubs)
    before = await view(stubs, table_id, tokens[0])
    idle = 1 - before.seat_to_act
    await expect_error(
        stubs.play.Draw(play_service_pb2.DrawRequest(table_id=table_id, token=tokens[idle], command_id="x"),
                        timeout=TIMEOUT),
        grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    after = await view(stubs, table_id, tokens[0])
    assert after.event_number == before.event_number and list(after.hand) == list(before.hand)


async def test_bad_tokens_tables_and_fields(stubs) -> None:
    table_id, tokens, _ = await two_player_table(stubs)
    draw = play_service_pb2.DrawRequest
    await expect_error(stubs.play.Draw(draw(table_id=table_id, token="forged", command_id="a"), timeout=TIMEOUT),
                       grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")
    await expect_error(stubs.play.Draw(draw(table_id="nope", token=tokens[0], command_id="a"), timeout=TIMEOUT),
                       grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
    await expect_error(stubs.play.Draw(draw(table_id=table_id, token="", command_id="a"), timeout=TIMEOUT),
                       grpc.StatusCode.INVALID_ARGUMENT, "TOKEN_MISSING")
    v = await view(stubs, table_id, tokens[0])
    token = tokens[v.seat_to_act]
    await expect_error(stubs.play.Draw(draw(table_id=table_id, token=token, command_id=""), timeout=TIMEOUT),
                       grpc.StatusCode.INVALID_ARGUMENT, "COMMAND_ID_MISSING")
    unspecified = play_service_pb2.PlayCardsRequest(
        table_id=table_id, token=token, command_id="u", cards=[cards_pb2.Card(color=0, rank=6)])
    await expect_error(stubs.play.PlayCards(unspecified, timeout=TIMEOUT),
                       grpc.StatusCode.INVALID_ARGUMENT, "UNSPECIFIED_ENUM")
    await expect_error(stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="late", role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT),
        grpc.StatusCode.ALREADY_EXISTS, "TABLE_FULL")
    after = await view(stubs, table_id, tokens[0])
    assert after.event_number == v.event_number


async def test_oversized_messages_are_refused(stubs) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(name="x" * 100_000, seat_count=2),
                                      timeout=TIMEOUT)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_a_retried_command_is_applied_once(stubs) -> None:
    table_id, tokens, _ = await two_player_table(stubs)
    v = await view(stubs, table_id, tokens[0])
    call, request = await safe_request(stubs, table_id, tokens[v.seat_to_act], "once")
    first = await call(request, timeout=TIMEOUT)
    again = await call(request, timeout=TIMEOUT)
    assert first.result == again.result
    assert (await view(stubs, table_id, tokens[0])).event_number == first.result.last_event_number


async def test_resume_gets_exactly_what_was_missed(stubs) -> None:
    table_id, tokens, _ = await two_player_table(stubs)
    v = await view(stubs, table_id, tokens[0])
    await safe_move(stubs, table_id, tokens[v.seat_to_act], "d")
    last = (await view(stubs, table_id, tokens[0])).event_number
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=tokens[0], after_event_number=v.event_number))
    numbers = []
    async with asyncio.timeout(TIMEOUT):
        async for response in stream:
            numbers.append(response.event.number)
            if response.event.number == last:
                break
    stream.cancel()
    assert numbers == list(range(v.event_number + 1, last + 1))


async def test_bots_play_a_whole_match(stubs) -> None:
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="bots", seat_count=4, manual_start=True, overrides=rules_pb2.Ruleset(target_score=100)),
        timeout=TIMEOUT)
    table_id = created.table.table_id
    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id))
    await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=TIMEOUT)
    expected = 1
    async with asyncio.timeout(60):
        async for response in stream:
            assert response.event.number == expected
            expected += 1
            if response.event.WhichOneof("payload") == "match_ended":
                assert response.event.match_ended.winner_seats
                break


async def test_a_restarted_host_has_every_table_back(tmp_path) -> None:
    db = tmp_path / "host.db"
    first = Host(SqliteStore(db))
    from unonet.host.table import TableSettings

    table = first.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={}), seed=7)
    tokens = [table.join(name, None, False)[0] for name in ("ann", "bob")]
    seat = table.match.game.to_act
    from unonet.engine import legal_actions

    move = legal_actions(table.match.game, seat)[-1]
    table.command(seat, "c1", (move,))
    log_before = [table.render(e, 0).SerializeToString() for e in table.log]
    await first.stop()
    first.store.close()

    second = Host(SqliteStore(db))
    assert second.restore() == 1
    again = second.tables[table.table_id]
    assert [again.render(e, 0).SerializeToString() for e in again.log] == log_before
    assert again.seat_for(tokens[1]) == 1
    assert again.command(seat, "c1", (move,)) == table.commands[(seat, "c1")].result
    second.store.close()
