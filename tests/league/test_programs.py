"""League entrants that are programs of their own, over real gRPC: the POSIX sh example bot as an
`exec` entrant, the Node bot as a `launch` entrant, and programs that crash or hang recorded as the
host judged them (forfeits, time losses); `--inprocess` refuses them before playing anything."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from league_files import league_file

from unonet.league import config as league_config
from unonet.league.entrants import EntrantError, Program, bot_seed, entrant
from unonet.league.network import NetworkedLeague, NetworkOptions
from unonet.league.results import decode_log
from unonet.league.runner import check_entrants, check_league
from unonet.league.schedule import schedule
from unonet.v1 import events_pb2

ROOT = Path(__file__).resolve().parents[2]
SH_BOT = ROOT / "bots" / "examples" / "first_action.sh"
SEEDED_BOT = Path(__file__).with_name("seeded_exec_bot.py")
NODE_BOT = ROOT / "bots" / "node" / "play_bot.js"
NODE = shutil.which("node")
GAME_TIMEOUT = 90.0


def with_program(tmp_path: Path, source: str, command: str, **kwargs: object) -> league_config.LeagueConfig:
    """Three seeded random bots and one program, `prog`, at 3-seat tables."""
    lines = f'[[bot]]\nname = "prog"\n{source} = {command!r}\n'
    return league_config.load(league_file(tmp_path, size=3, bots=3, bot_lines=lines, **kwargs))  # type: ignore[arg-type]


def program_games(config: league_config.LeagueConfig, count: int) -> list:
    return [spec for spec in schedule(config) if "prog" in spec.seats][:count]


async def play(config, specs, options):
    async with NetworkedLeague(config, options) as league:
        return await asyncio.wait_for(asyncio.gather(*(league.play(spec) for spec in specs)), GAME_TIMEOUT)


def events_of(result) -> list[events_pb2.Event]:
    return [events_pb2.Event.FromString(blob) for blob in decode_log(result.log)]


def played_cards(result, seat: int) -> int:
    return sum(1 for e in events_of(result) if e.HasField("cards_played") and e.cards_played.seat == seat)


def assert_played_through(results) -> None:
    """Every game ended with its RoundEnded, every seat played, and the program's seat played cards."""
    for result in results:
        seat = result.seats.index("prog")
        assert result.outcomes == ("played",) * 3, (result.game_id, result.outcomes)
        assert sorted(result.ranks)[0] == 1
        assert any(e.HasField("round_ended") for e in events_of(result)), result.game_id
        assert not any(e.HasField("turn_timed_out") and e.turn_timed_out.seat == seat for e in events_of(result))
        assert played_cards(result, seat) > 0, result.game_id


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_the_sh_example_bot_plays_league_games_as_an_exec_entrant(tmp_path):
    config = with_program(tmp_path, "exec", str(SH_BOT))
    assert check_league(config)["prog"] == Program("exec", (str(SH_BOT),))
    specs = program_games(config, 3)
    # the default: the bots (and the program, their child) in the seats' own process
    results = await play(config, specs, NetworkOptions(turn_time_s=5.0))
    assert_played_through(results)
    assert {result.seats.index("prog") for result in results} == {0, 1, 2}  # from every seat


@pytest.mark.skipif(NODE is None or not (ROOT / "node_modules" / "@grpc" / "grpc-js").is_dir(),
                    reason="needs node and node_modules (make pytest installs them)")
@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_the_node_bot_plays_league_games_as_a_launch_entrant(tmp_path):
    config = with_program(tmp_path, "launch", f"{NODE} {NODE_BOT}")
    specs = program_games(config, 2)
    results = await play(config, specs, NetworkOptions(turn_time_s=5.0))
    assert_played_through(results)


def engine_moves(result) -> list[bytes]:
    """What the players did and were dealt, in order: the part of the log the bots' choices decide."""
    kinds = {"cards_dealt", "cards_played", "color_chosen", "cards_drawn", "drawn_card_kept", "round_ended"}
    return [getattr(e, str(e.WhichOneof("payload"))).SerializeToString()
            for e in events_of(result) if e.WhichOneof("payload") in kinds]


@pytest.mark.timeout(2 * GAME_TIMEOUT + 30)
async def test_an_exec_entrant_gets_its_seed_and_plays_the_same_games_again(tmp_path):
    # With fixed seeds and bots whose choices come from them, a rerun is game for game the same, an
    # exec program included: it chooses at random from UNONET_SEED (and exits at once without it).
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(SEEDED_BOT))}"
    config = with_program(tmp_path, "exec", command)
    specs = program_games(config, 2)
    options = NetworkOptions(turn_time_s=5.0)
    first = await play(config, specs, options)
    again = await play(config, specs, options)
    assert_played_through(first)
    for one, other in zip(first, again, strict=True):
        assert (one.ranks, one.points) == (other.ranks, other.points), one.game_id
        assert engine_moves(one) == engine_moves(other), one.game_id
    # Another seed for the program (its entry's seed offset) changes its games: the seed is what it plays by.
    reseeded = league_config.load(league_file(
        tmp_path, size=3, bots=3, bot_lines=f'[[bot]]\nname = "prog"\nexec = {command!r}\nseed = 5\n'))
    assert bot_seed(reseeded.bot("prog"), specs[0].seed) != bot_seed(config.bot("prog"), specs[0].seed)
    other_seed = await play(reseeded, specs, options)
    assert_played_through(other_seed)
    assert any(engine_moves(one) != engine_moves(other) for one, other in zip(first, other_seed, strict=True))


def counting_script(tmp_path: Path, body: str) -> tuple[str, Path]:
    """A sh program that appends a line to a file each time it starts, then runs `body`."""
    starts = tmp_path / "starts"
    script = tmp_path / "bot.sh"
    script.write_text(f"#!/bin/sh\necho start >> {shlex.quote(str(starts))}\n{body}\n")
    script.chmod(0o755)
    return str(script), starts


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_an_exec_entrant_that_keeps_crashing_is_restarted_then_forfeits(tmp_path):
    # It answers its first decision, then dies: every start costs it the game's next decision.
    command, starts = counting_script(tmp_path, 'read -r line\necho 0\nread -r line\nexit 3')
    config = with_program(tmp_path, "exec", command)
    [spec] = program_games(config, 1)
    [result] = await play(config, [spec], NetworkOptions(max_restarts=2, turn_time_s=5.0, bot_processes=0))
    seat = spec.seats.index("prog")
    assert result.outcomes[seat] == "forfeit"
    assert result.outcomes.count("played") == 2
    assert result.ranks[seat] == 3  # a forfeit finishes behind everyone
    assert starts.read_text().count("start") == 3  # the first start and two restarts
    assert (result.stats[seat].crashes, result.stats[seat].restarts) == (3, 2)  # the board's columns
    taken = [e.seat_taken_over for e in events_of(result) if e.HasField("seat_taken_over")]
    assert [(t.seat, t.reason) for t in taken] == [(seat, events_pb2.TAKEOVER_REASON_LEFT)]


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_an_exec_entrant_that_hangs_loses_on_time_and_the_game_goes_on(tmp_path):
    command, _ = counting_script(tmp_path, "while read -r line; do :; done")  # reads, never answers
    config = with_program(tmp_path, "exec", command)
    [spec] = program_games(config, 1)
    options = NetworkOptions(turn_time_s=0.3, strikes_before_takeover=1, bot_processes=0)
    [result] = await play(config, [spec], options)
    seat = spec.seats.index("prog")
    assert result.outcomes[seat] == "time_loss"
    assert result.ranks[seat] == 3
    assert any(e.HasField("round_ended") for e in events_of(result))  # the others played it out
    assert result.stats[seat].timeouts == 1 and result.stats[seat].crashes == 0


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_an_exec_entrant_that_hung_is_restarted_and_plays_on(tmp_path):
    # Its first start hangs (reads, never answers); every later one plays as the sh example bot does.
    body = f"""if [ "$(wc -l < {shlex.quote(str(tmp_path / 'starts'))})" -eq 1 ]; then
  while read -r line; do :; done
fi
exec {shlex.quote(str(SH_BOT))}"""
    command, starts = counting_script(tmp_path, body)
    config = with_program(tmp_path, "exec", command)
    [spec] = program_games(config, 1)
    # Generous turns, so the restarted program is up before its next turn on a loaded machine (at a load
    # average of 20 on 2 cores, 2 s turns saw the sh bot, which reads its questions a byte at a time,
    # answer two turns late after its restart: a third strike, a time loss).
    options = NetworkOptions(turn_time_s=4.0, strikes_before_takeover=3, bot_processes=0)
    [result] = await play(config, [spec], options)
    seat = spec.seats.index("prog")
    assert result.outcomes == ("played",) * 3  # struck once, then played the game out
    assert starts.read_text().count("start") >= 2
    timed_out = [e for e in events_of(result) if e.HasField("turn_timed_out") and e.turn_timed_out.seat == seat]
    assert len(timed_out) >= 1
    first_timeout = timed_out[0].number
    assert result.stats[seat].restarts >= 1 and result.stats[seat].timeouts == len(timed_out)
    assert any(e.HasField("cards_played") and e.cards_played.seat == seat and e.number > first_timeout
               for e in events_of(result))  # the restarted program played


def test_programs_are_checked_and_refused_in_process(tmp_path):
    config = with_program(tmp_path, "exec", f"{sys.executable} -c pass")
    assert isinstance(check_league(config)["prog"], Program)
    with pytest.raises(EntrantError, match="plays only over gRPC"):
        check_entrants(config)
    for command, why in (("./no-such-bot --fast", "not an executable program"), ("'unclosed", "does not split")):
        with pytest.raises(EntrantError, match=why):
            entrant(league_config.BotSpec("x", "launch", command))


def test_cli_inprocess_refuses_a_program_before_opening_anything(tmp_path, capsys):
    from unonet.cli import main

    path = league_file(tmp_path, size=3, bots=3, bot_lines=f'[[bot]]\nname = "prog"\nexec = "{SH_BOT}"\n')
    assert main(["league", "run", str(path), "--inprocess"]) == 2
    assert "plays only over gRPC" in capsys.readouterr().err
    assert not (tmp_path / "league.sqlite").exists()


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_launch_entrant_that_keeps_crashing_is_restarted_then_forfeits(tmp_path):
    # It is told its seat and its token the launch convention's way, and dies at once.
    told = tmp_path / "told"
    config = with_program(tmp_path, "launch", str(tmp_path / "bot.sh"))
    [spec] = program_games(config, 1)
    seed = bot_seed(config.bot("prog"), spec.seed)  # its seed for the game, as a policy would get it
    check = ('[ -n "$UNONET_TOKEN" ] && [ "$2" = "$UNONET_ADDRESS" ] && [ "$4" = "$UNONET_TABLE" ] '
             f'&& [ "$UNONET_SEED" = "{seed}" ]')
    _, starts = counting_script(tmp_path, f"{check} && echo told >> {shlex.quote(str(told))}\nexit 4")
    options = NetworkOptions(max_restarts=1, turn_time_s=5.0, launch_wait_s=0.5, bot_processes=0)
    [result] = await play(config, [spec], options)
    seat = spec.seats.index("prog")
    assert result.outcomes[seat] == "forfeit" and result.ranks[seat] == 3
    assert starts.read_text().count("start") == 2
    assert told.read_text().count("told") == 2
    assert (result.stats[seat].crashes, result.stats[seat].restarts) == (2, 1)
