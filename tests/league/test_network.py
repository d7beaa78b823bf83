"""The gRPC league path: real bot connections to an embedded host on 127.0.0.1, league-seeded tables,
the same results as --inprocess, and bot failures recorded as the host judged them."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import io

import pytest

from unonet.bots import Bot, RandomBot
from unonet.client.audit import audit
from unonet.engine import Match, Scoring
from unonet.league.config import GameUnit
from unonet.league.network import NetworkedLeague, NetworkOptions
from unonet.league.outcome import read_outcome
from unonet.league.results import decode_log
from unonet.league.runner import play_inprocess
from unonet.league.schedule import schedule
from unonet.v1 import events_pb2, table_pb2

GAME_TIMEOUT = 60.0
ON_LOOP = NetworkOptions(bot_processes=0)  # the bots on the host's event loop (test-only bots are not importable)

# The events the engine decides (not the host's clocks, seats or connections): both paths must agree.
ENGINE_KINDS = {
    "dealer_chosen", "round_started", "cards_dealt", "first_card_turned", "first_card_returned", "cards_played",
    "color_chosen", "cards_drawn", "drawn_card_kept", "turn_skipped", "direction_reversed", "pile_reshuffled",
    "uno_called", "uno_caught", "challenge_resolved", "round_ended", "match_ended",
}


def engine_events(log: bytes) -> list[bytes]:
    out = []
    for blob in decode_log(log):
        event = events_pb2.Event.FromString(blob)
        kind = event.WhichOneof("payload")
        if kind in ENGINE_KINDS:
            out.append(getattr(event, kind).SerializeToString())
    return out


async def play(config, specs, options=None, league_class=NetworkedLeague):
    async with league_class(config, options) as league:
        return await asyncio.wait_for(asyncio.gather(*(league.play(spec) for spec in specs)), GAME_TIMEOUT)


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_grpc_games_match_inprocess_game_for_game(make_league):
    config = make_league(games=8, size=3, bots=3)
    specs = schedule(config)[:6]
    networked = await play(config, specs)  # the bots in their own process (the default)
    on_loop = await play(config, specs, ON_LOOP)
    inprocess = list(play_inprocess(config, specs))
    for net, loop in zip(networked, on_loop, strict=True):
        assert (net.ranks, net.points) == (loop.ranks, loop.points)
        assert engine_events(net.log) == engine_events(loop.log)
    for net, local in zip(networked, inprocess, strict=True):
        assert net.path == "grpc" and local.path == "inprocess"
        assert (net.ranks, net.points, net.outcomes) == (local.ranks, local.points, local.outcomes), net.game_id
        assert engine_events(net.log) == engine_events(local.log), net.game_id
        events = [events_pb2.Event.FromString(blob) for blob in decode_log(net.log)]
        settings = next(e.match_started.settings for e in events if e.HasField("match_started"))
        # a league-seeded table: the log says so and commits to the seed; no fair shuffle was run
        assert settings.league_seeded
        assert settings.league_seed_sha256 == hashlib.sha256(net.seed.to_bytes(8, "big")).digest()
        assert not any(e.HasField("shuffle_committed") for e in events)
        out = io.StringIO()
        assert audit(net.game_id, events, out) and "LEAGUE-SEEDED" in out.getvalue()


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_league_seeded_table_deals_the_engines_deal(make_league):
    import random

    config = make_league(games=4)
    spec = schedule(config)[0]
    [result] = await play(config, [spec])
    match = Match(config.game_ruleset(), 4, random.Random(spec.seed))
    from unonet.wire import convert

    expected = next(convert.event_to_pb(e, None) for e in match.start() if type(e).__name__ == "Dealt")
    dealt = next(events_pb2.Event.FromString(b) for b in decode_log(result.log)
                 if events_pb2.Event.FromString(b).HasField("cards_dealt"))
    assert dealt.cards_dealt == expected.cards_dealt


class FlakyBot(RandomBot):
    """Its runner fails (on_event raises) the first `failures` times it sees a turn start."""

    def __init__(self, seed: int | None = None, failures: int = 1) -> None:
        super().__init__(seed)
        self.failures = failures

    def on_event(self, event: events_pb2.Event) -> None:
        if self.failures and event.HasField("turn_started"):
            self.failures -= 1
            raise RuntimeError("the bot's process died")


class FlakyLeague(NetworkedLeague):
    """Seat 1's bot is replaced by a FlakyBot failing `failures` times; `silent` makes seat 1 never act."""

    failures = 1
    silent = False

    def _bot(self, name, spec) -> Bot:
        bot = super()._bot(name, spec)
        if name == spec.seats[1]:
            return FlakyBot(7, self.failures)
        return bot

    async def _seat(self, client, bot, table_id, seat, tally):
        if self.silent and seat == 1:  # connected, reading its events, never playing: only the host's clock
            async for _ in client.events():  # can end its wait
                pass
            await asyncio.Event().wait()
        await super()._seat(client, bot, table_id, seat, tally)


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_crashed_bot_is_restarted_and_the_game_played_out(make_league):
    config = make_league(games=3, size=3, bots=3)
    [result] = await play(config, schedule(config)[:1], ON_LOOP, league_class=FlakyLeague)
    assert result.outcomes == ("played",) * 3
    assert sorted(result.ranks)[0] == 1


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_bot_that_keeps_crashing_forfeits(make_league):
    class AlwaysFailing(FlakyLeague):
        failures = 100

    config = make_league(games=3, size=3, bots=3)
    options = NetworkOptions(max_restarts=2, bot_processes=0)
    [result] = await play(config, schedule(config)[:1], options, league_class=AlwaysFailing)
    assert result.outcomes[1] == "forfeit"
    assert result.ranks[1] == 3


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_silent_bot_loses_on_time(make_league):
    class Silent(FlakyLeague):
        silent = True

    config = make_league(games=3, size=3, bots=3)
    options = NetworkOptions(turn_time_s=0.2, strikes_before_takeover=1, bot_processes=0)
    [result] = await play(config, schedule(config)[:1], options, league_class=Silent)
    assert result.outcomes[1] == "time_loss"
    assert result.ranks[1] == 3


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_table_starts_once_every_bot_is_connected_so_a_slow_start_costs_no_turn(make_league):
    class LateLeague(NetworkedLeague):
        """Seat 0's bot is taken up late (a loaded seats process): twice its turn clock after the others."""

        async def _seat(self, client, bot, table_id, seat, tally):
            if seat == 0:
                await asyncio.sleep(3.0)
            await super()._seat(client, bot, table_id, seat, tally)

    config = make_league(games=3, size=3, bots=3)
    options = NetworkOptions(turn_time_s=1.5, strikes_before_takeover=1, bot_processes=0)
    [result] = await play(config, schedule(config)[:1], options, league_class=LateLeague)
    assert result.outcomes == ("played",) * 3  # no time loss for the late seat
    assert result.stats[0].timeouts == 0


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_a_stalled_game_is_ended_and_recorded_as_a_stall(make_league):
    class Silent(FlakyLeague):
        silent = True

    config = make_league(games=3, size=3, bots=3)
    options = NetworkOptions(turn_time_s=0.0, game_timeout_s=1.0, bot_processes=0)
    [result] = await play(config, schedule(config)[:1], options, league_class=Silent)
    assert result.outcomes == ("stall",) * 3
    events = [events_pb2.Event.FromString(blob) for blob in decode_log(result.log)]
    assert any(e.HasField("match_ended") for e in events)  # ended, never left hanging


def test_outcomes_read_from_the_hosts_events():
    def taken(seat, reason):
        return events_pb2.Event(seat_taken_over=events_pb2.SeatTakenOver(
            seat=seat, policy=table_pb2.TAKEOVER_POLICY_FORFEIT, reason=reason))

    ended = events_pb2.Event(round_ended=events_pb2.RoundEnded(
        winner_seat=0, scores=[events_pb2.SeatScore(seat=s, hand_points=p) for s, p in enumerate([0, 30, 12])]))
    log = [taken(1, events_pb2.TAKEOVER_REASON_STRIKES), ended]
    outcome = read_outcome(log, 3, GameUnit.ROUND, Scoring.WINNER_TAKES)
    assert outcome.outcomes == ("played", "time_loss", "played") and outcome.ranks == (1, 3, 2)
    log = [taken(2, events_pb2.TAKEOVER_REASON_LEFT), ended]
    assert read_outcome(log, 3, GameUnit.ROUND, Scoring.WINNER_TAKES).outcomes[2] == "forfeit"
    assert dataclasses.is_dataclass(outcome)


@pytest.mark.timeout(GAME_TIMEOUT + 30)
async def test_match_games_agree_across_paths(make_league):
    config = make_league(games=3, size=3, bots=3, extra='game = "match"\n[league.rules]\ntarget_score = 60')
    specs = schedule(config)[:3]
    networked = await play(config, specs)
    for net, local in zip(networked, play_inprocess(config, specs), strict=True):
        assert (net.ranks, net.points) == (local.ranks, local.points), net.game_id
        assert max(net.points) >= 60  # match totals


@pytest.mark.timeout(GAME_TIMEOUT)
async def test_a_killed_runners_scratch_host_is_removed_by_the_next_run(make_league, tmp_path):
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from unonet.league.network import SCRATCH_PREFIX

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True, timeout=60)
    temp = Path(tempfile.gettempdir())
    dead = temp / f"{SCRATCH_PREFIX}{int(gone.stdout)}-test"  # a runner that was SIGKILLed
    alive = temp / f"{SCRATCH_PREFIX}{os.getppid()}-test"  # one still running (our parent)
    for folder in (dead, alive):
        folder.mkdir(exist_ok=True)
        (folder / "host.sqlite").write_bytes(b"")
    try:
        async with NetworkedLeague(make_league(games=4), ON_LOOP) as league:
            from unonet.bots.sessions import start_time

            # Named by the runner's pid and start time: a pid alone may belong to another process later.
            runner = f"{os.getpid()}.{start_time(os.getpid())}"
            assert Path(league._scratch.name).name.startswith(f"{SCRATCH_PREFIX}{runner}-")
        assert not dead.exists() and alive.exists()
    finally:
        import shutil

        for folder in (dead, alive):
            shutil.rmtree(folder, ignore_errors=True)



def _ignores_sigint(pid: int) -> bool:
    """Whether process `pid` ignores SIGINT now (its SigIgn mask in /proc)."""
    import signal
    from pathlib import Path

    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="reads /proc")
def test_ctrl_c_is_the_runners_to_handle_not_the_seats_process():
    """Ctrl-C reaches the whole foreground process group; the seats process leaves it to the runner,
    which stops it by closing its stdin, instead of dying with a traceback of its own."""
    import signal
    import subprocess
    import sys
    import time

    seats = subprocess.Popen([sys.executable, "-m", "unonet.league.seats", "127.0.0.1:9"], stdin=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    try:
        assert seats.stdin is not None and seats.stderr is not None
        deadline = time.monotonic() + 60
        while not _ignores_sigint(seats.pid):  # its start-up, until it has set its handlers
            assert seats.poll() is None and time.monotonic() < deadline, "the seats process did not start"
            time.sleep(0.02)
        seats.send_signal(signal.SIGINT)
        seats.stdin.close()  # what the runner does
        assert seats.wait(timeout=60) == 0
        assert b"KeyboardInterrupt" not in seats.stderr.read()
    finally:
        if seats.poll() is None:
            seats.kill()
            seats.wait(timeout=30)


def _children(pid: int) -> list[int]:
    """The child processes of `pid`, whichever of its threads started them."""
    from pathlib import Path

    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not __import__("pathlib").Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z")


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/task"), reason="reads /proc")
@pytest.mark.timeout(240)
def test_sigkill_mid_grpc_league_then_rerun_loses_doubles_and_leaves_nothing(tmp_path):
    """The default path, as a newcomer runs it: the runner SIGKILLed mid-league leaves no seats process
    behind and no scratch host (the next run removes it), and the rerun records every game once, the
    same games an in-process league plays (random bots never race)."""
    import signal
    import sqlite3
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    from league_files import league_file

    from unonet.league.config import load
    from unonet.league.network import SCRATCH_PREFIX
    from unonet.league.results import Results

    path = league_file(tmp_path, games=12, size=3, bots=3)
    db = tmp_path / "league.sqlite"
    command = [sys.executable, "-m", "unonet.cli", "league", "run", str(path), "--no-progress", "--json"]
    runner = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def rows() -> int:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
                return int(conn.execute("SELECT COUNT(*) FROM league_games").fetchone()[0])
        except sqlite3.OperationalError:
            return 0  # not created yet

    try:
        deadline = time.monotonic() + 120
        while not db.exists() or rows() < 3:
            assert runner.poll() is None and time.monotonic() < deadline, "the runner recorded no games"
            time.sleep(0.05)
        children = _children(runner.pid)
        assert children  # the seats process
        runner.send_signal(signal.SIGKILL)
    finally:
        runner.wait(timeout=30)
    killed_at = rows()
    assert 3 <= killed_at < 12
    scratch = list(Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}{runner.pid}.*-*"))
    assert scratch  # what a SIGKILL leaves
    deadline = time.monotonic() + 60
    while any(_alive(child) for child in children):  # its stdin closed with the runner: it ends
        assert time.monotonic() < deadline, "the seats process outlived its runner"
        time.sleep(0.05)
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert rerun.returncode == 0, rerun.stderr
    assert not any(folder.exists() for folder in scratch)  # removed by the rerun
    with sqlite3.connect(db) as conn:
        ids = [row[0] for row in conn.execute("SELECT game_id FROM league_games")]
    assert len(ids) == len(set(ids)) == 12
    config = load(path)
    with Results(db) as results:
        recorded = {r.game_id: r for r in results.games()}
    straight = {r.game_id: r for r in play_inprocess(config, schedule(config))}
    assert recorded.keys() == straight.keys()
    assert all((recorded[k].ranks, recorded[k].points) == (straight[k].ranks, straight[k].points) for k in straight)
