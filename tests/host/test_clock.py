"""Turn clocks with a fake clock: time banks, the draw-then-pass default, strikes and takeover."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2
from host_stubs import TIMEOUT, create, expect_error, join, two_player_table, view

from unonet.engine import Draw, legal_actions
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import (
    lobby_service_pb2,
    play_service_pb2,
    table_pb2,
    watch_service_pb2,
)

SECOND = 1_000_000_000


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000 * SECOND

    def __call__(self) -> int:
        return self.now


def table_with_clock(clock: FakeClock, **settings) -> tuple[Host, Table, int]:
    host = Host(MemoryStore(), clock_ns=clock)
    table = Table("t", TableSettings(name="t", seat_count=2, preset="standard", overrides={}, **settings),
                  owner_token="o", seed=3, created_ns=clock(), store=host.store, clock_ns=clock)
    host.store.create_table("t", {}, clock())
    host.tables["t"] = table  # no driver task: the test steps the host by hand
    table.join("ann", None, False)
    table.join("bob", None, False)
    game = table.match.game
    if game.to_act is not None and legal_actions(game, game.to_act)[0].__class__.__name__ == "ChooseColor":
        table.command(game.to_act, "colour", (legal_actions(game, game.to_act)[0],))
    return host, table, table.match.game.to_act


def test_time_past_the_turn_allowance_comes_out_of_the_bank() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10, time_bank_s=5)
    assert table.turn_deadline_ns == clock.now + 15 * SECOND
    clock.now += 12 * SECOND
    table.command(seat, "slow", (Draw(seat),))
    assert abs(table.seats[seat].bank_s - 3.0) < 1e-9


def test_a_timeout_draws_then_passes_and_strikes_lead_to_a_takeover() -> None:
    clock = FakeClock()
    host, table, _ = table_with_clock(clock, turn_time_s=10, time_bank_s=0, strikes_before_takeover=2)
    taken = None
    for _ in range(4):
        seat = table.match.game.to_act
        clock.now = table.turn_deadline_ns
        before = table.last_number
        host._step(table)
        new = [e.event for e in table.log[before:]]
        names = [e.WhichOneof("payload") if hasattr(e, "WhichOneof") else type(e).__name__ for e in new]
        assert names[0] == "turn_timed_out" and "Drew" in names
        assert table.match.game.to_act != seat, "after draw-then-pass the turn moved on"
        if "seat_taken_over" in names:
            taken = seat
            break
    assert taken is not None and table.seats[taken].strikes == 2
    assert table.seats[taken].is_bot and table.seats[taken].taken_over


def test_the_clock_keeps_running_while_others_act() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10)
    deadline = table.turn_deadline_ns
    other = 1 - seat
    clock.now += 3 * SECOND
    table.record(journal.Chat(other, "bob", "hurry"))
    assert table.turn_deadline_ns == deadline


def test_with_the_forfeit_policy_a_struck_out_player_leaves_the_match() -> None:
    clock = FakeClock()
    host, table, _ = table_with_clock(clock, turn_time_s=10, strikes_before_takeover=1, takeover_policy="forfeit")
    seat = table.match.game.to_act
    clock.now = table.turn_deadline_ns
    host._step(table)
    assert table.seats[seat].taken_over and not table.seats[seat].is_bot
    assert table.match.is_over and table.match.winners == (1 - seat,)


def test_a_player_who_leaves_mid_match_forfeits_under_the_forfeit_policy() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10, takeover_policy="forfeit")
    table.record(journal.Leave(seat))
    assert table.seats[seat].taken_over and not table.seats[seat].is_bot
    assert table.match.is_over and table.match.winners == (1 - seat,)


def test_a_turn_and_its_legal_actions_carry_the_turn_deadline_and_views_agree() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10)
    before = table.last_number
    table.command(seat, "d", (Draw(seat),))
    if table.match.game.to_act == seat:  # a playable card was drawn: keep it, so the turn moves on
        keep = next(a for a in legal_actions(table.match.game, seat) if type(a).__name__ == "Pass")
        table.command(seat, "p", (keep,))
    mover = table.match.game.to_act
    started = [e for e in table.log[before:] if type(e.event).__name__ == "TurnStarted"]
    assert started and started[-1].event.seat == mover
    rendered = table.render(started[-1], 1 - mover)
    assert rendered.turn_started.deadline.ToNanoseconds() == table.turn_deadline_ns
    last = table.log[-1]
    mine, theirs = table.render(last, mover), table.render(last, 1 - mover)
    assert mine.your_legal_actions.deadline.ToNanoseconds() == table.turn_deadline_ns
    assert not theirs.your_legal_actions.HasField("deadline")  # nothing of theirs is timed
    assert table.view(mover).legal_actions.deadline.ToNanoseconds() == table.turn_deadline_ns


def test_without_a_clock_nothing_carries_a_deadline() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=0)
    table.command(seat, "d", (Draw(seat),))
    assert table.turn_deadline_ns is None
    for entry in table.log:
        for viewer in (0, 1):
            rendered = table.render(entry, viewer)
            assert not rendered.your_legal_actions.HasField("deadline")
            assert not rendered.turn_started.HasField("deadline")


def _last_turn_started(table: Table, seat: int):
    entry = next(e for e in reversed(table.log) if type(e.event).__name__ == "TurnStarted" and e.event.seat == seat)
    return table.render(entry, seat).turn_started


def _draw_then_keep(table: Table, seat: int, cid: str) -> None:
    """The seat draws; if it may then keep the card (T3), it does, so the turn moves on."""
    table.command(seat, f"{cid}-draw", (Draw(seat),))
    keep = next((a for a in legal_actions(table.match.game, seat) if a.__class__.__name__ == "Pass"), None)
    if keep is not None and table.match.game.to_act == seat:
        table.command(seat, f"{cid}-keep", (keep,))


def test_a_timed_turn_started_carries_the_turn_time_and_the_bank_left() -> None:
    clock = FakeClock()
    _, table, seat = table_with_clock(clock, turn_time_s=10, time_bank_s=5)
    started = _last_turn_started(table, seat)
    assert started.turn_time.ToSeconds() == 10 and started.time_bank_remaining.ToSeconds() == 5
    assert started.deadline.ToNanoseconds() == table.turn_deadline_ns
    clock.now += 12 * SECOND  # two seconds into the bank
    _draw_then_keep(table, seat, "slow")
    other = table.match.game.to_act
    assert other != seat
    _draw_then_keep(table, other, "quick")
    assert table.match.game.to_act == seat
    again = _last_turn_started(table, seat)
    assert again.turn_time.ToSeconds() == 10 and again.time_bank_remaining.ToNanoseconds() == 3 * SECOND


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
