"""Refusals as the protos document them, over real gRPC on 127.0.0.1:0 (the `stubs` fixture).

One refusal per test (or per parametrized case): its status code, its reason and, where the detail
names one, the field at fault. Where the request could have changed something (a seat, a table, a
latency sample), the test also shows that it did not.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from host_stubs import SPECTATOR, TIMEOUT, create, expect_error, join, state, two_player_table

from unonet.host.errors import HostError
from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import TableSettings
from unonet.v1 import (
    cards_pb2,
    chat_service_pb2,
    errors_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    table_pb2,
    time_service_pb2,
    watch_service_pb2,
)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
PLAYER = lobby_service_pb2.JOIN_ROLE_PLAYER


def field_of(error: grpc.aio.AioRpcError) -> str:
    """The ErrorDetail's `field` metadata: the request field the refusal is about."""
    for key, value in error.trailing_metadata() or ():
        if key == "unonet-error-bin":
            return errors_pb2.ErrorDetail.FromString(value).metadata.get("field", "")
    return ""


async def table_of(stubs: Any, table_id: str) -> table_pb2.TableInfo:
    reply = await stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
    return reply.table


# ------------------------------------------------------------------------------------------- enums


@pytest.mark.parametrize("status", [table_pb2.TABLE_STATUS_UNSPECIFIED, 99], ids=["unspecified", "undefined"])
async def test_list_tables_refuses_a_status_that_is_not_one(stubs: Any, status: int) -> None:
    error = await expect_error(stubs.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
        statuses=[table_pb2.TABLE_STATUS_WAITING, status]), timeout=TIMEOUT), INVALID, "UNSPECIFIED_ENUM")
    assert field_of(error) == "statuses"


async def test_join_table_refuses_an_undefined_role_and_seats_nobody(stubs: Any) -> None:
    table_id, _ = await create(stubs)
    error = await expect_error(stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="who", role=7), timeout=TIMEOUT), INVALID, "UNSPECIFIED_ENUM")
    assert field_of(error) == "role" and "7" in error.details()
    info = await table_of(stubs, table_id)
    assert not any(seat.occupied for seat in info.seats) and info.spectator_count == 0


async def test_a_spectator_join_with_a_seat_is_refused(stubs: Any) -> None:
    table_id, _ = await create(stubs)
    error = await expect_error(stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="eve", role=SPECTATOR, seat=0), timeout=TIMEOUT), INVALID, "INVALID_FIELD")
    assert field_of(error) == "seat"
    info = await table_of(stubs, table_id)
    assert not any(seat.occupied for seat in info.seats) and info.spectator_count == 0


async def test_an_unset_takeover_policy_is_the_documented_default_bot(stubs: Any) -> None:
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        seat_count=2, clock=table_pb2.ClockSettings(strikes_before_takeover=2)), timeout=TIMEOUT)
    assert created.table.settings.clock.takeover_policy == table_pb2.TAKEOVER_POLICY_BOT


async def test_an_undefined_takeover_policy_is_refused_and_creates_no_table(stubs: Any) -> None:
    known = set(stubs.host.tables)
    error = await expect_error(stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        seat_count=2, clock=table_pb2.ClockSettings(takeover_policy=9)), timeout=TIMEOUT), INVALID, "UNSPECIFIED_ENUM")
    assert field_of(error) == "clock.takeover_policy"
    assert set(stubs.host.tables) == known


# ------------------------------------------------------------------------------------------- seats


@pytest.mark.parametrize("command", ["ChooseSwapTarget", "FiveSwap", "CatchUno"])
async def test_a_target_seat_outside_the_table_is_bad_seat_in_any_state(stubs: Any, command: str) -> None:
    """Seat 2 of a two-seat table: malformed whatever the phase (no 7 or 5 was played), so INVALID_ARGUMENT
    rather than the WRONG_PHASE a real seat would get."""
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    request = getattr(play_service_pb2, f"{command}Request")(
        table_id=table_id, token=tokens[0], command_id="far", target_seat=2)
    error = await expect_error(getattr(stubs.play, command)(request, timeout=TIMEOUT), INVALID, "BAD_SEAT")
    assert field_of(error) == "target_seat" and "not 2" in error.details()
    assert await state(stubs, table_id, tokens) == before


# ----------------------------------------------------------------------------------------- colours


@pytest.mark.parametrize("color", [cards_pb2.COLOR_BLACK, 9], ids=["black", "undefined"])
async def test_choose_color_refuses_a_colour_that_cannot_be_named(stubs: Any, color: int) -> None:
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    await expect_error(stubs.play.ChooseColor(play_service_pb2.ChooseColorRequest(
        table_id=table_id, token=tokens[0], command_id="c", color=color), timeout=TIMEOUT), INVALID, "BAD_COLOR")
    assert await state(stubs, table_id, tokens) == before


async def test_play_cards_refuses_an_explicit_color_unspecified(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    await expect_error(stubs.play.PlayCards(play_service_pb2.PlayCardsRequest(
        table_id=table_id, token=tokens[0], command_id="c", color=cards_pb2.COLOR_UNSPECIFIED,
        cards=[cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=cards_pb2.RANK_WILD)]), timeout=TIMEOUT),
        INVALID, "UNSPECIFIED_ENUM")
    assert await state(stubs, table_id, tokens) == before


# ------------------------------------------------------------------------------------------ counts


@pytest.mark.parametrize(("option", "value"), [
    ("uno_penalty", 4294967295), ("uno_penalty", 11),
    ("blank_draw", 0), ("blank_draw", 21),
    ("target_score", 0), ("target_score", 100_001),
])
async def test_a_count_outside_its_documented_range_is_bad_ruleset(stubs: Any, option: str, value: int) -> None:
    known = set(stubs.host.tables)
    error = await expect_error(stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        seat_count=2, overrides=rules_pb2.Ruleset(**{option: value})), timeout=TIMEOUT), INVALID, "BAD_RULESET")
    assert field_of(error) == f"overrides.{option}"
    assert f"not {value}" in error.details()  # the message quotes the value
    assert set(stubs.host.tables) == known


async def test_the_ends_of_every_count_range_are_accepted(stubs: Any) -> None:
    for overrides in (rules_pb2.Ruleset(uno_penalty=0, blank_draw=1, target_score=1),
                      rules_pb2.Ruleset(uno_penalty=10, blank_draw=20, target_score=100_000)):
        created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            seat_count=2, overrides=overrides), timeout=TIMEOUT)
        ruleset = created.table.settings.ruleset
        assert (ruleset.uno_penalty, ruleset.blank_draw, ruleset.target_score) == (
            overrides.uno_penalty, overrides.blank_draw, overrides.target_score)


async def test_an_impossible_combination_names_the_option_at_fault(stubs: Any) -> None:
    error = await expect_error(stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        seat_count=2, overrides=rules_pb2.Ruleset(stacking_mixed=True)), timeout=TIMEOUT), INVALID, "BAD_RULESET")
    assert field_of(error) == "overrides.stacking_mixed"


# ------------------------------------------------------------------------------------- command ids


@pytest.mark.parametrize("command_id", ["caf\u00e9", "line\nbreak", "tab\tid", "\x7f"],
                         ids=["non-ascii", "newline", "tab", "delete"])
async def test_a_command_id_that_is_not_printable_ascii_is_refused(stubs: Any, command_id: str) -> None:
    table_id, tokens = await two_player_table(stubs)
    seat = (await stubs.watch.GetView(watch_service_pb2.GetViewRequest(
        table_id=table_id, token=tokens[0]), timeout=TIMEOUT)).view.seat_to_act
    before = await state(stubs, table_id, tokens)
    error = await expect_error(stubs.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=tokens[seat], command_id=command_id), timeout=TIMEOUT), INVALID, "INVALID_FIELD")
    assert field_of(error) == "command_id"
    assert await state(stubs, table_id, tokens) == before


async def test_a_chat_command_id_that_is_not_printable_ascii_is_refused(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    before = await state(stubs, table_id, tokens)
    error = await expect_error(stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
        table_id=table_id, token=tokens[0], command_id="\u2603", text="hi"), timeout=TIMEOUT), INVALID, "INVALID_FIELD")
    assert field_of(error) == "command_id"
    assert await state(stubs, table_id, tokens) == before


async def test_every_printable_ascii_character_makes_a_command_id(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    seat = (await stubs.watch.GetView(watch_service_pb2.GetViewRequest(
        table_id=table_id, token=tokens[0]), timeout=TIMEOUT)).view.seat_to_act
    printable = "".join(map(chr, range(0x20, 0x7F)))  # all 95: two ids, as an id has at most 64
    drawn = await stubs.play.Draw(play_service_pb2.DrawRequest(
        table_id=table_id, token=tokens[seat], command_id=printable[:64]), timeout=TIMEOUT)
    said = await stubs.chat.SendChat(chat_service_pb2.SendChatRequest(
        table_id=table_id, token=tokens[seat], command_id=printable[64:], text="hi"), timeout=TIMEOUT)
    assert drawn.result.event_number and said.result.event_number > drawn.result.event_number


# ------------------------------------------------------------------------------------------- pings


def ping(table_id: str, token: str, sequence: int, *, sent_ns: int | None = None,
         previous: tuple[int, int | None] | None = None) -> time_service_pb2.PingRequest:
    request = time_service_pb2.PingRequest(table_id=table_id, token=token, sequence=sequence)
    request.client_send_time.FromNanoseconds(time.time_ns() if sent_ns is None else sent_ns)
    if previous is not None:
        request.previous.sequence = previous[0]
        if previous[1] is not None:
            request.previous.client_receive_time.FromNanoseconds(previous[1])
    return request


async def test_a_report_of_a_ping_never_sent_is_bad_ping_report(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    await stubs.time.Ping(ping(table_id, tokens[0], 1), timeout=TIMEOUT)
    error = await expect_error(stubs.time.Ping(ping(table_id, tokens[0], 2, previous=(5, time.time_ns())),
                                               timeout=TIMEOUT), INVALID, "BAD_PING_REPORT")
    assert field_of(error) == "previous.sequence" and "ping 5" in error.details()
    # The refused ping changed nothing: it is not waiting for a report of its own either.
    await expect_error(stubs.time.Ping(ping(table_id, tokens[0], 3, previous=(2, time.time_ns())),
                                       timeout=TIMEOUT), INVALID, "BAD_PING_REPORT")


async def test_a_report_of_a_ping_sent_before_the_host_started_is_ignored(stubs: Any) -> None:
    """The host restarted between two pings: the first it takes from a seat reports one it never
    took, and so may a later one whose sequence is below the first's. Neither is the client's fault."""
    table_id, tokens = await two_player_table(stubs)
    answer = await stubs.time.Ping(ping(table_id, tokens[0], 7, previous=(6, time.time_ns())), timeout=TIMEOUT)
    assert answer.sequence == 7 and not answer.HasField("smoothed_round_trip")
    await stubs.time.Ping(ping(table_id, tokens[0], 8, previous=(5, time.time_ns())), timeout=TIMEOUT)
    answer = await stubs.time.Ping(ping(table_id, tokens[0], 9, previous=(8, time.time_ns())), timeout=TIMEOUT)
    assert answer.HasField("smoothed_round_trip"), "ping 8 was remembered and measured"


async def test_a_ping_reported_twice_is_bad_ping_report(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    await stubs.time.Ping(ping(table_id, tokens[0], 1), timeout=TIMEOUT)
    arrived = time.time_ns()
    await stubs.time.Ping(ping(table_id, tokens[0], 2, previous=(1, arrived)), timeout=TIMEOUT)
    await expect_error(stubs.time.Ping(ping(table_id, tokens[0], 3, previous=(1, arrived)), timeout=TIMEOUT),
                       INVALID, "BAD_PING_REPORT")


async def test_an_impossible_report_is_refused_without_an_internal_repr_and_keeps_the_ping(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    sent = time.time_ns()
    await stubs.time.Ping(ping(table_id, tokens[0], 1, sent_ns=sent), timeout=TIMEOUT)
    error = await expect_error(stubs.time.Ping(ping(table_id, tokens[0], 2, previous=(1, sent - 10**9)),
                                               timeout=TIMEOUT), INVALID, "BAD_PING_REPORT")
    assert field_of(error) == "previous.client_receive_time"
    assert "PingSample" not in error.details() and "t0=" not in error.details()
    assert "ping 1 cannot have arrived -1 s after it was sent" in error.details()
    # Ping 1 still awaits its report: a possible one is taken and gives a round trip.
    answer = await stubs.time.Ping(ping(table_id, tokens[0], 3, previous=(1, time.time_ns())), timeout=TIMEOUT)
    assert answer.HasField("smoothed_round_trip")


async def test_a_report_without_its_arrival_time_is_missing_field(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    await stubs.time.Ping(ping(table_id, tokens[0], 1), timeout=TIMEOUT)
    error = await expect_error(stubs.time.Ping(ping(table_id, tokens[0], 2, previous=(1, None)), timeout=TIMEOUT),
                               INVALID, "MISSING_FIELD")
    assert field_of(error) == "previous.client_receive_time"


# ------------------------------------------------------------------------------------- spectators


async def test_a_spectator_can_leave_and_its_token_stops_working(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    eve = await join(stubs, table_id, "eve", SPECTATOR)
    before = await state(stubs, table_id, tokens)
    assert (await table_of(stubs, table_id)).spectator_count == 1

    left = await stubs.lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(table_id=table_id, token=eve),
                                        timeout=TIMEOUT)
    assert left.event_number == 0  # a spectator's leaving is no event
    assert (await table_of(stubs, table_id)).spectator_count == 0
    assert await state(stubs, table_id, tokens) == before
    await expect_error(stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=eve),
                                           timeout=TIMEOUT), grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")


async def test_a_spectator_cannot_leave_twice(stubs: Any) -> None:
    table_id, _ = await two_player_table(stubs)
    eve = await join(stubs, table_id, "eve", SPECTATOR)
    leave = lobby_service_pb2.LeaveTableRequest(table_id=table_id, token=eve)
    await stubs.lobby.LeaveTable(leave, timeout=TIMEOUT)
    await expect_error(stubs.lobby.LeaveTable(leave, timeout=TIMEOUT), grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN")


# ----------------------------------------------------------------------------------------- clocks


async def test_a_clock_beyond_a_day_names_its_field(stubs: Any) -> None:
    error = await expect_error(stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        seat_count=2, clock=table_pb2.ClockSettings(turn_time=duration_pb2.Duration(seconds=86_401))),
        timeout=TIMEOUT), INVALID, "BAD_CLOCK")
    assert field_of(error) == "clock.turn_time"


async def test_a_spectator_delay_beyond_an_hour_names_its_field(stubs: Any) -> None:
    error = await expect_error(stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        seat_count=2, spectator_delay=duration_pb2.Duration(seconds=3_601)), timeout=TIMEOUT), INVALID, "INVALID_FIELD")
    assert field_of(error) == "spectator_delay"


async def test_a_spectator_who_left_stays_gone_after_a_restart(tmp_path: Any) -> None:
    """The leave is journalled like the join, so a restarted host does not take the token back."""
    db = tmp_path / "host.db"
    first = Host(SqliteStore(db))
    table = first.create_table(TableSettings(name="t", seat_count=2, preset="standard", overrides={}), seed=7)
    eve, _ = table.join("eve", None, True)
    table.leave_spectator(eve)
    await asyncio.wait_for(first.stop(), TIMEOUT)
    first.store.close()

    second = Host(SqliteStore(db))
    try:
        assert second.restore() == 1
        again = second.tables[table.table_id]
        assert again.info().spectator_count == 0
        with pytest.raises(HostError) as refused:
            again.seat_for(eve)
        assert refused.value.reason == "BAD_TOKEN"
    finally:
        await asyncio.wait_for(second.stop(), TIMEOUT)
        second.store.close()


# ------------------------------------------------------------------- lobby responses' event numbers


def payload_of(stubs: Any, table_id: str, number: int) -> str:
    """The kind of the table's event `number`, as WatchEvents would show it."""
    return str(stubs.host.tables[table_id].log[number - 1].event.WhichOneof("payload"))


async def test_join_table_answers_the_player_joined_event_even_when_the_join_starts_the_table(stubs: Any) -> None:
    table_id, _ = await create(stubs)
    for name in ("ann", "bob"):  # bob's join fills the table: the match starts and deals behind it
        joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=name, role=PLAYER), timeout=TIMEOUT)
        assert payload_of(stubs, table_id, joined.event_number) == "player_joined"
    assert joined.event_number < stubs.host.tables[table_id].last_number


async def test_a_spectator_join_answers_event_number_zero(stubs: Any) -> None:
    table_id, _ = await two_player_table(stubs)
    joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="eve", role=SPECTATOR), timeout=TIMEOUT)
    assert (joined.event_number, joined.is_spectator) == (0, True)


async def test_leave_table_mid_match_answers_the_player_left_event(stubs: Any) -> None:
    table_id, tokens = await two_player_table(stubs)
    left = await stubs.lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(table_id=table_id, token=tokens[0]),
                                        timeout=TIMEOUT)
    assert payload_of(stubs, table_id, left.event_number) == "player_left"
    assert payload_of(stubs, table_id, left.event_number + 1) == "seat_taken_over"


async def test_start_table_answers_the_match_started_event(stubs: Any) -> None:
    table_id, owner = await create(stubs, manual_start=True)
    started = await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, fill_with_bots=True), timeout=TIMEOUT)
    assert payload_of(stubs, table_id, started.event_number) == "match_started"


async def test_add_bots_answers_the_match_started_event_when_its_bots_start_the_table(stubs: Any) -> None:
    table_id, owner = await create(stubs, seat_count=3)
    one = await stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(
        table_id=table_id, owner_token=owner, count=1), timeout=TIMEOUT)
    assert payload_of(stubs, table_id, one.event_number) == "bot_seated"
    rest = await stubs.lobby.AddBots(lobby_service_pb2.AddBotsRequest(table_id=table_id, owner_token=owner),
                                     timeout=TIMEOUT)
    assert list(rest.seats) == [1, 2]
    assert payload_of(stubs, table_id, rest.event_number) == "match_started"


async def test_start_table_refuses_an_unknown_bot_kind_even_without_filling(stubs: Any) -> None:
    table_id, owner = await create(stubs, manual_start=True)
    await expect_error(stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, bot_kind="no-such-bot"), timeout=TIMEOUT), INVALID, "UNKNOWN_BOT_KIND")
    assert (await table_of(stubs, table_id)).status == table_pb2.TABLE_STATUS_WAITING


async def test_a_ping_with_a_table_but_no_token_is_token_missing(stubs: Any) -> None:
    table_id, _ = await two_player_table(stubs)
    await expect_error(stubs.time.Ping(ping(table_id, "", 1), timeout=TIMEOUT), INVALID, "TOKEN_MISSING")
