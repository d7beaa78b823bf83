"""Forfeits at fair-shuffle tables, drawn at random: one seat, several, and the last but one.

A table with `TAKEOVER_POLICY_FORFEIT` and committed shuffles is played in-process by host bots (a
fake clock, seeded host secrets, so every example is the same on every run); the drawn seats leave
(LeaveTable) after a drawn number of driver steps, mid-round or between rounds. After the match:

- the log is numbered 1, 2, 3, ... with no gap, and the match ended;
- what the store holds for each event (the public rendering `unonet export` writes) is byte for byte
  what a spectator's stream was sent for it;
- every seat's stream and the spectator's verify (`Verifier`, every seed revealed), so no event a
  stream was sent lacks a commitment the record can place.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from fair_games import TABLE_ID, new_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unonet.client.verify import verify_events
from unonet.host import journal, shuffles
from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import Table

MAX_STEPS = 100_000


def _play_with_leavers(store: SqliteStore, seed: int, *, preset: str, seats: int,
                       leaves: dict[int, int]) -> tuple[Host, Table]:
    """Seats in `leaves` are players (played by the host's bots until they leave, as a player could
    play them); each leaves after its number of driver steps. The match is played to its end."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(seed).randbytes))
        return _play(store, seed, preset=preset, seats=seats, leaves=leaves)


def _play(store: SqliteStore, seed: int, *, preset: str, seats: int, leaves: dict[int, int]) -> tuple[Host, Table]:
    host, table, clock = new_table(seed, seats=seats, preset=preset, store=store, target_score=100)
    table.settings.takeover_policy = "forfeit"
    table.settings.strikes_before_takeover = 0
    for seat in leaves:
        table.record(journal.Join(seat, f"p{seat}", f"tok-{seat}"))
        table.seats[seat].is_bot, table.seats[seat].bot_kind = True, "random"
    table.record(journal.Start(fill=True))
    assert table.match is not None
    pending = dict(leaves)
    for step in range(MAX_STEPS):
        for seat, when in list(pending.items()):
            if step >= when and not table.match.is_over:
                table.record(journal.Leave(seat))
                del pending[seat]
        if table.match.is_over:
            return host, table
        wait = host._step(table)
        assert wait is not None, "the table waits for nothing but the match is not over"
        if wait > 0:
            clock[0] += int(wait * 1e9) + 1
    raise AssertionError("the match did not end")


def _check(store: SqliteStore, table: Table, seats: int) -> None:
    assert table.match is not None and table.match.is_over
    # The whole log as each receiver gets it: the events older than the window come from the store.
    spectator = list(table.events.rendered_since(0, None))
    numbers = [event.number for event in spectator]
    assert numbers == list(range(1, table.last_number + 1))
    stored = list(store.public_events(TABLE_ID))
    streamed = [(event.number, event.SerializeToString()) for event in spectator]
    assert stored == streamed, "the stored log is exactly what a spectator was streamed"
    for seat in (None, *range(seats)):
        verify_events(TABLE_ID, list(table.events.rendered_since(0, seat)), seat)


@st.composite
def _leavers(draw: st.DrawFn) -> tuple[int, dict[int, int]]:
    seats = draw(st.integers(3, 5))
    leaving = draw(st.lists(st.integers(0, seats - 1), min_size=1, max_size=seats - 1, unique=True))
    return seats, {seat: draw(st.integers(0, 600)) for seat in leaving}


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(preset=st.sampled_from(["standard", "house", "serbian", "french", "russian", "polish"]),
       table=_leavers(), seed=st.integers(0, 2**16))
def test_random_forfeits_keep_the_log_whole_and_verifiable(tmp_path_factory, preset: str,
                                                           table: tuple[int, dict[int, int]], seed: int) -> None:
    seats, leaves = table
    store = SqliteStore(tmp_path_factory.mktemp("forfeits") / "host.db", group_commit=False)
    try:
        _, played = _play_with_leavers(store, seed, preset=preset, seats=seats, leaves=leaves)
        _check(store, played, seats)
    finally:
        store.close()


@pytest.mark.parametrize(("preset", "seats", "leaves"), [
    ("standard", 4, {1: 40}),  # one seat, mid-round
    ("house", 5, {0: 30, 3: 31, 4: 200}),  # several, two in one round
    ("serbian", 3, {0: 20, 1: 60}),  # the last but one, mid-round: the match ends with no RoundEnded
    ("russian", 4, {0: 25, 2: 25}),  # two at once
])
def test_forfeits_keep_the_log_whole_and_verifiable(tmp_path, preset: str, seats: int, leaves: dict[int, int]) -> None:
    store = SqliteStore(tmp_path / "host.db", group_commit=False)
    try:
        _, table = _play_with_leavers(store, 2, preset=preset, seats=seats, leaves=leaves)
        _check(store, table, seats)
    finally:
        store.close()


def test_the_last_but_one_forfeit_mid_round_reveals_the_seed_after_the_match_ends(tmp_path) -> None:
    """Two of three seats leave mid-round: the engine ends the match (last seat standing) without
    scoring the round, so no RoundEnded comes; the host still reveals the round's seed."""
    store = SqliteStore(tmp_path / "host.db", group_commit=False)
    try:
        _, table = _play_with_leavers(store, 2, preset="serbian", seats=3, leaves={0: 20, 1: 60})
        kinds = [event.WhichOneof("payload") for event in table.events.rendered_since(0, None)]
        assert kinds[-2:] == ["match_ended", "shuffle_revealed"]
        assert kinds.count("shuffle_committed") == kinds.count("shuffle_revealed")
        _check(store, table, 3)
    finally:
        store.close()


def test_leaving_after_being_eliminated_by_score_forfeits_nothing(tmp_path) -> None:
    """Under elimination scoring (polish) a seat out of the match by its score may still leave: the
    host takes the seat over without forfeiting it a second time (which the engine refuses)."""
    store = SqliteStore(tmp_path / "host.db", group_commit=False)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(2).randbytes))
            host, table, clock = new_table(2, seats=4, preset="polish", store=store, target_score=100)
            table.settings.takeover_policy = "forfeit"
            for seat in range(4):
                table.record(journal.Join(seat, f"p{seat}", f"tok-{seat}"))
                table.seats[seat].is_bot, table.seats[seat].bot_kind = True, "random"
            table.record(journal.Start(fill=True))
            assert table.match is not None
            left: int | None = None
            for _ in range(MAX_STEPS):
                if left is None and table.match.eliminated and not table.match.is_over:
                    left = min(table.match.eliminated)
                    table.record(journal.Leave(left))  # the player of a seat already out leaves
                if table.match.is_over:
                    break
                wait = host._step(table)
                assert wait is not None
                if wait > 0:
                    clock[0] += int(wait * 1e9) + 1
        assert left is not None, "a seat was eliminated by its score while the match went on"
        events = list(table.events.rendered_since(0, None))
        assert [e.player_eliminated.seat for e in events if e.HasField("player_eliminated")].count(left) == 1
        assert any(e.HasField("player_left") and e.player_left.seat == left for e in events)
        _check(store, table, 4)
    finally:
        store.close()
