"""The hash-chained public log (docs/fairness.md 8.2): its test vectors, every receiver's copy giving the
same chain, the SDK's head through drops and resumes, and `unonet verify` catching a forked log."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from types import SimpleNamespace

import grpc
import pytest
from fair_games import TABLE_ID, drive, play_match, stream
from fake_seat_host import END, TIMEOUT, Abort, Snapshot, chat, serve_fake_host, take

from unonet.cli import main
from unonet.client.audit import write_jsonl
from unonet.client.logchain import LogChain, canonical, parse_head, public_form
from unonet.client.verify import verify_events
from unonet.fairness.chain import log_genesis
from unonet.host import journal, shuffles
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import cards_pb2, events_pb2


@pytest.fixture(autouse=True)
def _seeded_host_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's seeds and bots' entropy from a seeded generator: every game here is the same on every
    run, so the events a test needs (a challenge, a rebuilt pile, a tied race) are always there."""
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(1234).randbytes))


PRESETS = ["standard", "house", "serbian", "french", "russian", "polish"]


def _vector_events() -> list[events_pb2.Event]:
    one = events_pb2.Event(number=1)
    one.time.seconds = 1700000000
    one.player_joined.seat, one.player_joined.name = 0, "ann"
    two = events_pb2.Event(number=2)
    two.time.seconds, two.time.nanos = 1700000001, 5
    two.player_eliminated.seat, two.player_eliminated.total = 1, -5
    two.player_eliminated.returned_cards.add(commitment=b"\x11" * 32, position=7)
    three = events_pb2.Event(number=3)  # a seat's own copy: its legal actions and its card's opening
    three.time.seconds = 1700000002
    three.your_legal_actions.required = True
    drawn = three.cards_drawn
    drawn.seat, drawn.count, drawn.reason, drawn.hand_size = 2, 1, events_pb2.DRAW_REASON_TURN, 8
    drawn.cards.add(card=cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_FIVE),
                    commitment=b"\x22" * 32, salt=b"\x33" * 32, deck_number=1)
    return [one, two, three]


def test_the_documented_vectors() -> None:
    assert log_genesis("table-1").hex() == "c92e1f335e351979b494cede5d55e89e3bf65bc0df1a56760728bb989d8a54a7"
    events = _vector_events()
    assert canonical(public_form(events[0])).hex() == (
        "00000008" "0000000000000001" "00000008" "0000000000000001"
        "00000008" "0000000000000002" "00000018" "00000008" "0000000000000001" "00000008" "000000006553f100"
        "00000008" "000000000000000a" "00000013" "00000008" "0000000000000002" "00000003" "616e6e")
    chain = LogChain("table-1")
    heads = [chain.feed(event).hex() for event in events]
    assert heads == [
        "117204a6f9316b5d2fd214e1a67c466b060bd348cf2be0538440081120f99013",
        "9d652ad0fe6a8403943eb1dc420b29f8194e84412fc1c19b4b24c869888f43e6",
        "d00789de0bd98fe0ce467fff5156ec51104f5a1ffd8853b6dde83d150381b9a8",
    ]
    spectator = events_pb2.Event()
    spectator.CopyFrom(events[2])
    spectator.ClearField("your_legal_actions")
    spectator.cards_drawn.cards[0].ClearField("card")
    spectator.cards_drawn.cards[0].ClearField("salt")
    assert public_form(events[2]) == spectator


def _no_fair_table(preset: str) -> Table:
    clock = [1_700_000_000_000_000_000]
    store = MemoryStore()
    settings = TableSettings(name="t", seat_count=4, preset=preset, overrides={"target_score": 100},
                             manual_start=True)
    store.create_table(TABLE_ID, {"settings": dataclasses.asdict(settings), "owner_token": "owner", "seed": 3}, 0)
    host = Host(store, clock_ns=lambda: clock[0])
    table = Table(TABLE_ID, settings, owner_token="owner", seed=3, created_ns=0, store=store,
                  clock_ns=lambda: clock[0], fair_shuffle=False)
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    return table


@pytest.mark.parametrize("fair", [True, False])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_receivers_copy_has_the_spectators_public_form(preset: str, fair: bool) -> None:
    """The rules of the public form are exactly the host's visibility: every seat's copy of every event
    maps to the spectator's copy, which is its own public form; so every copy's chain is the same."""
    table = play_match(3, preset=preset, target_score=100) if fair else _no_fair_table(preset)
    public = stream(table, None)
    assert [public_form(event) for event in public] == public
    spectator = LogChain(TABLE_ID)
    for event in public:
        spectator.feed(event)
    for seat in range(4):
        chain = LogChain(TABLE_ID)
        for mine, theirs in zip(stream(table, seat), public, strict=True):
            assert public_form(mine) == theirs
            chain.feed(mine)
        assert chain.heads == spectator.heads


async def test_the_sdk_keeps_its_copys_head_through_drops_but_not_through_a_snapshot() -> None:
    async with serve_fake_host() as (fake, client):
        fake.log = [chat(n) for n in range(1, 8)]
        fake.scripts = [[1, 2, 3, Abort(grpc.StatusCode.UNAVAILABLE)], [4, 5, END], [Snapshot(6), 7]]
        assert client.log_head is None
        seen = await asyncio.wait_for(take(client, 5), TIMEOUT)
        chain = LogChain(client.table_id)
        for event in seen:
            chain.feed(event)
        assert client.log_head == (5, chain.head)
        await asyncio.wait_for(take(client, 2, after=None), TIMEOUT)
        assert client.log_head is None, "a snapshot stands for events the chain never saw"


def _write(tmp_path, events: list[events_pb2.Event]) -> str:
    path = tmp_path / "game.jsonl"
    with path.open("w") as out:
        write_jsonl(out, TABLE_ID, events)
    return str(path)


def test_verify_prints_the_head_and_catches_a_forked_log(tmp_path, capsys) -> None:
    table = play_match(0, target_score=100)
    seat_copy = stream(table, 1)
    head = verify_events(TABLE_ID, seat_copy, 1).head
    assert head is not None
    number, digest = head
    expect = f"{number}:{digest.hex()}"
    assert parse_head(expect) == head
    public = stream(table, None)
    log = _write(tmp_path, public)
    assert main(["verify", log, "--expect-head", expect, "--expect-head", f"3:{_head_at(public, 3)}"]) == 0
    out = capsys.readouterr().out
    assert f"head    {expect}" in out and out.rstrip().splitlines()[-1].startswith("PASSED")
    # The host showed the public another table name than it showed seat 1: every check of the cards
    # still holds, but the heads part.
    forked = [events_pb2.Event.FromString(event.SerializeToString()) for event in public]
    i = next(i for i, e in enumerate(forked) if e.HasField("match_started"))
    forked[i].match_started.settings.name += "!"
    assert main(["verify", _write(tmp_path, forked)]) == 0, "alone, the changed log is consistent"
    capsys.readouterr()
    assert main(["verify", _write(tmp_path, forked), "--expect-head", expect]) == 1
    assert "FAILED  LOG_FORKED" in capsys.readouterr().out
    assert main(["verify", log, "--expect-head", f"{number + 1}:{digest.hex()}"]) == 1
    assert main(["verify", log, "--expect-head", "12:nothex"]) == 2


def _head_at(events: list[events_pb2.Event], number: int) -> str:
    chain = LogChain(TABLE_ID)
    for event in events[:number]:
        chain.feed(event)
    return chain.head.hex()


def test_a_table_dealt_without_fair_shuffles_is_reported_plainly_not_passed(tmp_path, capsys) -> None:
    log = _write(tmp_path, stream(_no_fair_table("standard"), None))
    assert main(["verify", log]) == 3
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("NOT FAIR-SHUFFLED")


@pytest.mark.parametrize(("scheme", "status", "verdict"), [
    ("someone/else", 1, "FAILED  UNKNOWN_SCHEME"),
])
def test_a_shuffle_under_another_scheme_is_never_passed(tmp_path, capsys, scheme: str, status: int,
                                                        verdict: str) -> None:
    events = stream(play_match(0, target_score=60), None)
    for event in events:
        if event.HasField("shuffle_committed"):
            event.shuffle_committed.scheme = scheme
    assert main(["verify", _write(tmp_path, events)]) == status
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith(verdict)
