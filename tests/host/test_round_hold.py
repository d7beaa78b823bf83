"""The first turn of every round after the first is held while the players read the last round's scores
(ClockSettings.round_start_hold, host/holds.py): no clock runs, no bot moves, nobody may act, until every
player with a stream open closed the scores (CloseScores), or the hold's time ran out. A restart replays
it exactly, from the journal.

In-process on a clock the test moves (paced_tables.py), and through gRPC for the refusals.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import grpc
import pytest
from host_stubs import eventually, expect_error
from paced_tables import PERSON, Person, connect, drive_with_person, table_with_person

from unonet.engine import ChooseColor, Color, Draw, Pass, Play, legal_actions
from unonet.engine import events as ev
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.pace import INSTANT
from unonet.host.server import create_server
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import (
    actions_pb2,
    events_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    table_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

HOLD_S = 8.0
TIMEOUT = 20.0


def entries(table: Table, kind: str) -> list[Any]:
    """The log entries (in memory) whose protocol payload is `kind`."""
    return [e for e in table.log if isinstance(e.event, events_pb2.Event) and e.event.WhichOneof("payload") == kind]


def in_round_two(table: Table) -> bool:
    """Round 2's first turn announced (or the match over). Not merely dealt: a first card the deal turns
    up and returns (a Wild Draw Four, S4) puts events between the deal and the first turn."""
    if table.match is None or table.match.is_over:
        return table.match is not None
    dealt = next((e.number for e in table.log if isinstance(e.event, ev.RoundStarted) and e.event.round_no == 2), None)
    return dealt is not None and any(isinstance(e.event, ev.TurnStarted) and e.number > dealt for e in table.log)


def held_table(person: Person, *, seed: int = 0, connected: bool = True, store: MemoryStore | None = None,
               ) -> tuple[Host, Table, list[int]]:
    """A table (the person, greedy:3 and greedy:3) played until round 2 is dealt; bots only, no hold."""
    for attempt in range(10):
        person.sit_down()
        host, table, clock = table_with_person(seed + attempt, ["greedy:3", "greedy:3"], INSTANT, hold_s=HOLD_S,
                                               turn_time_s=20.0, store=store, target_score=500)
        if connected:
            connect(table)
        drive_with_person(host, table, clock, person, until=in_round_two)
        # A round that ended the match holds nothing (rare: 500 points). A round 2 whose first card is a
        # Wild asks its first player for a colour before any turn is announced, so the driver ended the
        # hold to get to the first turn (about 1 deal in 25, seen as a failure here): deal another.
        if not table.match.is_over and not entries(table, "round_released"):  # type: ignore[union-attr]
            return host, table, clock
        store = None
    raise AssertionError("no match reached a second round held at its first turn")


def test_a_rounds_first_turn_waits_for_the_hold_and_starts_its_clock_when_it_ends() -> None:
    host, table, clock = held_table(Person())
    (held,) = entries(table, "round_held")
    dealt = next(e for e in table.log if isinstance(e.event, ev.RoundStarted) and e.event.round_no == 2)
    hold = held.event.round_held
    assert hold.round_number == 2 and list(hold.waiting_seats) == [PERSON]
    assert hold.until.ToNanoseconds() == dealt.time_ns + int(HOLD_S * 1e9) == held.time_ns + int(HOLD_S * 1e9)
    first_turn = next(e for e in table.log if isinstance(e.event, ev.TurnStarted) and e.number > dealt.number)
    assert first_turn.deadline_ns is None  # no clock runs while the round is held
    assert table.turn_deadline_ns is None and table.holds.current is not None
    # Nobody may act: every seat's legal actions are empty, in views too, and say so.
    assert all(legal == b"" for legal in table.legal_for_all().values())  # serialized: no field set
    view = table.view(table.match.game.to_act)  # type: ignore[union-attr]
    assert not view.legal_actions.ListFields() and view.round_held.round_number == 2
    # The driver waits for the hold's end, exactly, and then releases it (TIME_UP): the bots had not moved.
    before = table.last_number
    assert host._step(table) == pytest.approx(HOLD_S)
    clock[0] = hold.until.ToNanoseconds()
    host._step(table)
    (released,) = entries(table, "round_released")
    assert released.number == before + 1 and released.time_ns == hold.until.ToNanoseconds()
    assert released.event.round_released.reason == events_pb2.ROUND_RELEASE_REASON_TIME_UP
    to_act = table.match.game.to_act  # type: ignore[union-attr]
    if to_act == PERSON:  # the turn clock starts with the release, and its deadline comes with it
        deadline = released.time_ns + int(20.0 * 1e9)
        assert table.turn_deadline_ns == deadline == released.event.round_released.turn_deadline.ToNanoseconds()
        legal = actions_pb2.LegalActions.FromString(released.legal[PERSON])  # type: ignore[index]
        assert legal.deadline.ToNanoseconds() == deadline
    else:
        assert not released.event.round_released.HasField("turn_deadline")  # a bot's turn: untimed
    assert table.holds.current is None and any(legal != b"" for legal in table.legal_for_all().values())


def test_the_hold_ends_as_soon_as_the_person_closed_the_scores() -> None:
    _host, table, clock = held_table(Person(closes_scores_s=None))
    (held,) = entries(table, "round_held")
    clock[0] = held.time_ns + int(1.5 * 1e9)
    result = table.close_scores(PERSON, "read-it", 1)
    (released,) = entries(table, "round_released")
    assert released.time_ns == clock[0] and result.event_number == released.number
    assert released.event.round_released.reason == events_pb2.ROUND_RELEASE_REASON_SCORES_CLOSED
    assert table.holds.current is None
    assert table.close_scores(PERSON, "read-it", 1) == result  # a retry gets its first result
    assert table.close_scores(PERSON, "again", 1).event_number == table.last_number  # nothing to close twice


def test_scores_closed_before_the_deal_mean_no_hold_at_all() -> None:
    _host, table, _clock = held_table(Person(closes_scores_s=0.0))  # closes the moment round 1 ends
    assert not entries(table, "round_held") and table.holds.current is None


def test_a_table_without_a_connected_player_is_never_held() -> None:
    _host, table, _clock = held_table(Person(), connected=False)
    assert not entries(table, "round_held")


def test_the_person_leaving_or_closing_its_stream_releases_the_hold() -> None:
    host, table, _clock = held_table(Person())
    assert table.holds.current is not None
    table.seats[PERSON].connected -= 1
    host._step(table)  # the driver announces the closed stream (sync_connections): nobody left to wait for
    (released,) = entries(table, "round_released")
    assert released.event.round_released.reason == events_pb2.ROUND_RELEASE_REASON_SCORES_CLOSED


def rendered(table: Table) -> dict[str, list[str]]:
    """Every event of the whole log, as each viewer receives it, hashed."""
    views = {}
    for viewer in [None, *range(len(table.seats))]:
        views[str(viewer)] = [hashlib.sha256(event.SerializeToString()).hexdigest()
                              for event in table.events.rendered_since(0, viewer)]
    return views


@pytest.mark.parametrize("ends", ["time_up", "closed"])
def test_a_restart_replays_the_hold_and_its_release_exactly(ends: str) -> None:
    store = MemoryStore()
    person = Person(closes_scores_s=3.0 if ends == "closed" else None)
    host, table, clock = held_table(person, store=store)
    store = table.store  # type: ignore[assignment]  # another, when held_table had to deal again
    drive_with_person(host, table, clock, person, until=lambda t: bool(entries(t, "round_released")))
    drive_with_person(host, table, clock, person, until=lambda t: t.match.round_no >= 3 or t.match.is_over)
    (released,) = [event for event in table.events.rendered_since(0, None) if event.HasField("round_released")]
    expected = (events_pb2.ROUND_RELEASE_REASON_SCORES_CLOSED if ends == "closed"
                else events_pb2.ROUND_RELEASE_REASON_TIME_UP)
    assert released.round_released.reason == expected
    kinds = {item.entry["k"] for item in store.table(table.table_id).journal}
    assert ("scores_closed" in kinds) == (ends == "closed") and ("release" in kinds) == (ends == "time_up")
    again = Host(store, clock_ns=lambda: clock[0])
    again.restore()
    assert rendered(again.tables[table.table_id]) == rendered(table)


# ----------------------------------------------------------------------------------------- over gRPC


def simple_action(table: Table, seat: int) -> list[Any]:
    """A move for `seat` that the rules take: a card (with its UNO call), else a draw or a pass, red."""
    options = legal_actions(table.match.game, seat)  # type: ignore[union-attr]
    colour = next((a for a in options if isinstance(a, ChooseColor) and a.color is Color.RED), None)
    plays = [a for a in options if isinstance(a, Play) and len(a.cards) == 1]
    if colour is not None:
        return [colour]
    if plays:
        last = len(table.match.game.hands[seat]) == 2  # type: ignore[union-attr]
        return [Play(seat, plays[0].cards, call_uno=last)]
    return [next(a for a in options if isinstance(a, Draw | Pass))]


async def test_over_grpc_a_held_round_refuses_commands_and_close_scores_releases_it() -> None:
    host = Host(fair_shuffle=False)
    server, port, _ = await asyncio.wait_for(create_server("127.0.0.1:0", host=host), TIMEOUT)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        play = play_service_pb2_grpc.PlayServiceStub(channel)
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            seat_count=2, manual_start=True, overrides={"target_score": 100_000}), timeout=TIMEOUT)
        assert created.table.settings.clock.round_start_hold.ToNanoseconds() == 10 * 10**9  # the default
        table_id = created.table.table_id
        tokens = [(await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=f"p{seat}", role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)).token
            for seat in range(2)]
        await lobby.StartTable(lobby_service_pb2.StartTableRequest(table_id=table_id, owner_token=created.owner_token),
                               timeout=TIMEOUT)
        table = host.tables[table_id]
        await expect_error(play.CloseScores(play_service_pb2.CloseScoresRequest(
            table_id=table_id, token=tokens[0], command_id="early", round_number=1), timeout=TIMEOUT),
            grpc.StatusCode.FAILED_PRECONDITION, "ROUND_NOT_OVER")
        await expect_error(play.CloseScores(play_service_pb2.CloseScoresRequest(
            table_id=table_id, token=tokens[0], command_id="none"), timeout=TIMEOUT),
            grpc.StatusCode.INVALID_ARGUMENT, "MISSING_FIELD")
        stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[0]))
        await eventually(lambda: table.seats[0].shown_connected, "seat 0 announced connected")
        for step in range(2000):  # both seats play round 1 in process; seat 0's stream is open
            if table.match.round_no >= 2:  # type: ignore[union-attr]
                break
            async with table.lock:
                seat = table.match.game.to_act  # type: ignore[union-attr]
                if seat is not None and table.races.holding() is None:
                    table.command(seat, f"move-{step}", tuple(simple_action(table, seat)))
            await asyncio.sleep(0)
        hold = table.holds.current
        assert hold is not None and hold.waiting == {0}  # seat 1's player has no stream open: not waited for
        to_act = table.match.game.to_act  # type: ignore[union-attr]
        await expect_error(play.Draw(play_service_pb2.DrawRequest(
            table_id=table_id, token=tokens[to_act], command_id="held"), timeout=TIMEOUT),
            grpc.StatusCode.FAILED_PRECONDITION, "ROUND_HELD")
        view = (await watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=tokens[to_act]),
                                    timeout=TIMEOUT)).view
        assert view.round_held.round_number == 2 and not view.legal_actions.ListFields()
        closed = await play.CloseScores(play_service_pb2.CloseScoresRequest(
            table_id=table_id, token=tokens[0], command_id="read", round_number=1), timeout=TIMEOUT)
        assert table.holds.current is None and closed.result.event_number == table.last_number
        view = (await watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=tokens[to_act]),
                                    timeout=TIMEOUT)).view
        assert not view.HasField("round_held") and view.legal_actions.required
        await expect_error(play.CloseScores(play_service_pb2.CloseScoresRequest(  # the same id for another round
            table_id=table_id, token=tokens[0], command_id="read", round_number=2), timeout=TIMEOUT),
            grpc.StatusCode.ALREADY_EXISTS, "COMMAND_ID_REUSED")
        stream.cancel()
        info = (await lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)).table
        assert info.status == table_pb2.TABLE_STATUS_PLAYING
    finally:
        await channel.close()
        await asyncio.wait_for(server.stop(None), TIMEOUT)
        await asyncio.wait_for(host.stop(), TIMEOUT)


def test_tables_stored_before_the_hold_existed_hold_nothing() -> None:
    settings = TableSettings(**{"name": "old", "seat_count": 2, "preset": "standard", "overrides": {}})
    assert settings.round_start_hold_s == 0.0
    table = Table("old", settings, owner_token="o", seed=1, created_ns=0, store=MemoryStore(), clock_ns=lambda: 0)
    assert not table.settings_pb().clock.HasField("round_start_hold")  # its events render as they did
    assert journal.decode(journal.encode(journal.Release(2))) == journal.Release(2)
