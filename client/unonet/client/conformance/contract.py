"""`ContractSuite`: the unonet.v1 protocol contract every host must honour, checked over the wire.

Each test is one promise the protocol makes to clients and bots: tables can be created, joined and
viewed; events are numbered per table from 1 with no gap and no duplicate for players and spectators
alike; nobody sees another seat's hidden cards; refusals carry a machine reason in the
`unonet-error-bin` trailer and, as the standard rich status, in `grpc-status-details-bin`;
`*_UNSPECIFIED` is refused where a value is needed; a retried command id is applied once; a
subscriber resumes after the last number it saw; and ListTables pages newest first without
repeating a table. Each test creates its own tables, so a shared host is fine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, ClassVar, cast

import grpc
from grpc_status import rpc_status

from unonet.client.conformance.case import HostCase
from unonet.client.conformance.remote import CALL_TIMEOUT as TIMEOUT
from unonet.client.conformance.remote import Remote, reason_of
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    errors_pb2,
    events_pb2,
    lobby_service_pb2,
    play_service_pb2,
    table_pb2,
    views_pb2,
    watch_service_pb2,
)
from unonet.v1.trailers import ERROR_DETAIL_KEY

__all__ = ["ContractSuite"]


def require(condition: object, message: str) -> None:
    """An assertion that `python -O` keeps."""
    if not condition:
        raise AssertionError(message)


async def expect_error(call: Awaitable[Any], code: grpc.StatusCode, reason: str) -> None:
    """`call` is refused with `code`, and its `unonet-error-bin` trailer names `reason`."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        require(error.code() == code, f"expected {code}, got {error.code()}: {error.details()}")
        named = reason_of(error)
        require(named == reason, f"trailer {ERROR_DETAIL_KEY} should name {reason}, not {named!r}")
        return
    raise AssertionError(f"the call was not refused (expected {code} {reason})")


async def view(remote: Remote, table_id: str, token: str) -> views_pb2.SeatView:
    response = await remote.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=token),
                                          timeout=TIMEOUT)
    return response.view


async def join(remote: Remote, table_id: str, name: str,
               role: lobby_service_pb2.JoinRole.ValueType = lobby_service_pb2.JOIN_ROLE_PLAYER,
               ) -> lobby_service_pb2.JoinTableResponse:
    return await remote.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=role), timeout=TIMEOUT)


async def create_table(remote: Remote) -> lobby_service_pb2.CreateTableResponse:
    return await remote.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="conformance", preset="standard", seat_count=2), timeout=TIMEOUT)


async def started_table(remote: Remote) -> tuple[str, list[str]]:
    """A two-seat standard table, both seats joined (so it starts), its seat to act in an ordinary turn."""
    created = await create_table(remote)
    table_id = created.table.table_id
    require(table_id and created.owner_token, "CreateTable gives a table id and an owner token")
    tokens = [(await join(remote, table_id, name)).token for name in ("ann", "bob")]
    to_act = await seat_to_act(remote, table_id, tokens)
    if (await view(remote, table_id, tokens[to_act])).legal_actions.choose_color:  # a Wild was turned up
        await remote.play.ChooseColor(play_service_pb2.ChooseColorRequest(
            table_id=table_id, token=tokens[to_act], command_id="first-colour", color=cards_pb2.COLOR_RED),
            timeout=TIMEOUT)
    return table_id, tokens


async def seat_to_act(remote: Remote, table_id: str, tokens: list[str]) -> int:
    seen = await view(remote, table_id, tokens[0])
    require(seen.HasField("seat_to_act"), "a started two-seat table has a seat to act")
    return seen.seat_to_act


async def draw(remote: Remote, table_id: str, token: str, command_id: str) -> actions_pb2.CommandResult:
    response = await remote.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=token, command_id=command_id), timeout=TIMEOUT)
    return response.result


async def step(remote: Remote, table_id: str, tokens: list[str], command_id: str) -> actions_pb2.CommandResult:
    """One legal move for the seat to act, picked from the legal actions its view lists."""
    token = tokens[await seat_to_act(remote, table_id, tokens)]
    legal = (await view(remote, table_id, token)).legal_actions
    if legal.choose_color:
        return (await remote.play.ChooseColor(play_service_pb2.ChooseColorRequest(
            table_id=table_id, token=token, command_id=command_id, color=cards_pb2.COLOR_RED),
            timeout=TIMEOUT)).result
    if legal.pass_turn:
        return (await remote.play.Pass(play_service_pb2.PassRequest(
            table_id=table_id, token=token, command_id=command_id), timeout=TIMEOUT)).result
    if legal.HasField("draw"):
        return await draw(remote, table_id, token, command_id)
    option = legal.plays[0]
    request = play_service_pb2.PlayCardsRequest(table_id=table_id, token=token, command_id=command_id,
                                                cards=option.cards)
    if option.needs_color:
        request.color = cards_pb2.COLOR_RED
    return (await remote.play.PlayCards(request, timeout=TIMEOUT)).result


async def events_through(
    remote: Remote, table_id: str, token: str, last: int, after: int = 0
) -> list[events_pb2.Event]:
    """The events a subscriber receives after `after`, up to and including `last`."""
    stream = remote.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, token=token, after_event_number=after))
    events: list[events_pb2.Event] = []
    try:
        async with asyncio.timeout(TIMEOUT):
            async for response in stream:
                events.append(response.event)
                if response.event.number >= last:
                    return events
    finally:
        stream.cancel()
    raise AssertionError(f"the stream ended after {len(events)} events, before event {last}")


async def next_event(stream: grpc.aio.UnaryStreamCall[Any, Any]) -> events_pb2.Event:
    """The next event of an event stream, within the call timeout."""
    response = await asyncio.wait_for(stream.read(), TIMEOUT)
    if not isinstance(response, watch_service_pb2.WatchEventsResponse):
        raise AssertionError("the event stream ended")
    return response.event


def numbers(events: list[events_pb2.Event]) -> list[int]:
    return [e.number for e in events]


class ContractSuite(HostCase):
    """The protocol contract. Subclass it and implement `serve` (see `HostCase`)."""

    __test__: ClassVar[bool] = False

    async def test_create_join_and_view(self) -> None:
        remote = self.remote
        table_id = (await create_table(remote)).table.table_id
        joined = [await join(remote, table_id, name) for name in ("ann", "bob")]
        self.assertEqual(sorted(j.seat for j in joined), [0, 1])
        self.assertNotEqual(joined[0].token, joined[1].token)
        self.assertTrue(all(len(j.token) >= 16 for j in joined), "seat tokens are at least 16 characters")
        eve = await join(remote, table_id, "eve", lobby_service_pb2.JOIN_ROLE_SPECTATOR)
        self.assertTrue(eve.is_spectator)
        self.assertNotIn(eve.token, {j.token for j in joined})

        views = [await view(remote, table_id, j.token) for j in joined]
        for j, seen in zip(joined, views, strict=True):
            self.assertEqual((seen.table_id, seen.seat, seen.is_spectator), (table_id, j.seat, False))
            self.assertTrue(len(seen.hand) > 0 and all(ref.HasField("card") for ref in seen.hand), "own hand shown")
            self.assertTrue(seen.HasField("seat_to_act"))
            by_seat = sorted(views, key=lambda w: w.seat)
            self.assertEqual([s.hand_size for s in seen.seats], [len(w.hand) for w in by_seat])
        self.assertEqual(views[0].event_number, views[1].event_number)
        self.assertGreater(views[0].event_number, 0)
        watched = await view(remote, table_id, eve.token)
        self.assertTrue(watched.is_spectator)
        self.assertEqual(len(watched.hand), 0)
        self.assertEqual(watched.event_number, views[0].event_number)

    async def test_events_are_numbered_without_gaps_for_players_and_spectators(self) -> None:
        remote = self.remote
        table_id, tokens = await started_table(remote)
        eve = (await join(remote, table_id, "eve", lobby_service_pb2.JOIN_ROLE_SPECTATOR)).token
        for i in range(3):
            await step(remote, table_id, tokens, f"d{i}")
        last = (await view(remote, table_id, tokens[0])).event_number
        for token in [*tokens, eve]:
            got = await events_through(remote, table_id, token, last)
            self.assertEqual(numbers(got), list(range(1, last + 1)), "gap or duplicate in the event numbers")

    async def test_hidden_cards_never_reach_another_seat_or_a_spectator(self) -> None:
        remote = self.remote
        table_id, tokens = await started_table(remote)
        eve = (await join(remote, table_id, "eve", lobby_service_pb2.JOIN_ROLE_SPECTATOR)).token
        for i in range(4):
            await step(remote, table_id, tokens, f"d{i}")
        last = (await view(remote, table_id, tokens[0])).event_number
        viewers: list[tuple[int | None, str]] = [(0, tokens[0]), (1, tokens[1]), (None, eve)]
        for viewer, token in viewers:
            for event in await events_through(remote, table_id, token, last):
                kind = event.WhichOneof("payload")
                if kind == "cards_dealt":
                    for hand in event.cards_dealt.hands:
                        faces = [ref.HasField("card") for ref in hand.cards]
                        if hand.seat == viewer:
                            self.assertTrue(faces and all(faces), "a seat must see its own dealt cards")
                        else:
                            self.assertFalse(any(faces), f"seat {hand.seat}'s dealt cards leaked to {viewer}")
                if kind == "cards_drawn" and event.cards_drawn.seat != viewer:
                    drawn = event.cards_drawn.cards
                    self.assertFalse(any(ref.HasField("card") for ref in drawn), "a drawn card leaked")
                if viewer is None:
                    self.assertFalse(event.HasField("your_legal_actions"), "spectators get no legal actions")
        # A view shows its own hand only; a spectator's shows none.
        self.assertEqual(len((await view(remote, table_id, eve)).hand), 0)

    async def test_refusals_carry_machine_reasons(self) -> None:
        remote = self.remote
        table_id, tokens = await started_table(remote)
        before = await view(remote, table_id, tokens[0])
        idle = tokens[1 - before.seat_to_act]
        request = play_service_pb2.DrawRequest
        await expect_error(remote.play.Draw(request(table_id=table_id, token=idle, command_id="a"), timeout=TIMEOUT),
                           grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
        await expect_error(remote.play.Draw(request(table_id=table_id, token="forged-token", command_id="b"),
                                            timeout=TIMEOUT),
                           grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")
        await expect_error(remote.play.Draw(request(table_id="no-such-table", token=tokens[0], command_id="c"),
                                            timeout=TIMEOUT),
                           grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
        await expect_error(remote.watch.GetView(watch_service_pb2.GetViewRequest(
            table_id="no-such-table", token=tokens[0]), timeout=TIMEOUT), grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
        after = await view(remote, table_id, tokens[0])
        self.assertEqual(after.event_number, before.event_number)
        self.assertEqual(list(after.hand), list(before.hand))

    async def test_refusals_carry_the_standard_rich_status_with_the_same_detail(self) -> None:
        """`grpc-status-details-bin`: a google.rpc.Status with the call's code and message (from_call checks
        both) and the ErrorDetail packed in its details, equal to the one in `unonet-error-bin`."""
        with self.assertRaises(grpc.aio.AioRpcError) as caught:
            await self.remote.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id="no-such-table"),
                                             timeout=TIMEOUT)
        status = rpc_status.from_call(cast("grpc.Call", caught.exception))  # an AioRpcError reads as one
        self.assertIsNotNone(status, "trailer grpc-status-details-bin should carry a google.rpc.Status")
        detail = errors_pb2.ErrorDetail()
        self.assertTrue(any(packed.Unpack(detail) for packed in status.details),
                        "its details should hold an ErrorDetail")
        self.assertEqual(detail.reason, reason_of(caught.exception))
        self.assertEqual(detail.reason, "TABLE_NOT_FOUND")

    async def test_unspecified_enums_are_refused_where_a_value_is_needed(self) -> None:
        remote = self.remote
        table_id = (await create_table(remote)).table.table_id
        await expect_error(remote.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
            statuses=[table_pb2.TABLE_STATUS_UNSPECIFIED]), timeout=TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT, "UNSPECIFIED_ENUM")
        await expect_error(remote.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name="who", role=lobby_service_pb2.JOIN_ROLE_UNSPECIFIED), timeout=TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT, "UNSPECIFIED_ENUM")

    async def test_a_retried_command_id_is_applied_once(self) -> None:
        remote = self.remote
        table_id, tokens = await started_table(remote)
        token = tokens[await seat_to_act(remote, table_id, tokens)]
        first = await draw(remote, table_id, token, "retry-me")
        hand = list((await view(remote, table_id, token)).hand)
        again = await draw(remote, table_id, token, "retry-me")
        self.assertEqual(again, first)
        after = await view(remote, table_id, token)
        self.assertEqual(after.event_number, first.last_event_number)
        self.assertEqual(list(after.hand), hand)

    async def test_a_subscriber_resumes_after_the_last_number_it_saw(self) -> None:
        remote = self.remote
        table_id, tokens = await started_table(remote)
        seen = (await view(remote, table_id, tokens[0])).event_number
        for i in range(3):
            await step(remote, table_id, tokens, f"r{i}")
        last = (await view(remote, table_id, tokens[0])).event_number
        self.assertGreater(last, seen)
        for token in tokens:
            missed = await events_through(remote, table_id, token, last, after=seen)
            self.assertEqual(numbers(missed), list(range(seen + 1, last + 1)))
        # Resuming at the latest number yields nothing old: the next event is the next number (here the
        # seat's stream opening, SeatConnectionChanged, or the command's first event), and none is skipped.
        stream = remote.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table_id, token=tokens[0], after_event_number=last))
        try:
            result = await step(remote, table_id, tokens, "next")
            self.assertGreater(result.event_number, last)
            got = [await next_event(stream)]
            while got[-1].number < result.event_number:
                got.append(await next_event(stream))
            self.assertEqual(numbers(got), list(range(last + 1, result.event_number + 1)))
        finally:
            stream.cancel()

    async def test_list_tables_pages_newest_first_with_no_repeat(self) -> None:
        remote = self.remote
        mine = [(await create_table(remote)).table.table_id for _ in range(3)]
        seen: list[str] = []
        token = ""
        for _ in range(1000):  # the host's waiting tables, two at a time, until ours have all come
            page = await remote.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
                statuses=[table_pb2.TABLE_STATUS_WAITING], page_size=2, page_token=token), timeout=TIMEOUT)
            self.assertTrue(0 < len(page.tables) <= 2, f"a page of two holds {len(page.tables)}")
            self.assertTrue(all(t.status == table_pb2.TABLE_STATUS_WAITING for t in page.tables))
            seen += [t.table_id for t in page.tables]
            token = page.next_page_token
            if not token or set(mine) <= set(seen):
                break
        self.assertEqual(len(seen), len(set(seen)), "a table was listed twice")
        self.assertEqual([t for t in seen if t in mine], list(reversed(mine)))
        await expect_error(remote.lobby.ListTables(lobby_service_pb2.ListTablesRequest(page_token="not a token"),
                                                   timeout=TIMEOUT), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN")
