"""A seat's knowledge read back from the protocol (`unonet.wire.knowledge`), checked at a real table.

A bot plays a real host over loopback; each time it is asked to decide, it builds the position it
knows from its view and the events it received, determinizes it, and both are compared with the
host's true game on everything the seat can see. The cards it claims to know in other hands must
really be there.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from collections.abc import Awaitable, Callable

import grpc
import pytest
from bot_tables import default_clock  # short reaction windows: a jump-in window follows every play here
from knowledge_checks import POSITION_PHASES, check_position

from unonet.bots.policy import BotState
from unonet.bots.random_bot import RandomBot
from unonet.bots.runner import BotRunner
from unonet.client import commands as cmd
from unonet.client.table_client import TableClient
from unonet.engine import MalformedAction, determinize, playout, standard_deck
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import events_pb2, rules_pb2, views_pb2
from unonet.wire.knowledge import SeatTracker

MATCH_TIMEOUT = 60.0
POSITIONS = 30  # checked positions per run: the match stops there (or at its end, if sooner)
CALL_TIMEOUT = 10.0
SWAPS = {"stacking": True, "jump_in": True, "seven_o": True, "five_swap": True, "target_score": 2000}
# Blocking windows (slaps, run cuts) are refused as positions; the rest must read back exactly.
MORE = {
    "runs": True, "multi_play": True, "jump_in": True, "super_jump_in": True, "skip_escape": True,
    "silent_two": True, "uno_slap": True, "blank_cards": True, "h2o_wilds": True, "draw_to_match": True,
    "illegal_play_penalty": True, "deflecting": True, "stacking": True, "seven_o": True,
    "bluff_penalty": rules_pb2.BLUFF_PENALTY_TAKE_BACK, "target_score": 2000,
}  # fmt: skip


class ChallengingBot(RandomBot):
    """A RandomBot that challenges every Wild Draw Four it may: each fair one tells the table what its
    player did not hold."""

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        if view.legal_actions.challenge:
            return cmd.Challenge()
        return super().decide(view, state)


class KnowingBot(RandomBot):
    """A RandomBot that, before each decision, reads its position back and checks it against the host."""

    def __init__(self, seed: int, host: Host) -> None:
        super().__init__(seed)
        self.host = host
        self.table_id = ""
        self.tracker: SeatTracker | None = None
        self.checked: Counter[str] = Counter()
        self.enough = asyncio.Event()  # set once POSITIONS positions have been checked
        self.recent: list[str] = []  # the last events, for a failure's report
        self.failures: list[str] = []  # the runner logs and survives what decide() raises: kept for the test

    def on_event(self, event: events_pb2.Event) -> None:
        assert self.tracker is not None
        self.tracker.observe(event)
        kind = event.WhichOneof("payload")
        self.recent.append(f"{event.number} {kind} {getattr(event, str(kind)) if kind else ''}".replace("\n", " "))

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        if not self.failures:
            try:
                self.check(view)
            except Exception as error:  # reported by the test, with the view
                true = self.host.tables[self.table_id].match.game  # type: ignore[union-attr]
                self.failures.append("\n".join(self.recent[-30:]) + f"\n{error!r}\n{view}\ntrue hands {true.hands}")
                self.enough.set()  # the test fails on this one: playing on to the timeout adds nothing
        return super().decide(view, state)

    def check(self, view: views_pb2.SeatView) -> None:
        assert self.tracker is not None
        table = self.host.tables[self.table_id]
        if not self.tracker.has_round:  # the first deal has not come yet (the fair shuffle asks first)
            with pytest.raises(MalformedAction):
                self.tracker.position(view)
            self.checked["before_the_deal"] += 1
            return
        if table.match is not None and table.match.round_no:
            ruleset = table.ruleset
            deck = standard_deck(blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds,
                                 h2o_wilds=ruleset.h2o_wilds)
            assert Counter(table.match.game.cards_in_play()) == Counter(deck), "the true game lost or made cards"
        if self.tracker.last_event_number != view.event_number or table.last_number != view.event_number:
            self.checked["stale"] += 1  # the table moved on since this view: nothing to compare
            return
        if view.phase not in POSITION_PHASES:
            with pytest.raises(MalformedAction):
                self.tracker.position(view)
            self.checked["refused"] += 1
            return
        assert table.match is not None
        true = table.match.game
        knowledge = check_position(self.tracker, view, true)
        self.checked["excluded"] += sum(bool(banned) for banned in knowledge.excluded)
        self.checked["known"] += sum(len(cards) for cards in knowledge.known)
        known_game, _ = self.tracker.position(view)
        playout(determinize(known_game, knowledge, random.Random(view.event_number)),
                random.Random(view.event_number))  # the determinized position plays to its end
        self.checked["positions"] += 1
        if self.checked["positions"] >= POSITIONS:
            self.enough.set()


def _signalling(
    get_view: Callable[[], Awaitable[views_pb2.SeatView]], seen: asyncio.Event
) -> Callable[[], Awaitable[views_pb2.SeatView]]:
    """`get_view`, setting `seen` once a view has come back."""

    async def signalling() -> views_pb2.SeatView:
        view = await get_view()
        seen.set()
        return view

    return signalling


@pytest.fixture
async def served():
    server, port, host = await asyncio.wait_for(create_server("127.0.0.1:0"), CALL_TIMEOUT)
    await asyncio.wait_for(server.start(), CALL_TIMEOUT)
    yield f"127.0.0.1:{port}", host
    await asyncio.wait_for(server.stop(None), CALL_TIMEOUT)
    await asyncio.wait_for(host.stop(), CALL_TIMEOUT)


@pytest.mark.timeout(MATCH_TIMEOUT + 20)
@pytest.mark.parametrize(("seed", "rules"), [(1, SWAPS), (2, MORE)], ids=["swaps", "more_house_rules"])
async def test_a_bot_reads_back_the_position_it_knows_at_a_real_table(served, seed, rules):
    address, host = served
    channel = grpc.aio.insecure_channel(address)
    clients = [TableClient(channel, timeout=CALL_TIMEOUT) for _ in range(3)]
    try:
        owner = clients[0]
        created = await asyncio.wait_for(
            owner.create_table("standard", rules, 3, name="knows", manual_start=True, clock=default_clock()),
            CALL_TIMEOUT,
        )
        for i, client in enumerate(clients):
            await asyncio.wait_for(client.join(created.table_id, f"bot-{i}", seat=i), CALL_TIMEOUT)
        knowing = KnowingBot(seed, host)
        knowing.table_id = created.table_id
        knowing.tracker = SeatTracker(0)
        bots = [knowing, ChallengingBot(seed + 10), ChallengingBot(seed + 20)]
        runners = [BotRunner(bot) for bot in bots]
        # Each runner reads its first view before the match starts, so the tracker follows round 1 from
        # its deal: the clients say when that view has come back.
        viewed = [asyncio.Event() for _ in clients]
        for client, seen in zip(clients, viewed, strict=True):
            client.get_view = _signalling(client.get_view, seen)  # type: ignore[method-assign]
        games = asyncio.gather(
            *(r.run(c, created.table_id, i) for i, (r, c) in enumerate(zip(runners, clients, strict=True)))
        )
        await asyncio.wait_for(asyncio.gather(*(seen.wait() for seen in viewed)), CALL_TIMEOUT)
        await asyncio.wait_for(owner.start_table(table_id=created.table_id), CALL_TIMEOUT)
        enough = asyncio.ensure_future(knowing.enough.wait())
        await asyncio.wait({games, enough}, timeout=MATCH_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        ended = games.result() if games.done() else None
        games.cancel()
        enough.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(games, CALL_TIMEOUT)
        if knowing.failures:
            print(knowing.failures[0])
        assert knowing.failures == []
        assert ended is not None or knowing.enough.is_set(), "the match neither ended nor gave enough positions"
        assert ended is None or all(result is not None for result in ended)
        assert knowing.checked["positions"] >= POSITIONS and knowing.checked["known"] > 0, knowing.checked
    finally:
        await asyncio.wait_for(channel.close(), CALL_TIMEOUT)


def test_a_position_is_refused_for_a_spectator_a_round_not_followed_or_a_view_ahead_of_the_events():
    tracker = SeatTracker(1)
    with pytest.raises(MalformedAction, match="spectator"):
        tracker.position(views_pb2.SeatView(is_spectator=True))
    with pytest.raises(MalformedAction, match="not followed"):
        tracker.position(views_pb2.SeatView(seat=1, phase=views_pb2.PHASE_TURN))
    tracker.observe(
        events_pb2.Event(number=4, round_started=events_pb2.RoundStarted(round_number=1, seats_in_play=[0, 1]))
    )
    with pytest.raises(MalformedAction, match="event 9"):
        tracker.position(views_pb2.SeatView(seat=1, event_number=9, phase=views_pb2.PHASE_TURN))
    with pytest.raises(MalformedAction, match="no phase of a round"):
        tracker.position(views_pb2.SeatView(seat=1, event_number=4, phase=views_pb2.PHASE_WINDOW))
    tracker.observe(events_pb2.Event(number=5, snapshot=events_pb2.Snapshot()))  # events were skipped
    with pytest.raises(MalformedAction, match="not followed"):
        tracker.position(views_pb2.SeatView(seat=1, event_number=5, phase=views_pb2.PHASE_TURN))
