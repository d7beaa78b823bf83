"""A Python bot that returns an illegal command or garbage, crashes, hangs or answers late loses only its
own turn: the runner logs it, keeps it in `faults`, sends nothing, the table's clock decides that turn
(a TurnTimedOut), and the match goes on to its end. Also: a seat taken back by token mid-match (a new
runner, as after a crash of the process) plays on, and many tables play at once in one process."""

from __future__ import annotations

import asyncio
import threading
import time

import grpc
import pytest
from bot_tables import clock, join_table, play_one_table, public_log

from unonet.bots.faults import FaultKind
from unonet.bots.random_bot import RandomBot
from unonet.bots.runner import BotRunner, Seating, play_tables
from unonet.client import commands as cmd
from unonet.client.table_client import TableClient


class Misbehaving(RandomBot):
    """Plays like RandomBot but for its first required decision, where it misbehaves as told."""

    def __init__(self, how: str) -> None:
        super().__init__(seed=4)
        self.how = how
        self.asked = 0
        self.release = threading.Event()  # lets a hung policy's thread go at the end of the test

    def decide(self, view, state):
        self.asked += 1
        if self.asked == 1:
            if self.how == "illegal":
                return cmd.ChooseSwapTarget(2)
            if self.how == "garbage":
                return "the red five, please"
            if self.how == "crash":
                raise RuntimeError("the policy broke")
            if self.how == "hang":
                self.release.wait(30)
            if self.how == "late":
                time.sleep(1.3)
        return super().decide(view, state)


KINDS = {"illegal": FaultKind.ILLEGAL, "garbage": FaultKind.ILLEGAL, "crash": FaultKind.CRASHED,
         "hang": FaultKind.LATE, "late": FaultKind.LATE}


@pytest.mark.parametrize("how", sorted(KINDS))
@pytest.mark.timeout(200)
async def test_a_python_bot_that_misbehaves_loses_only_its_own_turn(served_host, how, caplog):
    bad = Misbehaving(how)
    runners = [BotRunner(RandomBot(seed=1)), BotRunner(bad, safety_margin=0.15), BotRunner(RandomBot(2))]
    try:
        played = await play_one_table(served_host.address, runners, overrides={"target_score": 30},
                                      clock_settings=clock(1.0))
    finally:
        bad.release.set()
    assert runners[1].faults[0].kind is KINDS[how]
    assert "the table's clock decides" in caplog.text
    assert played.results[0] is not None and played.results[2] is not None
    assert played.events[-1].HasField("match_ended")
    timed_out = [t.seat for t in played.kinds("turn_timed_out")]
    assert 1 in timed_out
    assert any(p.seat == 1 for p in played.kinds("cards_played"))  # it played its other turns


@pytest.mark.timeout(200)
async def test_a_seat_taken_back_by_token_mid_match_plays_on(served_host):
    channel = grpc.aio.insecure_channel(served_host.address)
    try:
        # A match to 300: the round the crash interrupts all but never ends it (a hand five moves in is worth
        # far less), so the seat taken back plays again; to 60 that round sometimes ended the match.
        table_id, clients = await join_table(channel, 2, overrides={"target_score": 300})
        other = asyncio.create_task(BotRunner(RandomBot(seed=5)).run(clients[0], table_id, 0))
        first = BotRunner(RandomBot(seed=6))
        playing = asyncio.create_task(first.run(clients[1], table_id, 1))
        async with asyncio.timeout(30):
            while first.commands_sent < 5:
                await asyncio.sleep(0.01)
        playing.cancel()  # the process "crashes" mid-match
        await asyncio.gather(playing, return_exceptions=True)
        again = TableClient(channel)
        again.attach(table_id, clients[1].token, 1)
        second = BotRunner(RandomBot(seed=7))
        ended = await asyncio.wait_for(asyncio.gather(second.run(again, table_id, 1), other), 150)
        assert all(result is not None for result in ended)
        assert second.commands_sent > 0 and second.faults == []
        events = await public_log(channel, table_id, clients[0].token, 0)
        assert not [e for e in events if e.HasField("seat_taken_over")]
    finally:
        await channel.close()


@pytest.mark.timeout(200)
async def test_many_tables_at_once_in_one_process(served_host):
    channel = grpc.aio.insecure_channel(served_host.address)
    try:
        seatings = []
        for _ in range(6):
            table_id, clients = await join_table(channel, 2, overrides={"target_score": 30})
            seatings += [Seating(BotRunner(RandomBot(seed=len(seatings) + i)), c, table_id, i)
                         for i, c in enumerate(clients)]
        results = await asyncio.wait_for(play_tables(seatings), 150)
        assert len(results) == 12 and all(r is not None and not isinstance(r, BaseException) for r in results)
        assert len({s.table_id for s in seatings}) == 6
    finally:
        await channel.close()
