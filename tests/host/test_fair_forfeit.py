"""A seat that forfeits mid-round at a table with provably fair shuffles (docs/fairness.md 7.1).

The engine puts a forfeited hand under the draw pile (`Game.forfeit`). The host's commitment record
(`unonet.host.shuffles.RoundCards`) must follow those cards there, and announce them in
`PlayerEliminated.returned_cards`, so the table plays on and every client's Verifier, and `unonet verify`
of the exported log, can follow the cards when they are drawn again.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from google.protobuf import duration_pb2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "client"))

from fair_games import TABLE_ID, drive, new_table, stream

from unonet.cli import main
from unonet.client.verify import verify_events
from unonet.fairness import UnknownCommitment
from unonet.host import journal, shuffles
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.v1 import (
    events_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    table_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 60.0


def _seconds(value: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(value * 1e9))
    return duration


async def _play_with_a_leaver(db: Path) -> tuple[str, list[events_pb2.Event]]:
    """A 3-seat table (a player and two host bots) with the forfeit policy and fair shuffles, over a real
    server on 127.0.0.1:0: the player leaves once the first round is dealt, the bots play the match out.
    Returns the table id and every event a spectator watched, to the match's end."""
    store = SqliteStore(db)
    server, port, host = await create_server("127.0.0.1:0", host=Host(store, write_timeout_s=2.0))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        clock = table_pb2.ClockSettings(turn_time=_seconds(30), reaction_time=_seconds(0.05),
                                        takeover_policy=table_pb2.TAKEOVER_POLICY_FORFEIT)
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name="leaver", preset="standard", seat_count=3, clock=clock, manual_start=True,
            overrides={"target_score": 60}), timeout=TIMEOUT)
        table_id = created.table.table_id
        joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name="ann", role=lobby_service_pb2.JOIN_ROLE_PLAYER, seat=0), timeout=TIMEOUT)
        await lobby.StartTable(lobby_service_pb2.StartTableRequest(
            table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=TIMEOUT)
        events: list[events_pb2.Event] = []
        left = False
        async with asyncio.timeout(TIMEOUT):
            async for reply in watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id)):
                for event in [reply.event] if reply.HasField("event") else reply.events:
                    events.append(event)
                    if event.HasField("cards_dealt") and not left:
                        left = True
                        await lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(
                            table_id=table_id, token=joined.token), timeout=TIMEOUT)
                if events and events[-1].HasField("match_ended"):
                    break
        return table_id, events
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        store.close()


def test_a_player_who_leaves_mid_round_forfeits_and_the_match_plays_out_verifiably(tmp_path, capsys) -> None:
    db = tmp_path / "host.db"
    table_id, events = asyncio.run(_play_with_a_leaver(db))
    eliminated = next(e.player_eliminated for e in events if e.HasField("player_eliminated"))
    assert eliminated.seat == 0 and len(eliminated.returned_cards) >= 7
    assert all(ref.commitment and not ref.HasField("card") and not ref.salt for ref in eliminated.returned_cards)
    assert [e for e in events if e.HasField("round_ended")], "the round the player left was played to its end"
    assert events[-1].HasField("match_ended")
    verifier = verify_events(table_id, events)
    assert verifier.checks["forfeited hand put under the pile is exactly the hand held"] == 1
    log = tmp_path / "game.jsonl"
    assert main(["export", "--db", str(db), "--table", table_id]) == 0
    log.write_text(capsys.readouterr().out)
    assert main(["verify", str(log)]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("PASSED")


@pytest.mark.parametrize("seed", [3, 5, 6, 7])
def test_forfeited_cards_drawn_again_verify_for_every_seat(seed: int, monkeypatch) -> None:
    """In-process with a fake clock and seeded host secrets (so the deal is the same on every run): the
    player never acts, strikes out and forfeits (a timeout into a forfeit). Drawing until a card matches
    runs the pile down to the forfeited cards, which are drawn again, and some shuffled into a rebuilt
    pile: every seat's stream and the spectator's still verify."""
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(seed).randbytes))
    host, table, clock = new_table(seed, seats=3, target_score=200, draw_to_match=True, stacking=True,
                                   h2o_wilds=True)
    table.settings.takeover_policy = "forfeit"
    table.settings.strikes_before_takeover = 1
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    public = stream(table, None)
    returned = {ref.commitment for e in public if e.HasField("player_eliminated")
                for ref in e.player_eliminated.returned_cards}
    redrawn = [ref for e in public if e.HasField("cards_drawn") for ref in e.cards_drawn.cards
               if ref.commitment in returned]
    assert returned and redrawn, "seat 0 forfeited holding cards, and some of them were drawn again"
    for seat in (None, 0, 1, 2):
        verifier = verify_events(TABLE_ID, stream(table, seat), seat)
        assert verifier.checks["forfeited hand put under the pile is exactly the hand held"] == 1


def _forfeit_stream(seed: int, monkeypatch) -> list[events_pb2.Event]:
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(seed).randbytes))
    host, table, clock = new_table(seed, seats=3, target_score=200, draw_to_match=True, stacking=True,
                                   h2o_wilds=True)
    table.settings.takeover_policy = "forfeit"
    table.settings.strikes_before_takeover = 1
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    return stream(table, None)


def test_a_forfeited_hand_announced_short_of_a_card_fails_verification(monkeypatch) -> None:
    events = _forfeit_stream(3, monkeypatch)
    i = next(i for i, e in enumerate(events) if e.HasField("player_eliminated")
             and e.player_eliminated.returned_cards)
    tampered = events_pb2.Event()
    tampered.CopyFrom(events[i])
    del tampered.player_eliminated.returned_cards[-1]  # the host keeps one card back
    with pytest.raises(UnknownCommitment, match=r"not the \d+ card\(s\) it holds"):
        verify_events(TABLE_ID, [*events[:i], tampered, *events[i + 1:]])


def test_a_forfeited_hand_announced_out_of_order_fails_at_the_next_draw_of_it(monkeypatch) -> None:
    """The order listed is the order the cards are drawn: a host that lists it otherwise is caught when
    the pile reaches those cards (a draw that is not the top of the pile)."""
    events = _forfeit_stream(0, monkeypatch)  # seed 0 draws the forfeited cards again (with basic bots)
    i = next(i for i, e in enumerate(events) if e.HasField("player_eliminated")
             and len(e.player_eliminated.returned_cards) > 1)
    tampered = events_pb2.Event()
    tampered.CopyFrom(events[i])
    cards = list(tampered.player_eliminated.returned_cards)
    del tampered.player_eliminated.returned_cards[:]
    tampered.player_eliminated.returned_cards.extend(reversed(cards))
    with pytest.raises(UnknownCommitment, match="top of the pile"):
        verify_events(TABLE_ID, [*events[:i], tampered, *events[i + 1:]])
