"""`unonet verify --replay` (docs/fairness.md 8.3): every honest log of every preset, timeouts and
forfeits included, replays through the engine to its very events; a changed score or a changed draw,
which every other check lets through, does not."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from fair_games import TABLE_ID, drive, new_table, play_match, stream

from unonet.cli import main
from unonet.client.audit import write_jsonl
from unonet.client.verify import verify_events
from unonet.engine import Challenge, legal_actions
from unonet.host import journal, shuffles
from unonet.host.bots import choose_action
from unonet.host.host import Host
from unonet.host.table import TableSettings
from unonet.v1 import events_pb2
from unonet.verify_replay import ReplayMismatch, replay_league_log, replay_log


@pytest.fixture(autouse=True)
def _seeded_host_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's seeds and bots' entropy from a seeded generator: every game here is the same on every
    run, so the events a test needs (a challenge, a rebuilt pile, a tied race) are always there."""
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(7).randbytes))


PRESETS = ["standard", "house", "serbian", "french", "russian", "polish"]


@pytest.mark.parametrize("preset", PRESETS)
def test_an_honest_log_of_every_preset_replays_through_the_engine(preset: str) -> None:
    public = stream(play_match(2, preset=preset, target_score=60), None)
    report = replay_log(TABLE_ID, public)
    assert report.rounds >= 1 and report.inputs > 0
    assert report.events == sum(1 for e in public if e.WhichOneof("payload") in (
        "round_started", "cards_played", "cards_drawn", "turn_started", "round_ended", "match_ended",
        "color_chosen", "cards_dealt", "first_card_turned", "draw_obligation_changed", "uno_called",
        "drawn_card_kept", "turn_skipped", "direction_reversed", "pile_reshuffled", "reaction_window_opened",
        "reaction_window_closed", "race_lost", "uno_caught", "false_catch", "challenge_resolved",
        "hand_revealed", "card_taken_back", "hands_rotated", "hands_swapped", "five_swap_offered",
        "cards_exchanged", "wrong_jump_in", "illegal_play", "penalty_points", "silence_started",
        "player_eliminated", "first_card_returned", "shuffle_revealed") or (
        e.HasField("deck_committed") and e.deck_committed.deck_number > 0))


def test_a_log_from_a_host_before_window_card_commitments_replays() -> None:
    """A table of event format 1 sent its windows' cards by face alone; its log still replays."""
    host, table, clock = new_table(4, seats=3, preset="house", target_score=60)
    table.event_format = 1
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    public = stream(table, None)
    windows = [e.reaction_window_opened.window for e in public if e.HasField("reaction_window_opened")]
    assert any(w.HasField("card") for w in windows) and not any(w.card.commitment for w in windows)
    replay_log(TABLE_ID, public)


async def test_a_league_log_with_revealed_hands_replays_from_its_seed() -> None:
    """A league-seeded table numbers each revealed hand's Wild Draw Four (played_event_number) as every
    table does; its log still replays from the league's seed."""
    seed = 4
    host = Host(clock_ns=lambda: 1_700_000_000_000_000_000)
    table = host.create_table(TableSettings(name="l", seat_count=3, preset="standard", league_seed=seed,
                                            overrides={"bluffing": True, "target_score": 300}))
    await host.stop()  # no driver: the test plays the table
    for seat in range(3):
        table.join(f"p{seat}", None, False)
    rng = random.Random(seed)
    for step in range(4000):
        assert table.match is not None
        game = table.match.game
        if table.match.is_over or game.to_act is None:
            break
        options = legal_actions(game, game.to_act)
        action = next((a for a in options if isinstance(a, Challenge)), None) or choose_action(
            game, game.to_act, options, rng)
        table.command(game.to_act, f"c{step}", (action,))
    public = stream(table, None)
    revealed = [e.hand_revealed for e in public if e.HasField("hand_revealed")]
    assert revealed and all(hand.played_event_number for hand in revealed)
    replay_league_log(table.table_id, public, seed)


def test_a_log_with_timeouts_and_a_takeover_replays() -> None:
    host, table, clock = new_table(3, seats=3, preset="russian", target_score=60)
    table.record(journal.Join(0, "ann", "tok-0"))
    table.record(journal.Connection(0, True))
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    public = stream(table, None)
    assert "turn_timed_out" in {e.WhichOneof("payload") for e in public}
    replay_log(TABLE_ID, public)


def _forged(public: list[events_pb2.Event], kind: str) -> list[events_pb2.Event]:
    forged = [events_pb2.Event.FromString(event.SerializeToString()) for event in public]
    if kind == "score":  # the winner's round points and total, one more: consistent with each other
        ended = next(e.round_ended for e in forged if e.HasField("round_ended"))
        winner = ended.winner_seat
        ended.scores[winner].round_points += 1
        for e in forged:
            if e.HasField("round_ended"):
                e.round_ended.scores[winner].total += 1
            if e.HasField("match_ended"):
                e.match_ended.scores[winner].total += 1
    elif kind == "draw":  # an obligation drawn, the drawer left holding one card fewer than it does
        drawn = next(e.cards_drawn for e in forged if e.HasField("cards_drawn") and e.cards_drawn.count >= 2
                     and e.cards_drawn.reason == events_pb2.DRAW_REASON_OBLIGATION)
        drawn.hand_size -= 1
    return forged


@pytest.mark.parametrize("kind", ["score", "draw"])
def test_a_changed_score_or_draw_passes_every_other_check_but_not_the_replay(tmp_path, capsys, kind: str) -> None:
    public = stream(play_match(0, target_score=100), None)
    forged = _forged(public, kind)
    verify_events(TABLE_ID, forged)  # the cards, seeds, verdicts and rulings all still check out
    with pytest.raises(ReplayMismatch):
        replay_log(TABLE_ID, forged)
    log = tmp_path / "game.jsonl"
    with log.open("w") as out:
        write_jsonl(out, TABLE_ID, forged)
    assert main(["verify", str(log)]) == 0
    capsys.readouterr()
    assert main(["verify", str(log), "--replay"]) == 1
    assert "FAILED  REPLAY_MISMATCH" in capsys.readouterr().out
    with log.open("w") as out:
        write_jsonl(out, TABLE_ID, public)
    assert main(["verify", str(log), "--replay"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("replayed through the engine" in line for line in lines) and lines[-1].startswith("PASSED")
