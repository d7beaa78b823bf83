"""TableClient and Bot against a tiny in-test grpc.aio host: resume, command retries, typed errors.

The fake host keeps one table's event log and implements just enough of WatchService, PlayService and
TimeService. Scripted streams drop, end, repeat and skip events so the client's resume logic is
proven against a real gRPC transport on 127.0.0.1:0. Nothing sleeps to synchronise; every await is
bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import grpc
import pytest

from unonet.bots import commands as cmd
from unonet.bots import errors
from unonet.bots.base import Bot
from unonet.bots.random_bot import RandomBot
from unonet.bots.sdk import TableClient
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    errors_pb2,
    events_pb2,
    play_service_pb2,
    play_service_pb2_grpc,
    time_service_pb2,
    time_service_pb2_grpc,
    views_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 10.0
TABLE = "T1"
TOKEN = "seat-0-token"


def trailer(reason, **metadata):
    detail = errors_pb2.ErrorDetail(reason=reason, metadata=metadata)
    return ((errors.ERROR_DETAIL_KEY, detail.SerializeToString()),)


def chat(number, legal=None):
    event = events_pb2.Event(number=number, chat_message=events_pb2.ChatMessage(name="x", text=f"event {number}"))
    if legal is not None:
        event.your_legal_actions.CopyFrom(legal)
    return event


@dataclass
class Abort:
    code: grpc.StatusCode
    reason: str = ""


@dataclass
class Snapshot:
    number: int


END = "end"


@dataclass
class FakeHost(
    watch_service_pb2_grpc.WatchServiceServicer,
    play_service_pb2_grpc.PlayServiceServicer,
    time_service_pb2_grpc.TimeServiceServicer,
):
    """One table. Streams follow `scripts` (one list of steps per connection) while any are left,
    and afterwards replay the log and wait for new events. Commands answer from `answers`."""

    log: list[events_pb2.Event] = field(default_factory=list)
    view: views_pb2.SeatView = field(default_factory=views_pb2.SeatView)
    scripts: list[list[object]] = field(default_factory=list)
    watch_requests: list[watch_service_pb2.WatchEventsRequest] = field(default_factory=list)
    commands: list[tuple[str, object]] = field(default_factory=list)
    answers: dict[str, list[object]] = field(default_factory=dict)
    on_command: object = None
    view_reads: int = 0
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def append(self, *events):
        async with self.changed:
            self.log.extend(events)
            self.changed.notify_all()

    # WatchService -----------------------------------------------------------------------------

    async def WatchEvents(self, request, context):
        self.watch_requests.append(request)
        if request.token != TOKEN:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "unknown token", trailer("BAD_TOKEN"))
        if self.scripts:
            for step in self.scripts.pop(0):
                if isinstance(step, int):
                    yield watch_service_pb2.WatchEventsResponse(event=self.log[step - 1])
                elif isinstance(step, Snapshot):
                    view = views_pb2.SeatView(table_id=TABLE, event_number=step.number)
                    event = events_pb2.Event(number=step.number, snapshot=events_pb2.Snapshot(view=view))
                    yield watch_service_pb2.WatchEventsResponse(event=event)
                elif isinstance(step, Abort):
                    await context.abort(step.code, f"scripted {step.code.name}", trailer(step.reason))
                elif step == END:
                    return
            return
        sent = request.after_event_number
        while True:
            async with self.changed:
                await self.changed.wait_for(lambda: len(self.log) > sent)  # noqa: B023 - read at once
                pending = self.log[sent:]
            for event in pending:
                yield watch_service_pb2.WatchEventsResponse(event=event)
            sent += len(pending)

    async def GetView(self, request, context):
        self.view_reads += 1
        view = views_pb2.SeatView()
        view.CopyFrom(self.view)
        view.event_number = len(self.log)
        return watch_service_pb2.GetViewResponse(view=view)

    # PlayService ------------------------------------------------------------------------------

    async def _command(self, name, request, context, response_type):
        self.commands.append((name, request))
        queue = self.answers.get(name) or []
        answer = queue.pop(0) if queue else None
        if isinstance(answer, Abort):
            await context.abort(answer.code, f"{answer.reason}: scripted refusal", trailer(answer.reason, seat="2"))
        first = len(self.log) + 1
        if self.on_command is not None:
            await self.on_command(name, request)
        last = max(first, len(self.log))
        result = actions_pb2.CommandResult(
            event_number=first, last_event_number=last, outcome=actions_pb2.COMMAND_OUTCOME_APPLIED
        )
        return response_type(result=result)

    async def PlayCards(self, request, context):
        return await self._command("PlayCards", request, context, play_service_pb2.PlayCardsResponse)

    async def Draw(self, request, context):
        return await self._command("Draw", request, context, play_service_pb2.DrawResponse)

    async def CatchUno(self, request, context):
        return await self._command("CatchUno", request, context, play_service_pb2.CatchUnoResponse)

    async def React(self, request, context):
        return await self._command("React", request, context, play_service_pb2.ReactResponse)

    # TimeService ------------------------------------------------------------------------------

    async def Ping(self, request, context):
        self.commands.append(("Ping", request))
        queue = self.answers.get("Ping") or []
        answer = queue.pop(0) if queue else None
        if isinstance(answer, Abort):
            await context.abort(answer.code, f"{answer.reason}: scripted refusal", trailer(answer.reason))
        response = time_service_pb2.PingResponse(sequence=request.sequence, client_send_time=request.client_send_time)
        response.receive_time.GetCurrentTime()
        response.send_time.GetCurrentTime()
        return response


@pytest.fixture
async def host():
    fake = FakeHost()
    server = grpc.aio.server()
    watch_service_pb2_grpc.add_WatchServiceServicer_to_server(fake, server)
    play_service_pb2_grpc.add_PlayServiceServicer_to_server(fake, server)
    time_service_pb2_grpc.add_TimeServiceServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await asyncio.wait_for(server.start(), TIMEOUT)
    client = TableClient(
        grpc.aio.insecure_channel(f"127.0.0.1:{port}"),
        owns_channel=True,
        timeout=TIMEOUT,
        reconnect_delay=0,
        retry_delay=0,
    )
    client.attach(TABLE, TOKEN, 0)
    yield fake, client
    await asyncio.wait_for(client.close(), TIMEOUT)
    await asyncio.wait_for(server.stop(None), TIMEOUT)


async def take(client, count, **kwargs):
    """The first `count` events of a fresh `client.events(...)`."""
    seen = []
    async with contextlib.aclosing(client.events(**kwargs)) as stream:
        async for event in stream:
            seen.append(event)
            if len(seen) == count:
                break
    return seen


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
    with pytest.raises(errors.NotYourTurn) as refused:
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


# ---------------------------------------------------------------------------------------------- bots


def card(color, rank):
    return cards_pb2.Card(color=color, rank=rank)


RED_FIVE = card(cards_pb2.COLOR_RED, cards_pb2.RANK_FIVE)
BLUE_TWO = card(cards_pb2.COLOR_BLUE, cards_pb2.RANK_TWO)


def turn_view(hand, plays):
    legal = actions_pb2.LegalActions(required=True, draw=actions_pb2.DrawOption(count=1))
    legal.plays.extend(actions_pb2.PlayOption(cards=[c], kind=actions_pb2.PLAY_KIND_TURN) for c in plays)
    view = views_pb2.SeatView(table_id=TABLE, seat=0, phase=views_pb2.PHASE_TURN, seat_to_act=0)
    view.hand.extend(cards_pb2.CardRef(card=c) for c in hand)
    view.legal_actions.CopyFrom(legal)
    return view


def match_ended(number):
    return events_pb2.Event(number=number, match_ended=events_pb2.MatchEnded(winner_seats=[0]))


async def test_a_bot_survives_a_race_and_stops_when_the_match_ends(host):
    fake, client = host
    fake.log = [chat(1)]
    fake.view = turn_view([RED_FIVE, BLUE_TWO], [RED_FIVE])
    # The first play loses a race (the host says it is not our turn any more); the retry, after
    # re-reading the view, is applied and wins the round.
    fake.answers["PlayCards"] = [Abort(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")]

    async def finish(name, request):
        fake.view = views_pb2.SeatView(table_id=TABLE, phase=views_pb2.PHASE_MATCH_OVER)
        await fake.append(chat(len(fake.log) + 1), match_ended(len(fake.log) + 2))

    fake.on_command = finish
    bot = RandomBot(seed=1)
    ended = await asyncio.wait_for(bot.run(client, TABLE, 0), TIMEOUT)

    assert list(ended.winner_seats) == [0]
    assert bot.refusals == 1 and bot.commands_sent == 1
    assert fake.view_reads >= 2  # the refusal made it read the view again
    plays = [request for name, request in fake.commands if name == "PlayCards"]
    assert len(plays) == 2 and plays[0].command_id != plays[1].command_id
    assert list(plays[1].cards) == [RED_FIVE] and plays[1].call_uno  # its second-to-last card


async def test_a_bot_catches_after_its_injected_reaction_delay(host):
    fake, client = host
    fake.log = [chat(1)]
    fake.view = views_pb2.SeatView(table_id=TABLE, seat=0, phase=views_pb2.PHASE_TURN, seat_to_act=1)
    entered, gate = asyncio.Event(), asyncio.Event()

    async def reaction_delay():
        entered.set()
        await gate.wait()

    async def finish(name, request):
        fake.view = views_pb2.SeatView(table_id=TABLE, phase=views_pb2.PHASE_MATCH_OVER)
        await fake.append(match_ended(len(fake.log) + 1))

    fake.on_command = finish
    bot = RandomBot(seed=2, reaction_delay=reaction_delay)
    runner = asyncio.create_task(bot.run(client, TABLE, 0))

    window = views_pb2.ReactionWindow(id=9, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH, subject_seat=2)
    window.eligible_seats.extend([0, 1, 3])
    opened = events_pb2.Event(number=2, reaction_window_opened=events_pb2.ReactionWindowOpened(window=window))
    opened.your_legal_actions.catch_uno_targets.append(2)
    fake.view.open_windows.append(window)
    fake.view.legal_actions.catch_uno_targets.append(2)
    await fake.append(opened)
    await asyncio.wait_for(entered.wait(), TIMEOUT)  # the bot is inside its reaction delay
    assert fake.commands == []  # nothing sent before the delay is over
    gate.set()
    ended = await asyncio.wait_for(runner, TIMEOUT)

    assert ended is not None
    (catch,) = [request for name, request in fake.commands if name == "CatchUno"]
    assert (catch.target_seat, catch.reaction_window_id) == (2, 9)


@pytest.mark.parametrize("reason", ["SEAT_TAKEN_OVER", "GAME_OVER"])  # the reasons the host sends
async def test_a_bot_stops_when_its_seat_can_no_longer_act(host, reason):
    fake, client = host
    fake.log = [chat(1)]
    fake.view = turn_view([RED_FIVE, BLUE_TWO, BLUE_TWO], [RED_FIVE])
    fake.answers["PlayCards"] = [Abort(grpc.StatusCode.FAILED_PRECONDITION, reason)]
    bot = RandomBot(seed=3)
    assert await asyncio.wait_for(bot.run(client, TABLE, 0), TIMEOUT) is None
    assert bot.commands_sent == 0 and bot.refusals == 1  # it stopped: no retry after the refusal


async def test_a_bot_falls_back_to_drawing_when_its_policy_fails(host):
    fake, client = host
    fake.log = [chat(1)]
    fake.view = turn_view([RED_FIVE, BLUE_TWO, BLUE_TWO], [RED_FIVE])

    class Broken(Bot):
        def decide(self, view):
            raise ZeroDivisionError

    async def finish(name, request):
        fake.view = views_pb2.SeatView(table_id=TABLE, phase=views_pb2.PHASE_MATCH_OVER)
        await fake.append(match_ended(len(fake.log) + 1))

    fake.on_command = finish
    assert await asyncio.wait_for(Broken().run(client, TABLE, 0), TIMEOUT) is not None
    assert [name for name, _ in fake.commands] == ["Draw"]


async def test_run_checks_the_client_plays_that_seat(host):
    _, client = host
    with pytest.raises(ValueError):
        await asyncio.wait_for(RandomBot().run(client, TABLE, 3), TIMEOUT)
