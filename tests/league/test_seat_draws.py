"""A league's per-seat draw streams (`seat_draws`): on by default for heads-up duplicate leagues, the
same games in-process and at league-seeded host tables (CreateTableRequest.league_seat_draws), said
in the log, refused where no league seed decides the draws, and replayed bit for bit from the seed."""

from __future__ import annotations

import asyncio
import io
import random

import pytest
from league_files import league_file

from unonet.client.audit import audit
from unonet.client.errors import InvalidArgument
from unonet.client.replay import Replay
from unonet.client.table_client import TableClient
from unonet.engine import Match
from unonet.engine.draws import SeatDraws
from unonet.league import config as league_config
from unonet.league.network import NetworkedLeague, NetworkOptions
from unonet.league.results import Results, decode_log, stored_events
from unonet.league.runner import play_inprocess, run_league
from unonet.league.schedule import schedule
from unonet.league.sprt_run import sprt_config
from unonet.v1 import events_pb2
from unonet.wire import convert

TIMEOUT = 60.0


def events_of(log: bytes) -> list[events_pb2.Event]:
    return [events_pb2.Event.FromString(blob) for blob in decode_log(log)]


def test_heads_up_duplicate_leagues_draw_per_seat_by_default(tmp_path):
    heads_up = league_config.load(league_file(tmp_path, size=2, bots=2))
    assert heads_up.seat_draws
    assert not league_config.load(league_file(tmp_path, size=3, bots=3)).seat_draws
    assert not league_config.load(league_file(tmp_path, size=2, bots=2, extra="duplicate = false")).seat_draws
    pile = league_config.load(league_file(tmp_path, size=2, bots=2, extra="seat_draws = false"))
    assert not pile.seat_draws and pile.fingerprint() != heads_up.fingerprint()
    # `unonet league sprt`'s league: pairs drawing per seat, independent games from the pile's top.
    assert sprt_config("greedy", "basic", db=tmp_path / "sprt.sqlite").seat_draws
    assert not sprt_config("greedy", "basic", db=tmp_path / "sprt.sqlite", duplicate=False).seat_draws
    with pytest.raises(league_config.LeagueFileError, match="seat_draws"):
        league_config.load(league_file(tmp_path, size=2, bots=2, extra="duplicate = false\nseat_draws = true"))


def test_an_inprocess_game_draws_what_the_engines_seat_draws_give(tmp_path):
    config = league_config.load(league_file(tmp_path, size=2, bots=2, games=2))
    spec = schedule(config)[0]
    [result] = play_inprocess(config, [spec])
    log = events_of(result.log)
    settings = next(e.match_started.settings for e in log if e.HasField("match_started"))
    assert settings.league_seeded and settings.league_seat_draws
    # The engine's own match from the deal's seed with the same streams deals and draws alike.
    match = Match(config.game_ruleset(), 2, random.Random(spec.seed), draws=SeatDraws(spec.seed))
    started = [convert.event_to_pb(e, None) for e in match.start()]
    dealt = next(e for e in started if e.HasField("cards_dealt"))
    assert next(e for e in log if e.HasField("cards_dealt")).cards_dealt == dealt.cards_dealt


@pytest.mark.timeout(TIMEOUT + 30)
async def test_league_seeded_host_tables_draw_per_seat_like_the_inprocess_path(tmp_path):
    config = league_config.load(league_file(tmp_path, size=2, bots=2, games=4))
    specs = schedule(config)[:4]
    async with NetworkedLeague(config, NetworkOptions(bot_processes=0)) as league:
        networked = await asyncio.wait_for(asyncio.gather(*(league.play(spec) for spec in specs)), TIMEOUT)
    inprocess = list(play_inprocess(config, specs))
    draws = 0
    for net, local in zip(networked, inprocess, strict=True):
        assert (net.ranks, net.points) == (local.ranks, local.points), net.game_id
        drawn = [e.cards_drawn.SerializeToString() for e in events_of(net.log) if e.HasField("cards_drawn")]
        assert drawn == [e.cards_drawn.SerializeToString() for e in events_of(local.log) if e.HasField("cards_drawn")]
        draws += len(drawn)
        events = events_of(net.log)
        settings = next(e.match_started.settings for e in events if e.HasField("match_started"))
        assert settings.league_seeded and settings.league_seat_draws
        out = io.StringIO()
        assert audit(net.game_id, events, out) and "LEAGUE-SEEDED" in out.getvalue()
    assert draws > 0


@pytest.mark.timeout(TIMEOUT + 30)
async def test_seat_draws_without_a_league_seed_are_refused(tmp_path):
    config = league_config.load(league_file(tmp_path, size=2, bots=2, games=2))
    async with NetworkedLeague(config, NetworkOptions(bot_processes=0)) as league:
        assert league.channel is not None
        client = TableClient(league.channel, timeout=10)
        with pytest.raises(InvalidArgument) as refused:
            await client.create_table("standard", seat_count=2, league_seat_draws=True)
        assert refused.value.reason == "INVALID_FIELD"
        created = await client.create_table("standard", seat_count=2, league_seed=5, league_seat_draws=True)
        assert created.table.settings.league_seat_draws and created.table.settings.league_seeded


def test_stored_seat_draw_games_replay_from_their_seeds(tmp_path):
    config = league_config.load(league_file(tmp_path, size=2, bots=2, games=6))
    run_league(config)
    specs = {spec.game_id: spec for spec in schedule(config)}
    with Results(config.db) as db:
        stored = db.games(with_logs=True)
    assert len(stored) == 6
    for result in stored:
        again = next(iter(play_inprocess(config, [specs[result.game_id]])))
        assert again.log == result.log, result.game_id  # bit for bit from the seed and the bots
        events = stored_events(config.db, result.game_id)
        assert len(Replay(result.game_id, events).snapshots(None)) == len(events)


GAME_KINDS = ("dealer_chosen", "cards_dealt", "first_card_turned", "first_card_returned", "cards_played",
              "color_chosen", "cards_drawn", "drawn_card_kept", "pile_reshuffled", "uno_called", "uno_caught",
              "round_ended")


def game_events(log: bytes) -> list[bytes]:
    """The log's game events, payload by payload (the seats' names aside)."""
    return [getattr(e, str(e.WhichOneof("payload"))).SerializeToString(deterministic=True)
            for e in events_of(log) if e.WhichOneof("payload") in GAME_KINDS]


@pytest.mark.parametrize("seat_draws", [True, False])
def test_a_deal_played_by_two_copies_of_one_bot_is_one_game_twice(tmp_path, seat_draws):
    # Everything of a duplicate deal follows the seats, not the bots: the dealer, the deal, the first
    # card (and a returned one), every draw and every rebuilt pile. Two copies of a bot that plays by
    # what it is shown alone (greedy) then play the deal's two games move for move alike, seats swapped
    # or not, so a pair's scores are one win each: the deal's luck cancels in full, whatever the draws.
    # draw_to_match: long games, so that piles are rebuilt
    bots = ('[league.rules]\ndraw_to_match = true\n\n'
            '[[bot]]\nname = "a"\nkind = "greedy"\n\n[[bot]]\nname = "b"\nkind = "greedy"\n')
    path = league_file(tmp_path, size=2, bots=0, games=40, bot_lines=bots,
                       extra=f"seat_draws = {str(seat_draws).lower()}")
    config = league_config.load(path)
    results = list(play_inprocess(config, schedule(config)))
    by_deal: dict[int, list] = {}
    for result in results:
        by_deal.setdefault(result.deal, []).append(result)
    assert len(by_deal) == 20 and all(len(pair) == 2 for pair in by_deal.values())
    reshuffled = 0
    for first, second in by_deal.values():
        assert first.seats == tuple(reversed(second.seats))
        assert game_events(first.log) == game_events(second.log), first.deal
        assert first.ranks == second.ranks  # the same seat wins: one win each
        reshuffled += any(e.HasField("pile_reshuffled") for e in events_of(first.log))
    assert reshuffled  # some of these games rebuilt the pile, and did it alike
