"""`unonet replay`'s model: finished games played by host bots, exported, replayed from every point of view.

What each seat received is rebuilt from the public log alone and compared with what the host really
sent that seat; the open view is compared with every seat's true hand at every step.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import random
from types import SimpleNamespace
from typing import Any

import pytest
from fair_games import TABLE_ID, drive, play_match, stream

from unonet.cli import main
from unonet.client.replay import OPEN, Replay, ReplayRefused, render_text
from unonet.host import journal, shuffles
from unonet.host.host import Host
from unonet.host.store import MemoryStore, SqliteStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import events_pb2

HOUSE = {"seven_o": True, "five_swap": True, "jump_in": True, "bluffing": True}


def exported(tmp_path, capsys, seed: int = 4, **overrides: Any) -> tuple[Table, bytes]:
    """A whole match played on a real host's SQLite store, and its `unonet export` log."""
    db = tmp_path / "host.db"
    store = SqliteStore(db)
    table = play_match(seed, seats=3, store=store, target_score=overrides.pop("target_score", 150), **overrides)
    store.close()
    assert main(["export", "--db", str(db), "--table", TABLE_ID]) == 0
    return table, capsys.readouterr().out.encode()


def plain(event: events_pb2.Event) -> events_pb2.Event:
    """An event without what a public log cannot carry: the receiver's own legal actions."""
    copy = events_pb2.Event()
    copy.CopyFrom(event)
    copy.ClearField("your_legal_actions")
    return copy


@pytest.fixture(scope="module")
def house_game(tmp_path_factory) -> tuple[Table, Replay]:
    """One match with 7-0, five swaps, jump-ins and bluffs, so every kind of hidden card moves.

    The host draws its shuffle seeds from `secrets`; here they come from a seeded stream, so the match is
    the same on every run (and in any test order) and the kinds of moves it holds do not depend on luck.
    """
    tmp = tmp_path_factory.mktemp("replay")
    db = tmp / "host.db"
    store = SqliteStore(db)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(7).randbytes))
        table = play_match(7, seats=3, store=store, target_score=200, **HOUSE)
    events = [events_pb2.Event.FromString(blob) for _, blob in store.public_events(TABLE_ID)]
    store.close()
    return table, Replay(TABLE_ID, events)


def test_each_seat_receives_exactly_what_the_host_sent_it(house_game) -> None:
    table, replay = house_game
    kinds = {event.WhichOneof("payload") for event in replay.events}
    assert {"hands_rotated", "hands_swapped", "cards_exchanged"} <= kinds, "the match should move every hand"
    for seat in range(3):
        truth = [plain(event) for event in stream(table, seat)]
        rebuilt = [plain(event) for event in replay.received(seat)]
        assert len(rebuilt) == len(truth)
        differ = [(t.number, t.WhichOneof("payload")) for t, r in zip(truth, rebuilt, strict=True) if t != r]
        assert differ == []
    challenged = [event.hand_revealed for event in replay.events if event.HasField("hand_revealed")]
    assert challenged, "the match should hold a Wild Draw Four challenge"
    challenger = challenged[0].challenger_seat
    revealed = next(e.hand_revealed for e in replay.received(challenger) if e.HasField("hand_revealed"))
    assert revealed.hand.cards and all(ref.HasField("card") and ref.salt for ref in revealed.hand.cards)


def test_the_open_view_shows_every_true_hand_at_every_step(house_game) -> None:
    _, replay = house_game
    assert replay.is_fair and replay.hidden_reason(OPEN) is None
    opened = replay.snapshots(OPEN)
    for seat in range(3):
        own = replay.snapshots(seat)
        for everyone, mine in zip(opened, own, strict=True):
            assert everyone.seats[seat].cards == mine.seats[seat].cards, f"step {everyone.step}, seat {seat}"
            assert None not in everyone.seats[seat].cards
            assert len(everyone.seats[seat].cards) == everyone.seats[seat].count
    public = replay.snapshots(None)
    assert any(None in snap.seats[0].cards for snap in public), "the public view hides hands"
    round_ends = [i for i, event in enumerate(replay.events) if event.HasField("round_ended")]
    for i in round_ends:  # the hands the host showed at each round's end are the ones the open view held
        before = opened[i - 1]
        for hand in replay.events[i].round_ended.hands:
            shown = [(ref.card.color, ref.card.rank) for ref in hand.cards]
            held = [(card.color, card.rank) for card in before.seats[hand.seat].cards]  # type: ignore[union-attr]
            assert sorted(shown) == sorted(held)


def test_a_cursor_steps_forwards_and_backwards_to_the_same_states(house_game) -> None:
    _, replay = house_game
    cursor = replay.cursor(1)
    assert cursor.step == 0 and len(cursor.events) == 1
    there = cursor.forward(40)
    assert cursor.step == 40 and len(cursor.events) == 41 and cursor.events[-1].number == there.event_number == 41
    assert cursor.back(25) == replay.snapshots(1)[15]
    assert cursor.forward(25) == there
    assert cursor.back(10_000).step == 0 and cursor.forward(10_000).step == len(replay) - 1
    assert replay.cursor(OPEN, 40).snapshot.seats[1].cards == there.seats[1].cards


def test_an_exported_log_replays_and_renders_a_step_as_text(tmp_path, capsys) -> None:
    _, log = exported(tmp_path, capsys)
    replay = Replay.from_log(io.BytesIO(log))
    step = next(i for i, snap in enumerate(replay.snapshots(2)) if snap.line.startswith(f"{replay.names[2]} plays"))
    text = render_text(replay, 2, replay.snapshots(2)[step])
    assert f"step {step + 1} of {len(replay)}" in text and "seat 2's view" in text
    hand_lines = [line for line in text.splitlines() if " card(s) [" in line]
    assert "hidden" not in hand_lines[2] and "hidden" in hand_lines[0]
    path = tmp_path / "game.jsonl"
    path.write_bytes(log)
    assert main(["replay", str(path), "--seat", "2", "--step", str(step + 1)]) == 0
    assert capsys.readouterr().out == text
    assert main(["replay", str(path), "--open", "--step", "1"]) == 0
    assert "every hand open" in capsys.readouterr().out


def tampered(log: bytes, edit) -> io.BytesIO:
    lines = log.decode().splitlines()
    for i, line in enumerate(lines[1:], start=1):
        event = json.loads(line)
        if edit(event):
            lines[i] = json.dumps(event)
            break
    return io.BytesIO(("\n".join(lines) + "\n").encode())


def test_a_tampered_log_is_refused_loudly(tmp_path, capsys) -> None:
    _, log = exported(tmp_path, capsys)

    def zero_seed(event: dict[str, Any]) -> bool:
        if "shuffleRevealed" not in event:
            return False
        event["shuffleRevealed"]["seed"] = base64.b64encode(bytes(32)).decode()
        return True

    def other_card(event: dict[str, Any]) -> bool:
        if "cardsPlayed" not in event or event["cardsPlayed"]["cards"][0]["card"]["color"] == "COLOR_BLACK":
            return False
        card = event["cardsPlayed"]["cards"][0]["card"]
        card["rank"] = "RANK_FIVE" if card.get("rank") != "RANK_FIVE" else "RANK_SIX"
        return True

    def no_such_card(event: dict[str, Any]) -> bool:
        if "cardsPlayed" not in event:
            return False
        event["cardsPlayed"]["cards"][0]["card"] = {"color": "COLOR_BLACK", "rank": "RANK_FIVE"}
        return True

    with pytest.raises(ReplayRefused, match="fails its fairness audit") as refused:
        Replay.from_log(tampered(log, zero_seed))
    assert refused.value.reason == "SEED_MISMATCH"
    with pytest.raises(ReplayRefused) as refused:
        Replay.from_log(tampered(log, other_card))
    assert refused.value.reason == "WRONG_CARD"
    with pytest.raises(ReplayRefused) as refused:
        Replay.from_log(tampered(log, no_such_card))
    assert refused.value.reason == "INVALID_INPUT"
    lines = log.decode().splitlines()
    with pytest.raises(ReplayRefused) as refused:
        Replay.from_log(io.BytesIO(("\n".join(lines[:5] + lines[6:]) + "\n").encode()))
    assert refused.value.reason == "EVENT_NUMBERS"
    with pytest.raises(ReplayRefused) as refused:
        Replay.from_log(io.BytesIO(b'{"format": "something else"}\n'))
    assert refused.value.reason == "MALFORMED_LOG"
    path = tmp_path / "bad.jsonl"
    path.write_bytes(tampered(log, zero_seed).getvalue())
    assert main(["replay", str(path)]) == 1
    assert "SEED_MISMATCH" in capsys.readouterr().err


def test_a_seat_the_table_does_not_have_is_refused(house_game) -> None:
    _, replay = house_game
    with pytest.raises(ReplayRefused) as refused:
        replay.received(3)
    assert refused.value.reason == "UNKNOWN_SEAT"


def test_a_table_without_fair_shuffles_shows_the_public_view_and_says_why() -> None:
    clock = [1_700_000_000_000_000_000]
    store = MemoryStore()
    settings = TableSettings(name="t", seat_count=3, preset="standard", overrides={"target_score": 150},
                             manual_start=True)
    store.create_table(TABLE_ID, {"settings": dataclasses.asdict(settings), "owner_token": "o", "seed": 3,
                                  "fair_shuffle": False}, 0)
    host = Host(store, clock_ns=lambda: clock[0], fair_shuffle=False)
    table = Table(TABLE_ID, settings, owner_token="o", seed=3, created_ns=0, store=store,
                  clock_ns=lambda: clock[0], fair_shuffle=False)
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    replay = Replay(TABLE_ID, stream(table, None))
    assert not replay.is_fair and replay.open_rounds == frozenset()
    assert replay.hidden_reason(None) is None
    assert "plain seeded shuffle" in (replay.hidden_reason(1) or "")
    assert replay.received(1) == replay.received(None) == replay.received(OPEN)
    last = replay.snapshots(OPEN)[-1]
    assert last.hidden_reason == replay.hidden_reason(OPEN)
    assert "note: this table dealt with a plain seeded shuffle" in render_text(replay, OPEN, last)


def test_a_round_whose_seed_never_came_stays_public(house_game) -> None:
    _, replay = house_game
    cut = next(i for i, event in enumerate(replay.events) if event.HasField("shuffle_revealed"))
    partial = Replay(TABLE_ID, replay.events[:cut])
    first_round = replay.events[cut].shuffle_revealed.round_number
    assert first_round not in partial.open_rounds
    assert "never revealed the shuffle seed of round" in (partial.hidden_reason(0) or "")
    assert partial.received(0) == partial.events  # nothing can be opened


def test_the_replay_model_and_discovery_load_without_the_host_or_the_engine() -> None:
    import subprocess
    import sys

    code = ("import sys, unonet.client.replay, unonet.client.discovery; "
            "print(' '.join(m for m in sys.modules if m.startswith(('unonet.host', 'unonet.engine'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == []


def test_unonet_replay_reads_a_hosts_database_too(tmp_path, capsys) -> None:
    exported(tmp_path, capsys)
    db = str(tmp_path / "host.db")
    assert main(["replay", "--db", db, "--table-id", TABLE_ID, "--seat", "0", "--step", "20"]) == 0
    assert "step 20 of" in capsys.readouterr().out
    assert main(["replay", "--db", db]) == 2, "--db needs --table-id"
    assert main(["replay", "--db", db, "--table-id", TABLE_ID, "--seat", "7"]) == 2
    assert "UNKNOWN_SEAT" in capsys.readouterr().err
    assert main(["replay", "--db", db, "--table-id", TABLE_ID, "--step", "0"]) == 2
    assert main(["replay", "--db", db, "--table-id", "no-such-table"]) == 2
    assert "EMPTY_LOG" in capsys.readouterr().err
    assert main(["replay", "--db", str(tmp_path / "missing.db"), "--table-id", TABLE_ID]) == 2
    assert not (tmp_path / "missing.db").exists()


def test_a_log_that_is_not_a_log_is_refused_without_a_traceback(tmp_path, capsys) -> None:
    header = b'{"format": "unonet-events", "version": 1, "table_id": "t"}\n'
    for body in (b'{"number": "one"}\n', b'{"cardsDrawn": {"seat": 99, "count": 1}, "number": 1}\n'):
        path = tmp_path / "odd.jsonl"
        path.write_bytes(header + body)
        code = main(["replay", str(path)])
        assert code in (1, 2) and "refused" in capsys.readouterr().err
    path.write_bytes(b"\x05\xff\xff\xff\xff\xff")
    assert main(["replay", str(path), "--table-id", "t"]) == 2
    assert "MALFORMED_LOG" in capsys.readouterr().err
    assert main(["verify", str(path), "--table-id", "t"]) == 2  # the audit reads logs the same way


@pytest.mark.parametrize("preset", ["standard", "house", "serbian", "french", "russian", "polish"])
@pytest.mark.parametrize("seats", [2, 4])
def test_every_preset_replays_each_seat_exactly_and_opens_every_hand(preset: str, seats: int) -> None:
    table = play_match(5, seats=seats, preset=preset, target_score=100)
    replay = Replay(TABLE_ID, stream(table, None))
    for seat in range(seats):
        assert [plain(e) for e in replay.received(seat)] == [plain(e) for e in stream(table, seat)]
    for snapshot in replay.snapshots(OPEN):
        for seat in snapshot.seats:
            assert None not in seat.cards and len(seat.cards) == seat.count, (snapshot.step, seat.seat)
