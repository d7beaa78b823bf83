"""The table driver with the real clock: commands do not wake it, yet each new turn's clock still runs out."""

from __future__ import annotations

import asyncio

from google.protobuf import duration_pb2

from unonet.v1 import cards_pb2, lobby_service_pb2, play_service_pb2, table_pb2, watch_service_pb2

TIMEOUT = 30
TURN_S = 1


async def test_the_turn_clock_times_out_the_turn_after_the_last_command_not_before(stubs) -> None:
    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="clock", seat_count=2, clock=table_pb2.ClockSettings(
            turn_time=duration_pb2.Duration(seconds=TURN_S), strikes_before_takeover=10)), timeout=TIMEOUT)
    table_id = created.table.table_id
    tokens = [(await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)).token
        for name in ("ann", "bob")]
    table = stubs.host.tables[table_id]

    # Several quick turns: each moves the turn deadline later, and none needs the driver.
    for number in range(6):
        seat = table.match.game.to_act
        common = {"table_id": table_id, "token": tokens[seat], "command_id": f"c{number}"}
        view = (await stubs.watch.GetView(watch_service_pb2.GetViewRequest(
            table_id=table_id, token=tokens[seat]), timeout=TIMEOUT)).view
        if view.legal_actions.choose_color:
            await stubs.play.ChooseColor(play_service_pb2.ChooseColorRequest(
                color=cards_pb2.COLOR_RED, **common), timeout=TIMEOUT)
        elif view.legal_actions.HasField("draw"):
            await stubs.play.Draw(play_service_pb2.DrawRequest(**common), timeout=TIMEOUT)
        else:
            await stubs.play.Pass(play_service_pb2.PassRequest(**common), timeout=TIMEOUT)
    last_command = table.log[-1]
    waiting = table.match.game.to_act

    stream = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
        table_id=table_id, after_event_number=last_command.number))
    try:
        async with asyncio.timeout(TIMEOUT):
            async for response in stream:
                event = response.event
                if event.WhichOneof("payload") == "turn_timed_out":
                    break
    finally:
        stream.cancel()
    assert event.turn_timed_out.seat == waiting
    # The host's own clock: the timeout came a whole turn after the last command, not at an old deadline.
    assert event.time.ToNanoseconds() - last_command.time_ns >= TURN_S * 10**9
