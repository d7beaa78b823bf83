"""`unonet replay` on the game screen: the model at step k is the one fed the first k events, and the
replay's keys step it (the game's own keys send nothing: the screen is read-only)."""

from __future__ import annotations

from fair_games import TABLE_ID, play_match, stream
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from unonet.client.replay import Replay
from unonet.client.tui.model import GameModel
from unonet.client.tui.replay_screen import ReplayScreen


def test_stepping_a_replayed_seat_forwards_and_backwards() -> None:
    table = play_match(3, seats=3, preset="house", target_score=100)
    events = Replay(TABLE_ID, stream(table, None)).received(1)
    with create_pipe_input() as pipe:
        replay = ReplayScreen(events, 1, input=pipe, output=DummyOutput())
        assert replay.step == 1
        replay.screen.press("end")
        final = GameModel(seat=1)
        for event in events:
            final.apply(event)
        assert replay.step == len(events) and replay.model.match_over
        assert [s.score for s in replay.model.seats] == [s.score for s in final.seats]
        dealt = next(i for i, e in enumerate(events, start=1) if e.HasField("first_card_turned"))
        replay.go(dealt)
        assert len(replay.model.hand) == 7  # seat 1's own cards, rebuilt from the revealed seed
        replay.screen.press("right")
        replay.screen.press("left")
        replay.screen.press("left")
        assert replay.step == dealt - 1 and len(replay.model.hand) == 7
        replay.screen.press("enter")  # the game's keys send nothing here
        assert "step" in replay.model.notice and replay.step == dealt - 1
        replay.screen.press("home")
        assert replay.step == 1 and replay.model.hand == []
