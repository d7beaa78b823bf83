"""The host's provably fair shuffle: the commit-reveal round before each deal (docs/fairness.md 7).

Tables are driven in-process with a fake clock (`fair_games`): player seats commit and reveal through
`Table.entropy` exactly as the PlayService handlers call it; the driver enforces the deadlines.
"""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "client"))

from fair_games import TABLE_ID, drive, new_table, play_match, stream

from unonet.client.verify import Verifier
from unonet.fairness import combine_seed, commit_seat_entropy
from unonet.host import eventlog, journal
from unonet.host.errors import HostError
from unonet.host.store import SqliteStore
from unonet.v1 import views_pb2

VALUE = bytes(range(32))


def kinds(table, seat=None) -> list[str]:
    return [event.WhichOneof("payload") for event in stream(table, seat)]


def player_table(seed: int = 5):
    """Seat 0 a player with an event stream open, seat 1 a host bot; the match started."""
    host, table, clock = new_table(seed, seats=2, target_score=50)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.subscribe(0)
    table.record(journal.Start(fill=True))
    return host, table, clock


def test_a_connected_player_commits_then_reveals_and_its_entropy_goes_into_the_deck() -> None:
    _, table, _ = player_table()
    committed = next(e for e in stream(table, 0) if e.WhichOneof("payload") == "shuffle_committed")
    assert list(committed.shuffle_committed.entropy_seats) == [0, 1]
    legal = [e.your_legal_actions for e in stream(table, 0) if e.HasField("your_legal_actions")][-1]
    assert legal.commit_entropy and legal.required and legal.HasField("deadline")
    view = table.view(0)
    assert view.phase == views_pb2.PHASE_SHUFFLE and view.round_number == 1 and view.legal_actions.commit_entropy
    assert table.match.is_awaiting_deal, "nothing is dealt before the seats have spoken"

    table.entropy(0, "c", commitment=commit_seat_entropy(0, VALUE, table_id=TABLE_ID, round_no=1))
    assert table.view(0).legal_actions.reveal_entropy, "every commitment is in: now reveal"
    again = table.entropy(0, "c", commitment=commit_seat_entropy(0, VALUE, table_id=TABLE_ID, round_no=1))
    table.entropy(0, "r", value=VALUE)
    assert not table.match.is_awaiting_deal and table.view(0).phase != views_pb2.PHASE_SHUFFLE
    assert again.event_number < table.last_number
    deck = next(e.deck_committed for e in stream(table) if e.WhichOneof("payload") == "deck_committed")
    assert list(deck.contributing_seats) == [0, 1]
    bot_value = next(e.seat_entropy_revealed.entropy for e in stream(table)
                     if e.WhichOneof("payload") == "seat_entropy_revealed" and e.seat_entropy_revealed.seat == 1)
    assert table.cards.round_seed == combine_seed(table.cards.host_seed, {0: VALUE, 1: bot_value})


def test_a_reveal_that_does_not_open_the_commitment_is_refused_and_changes_nothing() -> None:
    _, table, _ = player_table()
    with pytest.raises(HostError) as refused:
        table.entropy(0, "early", value=VALUE)
    assert refused.value.reason == "NO_SHUFFLE_PENDING"
    table.entropy(0, "c", commitment=commit_seat_entropy(0, VALUE, table_id=TABLE_ID, round_no=1))
    before = table.last_number
    with pytest.raises(HostError) as refused:
        table.entropy(0, "r", value=bytes(32))
    assert refused.value.reason == "INVALID_FIELD"
    with pytest.raises(HostError) as refused:
        table.entropy(0, "c2", commitment=bytes(32))
    assert refused.value.reason == "ALREADY_COMMITTED"  # in the reveal phase, the true reason (guide)
    assert table.last_number == before and table.match.is_awaiting_deal


def test_a_silent_player_is_left_out_at_the_deadline_and_the_table_goes_on() -> None:
    host, table, clock = player_table()
    wait = host._step(table)
    assert wait is not None and 0 < wait <= table.settings.reaction_time_s
    clock[0] += int(wait * 1e9) + 1
    host._step(table)
    timed_out = next(e.shuffle_timed_out for e in stream(table) if e.WhichOneof("payload") == "shuffle_timed_out")
    assert list(timed_out.seats) == [0] and not timed_out.revealing
    deck = next(e.deck_committed for e in stream(table) if e.WhichOneof("payload") == "deck_committed")
    assert list(deck.contributing_seats) == [1]
    assert not table.match.is_awaiting_deal


def test_a_seat_that_commits_but_does_not_reveal_is_left_out_and_listed() -> None:
    host, table, clock = player_table()
    table.entropy(0, "c", commitment=commit_seat_entropy(0, VALUE, table_id=TABLE_ID, round_no=1))
    clock[0] += int(table.settings.reaction_time_s * 1e9) + 1
    host._step(table)
    timed_out = next(e.shuffle_timed_out for e in stream(table) if e.WhichOneof("payload") == "shuffle_timed_out")
    assert list(timed_out.seats) == [0] and timed_out.revealing
    verifier = Verifier(TABLE_ID, 0)
    verifier.feed_all(stream(table, 0))  # the deal without seat 0's value holds up
    assert verifier.checks["pile root covers its commitments"] >= 1  # more if a first card went back


def test_players_without_an_event_stream_are_not_waited_for() -> None:
    _, table, _ = new_table(6, seats=2, manual_start=False)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Join(1, "bob", "tok-1"))  # autostart
    assert not table.match.is_awaiting_deal and len(table.view(0).hand) == 7
    names = kinds(table)
    assert names.index("shuffle_committed") < names.index("deck_committed") < names.index("round_started")


def test_every_round_is_shuffled_committed_and_revealed_in_order() -> None:
    table = play_match(2, seats=3, target_score=150)
    names = kinds(table)
    rounds = table.match.round_no
    assert names.count("shuffle_committed") == rounds == names.count("shuffle_revealed")
    for start in [i for i, name in enumerate(names) if name == "shuffle_committed"]:
        following = names[start:]
        assert following.index("deck_committed") < following.index("round_started") < following.index(
            "round_ended") < following.index("shuffle_revealed")


def test_a_restarted_host_replays_the_same_shuffles_and_keeps_the_seed_private(tmp_path, monkeypatch) -> None:
    # A window far shorter than any match, so both tables read their older events back from their stores
    # on every run (with the default window only a match longer than 1,024 events did, a random few).
    monkeypatch.setattr(eventlog, "WINDOW_EVENTS", 16)
    db = tmp_path / "host.db"
    store = SqliteStore(db)
    host, table, clock = new_table(9, seats=3, store=store, target_score=100)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.subscribe(0)
    table.record(journal.Start(fill=True))
    table.entropy(0, "c", commitment=commit_seat_entropy(0, VALUE, table_id=TABLE_ID, round_no=1))
    table.entropy(0, "r", value=VALUE)
    drive(host, table, clock)

    again = SqliteStore(db)  # a second host on the same file; the first one's store stays open while it is read
    (stored,) = list(again.tables())
    from unonet.host.table import Table, TableSettings

    replayed = Table(TABLE_ID, TableSettings(**stored.record["settings"]), owner_token="owner", seed=9,
                     created_ns=0, store=again, clock_ns=lambda: 0)
    replayed.replay(stored.journal)
    for seat in (None, 0, 1, 2):  # MatchStarted shows who was connected then, which no journal records
        assert [e.SerializeToString() for e in stream(replayed, seat) if not e.HasField("match_started")] == [
            e.SerializeToString() for e in stream(table, seat) if not e.HasField("match_started")]
    public = [blob for _, blob in again.public_events(TABLE_ID)]
    assert len(public) == table.last_number
    seeds = [bytes.fromhex(item.entry["fair"]["seed"]) for item in stored.journal if "fair" in item.entry]
    assert len(seeds) == table.match.round_no
    revealed = [e.shuffle_revealed.seed for e in stream(table) if e.WhichOneof("payload") == "shuffle_revealed"]
    assert revealed == seeds, "each seed is published only after its round, by ShuffleRevealed"
    again.close()
    store.close()


async def test_a_player_commits_and_reveals_over_grpc(stubs) -> None:
    import asyncio

    from unonet.v1 import lobby_service_pb2, play_service_pb2, watch_service_pb2

    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="fair", seat_count=2, manual_start=True), timeout=10)
    table_id = created.table.table_id
    joined = await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="ann", role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=10)
    events = stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=joined.token))
    seen = []
    async with asyncio.timeout(10):
        async for response in events:  # the stream is open once the first event arrives
            seen.append(response.event)
            break
        await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
            table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=10)
        round_no = 0
        async for response in events:
            event = response.event
            seen.append(event)
            if event.HasField("shuffle_committed"):
                round_no = event.shuffle_committed.round_number
                assert joined.seat in event.shuffle_committed.entropy_seats
            legal = event.your_legal_actions
            if legal.commit_entropy:
                commitment = commit_seat_entropy(joined.seat, VALUE, table_id=table_id, round_no=round_no)
                await stubs.play.CommitEntropy(play_service_pb2.CommitEntropyRequest(
                    table_id=table_id, token=joined.token, command_id="c", commitment=commitment), timeout=10)
            elif legal.reveal_entropy:
                await stubs.play.RevealEntropy(play_service_pb2.RevealEntropyRequest(
                    table_id=table_id, token=joined.token, command_id="r", entropy=VALUE), timeout=10)
            if event.HasField("deck_committed"):
                assert list(event.deck_committed.contributing_seats) == [0, 1]
                break
    events.cancel()
    revealed = [e.seat_entropy_revealed for e in seen if e.HasField("seat_entropy_revealed")]
    assert any(r.seat == joined.seat and r.entropy == VALUE for r in revealed)


async def test_a_second_commitment_or_reveal_by_one_seat_is_refused_over_grpc(stubs) -> None:
    """ALREADY_COMMITTED while the shuffle is pending (also once the reveals began), ALREADY_REVEALED
    while another has yet to reveal: a seat contributes once per shuffle; NO_SHUFFLE_PENDING once dealt."""
    import asyncio

    from unonet.v1 import errors_pb2, lobby_service_pb2, play_service_pb2, watch_service_pb2

    created = await stubs.lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="fair", seat_count=3, manual_start=True), timeout=10)
    table_id = created.table.table_id
    tokens = [(await stubs.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=10)).token
        for name in ("ann", "bob")]
    streams = [stubs.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=token))
               for token in tokens]
    for events in streams:  # open (connected) once their first event arrives: both are asked to contribute
        await asyncio.wait_for(events.read(), 10)
    await stubs.lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=10)
    view = (await stubs.watch.GetView(watch_service_pb2.GetViewRequest(table_id=table_id, token=tokens[0]),
                                      timeout=10)).view
    assert view.phase == views_pb2.PHASE_SHUFFLE and view.legal_actions.commit_entropy

    async def refused(call, reason: str, code=grpc.StatusCode.FAILED_PRECONDITION) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        detail = errors_pb2.ErrorDetail.FromString(dict(caught.value.trailing_metadata())["unonet-error-bin"])
        assert caught.value.code() == code and detail.reason == reason

    def commit(seat: int, cid: str):
        return stubs.play.CommitEntropy(play_service_pb2.CommitEntropyRequest(
            table_id=table_id, token=tokens[seat], command_id=cid, commitment=commit_seat_entropy(
                seat, VALUE, table_id=table_id, round_no=view.round_number)), timeout=10)

    def reveal(seat: int, cid: str):
        return stubs.play.RevealEntropy(play_service_pb2.RevealEntropyRequest(
            table_id=table_id, token=tokens[seat], command_id=cid, entropy=VALUE), timeout=10)

    try:
        await refused(stubs.play.CommitEntropy(play_service_pb2.CommitEntropyRequest(
            table_id=table_id, token=tokens[0], command_id="short", commitment=b"\x01" * 5), timeout=10),
            "INVALID_FIELD", grpc.StatusCode.INVALID_ARGUMENT)  # a commitment is 32 bytes
        await commit(0, "c1")
        await refused(commit(0, "c2"), "ALREADY_COMMITTED")
        await commit(1, "c1")  # every seat committed: the reveals begin
        await refused(commit(0, "c3"), "ALREADY_COMMITTED")  # the true reason, not NO_SHUFFLE_PENDING
        await reveal(0, "r1")
        await refused(reveal(0, "r2"), "ALREADY_REVEALED")
        await reveal(1, "r1")  # the last reveal: the deck is derived and dealt
        await refused(reveal(1, "r3"), "NO_SHUFFLE_PENDING")
        await refused(commit(0, "c4"), "NO_SHUFFLE_PENDING")  # dealt: no shuffle is pending
    finally:
        for events in streams:
            events.cancel()
