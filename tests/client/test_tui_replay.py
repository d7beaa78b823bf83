"""`unonet replay` on the game screen: the model at step k is the one fed the first k events of the
point of view, the replay's keys step it and V switches the point of view at the same step (the
game's own keys send nothing: the screen is read-only)."""

from __future__ import annotations

import dataclasses

import pytest
from fair_games import TABLE_ID, drive, play_match, stream
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from unonet.client.replay import OPEN, Replay
from unonet.client.tui.controller import help_lines
from unonet.client.tui.model import GameModel, face_of
from unonet.client.tui.render import render_card
from unonet.client.tui.replay_screen import ReplayScreen
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings


@pytest.fixture(scope="module")
def fair_replay() -> Replay:
    return Replay(TABLE_ID, stream(play_match(3, seats=3, preset="house", target_score=100), None))


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(piece for _, piece, *_ in fragments)


def test_stepping_a_replayed_seat_forwards_and_backwards(fair_replay: Replay) -> None:
    events = fair_replay.received(1)
    with create_pipe_input() as pipe:
        replay = ReplayScreen(fair_replay, 1, input=pipe, output=DummyOutput())
        # It opens at the first play, the set-up behind it: the deal is done, the first turn is someone's.
        first_turn = next(i for i, e in enumerate(events, start=1) if e.HasField("turn_started"))
        assert replay.step >= first_turn and replay.model.top_card is not None and len(replay.model.hand) == 7
        assert replay.model.seat_to_act is not None
        opened = replay.step
        replay.screen.press("end")
        final = GameModel(seat=1)
        for event in events:
            final.apply(event)
        assert replay.step == len(events) and replay.model.match_over
        assert [s.score for s in replay.model.seats] == [s.score for s in final.seats]
        replay.go(opened)
        replay.screen.press("right")  # one move on: exactly one more line in the log
        after = replay.step
        assert after > opened and len(replay.model.log) == len(GameModel_after(events, opened).log) + 1
        replay.screen.press("left")
        assert replay.step == opened
        replay.screen.press("enter")  # the game's keys send nothing here
        assert "move" in replay.screen.ui.status
        replay.screen.press("home")
        assert replay.step == 1 and replay.model.hand == []


def GameModel_after(events: list, step: int) -> GameModel:
    model = GameModel(seat=1)
    for event in events[:step]:
        model.apply(event)
    return model


def test_v_goes_through_every_point_of_view_at_the_same_step(fair_replay: Replay) -> None:
    dealt = next(i for i, e in enumerate(fair_replay.events, start=1) if e.HasField("first_card_turned"))
    with create_pipe_input() as pipe:
        replay = ReplayScreen(fair_replay, None, input=pipe, output=DummyOutput())
        replay.go(dealt)
        assert replay.model.is_spectator and replay.render_panel() == []
        seen = []
        for _ in range(fair_replay.seat_count + 1):
            replay.screen.press("v")
            assert replay.step == dealt
            seen.append(replay.pov)
            if isinstance(replay.pov, int):  # that seat's own hand, as the host dealt it
                assert replay.model.seat == replay.pov and len(replay.model.hand) == 7
                assert f"seat {replay.pov}" in replay.screen.ui.status and "move" in replay.screen.ui.status
        assert seen == [0, 1, 2, OPEN]
        assert "every hand open" in replay.screen.ui.status
        panel = text(replay.render_panel()).splitlines()
        assert len(panel) == fair_replay.seat_count
        truth = fair_replay.snapshots(OPEN)[dealt - 1].seats
        for line, seat in zip(panel, truth, strict=True):  # each true hand, card by card
            assert seat.count == 7 and None not in seat.cards and "hidden" not in line
            cards = sorted(face_of(card) for card in seat.cards)  # sorted, as the hand is
            assert line.rstrip().endswith("".join(text(render_card(face, replay.screen.ui)) for face in cards).rstrip())
            assert line.startswith(" ▶") == (seat.seat == replay.model.seat_to_act)  # the table's marker
        replay.screen.press("v")
        assert replay.pov is None and replay.step == dealt
        replay.screen.press("?")
        keys = help_lines(replay.model, replay.screen.ui)
        assert any(line.startswith("  V ") for line in keys)


def test_the_replays_help_names_only_keys_that_work_there(fair_replay: Replay) -> None:
    """Read-only: no chat, no leaving, no waiting for a turn, and PgUp/PgDn step (not scroll)."""
    with create_pipe_input() as pipe:
        replay = ReplayScreen(fair_replay, 0, input=pipe, output=DummyOutput())
        replay.go(len(fair_replay.received(0)) // 2)
        keys = [line.split()[0] for line in help_lines(replay.model, replay.screen.ui)[1:]]
        assert keys == ["Left/Right", "V", "I", "D", "H", "K", "?", "Q"]


def test_a_table_without_fair_shuffles_stays_public_and_says_why() -> None:
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
    plain = Replay(TABLE_ID, stream(table, None))
    with create_pipe_input() as pipe:
        replay = ReplayScreen(plain, OPEN, input=pipe, output=DummyOutput())
        assert replay.pov is None and replay.model.is_spectator
        assert "plain seeded shuffle" in text(replay.render_panel())
        replay.screen.press("v")
        assert replay.pov is None and "public view only" in replay.screen.ui.hint
        assert "plain seeded shuffle" in replay.screen.ui.hint
