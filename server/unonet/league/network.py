"""The gRPC path (the default): games many at a time on an embedded host, real bot connections.

A host runs in this process on 127.0.0.1 (port 0: any free port) with a scratch journal. Each game is
a league-seeded table (CreateTableRequest.league_seed: dealt by the engine from the deal's seed, no
fair shuffle, so a deal is replayed exactly with the seats rotated), its seats joined by the runner,
and each seat played by the bots' own `BotRunner` over the protocol, as any bot plays any host: by
default from a process of their own (`unonet.league.seats`, so the host's loop and the bots' use two
cores), with `bot_processes=0` on the host's event loop. The result is read from the log the host
kept (`outcome.read_outcome`), each seat's decision times and timeouts from its clock
(`outcome.turn_clock`), and each bot's crashes, restarts and refused answers from its seat's
supervisor (`tallies.SeatTally`, sent back with the seats' job).

An `exec` or `launch` entrant is a program of its own, started for its seat by the seats' side and
supervised there (`unonet.league.programs`). A table starts once every seat's bot has opened its event
stream (or after `launch_wait_s`): the bots' side taking a game up (the job's hop to the seats process,
a launched program's start) is the league's latency, not the bots' time, so it costs no seat a turn. Programs run in
sessions of their own and are recorded while they run (`reaper.ProgramRecords`, in this run's scratch
folder), so none outlives the league: when the seats process dies its leftovers are killed at once,
and a runner that died has its leftovers killed by the next league on the machine.

Bot failures are the host's to judge and the log's to record: every table has a turn clock with strikes
and the forfeit policy (`config.PlaySettings`), so a bot that stops answering (a hung program too) loses
on time (outcome "time_loss"); a bot runner that raises, or a program that crashes or hangs, is restarted
on its seat with its token, up to `restarts` times, after which its seat leaves the table (outcome
"forfeit"); a game still running at `game_time_limit` is a stall: every seat leaves, which ends the
match, and every seat's outcome is "stall".

Failures of the league's own machinery are never a bot's result (`unonet.league.failures`): when the
seats process dies (it is started again), a seats job fails, or a call to the host fails, the game is
aborted (its seats leave the table, its programs are stopped) and played again from its seed, and a
game whose log stops before its end is never recorded. Three such failures in a row with no game
finished in between stop the run (`NoProgress`).

A round game (the default) is played at the host as a match to 1 point, so the table ends with the
round; the in-process path plays under the same ruleset, so both paths deal and score alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from unonet.bots import Bot
from unonet.bots.sessions import exited, start_time
from unonet.client import TableClient
from unonet.host.host import Host
from unonet.host.limits import Limits
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.league.config import LeagueConfig, PlaySettings
from unonet.league.entrants import Factory, Program, bot_seed
from unonet.league.failures import DEFAULT_FAILURE_LIMIT, GameAborted, InfrastructureError, ProgressGuard
from unonet.league.outcome import read_outcome, turn_clock
from unonet.league.programs import play_program
from unonet.league.reaper import ProgramRecords, reap_folder
from unonet.league.results import GameResult, encode_log
from unonet.league.runner import check_league
from unonet.league.schedule import GameSpec
from unonet.league.seats import labelled, play_seat
from unonet.league.tallies import SeatStats, SeatTally
from unonet.v1 import events_pb2, table_pb2
from unonet.wire import convert

__all__ = ["NetworkOptions", "NetworkedLeague", "SeatsProcessGone", "play_networked", "remove_stale_scratch"]

log = logging.getLogger(__name__)

#: How often a game whose runners all still play asks the host whether its table is finished.
FINISHED_CHECK_S = 0.5
#: The embedded host's scratch folders, in the temporary directory: PREFIX + the runner's pid + "-" + a suffix.
SCRATCH_PREFIX = "unonet-league-host-"
#: The folders recording the bot programs a runner has running (`reaper`), named the same way. Apart from
#: the host's scratch, so that whatever removes a dead runner's scratch (a league of an older version, which
#: knows nothing of programs) leaves the records for the reaper.
PROGRAMS_PREFIX = "unonet-league-programs-"
#: How often a game waiting for its bots to connect asks the host about its seats.
CONNECT_CHECK_S = 0.02
#: Seconds a finished game's seats have to wind down (programs told the match is over exit) by themselves,
#: and then, asked to stop, to answer with their tallies.
WIND_DOWN_S = 5.0
STOP_ANSWER_S = 10.0
#: Seconds a seats process has to stop its games and exit once its stdin is closed, before it is killed.
SEATS_EXIT_S = 15.0
#: How often the runner asks a seats process whether it is alive (a JSON ping line it answers at once).
PING_S = 1.0
#: Seconds a new seats process has to say it is ready (Python, gRPC and the bots imported) before the
#: watchdog takes it for hung; after that, `NetworkOptions.seats_silence_s`.
SEATS_START_S = 60.0


@dataclass(frozen=True, slots=True)
class NetworkOptions:
    """How the gRPC path plays: games at once, each table's clock, restarts, when a game counts as stalled
    (the league file's `PlaySettings`, `from_settings`), and where the bots play."""

    concurrency: int = 8
    bot_processes: int = 1
    turn_time_s: float = 10.0
    strikes_before_takeover: int = 2
    game_timeout_s: float = 300.0
    max_restarts: int = 3
    call_timeout_s: float = 10.0
    launch_wait_s: float = 60.0
    time_bank_s: float = 0.0
    # A seats process that answers nothing (not even a ping) this long is hung (or stopped): it is killed,
    # which aborts its games, and another is started.
    seats_silence_s: float = 20.0
    failure_limit: int = DEFAULT_FAILURE_LIMIT

    @classmethod
    def from_settings(cls, settings: PlaySettings, **kwargs: Any) -> NetworkOptions:
        """The options a league file's settings give (with `kwargs` for the rest)."""
        return cls(concurrency=settings.games_at_once, turn_time_s=settings.turn_time,
                   strikes_before_takeover=settings.strikes, game_timeout_s=settings.game_time_limit,
                   max_restarts=settings.restarts, time_bank_s=settings.time_bank, **kwargs)


class SeatsProcessGone(InfrastructureError):
    """The seats process exited (or could not be written to): every game it played is aborted."""


class SeatsJobFailed(InfrastructureError):
    """The seats process could not play a game's seats, for a reason of its own (not a bot's)."""


class NetworkedLeague:
    """An embedded host and a channel to it; `play(spec)` plays one game there. Use `async with`.

    `timings` adds up, over the games played, the seconds each part of a game took on this side: `setup`
    (create the table, join its seats, hand them to the bots), `connect` (until every bot has its event
    stream open, and the table is started), `play` (from the start to the host's saying it is finished),
    `wind_down` (until the seats answered with their tallies) and `record` (reading the log back and
    building the result); `games` counts them."""

    def __init__(self, config: LeagueConfig, options: NetworkOptions | None = None) -> None:
        self.config = config
        self.options = options or NetworkOptions.from_settings(config.play)
        self.entrants = check_league(config)
        # The host's own journal, in a folder of its own: the public log of each game is read from it.
        # It is scratch: a game the runner did not record is played again from its seed. A runner that
        # was killed (SIGKILL) could not remove its folder, nor stop its bots' programs: the next run
        # kills the programs it recorded there and removes every such folder whose process is gone.
        remove_stale_scratch()
        self._scratch = tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{_runner_id()}-")
        self.programs = Path(tempfile.mkdtemp(prefix=f"{PROGRAMS_PREFIX}{_runner_id()}-"))
        self.store = SqliteStore(Path(self._scratch.name) / "host.sqlite")
        # Every seat of every game comes from this machine's one address: the per-address rates a public
        # host applies (`unonet serve`) would throttle the league itself, so only the per-token ones stay.
        limits = Limits(commands_per_s_peer=0.0, joins_per_s_peer=0.0)
        self.host = Host(self.store, keep_finished_s=1.0, limits=limits)
        self.server: grpc.aio.Server | None = None
        self.channel: grpc.aio.Channel | None = None
        self.address = ""
        self.ruleset_pb = convert.ruleset_to_pb(config.game_ruleset())
        self.seat_processes: list[_SeatProcess] = []
        self._seats_lock: asyncio.Lock | None = None
        self._started_processes = 0
        self._local_records = ProgramRecords(self.programs / "loop")
        self._attempts: Counter[str] = Counter()
        self._workers: set[asyncio.Task[None]] = set()
        self.timings: Counter[str] = Counter()

    async def __aenter__(self) -> NetworkedLeague:
        self._seats_lock = asyncio.Lock()
        server, port, _ = await create_server("127.0.0.1:0", host=self.host)
        await server.start()
        self.server = server
        self.address = f"127.0.0.1:{port}"
        self.channel = grpc.aio.insecure_channel(self.address)
        for _ in range(self.options.bot_processes):
            self.seat_processes.append(await self._start_seats_process())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        # Games first (their seats stop, their programs with them), then the seats processes (which stop
        # whatever they still play when their stdin closes), then whatever a program left: nothing outlives it.
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        for process in self.seat_processes:
            await process.stop()
        self._local_records.reap()
        reap_folder(self.programs)  # and removes it
        if self.channel is not None:
            await self.channel.close()
        if self.server is not None:
            await self.server.stop(None)
        await self.host.stop()
        self.store.close()
        self._scratch.cleanup()

    async def _start_seats_process(self) -> _SeatProcess:
        self._started_processes += 1
        records = self.programs / f"seats-{self._started_processes}"
        return await _SeatProcess.start(self.address, records, self.options.seats_silence_s)

    async def _seats_process(self, index: int) -> _SeatProcess:
        """The seats process for game `index`, started again first if it died."""
        assert self._seats_lock is not None
        slot = index % len(self.seat_processes)
        async with self._seats_lock:
            process = self.seat_processes[slot]
            if process.gone is not None:
                log.warning("starting the seats process again (%s)", process.gone)
                await process.stop()
                self.seat_processes[slot] = process = await self._start_seats_process()
        return process

    def _clock(self) -> table_pb2.ClockSettings:
        clock = table_pb2.ClockSettings(
            strikes_before_takeover=self.options.strikes_before_takeover,
            takeover_policy=table_pb2.TAKEOVER_POLICY_FORFEIT,
        )
        clock.turn_time.FromNanoseconds(int(self.options.turn_time_s * 1e9))
        clock.round_start_hold.FromNanoseconds(0)  # no person reads the scores between a league's rounds
        if self.options.time_bank_s:
            clock.time_bank.FromNanoseconds(int(self.options.time_bank_s * 1e9))
        return clock

    async def play(self, spec: GameSpec) -> GameResult:
        """Play one scheduled game at a new league-seeded table; its result as the host's log says.

        Raises GameAborted when the league's machinery failed the game (see the module): nothing of it
        may be recorded, and it can be played again."""
        assert self.channel is not None
        started = time.perf_counter()
        timeout = self.options.call_timeout_s
        clients = [TableClient(self.channel, timeout=timeout) for _ in spec.seats]
        seats: _Seats | None = None
        try:
            owner = TableClient(self.channel, timeout=timeout)
            created = await owner.create_table(
                self.config.preset, self.ruleset_pb, len(spec.seats), name=spec.game_id, clock=self._clock(),
                manual_start=True, league_seed=spec.seed, league_seat_draws=self.config.seat_draws,
            )
            table_id = created.table_id
            tokens = [(await client.join(table_id, name, seat=seat)).token
                      for seat, (client, name) in enumerate(zip(clients, spec.seats, strict=True))]
            seats = await self._start_seats(spec, table_id, clients, tokens)
            joined = time.perf_counter()
            await self._until_connected(table_id, spec, seats)
            await owner.start_table(table_id=table_id)
            playing = time.perf_counter()
            stalled = not await self._until_finished(table_id, seats)
            finished = time.perf_counter()
            if stalled:
                log.warning("%s stalled (still running after %gs): ending it", spec.game_id,
                            self.options.game_timeout_s)
                await _leave_all(clients)  # every seat leaves: the match ends, never left hanging
            tallies = await seats.wind_down(0.0 if stalled else WIND_DOWN_S)
        except asyncio.CancelledError:  # the league is stopping: the seats stop, their programs with them
            if seats is not None:
                seats.stop()
                await asyncio.wait({seats.done}, timeout=STOP_ANSWER_S)
            raise
        except Exception as error:
            cause: object = error.cause if isinstance(error, _SeatsFailure) else error
            reason = str(error) if isinstance(error, InfrastructureError) else f"{type(error).__name__}: {error}"
            if not isinstance(error, InfrastructureError):
                log.warning("%s: the league's machinery failed", spec.game_id, exc_info=error)
            if seats is not None:
                seats.stop()
            await _leave_all(clients)
            raise GameAborted(spec.game_id, reason, cause) from error
        wound_down = time.perf_counter()
        blobs = [blob for _, blob in self.host.store.public_events(table_id)]
        events = [events_pb2.Event.FromString(blob) for blob in blobs]
        outcome = read_outcome(events, len(spec.seats), self.config.unit, self.config.ruleset().scoring)
        if not outcome.finished and not stalled:
            raise GameAborted(spec.game_id, "its log stops before the game's end")
        clock = turn_clock(events, len(spec.seats))
        tallies += [SeatTally() for _ in range(len(spec.seats) - len(tallies))]  # none lost, none made up
        stats = tuple(SeatStats.of(tallies[seat], clock.timeouts[seat], clock.decision_us[seat])
                      for seat in range(len(spec.seats)))
        outcomes = ("stall",) * len(spec.seats) if stalled else outcome.outcomes
        result = GameResult(
            game_id=spec.game_id, index=spec.index, cycle=spec.cycle, deal=spec.deal, seed=spec.seed,
            rotation=spec.rotation, seats=spec.seats, ranks=outcome.ranks, points=outcome.points,
            outcomes=outcomes, steps=len(events), path="grpc", seconds=time.perf_counter() - started,
            log=encode_log(blobs), stats=stats,
        )
        self.timings.update({"setup": joined - started, "connect": playing - joined, "play": finished - playing,
                             "wind_down": wound_down - finished, "record": time.perf_counter() - wound_down,
                             "games": 1})
        return result

    async def _start_seats(
        self, spec: GameSpec, table_id: str, clients: Sequence[TableClient], tokens: Sequence[str]
    ) -> _Seats:
        """Hand the game's seats to the bots: a job for a seats process, or tasks on this loop."""
        if self.seat_processes:  # the bots play from their own process, over loopback
            process = await self._seats_process(spec.index)
            self._attempts[spec.game_id] += 1
            return process.submit(self._job(spec, table_id, tokens, self._attempts[spec.game_id]))
        tallies = [SeatTally() for _ in spec.seats]
        tasks = [asyncio.ensure_future(labelled(spec.game_id, seat, name, self._play_seat(
                     client, name, spec, table_id, seat, tally)))
                 for seat, (client, name, tally) in enumerate(zip(clients, spec.seats, tallies, strict=True))]
        return _LocalSeats(tasks, tallies)

    async def _until_connected(self, table_id: str, spec: GameSpec, seats: _Seats) -> None:
        """Wait until every seat's bot is connected (its event stream open), at most `launch_wait_s`, and
        only while every seat's player still plays; a bot not connected by then starts on the table's clock
        like any late player (a launched program that never connects loses its turns to the clock)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.launch_wait_s
        while loop.time() < deadline and not seats.any_done():
            if all(seat.connected for seat in self.host.info(table_id).seats):  # in-process: no call to make
                return
            await asyncio.sleep(CONNECT_CHECK_S)
        seats.raise_failure()
        late = [seat.seat for seat in self.host.info(table_id).seats if not seat.connected]
        ours = [seat for seat in late if not _is_launched(self.entrants[spec.seats[seat]])]
        if ours:  # the league's own runner connects these seats, whatever their bot: its machinery failed
            raise InfrastructureError(f"the bots' side did not take seats {ours} up within "
                                      f"{self.options.launch_wait_s:g}s")
        log.warning("%s: a launched bot is not connected; starting the table anyway", spec.game_id)

    async def _until_finished(self, table_id: str, seats: _Seats) -> bool:
        """Wait for the table's match to end: True once it has, False at the game's time limit (a stall).
        Raises what failed the seats (the league's machinery, not a bot: the game is aborted).

        Every seat's runner returns when the match ends for it; one that hangs (its bot stopped answering
        and the host's clock forfeited it) need not, so whenever the seats are done, and every
        `FINISHED_CHECK_S` while they play on, the host is asked whether the table is finished."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.game_timeout_s
        asked_when_done = False
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return False
            if asked_when_done:  # the seats are done but the match is not over: the host's clock decides it
                await asyncio.sleep(min(left, FINISHED_CHECK_S))
            else:
                await seats.wait(min(left, FINISHED_CHECK_S))
            seats.raise_failure()
            asked_when_done = seats.any_done()
            if self.host.info(table_id).status == table_pb2.TABLE_STATUS_FINISHED:
                return True

    def _job(self, spec: GameSpec, table_id: str, tokens: Sequence[str], attempt: int) -> dict[str, Any]:
        """One game's seats as a job for a seat process (`unonet.league.seats`)."""
        seats = []
        for seat, (name, token) in enumerate(zip(spec.seats, tokens, strict=True)):
            entry = self.config.bot(name)
            seats.append({"seat": seat, "token": token, "name": name, "source": entry.source,
                          "target": entry.target, "seed": bot_seed(entry, spec.seed)})
        return {"id": f"{spec.game_id}.{attempt}", "game": spec.game_id, "table_id": table_id, "seats": seats,
                "max_restarts": self.options.max_restarts}

    async def _play_seat(
        self, client: TableClient, name: str, spec: GameSpec, table_id: str, seat: int, tally: SeatTally
    ) -> None:
        """Play one seat on this loop: a program under its supervisor, a policy by `_seat`."""
        played = self.entrants[name]
        if isinstance(played, Program):
            seed = bot_seed(self.config.bot(name), spec.seed)
            await play_program(client, played, self.address, table_id, seat, self.options.max_restarts, seed,
                               tally=tally, records=self._local_records)
        else:
            await self._seat(client, self._bot(name, spec), table_id, seat, tally)

    def _bot(self, name: str, spec: GameSpec) -> Bot:
        build = self.entrants[name]
        assert not isinstance(build, Program), "a program is played by play_program, not as a policy"
        return build(bot_seed(self.config.bot(name), spec.seed))

    async def _seat(self, client: TableClient, bot: Bot, table_id: str, seat: int, tally: SeatTally) -> None:
        """Play the seat on this loop to the match's end (`seats.play_seat`: restarts, then leaving)."""
        await play_seat(client, bot, table_id, seat, self.options.max_restarts, tally)

    async def play_many(self, specs: Sequence[GameSpec]) -> asyncio.Queue[GameResult | BaseException]:
        """Play every game, `concurrency` at a time; each result arrives on the queue as it finishes, in any
        order. An aborted game is played again at once; when the league cannot make progress
        (`failures.ProgressGuard`), the `NoProgress` error arrives instead and play stops."""
        out: asyncio.Queue[GameResult | BaseException] = asyncio.Queue()
        todo = deque(specs)
        guard = ProgressGuard(self.options.failure_limit)

        async def worker() -> None:
            while todo:
                spec = todo.popleft()
                try:
                    result = await self.play(spec)
                except GameAborted as aborted:
                    log.warning("%s; it will be played again", aborted)
                    try:
                        guard.aborted(aborted)
                    except InfrastructureError as error:
                        todo.clear()
                        await out.put(error)
                        return
                    todo.appendleft(spec)
                    continue
                except Exception as error:  # a bug in this module: the run stops, loudly
                    todo.clear()
                    await out.put(error)
                    return
                guard.finished()
                await out.put(result)

        for _ in range(min(self.options.concurrency, len(specs))):
            task = asyncio.get_running_loop().create_task(worker())
            self._workers.add(task)
            task.add_done_callback(self._workers.discard)
        return out


async def _leave_all(clients: Sequence[TableClient]) -> None:
    """Every seat leaves its table (ending a running match); what cannot leave any more is skipped."""
    for client in clients:
        if client.token:
            with contextlib.suppress(Exception):
                await client.leave()


def play_networked(
    config: LeagueConfig, specs: Sequence[GameSpec], options: NetworkOptions | None = None,
    timings: Counter[str] | None = None,
) -> Iterator[GameResult]:
    """The default player: an embedded host on its own event loop thread; results as games finish.
    `timings`, when given, gets the league's `NetworkedLeague.timings` added to it as it winds down.

    Raises NoProgress when the league's machinery keeps failing (after the games already finished have
    been yielded). Closing the generator (the league is done, or the runner was interrupted: Ctrl-C)
    stops the games still in flight and waits until their seats, the seats process and every bot
    program are stopped."""
    results: queue.Queue[GameResult | BaseException | None] = queue.Queue()
    loop_ready = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        state["loop"] = asyncio.get_running_loop()
        state["task"] = asyncio.current_task()
        loop_ready.set()
        async with NetworkedLeague(config, options) as league:
            try:
                pending = await league.play_many(specs)
                for number in range(1, len(specs) + 1):
                    item = await pending.get()
                    if isinstance(item, BaseException) or number == len(specs):
                        state["ending"] = True  # the league winds down by itself: nothing to cancel
                    results.put(item)
                    if isinstance(item, BaseException):
                        return
            finally:
                if timings is not None:
                    timings.update(league.timings)

    def thread_main() -> None:
        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass
        except BaseException as error:
            results.put(error)
        finally:
            loop_ready.set()
            results.put(None)

    thread = threading.Thread(target=thread_main, name="league-host", daemon=True)
    thread.start()
    try:
        while True:
            item = results.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        loop_ready.wait()
        loop = state.get("loop")
        task = state.get("task")
        if loop is not None and task is not None and thread.is_alive() and not state.get("ending"):
            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(task.cancel)
        thread.join()


def _runner_id() -> str:
    """What a runner's folders are named after: its pid and its start time (`pid.ticks`). A pid alone
    is not enough: a busy machine hands a dead runner's pid to another process within minutes (pids
    wrap at 32,768 here), and a folder whose runner seemed alive was never reaped."""
    return f"{os.getpid()}.{start_time(os.getpid()) or 0}"


def _runner_running(owner: str) -> bool:
    """Whether the runner a folder is named after (`_runner_id`, or a bare pid from before) still runs."""
    pid, _, started = owner.partition(".")
    now = start_time(int(pid))
    if now is not None:
        return not started.isdigit() or int(started) in (0, now)  # another start time: the pid was reused
    try:
        os.kill(int(pid), 0)  # no /proc: the pid alone
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def remove_stale_scratch() -> None:
    """Clean up after league runners that are no longer running (their folders are named by their pid and
    start time): kill the bot programs each recorded (`reaper`), then remove its folders."""
    temp = Path(tempfile.gettempdir())
    for prefix in (PROGRAMS_PREFIX, SCRATCH_PREFIX):  # the programs first: a scratch folder may hold old records
        for folder in temp.glob(f"{prefix}*-*"):
            owner = folder.name.removeprefix(prefix).split("-", 1)[0]
            if not owner.partition(".")[0].isdigit() or _runner_running(owner):
                continue
            reap_folder(folder)  # gone: its programs are orphans, its folders garbage (removed with them)


def _is_launched(played: Factory | Program) -> bool:
    return isinstance(played, Program) and played.source == "launch"


class _SeatsFailure(InfrastructureError):
    """The seats of a game failed for the league's reason (`cause`: the failure they share)."""

    def __init__(self, message: str, cause: object) -> None:
        super().__init__(message)
        self.cause = cause


class _Seats:
    """A game's seats being played, wherever: `wait` for them, `stop` them, `wind_down` to their tallies."""

    def __init__(self, done: asyncio.Future[list[SeatTally]]) -> None:
        self.done = done

    def any_done(self) -> bool:
        return self.done.done()

    async def wait(self, timeout: float) -> None:
        """Until the seats are done (or failed), at most `timeout` seconds."""
        await asyncio.wait({self.done}, timeout=timeout)

    def raise_failure(self) -> None:
        """Raise what failed the seats (`_SeatsFailure`), if anything did."""
        if self.done.done() and not self.done.cancelled() and self.done.exception() is not None:
            raise self.done.exception()  # type: ignore[misc]

    def stop(self) -> None:
        """Stop the seats now (their programs with them); their tallies still come."""
        raise NotImplementedError

    async def wind_down(self, grace: float) -> list[SeatTally]:
        """The seats' tallies: given `grace` seconds to end by themselves, then asked to stop. Raises
        `_SeatsFailure` when they failed meanwhile."""
        await self.wait(grace)
        if not self.done.done():
            self.stop()
            await self.wait(STOP_ANSWER_S)
        if not self.done.done():
            raise _SeatsFailure(f"the seats did not stop within {STOP_ANSWER_S}s of being asked", self)
        self.raise_failure()
        return self.done.result()


class _LocalSeats(_Seats):
    """Seats played on this event loop (`bot_processes=0`), one task each."""

    def __init__(self, tasks: Sequence[asyncio.Future[None]], tallies: list[SeatTally]) -> None:
        self.tasks = list(tasks)
        self.tallies = tallies
        super().__init__(asyncio.ensure_future(self._gather()))

    async def _gather(self) -> list[SeatTally]:
        results = await asyncio.gather(*self.tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, Exception):  # play_seat and play_program keep bots' failures to themselves
                raise _SeatsFailure(f"a seat's supervisor failed: {type(result).__name__}: {result}", result)
        return self.tallies

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()


class _RemoteSeats(_Seats):
    """A game's seats as a job of a seats process."""

    def __init__(self, process: _SeatProcess, job_id: str, done: asyncio.Future[list[SeatTally]]) -> None:
        super().__init__(done)
        self.process = process
        self.job_id = job_id

    def stop(self) -> None:
        self.process.send({"stop": self.job_id})


class _SeatProcess:
    """A `python -m unonet.league.seats` child: jobs out on its stdin, answers back on its stdout.

    When it exits (it was killed, or crashed) every job it had is failed with one `SeatsProcessGone`,
    whatever its bots' programs left running is killed (its `records`), and `gone` says why; the league
    starts another for the games that follow. It is pinged every `PING_S`; one that has answered nothing
    for `silence_s` (hung, or stopped: SIGSTOP) is killed, which fails its jobs the same way, so a seats
    process that stopped working never leaves its games to the host's clock."""

    def __init__(self, process: asyncio.subprocess.Process, records: ProgramRecords, silence_s: float) -> None:
        self.process = process
        self.records = records
        self.silence_s = silence_s
        self.waiting: dict[str, asyncio.Future[list[SeatTally]]] = {}
        self.gone: SeatsProcessGone | None = None
        self.silent = False
        self.ready = False  # it said so once it started reading its stdin
        loop = asyncio.get_running_loop()
        self.heard = loop.time()
        self.reader = loop.create_task(self._read())
        self.errors = loop.create_task(self._forward_stderr())
        self.watchdog = loop.create_task(self._watch())

    @classmethod
    async def start(cls, address: str, records_folder: Path, silence_s: float) -> _SeatProcess:
        records = ProgramRecords(records_folder)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "unonet.league.seats", address, str(records_folder),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        return cls(process, records, silence_s)

    async def _watch(self) -> None:
        """Ping it; kill it when it has said nothing for `silence_s` (see the class)."""
        loop = asyncio.get_running_loop()
        while self.process.returncode is None:
            await asyncio.sleep(PING_S)
            limit = self.silence_s if self.ready else max(self.silence_s, SEATS_START_S)
            if loop.time() - self.heard > limit:
                log.warning("the seats process (pid %d) has answered nothing for %gs: killing it",
                            self.process.pid, limit)
                self.silent = True
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                return
            self.send({"ping": True})

    async def _forward_stderr(self) -> None:
        """Its log lines (and its programs') onto ours, through `sys.stderr` as it is now, so they print
        above a progress bar instead of through it."""
        assert self.process.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            while line := await self.process.stderr.readline():
                sys.stderr.write(line.decode("utf-8", "replace"))
                sys.stderr.flush()

    def submit(self, job: dict[str, Any]) -> _RemoteSeats:
        """Send one game's job; its seats are done when the child answers (with their tallies)."""
        done: asyncio.Future[list[SeatTally]] = asyncio.get_running_loop().create_future()
        key = str(job["id"])
        if self.gone is not None:
            done.set_exception(_SeatsFailure(str(self.gone), self.gone))
        else:
            self.waiting[key] = done
            self.send(job)
        return _RemoteSeats(self, key, done)

    def send(self, line: dict[str, Any]) -> None:
        stdin = self.process.stdin
        if self.gone is None and stdin is not None and not stdin.is_closing():
            with contextlib.suppress(OSError, RuntimeError):  # a dead child: its reader says so
                stdin.write((json.dumps(line) + "\n").encode())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while line := await self.process.stdout.readline():
                self.heard = asyncio.get_running_loop().time()
                answer = json.loads(line)
                if "pong" in answer or "ready" in answer:
                    self.ready = True
                    continue
                done = self.waiting.pop(str(answer["id"]), None)
                if done is None or done.done():
                    continue
                if answer.get("done"):
                    done.set_result([SeatTally.from_json(tally) for tally in answer.get("tallies", [])])
                else:
                    error = SeatsJobFailed(f"the seats process could not play the game: {answer.get('error')}")
                    done.set_exception(_SeatsFailure(str(error), error))
        # Its exit status, not wait(): its bots' programs, orphans now, still hold its stderr, and asyncio's
        # wait() waits for every pipe to close.
        status = await exited(self.process)
        assert status is not None
        how = "stopped answering and was killed" if self.silent else _exit_status(status)
        self.gone = SeatsProcessGone(f"the seats process (pid {self.process.pid}) {how}")
        # Its programs are orphans now: kill them before anything else is played.
        self.records.reap()
        for done in self.waiting.values():
            if not done.done():
                done.set_exception(_SeatsFailure(str(self.gone), self.gone))
        self.waiting.clear()

    async def stop(self) -> None:
        """Close its stdin (it stops its games, programs included, and exits); kill it if it does not."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        if await exited(self.process, SEATS_EXIT_S) is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader  # it ends once the process has exited, whoever holds its pipes
        self.watchdog.cancel()
        self.records.reap()
        # Its stderr ends with it, once the programs it started (which write there too) are gone.
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(self.errors, 1.0)


def _exit_status(status: int) -> str:
    """How a process ended, in words: "exited with status 3", "was killed by SIGKILL"."""
    if status < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-status).name}"
        return f"was killed by signal {-status}"
    return f"exited with status {status}"
