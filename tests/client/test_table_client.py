"""TableClient against a tiny in-test grpc.aio host (`fake_seat_host`): resume, command retries, typed errors.

Scripted streams drop, end, repeat and skip events so the client's resume logic is proven against a
real gRPC transport on 127.0.0.1:0. Nothing sleeps to synchronise; every await is bounded by a timeout.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from fake_seat_host import END, TABLE, TIMEOUT, TOKEN, Abort, Snapshot, chat, serve_fake_host, take

from unonet.client import commands as cmd
from unonet.client import errors
from unonet.client.table_client import TableClient
from unonet.v1 import actions_pb2, cards_pb2, events_pb2


@pytest.fixture
async def host():
    async with serve_fake_host() as served:
        yield served


# ------------------------------------------------------------------------------------- the stream


async def test_events_resume_after_drops_without_gap_or_duplicate(host):
    fake, client = host
    legal = actions_pb2.LegalActions(required=True, draw=actions_pb2.DrawOption(count=1))
    fake.log = [chat(n, legal if n == 5 else None) for n in range(1, 10)]
    fake.scripts = [
        [1, 2, 3, Abort(grpc.StatusCode.UNAVAILABLE)],  # the host drops the stream
        [3, 4, 5, END],  # replays one event too many, then ends cleanly
        [7, 8],  # a gap: 6 is missing, so the client must resume from 5
        [6, Abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "SUBSCRIBER_TOO_SLOW")],  # cut off as too slow
        [Snapshot(7), 8],  # the host can no longer replay: a snapshot of 7, then 8
    ]
    seen = await asyncio.wait_for(take(client, 9), TIMEOUT)

    assert [e.number for e in seen] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert [e.WhichOneof("payload") for e in seen][6] == "snapshot"
    assert [r.after_event_number for r in fake.watch_requests] == [0, 3, 5, 5, 6, 8]
    assert all(r.table_id == TABLE and r.token == TOKEN for r in fake.watch_requests)
    assert client.last_event_number == 9
    # The legal actions kept are the latest ones seen: the (empty) snapshot's, which replaced event 5's.
    assert client.legal_actions is not None and not client.legal_actions.required


def _lost(number, first, last):
    return events_pb2.Event(number=number, events_lost=events_pb2.EventsLost(first_number=first, last_number=last))


async def test_a_resume_refused_with_data_loss_reopens_from_the_named_number_with_a_snapshot(host):
    fake, client = host
    legal = actions_pb2.LegalActions(required=True, draw=actions_pb2.DrawOption(count=1))
    fake.log = [chat(1), chat(2), chat(3, legal), chat(4), chat(5)]
    fake.scripts = [
        [1, 2, 3, Abort(grpc.StatusCode.UNAVAILABLE)],  # the host goes down; it comes back without event 3
        [Abort(grpc.StatusCode.DATA_LOSS, "EVENTS_LOST", {"event_number": "2"})],
        [Snapshot(2), 3, 4],  # the table as the host has it now, then its events
    ]
    seen = await asyncio.wait_for(take(client, 4), TIMEOUT)

    assert [e.number for e in seen] == [1, 2, 3, 2]
    assert seen[3].WhichOneof("payload") == "snapshot" and client.last_event_number == 2
    assert [(r.after_event_number, r.start_with_snapshot) for r in fake.watch_requests] == [
        (0, False), (3, False), (2, True)]
    # The lost event 3's legal actions are gone: the snapshot's replaced them though it is numbered before.
    assert client.legal_actions is not None and not client.legal_actions.required
    assert client.log_head is None  # the chain followed events that are not the table's


async def test_an_events_lost_range_is_yielded_then_the_stream_reopens_with_a_snapshot(host):
    fake, client = host
    fake.log = [chat(1), _lost(2, 2, 3), _lost(3, 2, 3), chat(4)]
    fake.scripts = [
        [1, 2, 3, 4],  # the host would go on, but what this copy learnt from event 2 on may be wrong
        [Snapshot(3), 4],
    ]
    seen = await asyncio.wait_for(take(client, 5), TIMEOUT)

    assert [(e.number, e.WhichOneof("payload")) for e in seen] == [
        (1, "chat_message"), (2, "events_lost"), (3, "events_lost"), (3, "snapshot"), (4, "chat_message")]
    assert [(r.after_event_number, r.start_with_snapshot) for r in fake.watch_requests] == [(0, False), (1, True)]
    assert client.last_event_number == 4


async def test_data_loss_without_an_event_number_is_raised(host):
    fake, client = host
    fake.log = [chat(1)]
    fake.scripts = [[Abort(grpc.StatusCode.DATA_LOSS, "EVENTS_LOST")]]
    with pytest.raises(errors.DataLoss) as raised:
        await asyncio.wait_for(take(client, 1), TIMEOUT)
    assert raised.value.reason == "EVENTS_LOST"


async def test_events_keep_the_latest_legal_actions(host):
    fake, client = host
    legal = actions_pb2.LegalActions(required=True, pass_turn=True)
    fake.log = [chat(1), chat(2, legal), chat(3)]
    await asyncio.wait_for(take(client, 3), TIMEOUT)
    assert client.legal_actions == legal


async def test_events_resume_from_a_given_number(host):
    fake, client = host
    fake.log = [chat(n) for n in range(1, 6)]
    seen = await asyncio.wait_for(take(client, 2, after=3), TIMEOUT)
    assert [e.number for e in seen] == [4, 5]
    assert fake.watch_requests[0].after_event_number == 3


async def test_events_see_new_events_as_they_happen(host):
    fake, client = host
    fake.log = [chat(1)]
    reader = asyncio.create_task(take(client, 3))
    await fake.append(chat(2))
    await fake.append(chat(3))
    seen = await asyncio.wait_for(reader, TIMEOUT)
    assert [e.number for e in seen] == [1, 2, 3]


async def test_a_refused_stream_raises_a_typed_error(host):
    _, client = host
    client.attach(TABLE, "forged", 0)
    with pytest.raises(errors.PermissionDenied) as refused:
        await asyncio.wait_for(take(client, 1), TIMEOUT)
    assert refused.value.reason == "BAD_TOKEN"


async def test_a_stream_that_never_delivers_gives_up(host):
    fake, client = host
    fake.scripts = [[END] for _ in range(20)]
    with pytest.raises(errors.Unavailable):
        await asyncio.wait_for(take(client, 1), TIMEOUT)
    assert len(fake.watch_requests) == 11


# ----------------------------------------------------------------------------------------- commands


async def test_a_retried_command_reuses_its_command_id(host):
    fake, client = host
    fake.answers["Draw"] = [Abort(grpc.StatusCode.UNAVAILABLE)]
    result = await asyncio.wait_for(client.draw(), TIMEOUT)
    assert result.outcome == actions_pb2.COMMAND_OUTCOME_APPLIED
    first, second = (request for name, request in fake.commands)
    assert first.command_id == second.command_id
    assert 1 <= len(first.command_id) <= 64
    assert (first.table_id, first.token) == (TABLE, TOKEN)

    await asyncio.wait_for(client.draw(), TIMEOUT)
    assert fake.commands[2][1].command_id != first.command_id


async def test_a_command_is_retried_only_once(host):
    fake, client = host
    fake.answers["Draw"] = [Abort(grpc.StatusCode.UNAVAILABLE), Abort(grpc.StatusCode.UNAVAILABLE)]
    with pytest.raises(errors.Unavailable):
        await asyncio.wait_for(client.draw(command_id="c-1"), TIMEOUT)
    assert [request.command_id for _, request in fake.commands] == ["c-1", "c-1"]


async def test_refusals_come_out_typed_and_are_not_retried(host):
    fake, client = host
    fake.answers["PlayCards"] = [Abort(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")]
    red_five = cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_FIVE)
    with pytest.raises(errors.NotYourTurnError) as refused:
        await asyncio.wait_for(client.play(red_five), TIMEOUT)
    assert refused.value.code is grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.metadata == {"seat": "2"}
    assert len(fake.commands) == 1
    assert list(fake.commands[0][1].cards) == [red_five]


async def test_send_fills_every_field_of_a_command(host):
    fake, client = host
    wild = cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=cards_pb2.RANK_WILD)
    await asyncio.wait_for(client.send(cmd.Play((wild,), color=cards_pb2.COLOR_GREEN, call_uno=True)), TIMEOUT)
    await asyncio.wait_for(client.send(cmd.CatchUno(3, reaction_window_id=17)), TIMEOUT)
    (_, play), (_, catch) = fake.commands
    assert play.HasField("color") and play.color == cards_pb2.COLOR_GREEN and play.call_uno
    assert (catch.target_seat, catch.reaction_window_id) == (3, 17)


async def test_commands_need_a_table():
    client = TableClient(grpc.aio.insecure_channel("127.0.0.1:9"), owns_channel=True)
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(client.draw(), TIMEOUT)
    await asyncio.wait_for(client.close(), TIMEOUT)


async def test_ping_measures_with_four_timestamps_and_reports_the_previous_one(host):
    fake, client = host
    first = await asyncio.wait_for(client.ping(), TIMEOUT)
    second = await asyncio.wait_for(client.ping(), TIMEOUT)
    assert (first.sequence, second.sequence) == (1, 2)
    assert first.round_trip >= 0 and abs(first.offset) < 5
    assert client.clock_offset == second.offset
    (_, ping1), (_, ping2) = fake.commands
    assert not ping1.HasField("previous")
    assert ping2.previous.sequence == 1 and ping2.previous.client_receive_time.seconds > 0
    assert (ping2.table_id, ping2.token) == (TABLE, TOKEN)


async def test_a_refused_ping_report_is_not_sent_again(host):
    """A host that forgot the earlier ping (it restarted) refuses its report once; the next ping goes
    without one, instead of every later ping failing the same way."""
    fake, client = host
    await asyncio.wait_for(client.ping(), TIMEOUT)
    fake.answers["Ping"] = [Abort(grpc.StatusCode.INVALID_ARGUMENT, "BAD_PING_REPORT")]
    with pytest.raises(errors.UnonetError) as refused:
        await asyncio.wait_for(client.ping(), TIMEOUT)
    assert refused.value.reason == "BAD_PING_REPORT"
    third = await asyncio.wait_for(client.ping(), TIMEOUT)
    (_, _), (_, refused_ping), (_, next_ping) = fake.commands
    assert refused_ping.previous.sequence == 1
    assert not next_ping.HasField("previous") and third.sequence == 3
