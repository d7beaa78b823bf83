"""League games replayed with every hand: a league-seeded log and the seed its league recorded give
each seat's own log (`unonet.league.hands`), exactly what each seat was sent, and `unonet replay`
shows every seat's view and every hand open, for `--inprocess` and gRPC games alike."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from unonet.bots import RandomBot
from unonet.client.replay import OPEN, Replay, ReplayRefused
from unonet.league.hands import HandsUnavailable, league_replay, seat_logs
from unonet.league.inprocess import play_game
from unonet.league.network import NetworkedLeague, NetworkOptions
from unonet.league.results import Results, decode_log
from unonet.league.schedule import schedule
from unonet.v1 import events_pb2

GAME_TIMEOUT = 90.0


class Recording(RandomBot):
    """A random bot that keeps every event its seat was sent."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.received: list[events_pb2.Event] = []

    def on_event(self, event: events_pb2.Event) -> None:
        kept = events_pb2.Event()
        kept.CopyFrom(event)
        self.received.append(kept)


def events_of(result) -> list[events_pb2.Event]:
    return [events_pb2.Event.FromString(blob) for blob in decode_log(result.log)]


def without_legal_actions(events: list[events_pb2.Event]) -> list[bytes]:
    """The events as bytes, without what only the live seat got (its legal actions, never in a log)."""
    out = []
    for event in events:
        copy = events_pb2.Event()
        copy.CopyFrom(event)
        copy.ClearField("your_legal_actions")
        out.append(copy.SerializeToString(deterministic=True))
    return out


def assert_every_hand_open(replay: Replay, log: list[events_pb2.Event]) -> None:
    """At every step of the open view every card in every hand is known, and the hands the round ends
    with are the ones its RoundEnded shows."""
    snapshots = replay.snapshots(OPEN)
    for snapshot in snapshots:
        for seat in snapshot.seats:
            assert len(seat.cards) == seat.count and None not in seat.cards, (snapshot.step, seat)
    ended_at = next(i for i, e in enumerate(log) if e.HasField("round_ended"))
    before = snapshots[ended_at - 1]
    for hand in log[ended_at].round_ended.hands:
        shown = Counter((ref.card.color, ref.card.rank) for ref in hand.cards)
        held = Counter((card.color, card.rank) for card in before.seats[hand.seat].cards if card is not None)
        assert shown == held, hand.seat


@pytest.mark.parametrize("seat_draws", [False, True])
def test_a_league_games_seat_logs_are_what_each_seat_was_sent(make_league, seat_draws):
    config = make_league(games=3, size=3, bots=3, extra=f"seat_draws = {str(seat_draws).lower()}")
    for spec in schedule(config)[:3]:
        bots = [Recording(seed) for seed in range(len(spec.seats))]
        result = play_game(config, spec, [lambda _, bot=bot: bot for bot in bots])
        log = events_of(result)
        logs = seat_logs(spec.game_id, log, spec.seed)
        for seat, bot in enumerate(bots):
            # bit for bit what the seat was sent, its own cards included (and the public log's length)
            assert without_legal_actions(logs[seat]) == without_legal_actions(bot.received), (spec.game_id, seat)
            assert len(logs[seat]) == len(log)
        replay = Replay(spec.game_id, log, seat_logs=logs)
        assert replay.has_hands and replay.hidden_reason(OPEN) is None
        assert_every_hand_open(replay, log)
        ended_at = next(i for i, e in enumerate(log) if e.HasField("round_ended"))
        own = replay.snapshots(1)[ended_at - 1].seats  # before the round's end shows every hand
        assert all(card is not None for card in own[1].cards) and own[0].cards == ()  # its own cards only


def test_a_wrong_seed_or_a_public_log_shows_no_hands(make_league):
    config = make_league(games=3, size=3, bots=3)
    spec = schedule(config)[0]
    log = events_of(play_game(config, spec, [RandomBot] * 3))
    with pytest.raises(HandsUnavailable, match="SEED_MISMATCH"):
        seat_logs(spec.game_id, log, spec.seed + 1)
    logs = seat_logs(spec.game_id, log, spec.seed)
    with pytest.raises(ReplayRefused, match="SEAT_LOGS"):
        Replay(spec.game_id, log, seat_logs={0: logs[0], 1: logs[1]})
    with pytest.raises(ReplayRefused, match="SEAT_LOGS"):
        Replay(spec.game_id, log, seat_logs={**logs, 2: logs[2][:-1]})
    assert not Replay(spec.game_id, log).has_hands  # the public log alone: no hands


@pytest.mark.timeout(GAME_TIMEOUT + 30)
def test_unonet_replay_shows_every_hand_of_stored_grpc_and_inprocess_games(make_league, capsys):
    from unonet.cli import main

    config = make_league(games=3, size=3, bots=3)
    specs = schedule(config)[:2]
    inprocess = play_game(config, specs[0], [RandomBot] * 3)

    async def grpc_game():
        async with NetworkedLeague(config, NetworkOptions()) as league:
            return await asyncio.wait_for(league.play(specs[1]), GAME_TIMEOUT)

    networked = asyncio.run(grpc_game())
    with Results(config.db) as db:
        db.add_many([inprocess, networked])
    for result in (inprocess, networked):
        log = events_of(result)
        replay = league_replay(config.db, result.game_id)
        assert replay is not None and replay.has_hands
        assert_every_hand_open(replay, log)
        step = next(i for i, e in enumerate(log) if e.HasField("cards_drawn")) + 1
        assert main(["replay", "--db", str(config.db), "--table-id", result.game_id, "--step", str(step),
                     "--open"]) == 0
        shown = capsys.readouterr()
        assert "every hand open" in shown.out and "[hidden]" not in shown.out and "note:" not in shown.out
        assert main(["replay", "--db", str(config.db), "--table-id", result.game_id, "--seat", "0"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert "seat 0's view" in lines[0]
        assert league_replay(config.db, "g999999") is None


def test_the_replay_screen_goes_through_every_seat_of_a_league_game(make_league):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from unonet.client.tui.replay_screen import ReplayScreen

    config = make_league(games=3, size=3, bots=3)
    spec = schedule(config)[0]
    log = events_of(play_game(config, spec, [RandomBot] * 3))
    replay = Replay(spec.game_id, log, seat_logs=seat_logs(spec.game_id, log, spec.seed))
    dealt = next(i for i, e in enumerate(log, start=1) if e.HasField("first_card_turned"))
    with create_pipe_input() as pipe:
        screen = ReplayScreen(replay, None, input=pipe, output=DummyOutput())
        screen.go(dealt)
        seen = []
        for _ in range(replay.seat_count + 1):
            screen.screen.press("v")
            seen.append(screen.pov)
            if isinstance(screen.pov, int):  # that seat's own hand, as the engine dealt it
                assert len(screen.model.hand) == 7
        assert seen == [0, 1, 2, OPEN]
