"""The gRPC path (the default): games many at a time on an embedded host, real bot connections.

A host runs in this process on 127.0.0.1 (port 0: any free port) with a scratch journal. Each game is
a league-seeded table (CreateTableRequest.league_seed: dealt by the engine from the deal's seed, no
fair shuffle, so a deal is replayed exactly with the seats rotated), its seats joined by the runner,
and each seat played by the bots' own `BotRunner` over the protocol, as any bot plays any host: by
default from a process of their own (`unonet.league.seats`, so the host's loop and the bots' use two
cores), with `bot_processes=0` on the host's event loop. The result is read from the log the host
kept (`outcome.read_outcome`).

An `exec` or `launch` entrant is a program of its own, started for its seat by the seats' side and
supervised there (`unonet.league.programs`); the table starts once every launched program has opened
its event stream (or after `launch_wait_s`), so a slow start does not cost it turns.

Failures are the host's to judge and the log's to record: every table has a turn clock with strikes
and the forfeit policy, so a bot that stops answering (a hung program too) loses on time (outcome
"time_loss"); a bot runner that raises, or a program that crashes or hangs, is restarted on its seat
with its token, up to `max_restarts` times, after which its seat leaves the table (outcome "forfeit"); a game
still running at `game_timeout_s` is a stall: every seat leaves, which ends the match, and every
seat's outcome is "stall".

A round game (the default) is played at the host as a match to 1 point, so the table ends with the
round; the in-process path plays under the same ruleset, so both paths deal and score alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from unonet.bots import Bot
from unonet.client import TableClient
from unonet.host.host import Host
from unonet.host.limits import Limits
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.league.config import LeagueConfig
from unonet.league.entrants import Factory, Program, bot_seed
from unonet.league.outcome import read_outcome
from unonet.league.programs import play_program
from unonet.league.results import GameResult, encode_log
from unonet.league.runner import check_league
from unonet.league.schedule import GameSpec
from unonet.league.seats import play_seat
from unonet.v1 import events_pb2, table_pb2
from unonet.wire import convert

__all__ = ["NetworkOptions", "NetworkedLeague", "play_networked"]

log = logging.getLogger(__name__)

#: How often a game whose runners all still play asks the host whether its table is finished.
FINISHED_CHECK_S = 0.5
#: The embedded host's scratch folders, in the temporary directory: PREFIX + the runner's pid + "-" + a suffix.
SCRATCH_PREFIX = "unonet-league-host-"
#: How often a game waiting for its launched programs to connect asks the host about its seats.
LAUNCH_CHECK_S = 0.05


@dataclass(frozen=True, slots=True)
class NetworkOptions:
    """How the gRPC path plays: games at once, each table's clock, and when a game counts as stalled."""

    concurrency: int = 8
    bot_processes: int = 1
    turn_time_s: float = 10.0
    strikes_before_takeover: int = 2
    game_timeout_s: float = 300.0
    max_restarts: int = 3
    call_timeout_s: float = 10.0
    launch_wait_s: float = 60.0


class NetworkedLeague:
    """An embedded host and a channel to it; `play(spec)` plays one game there. Use `async with`."""

    def __init__(self, config: LeagueConfig, options: NetworkOptions | None = None) -> None:
        self.config = config
        self.options = options or NetworkOptions()
        self.entrants = check_league(config)
        # The host's own journal, in a folder of its own: the public log of each game is read from it.
        # It is scratch: a game the runner did not record is played again from its seed. A runner that
        # was killed (SIGKILL, or Ctrl-C, which ends this thread with the process) could not remove its
        # folder: the next run removes every such folder whose process is gone.
        _remove_stale_scratch()
        self._scratch = tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
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

    async def __aenter__(self) -> NetworkedLeague:
        server, port, _ = await create_server("127.0.0.1:0", host=self.host)
        await server.start()
        self.server = server
        self.address = f"127.0.0.1:{port}"
        self.channel = grpc.aio.insecure_channel(self.address)
        for _ in range(self.options.bot_processes):
            self.seat_processes.append(await _SeatProcess.start(self.address))
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for process in self.seat_processes:
            await process.stop()
        if self.channel is not None:
            await self.channel.close()
        if self.server is not None:
            await self.server.stop(None)
        await self.host.stop()
        self.store.close()
        self._scratch.cleanup()

    def _clock(self) -> table_pb2.ClockSettings:
        clock = table_pb2.ClockSettings(
            strikes_before_takeover=self.options.strikes_before_takeover,
            takeover_policy=table_pb2.TAKEOVER_POLICY_FORFEIT,
        )
        clock.turn_time.FromNanoseconds(int(self.options.turn_time_s * 1e9))
        clock.round_start_hold.FromNanoseconds(0)  # no person reads the scores between a league's rounds
        return clock

    async def play(self, spec: GameSpec) -> GameResult:
        """Play one scheduled game at a new league-seeded table; its result as the host's log says."""
        assert self.channel is not None
        started = time.perf_counter()
        timeout = self.options.call_timeout_s
        owner = TableClient(self.channel, timeout=timeout)
        created = await owner.create_table(
            self.config.preset, self.ruleset_pb, len(spec.seats), name=spec.game_id, clock=self._clock(),
            manual_start=True, league_seed=spec.seed, league_seat_draws=self.config.seat_draws,
        )
        clients = [TableClient(self.channel, timeout=timeout) for _ in spec.seats]
        tokens = []
        for seat, (client, name) in enumerate(zip(clients, spec.seats, strict=True)):
            tokens.append((await client.join(created.table_id, name, seat=seat)).token)
        tasks: list[asyncio.Future[None]]
        if self.seat_processes:  # the bots play from their own process, over loopback
            process = self.seat_processes[spec.index % len(self.seat_processes)]
            tasks = [process.submit(self._job(spec, created.table_id, tokens))]
        else:  # the bots play on this event loop
            tasks = [
                asyncio.ensure_future(self._play_seat(client, name, spec, created.table_id, seat))
                for seat, (client, name) in enumerate(zip(clients, spec.seats, strict=True))
            ]
        await self._until_launched(owner, created.table_id, spec, tasks)
        await owner.start_table(table_id=created.table_id)
        stalled = False
        try:
            stalled = not await self._until_finished(owner, created.table_id, tasks)
            if stalled:
                log.warning("game %s stalled: ending it", spec.game_id)
                for task in tasks:
                    task.cancel()
                for client in clients:  # every seat leaves: the match ends, never left hanging
                    with contextlib.suppress(Exception):
                        await client.leave()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        blobs = [blob for _, blob in self.host.store.public_events(created.table_id)]
        events = [events_pb2.Event.FromString(blob) for blob in blobs]
        outcome = read_outcome(events, len(spec.seats), self.config.unit, self.config.ruleset().scoring)
        outcomes = ("stall",) * len(spec.seats) if stalled else outcome.outcomes
        return GameResult(
            game_id=spec.game_id, index=spec.index, cycle=spec.cycle, deal=spec.deal, seed=spec.seed,
            rotation=spec.rotation, seats=spec.seats, ranks=outcome.ranks, points=outcome.points,
            outcomes=outcomes, steps=len(events), path="grpc", seconds=time.perf_counter() - started,
            log=encode_log(blobs),
        )

    async def _until_launched(
        self, owner: TableClient, table_id: str, spec: GameSpec, tasks: Sequence[asyncio.Future[None]]
    ) -> None:
        """Wait until every launched program's seat is connected (its event stream open), at most
        `launch_wait_s`, and only while every seat's player still plays; a program not connected by then
        starts on the table's clock like any late player."""
        launched = [seat for seat, name in enumerate(spec.seats) if _is_launched(self.entrants[name])]
        if not launched:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.launch_wait_s
        while loop.time() < deadline and not any(task.done() for task in tasks):
            seats = (await owner.get_table(table_id)).seats
            if all(seats[seat].connected for seat in launched):
                return
            await asyncio.sleep(LAUNCH_CHECK_S)
        log.warning("game %s: a launched bot is not connected; starting the table anyway", spec.game_id)

    async def _until_finished(self, owner: TableClient, table_id: str, tasks: list[asyncio.Future[None]]) -> bool:
        """Wait for the table's match to end: True once it has, False at the game's timeout (a stall).

        Every runner returns when the match ends for it; a seat's runner that hangs (its bot stopped
        answering, and the host's clock forfeited it) never does, so whenever a runner returns, and
        every `FINISHED_CHECK_S` while they all play on, the host is asked whether the table is finished."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.game_timeout_s
        pending = set(tasks)
        while pending:
            left = deadline - loop.time()
            if left <= 0:
                return False
            _, pending = await asyncio.wait(
                pending, timeout=min(left, FINISHED_CHECK_S), return_when=asyncio.FIRST_COMPLETED
            )
            if pending and (await owner.get_table(table_id)).status == table_pb2.TABLE_STATUS_FINISHED:
                return True
        return True

    def _job(self, spec: GameSpec, table_id: str, tokens: Sequence[str]) -> dict[str, Any]:
        """One game's seats as a job for a seat process (`unonet.league.seats`)."""
        seats = []
        for seat, (name, token) in enumerate(zip(spec.seats, tokens, strict=True)):
            entry = self.config.bot(name)
            seats.append({"seat": seat, "token": token, "name": name, "source": entry.source,
                          "target": entry.target, "seed": bot_seed(entry, spec.seed)})
        return {"id": spec.game_id, "table_id": table_id, "seats": seats, "max_restarts": self.options.max_restarts}

    async def _play_seat(self, client: TableClient, name: str, spec: GameSpec, table_id: str, seat: int) -> None:
        """Play one seat on this loop: a program under its supervisor, a policy by `_seat`."""
        played = self.entrants[name]
        if isinstance(played, Program):
            seed = bot_seed(self.config.bot(name), spec.seed)
            await play_program(client, played, self.address, table_id, seat, self.options.max_restarts, seed)
        else:
            await self._seat(client, self._bot(name, spec), table_id, seat)

    def _bot(self, name: str, spec: GameSpec) -> Bot:
        build = self.entrants[name]
        assert not isinstance(build, Program), "a program is played by play_program, not as a policy"
        return build(bot_seed(self.config.bot(name), spec.seed))

    async def _seat(self, client: TableClient, bot: Bot, table_id: str, seat: int) -> None:
        """Play the seat on this loop to the match's end (`seats.play_seat`: restarts, then leaving)."""
        await play_seat(client, bot, table_id, seat, self.options.max_restarts)

    async def play_many(self, specs: Sequence[GameSpec]) -> asyncio.Queue[GameResult | BaseException]:
        """Start every game, `concurrency` at a time; each result (or the error) arrives on the queue."""
        out: asyncio.Queue[GameResult | BaseException] = asyncio.Queue()
        gate = asyncio.Semaphore(self.options.concurrency)

        async def one(spec: GameSpec) -> None:
            async with gate:
                try:
                    await out.put(await self.play(spec))
                except Exception as error:
                    await out.put(error)

        for spec in specs:
            asyncio.get_running_loop().create_task(one(spec))
        return out


def _remove_stale_scratch() -> None:
    """Remove the scratch folders of league runners that are no longer running (named by their pid)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        pid = folder.name.removeprefix(SCRATCH_PREFIX).split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:  # gone: its folder is garbage
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:  # alive, another user's
            pass


def _is_launched(played: Factory | Program) -> bool:
    return isinstance(played, Program) and played.source == "launch"


class _SeatProcess:
    """A `python -m unonet.league.seats` child: jobs out on its stdin, answers back on its stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.waiting: dict[str, asyncio.Future[None]] = {}
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def start(cls, address: str) -> _SeatProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "unonet.league.seats", address,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )
        return cls(process)

    def submit(self, job: dict[str, Any]) -> asyncio.Future[None]:
        """Send one game's job; the future is done when the child says its seats are done."""
        assert self.process.stdin is not None
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting[str(job["id"])] = done
        self.process.stdin.write((json.dumps(job) + "\n").encode())
        done.add_done_callback(functools.partial(self._cancelled, str(job["id"])))
        return done

    def _cancelled(self, key: str, future: asyncio.Future[None]) -> None:
        self.waiting.pop(key, None)
        if future.cancelled() and self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.write((json.dumps({"cancel": key}) + "\n").encode())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            answer = json.loads(line)
            done = self.waiting.get(str(answer["id"]))
            if done is not None and not done.done():
                if answer.get("done"):
                    done.set_result(None)
                else:
                    done.set_exception(RuntimeError(f"the seat process failed a game: {answer.get('error')}"))
        for done in self.waiting.values():  # the child is gone: every game it played is lost
            if not done.done():
                done.set_exception(RuntimeError("the seat process exited"))

    async def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 10.0)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


def play_networked(
    config: LeagueConfig, specs: Sequence[GameSpec], options: NetworkOptions | None = None
) -> Iterator[GameResult]:
    """The default player: an embedded host on its own event loop thread; results as games finish.

    Raises whatever a game raised (after the games already finished have been yielded)."""
    results: queue.Queue[GameResult | BaseException | None] = queue.Queue()
    stop = threading.Event()

    async def main() -> None:
        async with NetworkedLeague(config, options) as league:
            pending = await league.play_many(specs)
            for _ in specs:
                item = await pending.get()
                results.put(item)
                if stop.is_set():
                    return

    def thread_main() -> None:
        try:
            asyncio.run(main())
        except BaseException as error:
            results.put(error)
        finally:
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
        stop.set()
