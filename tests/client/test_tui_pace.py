"""The screen's pace, the banners it shows, the settings file and the rematch's plan: pure functions, no host.

The pacer is fed events with the times they arrived and asked what is due at a given time: other
seats' moves land `pace` apart, this seat's own and everything a race needs at once, nothing is held
past the lag, and a key shows everything held.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from unonet.client.tui.banners import PILE, banners_for
from unonet.client.tui.config import Config, load, player_settings, save
from unonet.client.tui.model import GameModel
from unonet.client.tui.pace import Pacer
from unonet.client.tui.rematch import invitation, parse_invitation, plan
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, rules_pb2, table_pb2

R5 = cards_pb2.CardRef(card=cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_FIVE))


def played(number: int, seat: int) -> events_pb2.Event:
    return events_pb2.Event(number=number, cards_played=events_pb2.CardsPlayed(seat=seat, cards=[R5]))


def turn(number: int, seat: int, legal: actions_pb2.LegalActions | None = None) -> events_pb2.Event:
    event = events_pb2.Event(number=number, turn_started=events_pb2.TurnStarted(seat=seat))
    if legal is not None:
        event.your_legal_actions.CopyFrom(legal)
    return event


def numbers(events: list[events_pb2.Event]) -> list[int]:
    return [event.number for event in events]


def test_other_seats_moves_land_a_pace_apart_and_what_is_no_move_rides_along() -> None:
    pacer = Pacer(seat=0, pace=0.5)
    for event in (played(1, 1), turn(2, 2), played(3, 2), turn(4, 3), played(5, 3), turn(6, 0)):
        pacer.push(event, 10.0)
    assert numbers(pacer.due(10.0)) == [1, 2]  # the first move at once, the turn start with it
    assert pacer.next_time() == 10.5 and pacer.due(10.4) == []
    assert numbers(pacer.due(10.5)) == [3, 4]
    assert numbers(pacer.due(11.0)) == [5, 6]  # our turn comes after the moves before it, at their pace
    assert pacer.next_time() is None and len(pacer) == 0


def test_a_race_this_seat_is_in_is_shown_at_once_with_everything_before_it() -> None:
    pacer = Pacer(seat=0, pace=1.0)
    pacer.push(played(1, 1), 10.0)
    pacer.due(10.0)
    pacer.push(played(2, 2), 10.1)
    pacer.push(turn(3, 3, actions_pb2.LegalActions(catch_uno_targets=[2])), 10.1)
    assert numbers(pacer.due(10.1)) == [2, 3]  # a catch waits for nobody
    pacer.push(played(4, 3), 10.2)
    pacer.push(turn(5, 1, actions_pb2.LegalActions(commit_entropy=True)), 10.2)
    assert numbers(pacer.due(10.2)) == [4, 5]  # nor does the shuffle's share


def test_this_seats_own_moves_are_never_held_and_nothing_is_held_past_the_lag() -> None:
    pacer = Pacer(seat=0, pace=2.0, max_lag=3.0)
    pacer.push(played(1, 1), 10.0)
    pacer.push(played(2, 1), 10.0)
    pacer.push(played(3, 0), 10.0)
    assert numbers(pacer.due(10.0)) == [1]
    assert numbers(pacer.due(12.0)) == [2, 3]  # ours as soon as the one before it is shown
    for number in range(4, 9):
        pacer.push(played(number, 1), 12.0)
    assert pacer.due(12.0) == [] and numbers(pacer.due(14.0)) == [4]  # a pace after our own
    assert numbers(pacer.due(15.0)) == [5, 6, 7, 8]  # three seconds behind at most
    spectator = Pacer(seat=None, pace=0.0)  # no pace: everything as it comes
    spectator.push(played(1, 1), 1.0)
    spectator.push(played(2, 2), 1.0)
    assert numbers(spectator.due(1.0)) == [1, 2]


def test_a_key_shows_everything_held() -> None:
    pacer = Pacer(seat=0, pace=1.0)
    for number in range(1, 5):
        pacer.push(played(number, 1), 10.0)
    pacer.due(10.0)
    assert numbers(pacer.flush()) == [2, 3, 4] and pacer.due(99.0) == []


def test_banners_say_what_happened_on_the_seat_it_happened_to() -> None:
    def name(seat: int) -> str:
        return f"p{seat}"

    skipped = banners_for(events_pb2.Event(turn_skipped=events_pb2.TurnSkipped(seat=2)), name)
    assert [(b.place, b.text) for b in skipped] == [(2, "⊘ skipped")]
    caught = banners_for(events_pb2.Event(uno_caught=events_pb2.UnoCaught(catcher_seat=1, target_seat=3,
                                                                          penalty_cards=2)), name)
    assert [(b.place, b.text) for b in caught] == [(3, "caught! +2"), (1, "catches p3")]
    challenge = banners_for(events_pb2.Event(challenge_resolved=events_pb2.ChallengeResolved(
        challenger_seat=1, accused_seat=0, guilty=True, penalized_seat=0, penalty_cards=4)), name)
    assert (0, "bluff caught! +4") in [(b.place, b.text) for b in challenge]
    assert (PILE, "p1 challenged: guilty") in [(b.place, b.text) for b in challenge]
    ended = banners_for(events_pb2.Event(round_ended=events_pb2.RoundEnded(round_number=2, winner_seat=1)), name)
    assert ended[0].place == PILE and ended[0].text == "p1 won round 2!" and ended[0].life > 3
    assert banners_for(events_pb2.Event(cards_drawn=events_pb2.CardsDrawn(
        seat=1, count=2, reason=events_pb2.DRAW_REASON_UNO_PENALTY)), name) == []  # the catch said it


def test_the_model_stamps_banners_with_when_they_were_shown_and_the_challenger_sees_the_hand() -> None:
    model = GameModel(seat=1)
    model.apply(events_pb2.Event(number=1, turn_skipped=events_pb2.TurnSkipped(seat=2)), at=50.0)
    assert model.banner_at(2, 52.9) is not None and model.banner_at(2, 53.0) is None
    hand = cards_pb2.SeatHand(seat=0, count=1, cards=[R5])
    model.apply(events_pb2.Event(number=2, hand_revealed=events_pb2.HandRevealed(challenger_seat=1, hand=hand)),
                at=51.0)
    assert model.revealed is not None and model.revealed[0] == 0 and len(model.revealed[1]) == 1


def test_the_invite_goes_with_the_start_and_a_rematch_invitation_is_recognised() -> None:
    model = GameModel(seat=1, table_id="old")
    model.invite = "friends join with: unonet play 10.0.0.2:50051"
    model.apply(events_pb2.Event(number=1, match_started=events_pb2.MatchStarted()))
    assert model.invite == ""
    assert parse_invitation(invitation("T-9_x")) == "T-9_x" and parse_invitation("rematch? anyone") is None
    said = events_pb2.ChatMessage(seat=0, name="ann", text=invitation("new-table"))
    model.apply(events_pb2.Event(number=2, chat_message=said))
    assert model.rematch == (0, "new-table")


def test_a_rematch_keeps_the_settings_and_the_seats() -> None:
    settings = table_pb2.TableSettings(name="ann's table", seat_count=4, manual_start=False,
                                       ruleset=rules_pb2.Ruleset(preset="house", target_score=200, stacking=True))
    settings.clock.turn_time.FromSeconds(30)
    seats = [(0, False, ""), (1, True, "greedy:3"), (2, False, ""), (3, True, "greedy:3")]
    rematch = plan(settings, seats, 0)
    assert rematch.preset == "house" and rematch.overrides.target_score == 200 and rematch.overrides.stacking
    assert not rematch.overrides.HasField("preset") and rematch.seat_count == 4
    assert rematch.clock is not None and rematch.clock.turn_time.seconds == 30
    assert rematch.bots == {1: "greedy:3", 3: "greedy:3"} and rematch.people == (2,)
    assert rematch.name == "ann's table (rematch)" and rematch.bot_kind == "greedy:3"
    again = plan(table_pb2.TableSettings(name=rematch.name, seat_count=4), seats, 2)
    assert again.name == "ann's table (rematch)" and again.people == (0,)


def test_the_settings_file_keeps_what_changed_and_flags_override_it(tmp_path: Path) -> None:
    path = tmp_path / "unonet" / "config.toml"
    assert load(path) == Config()  # no file: the defaults
    save(Config(name="ann", colour_blind=True, bell=False, pace=1.2, new_table={"preset": "house", "seats": 5}), path)
    assert load(path) == Config(name="ann", colour_blind=True, bell=False, pace=1.2,
                                new_table={"preset": "house", "seats": 5})
    settings = player_settings(name=None, colour_blind=None, bell=None, pace=None, default_name="x", path=path)
    assert settings.name == "ann" and settings.screen.colour_blind and not settings.screen.bell
    flagged = player_settings(name="bo", colour_blind=False, bell=True, pace=9.0, default_name="x", path=path)
    assert flagged.name == "bo" and not flagged.screen.colour_blind and flagged.screen.bell
    assert flagged.screen.pace == 3.0  # clamped
    flagged.screen.title = False
    flagged.keep(flagged.screen)  # a change on the screen is written; the flags' values with it
    kept = load(path)
    assert kept.title is False and kept.name == "ann" and kept.new_table == {"preset": "house", "seats": 5}


@pytest.mark.parametrize("text", ["not toml [", "bell = 'yes'\npace = true\nname = 7", "\xff\xfe"])
def test_a_damaged_settings_file_gives_the_defaults_for_what_it_cannot_say(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text else b"\xff\xfe")
    assert load(path) == Config()


async def test_a_key_on_the_live_screen_shows_what_the_pace_still_holds_before_it_acts() -> None:
    """The session's side: other seats' moves wait their turn on screen, and any key catches up first."""
    from types import SimpleNamespace

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from unonet.client.tui.session import Session

    client = SimpleNamespace(table_id="t", seat=0, owner_token="", clock_offset=0.0)
    with create_pipe_input() as keys:
        session = Session(client, input=keys, output=DummyOutput())  # type: ignore[arg-type]
        session.pacer.pace = 30.0  # nothing would land on its own within the test
        for number, seat in ((1, 1), (2, 2), (3, 3)):
            session._on_event(played(number, seat))
        assert session.model.event_number == 1 and len(session.pacer) == 2  # one move shown, two held
        session.screen.press("left")
        assert session.model.event_number == 3 and len(session.pacer) == 0  # the key saw the table as it is
        assert session.model.last_play is not None and session.model.last_play.seat == 3
        if session._release_at is not None:
            session._release_at.cancel()
