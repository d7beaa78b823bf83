"""BotRunner against a tiny in-test grpc.aio host (`fake_seat_host`): races, reaction delays, refusals.

Nothing sleeps to synchronise; every await is bounded by a timeout.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from fake_seat_host import TABLE, TIMEOUT, Abort, chat, serve_fake_host

from unonet.bots.basic_bot import BasicBot
from unonet.bots.policy import Bot
from unonet.bots.runner import BotRunner
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, views_pb2


@pytest.fixture
async def host():
    async with serve_fake_host() as served:
        yield served


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
    runner = BotRunner(BasicBot(seed=1))
    ended = await asyncio.wait_for(runner.run(client, TABLE, 0), TIMEOUT)

    assert list(ended.winner_seats) == [0]
    assert runner.refusals == 1 and runner.commands_sent == 1
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
    runner = BotRunner(BasicBot(seed=2), reaction_delay=reaction_delay)
    playing = asyncio.create_task(runner.run(client, TABLE, 0))

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
    ended = await asyncio.wait_for(playing, TIMEOUT)

    assert ended is not None
    (catch,) = [request for name, request in fake.commands if name == "CatchUno"]
    assert (catch.target_seat, catch.reaction_window_id) == (2, 9)


@pytest.mark.parametrize("reason", ["SEAT_TAKEN_OVER", "GAME_OVER"])  # the reasons the host sends
async def test_a_bot_stops_when_its_seat_can_no_longer_act(host, reason):
    fake, client = host
    fake.log = [chat(1)]
    fake.view = turn_view([RED_FIVE, BLUE_TWO, BLUE_TWO], [RED_FIVE])
    fake.answers["PlayCards"] = [Abort(grpc.StatusCode.FAILED_PRECONDITION, reason)]
    runner = BotRunner(BasicBot(seed=3))
    assert await asyncio.wait_for(runner.run(client, TABLE, 0), TIMEOUT) is None
    assert runner.commands_sent == 0 and runner.refusals == 1  # it stopped: no retry after the refusal


async def test_a_command_refused_because_its_round_ended_is_no_reason_to_stop(host):
    """ROUND_OVER: the command's round ended, the match goes on. The runner re-reads the view and plays
    on (it once took the engine's round-over refusal, then sent as GAME_OVER, for the match's end)."""
    fake, client = host
    fake.log = [chat(1)]
    fake.view = turn_view([RED_FIVE, BLUE_TWO, BLUE_TWO], [RED_FIVE])
    fake.answers["PlayCards"] = [Abort(grpc.StatusCode.FAILED_PRECONDITION, "ROUND_OVER")]

    async def finish(name, request):
        fake.view = views_pb2.SeatView(table_id=TABLE, phase=views_pb2.PHASE_MATCH_OVER)
        await fake.append(match_ended(len(fake.log) + 1))

    fake.on_command = finish
    runner = BotRunner(BasicBot(seed=3))
    assert await asyncio.wait_for(runner.run(client, TABLE, 0), TIMEOUT) is not None
    assert runner.refusal_reasons["ROUND_OVER"] == 1 and runner.commands_sent == 1


async def test_a_bot_falls_back_to_drawing_when_its_policy_fails(host):
    fake, client = host
    fake.log = [chat(1)]
    fake.view = turn_view([RED_FIVE, BLUE_TWO, BLUE_TWO], [RED_FIVE])

    class Broken(Bot):
        def decide(self, view, state):
            raise ZeroDivisionError

    async def finish(name, request):
        fake.view = views_pb2.SeatView(table_id=TABLE, phase=views_pb2.PHASE_MATCH_OVER)
        await fake.append(match_ended(len(fake.log) + 1))

    fake.on_command = finish
    assert await asyncio.wait_for(BotRunner(Broken()).run(client, TABLE, 0), TIMEOUT) is not None
    assert [name for name, _ in fake.commands] == ["Draw"]


async def test_run_checks_the_client_plays_that_seat(host):
    _, client = host
    with pytest.raises(ValueError):
        await asyncio.wait_for(BotRunner(BasicBot()).run(client, TABLE, 3), TIMEOUT)
