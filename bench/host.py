"""Speed of the host over real gRPC on loopback, against a bare grpc.aio ceiling (issue 3, "Speed").

One host process (`unonet serve`, SQLite store in a temporary folder, `--bot-delay 0`) and N client
processes. Each client process drives T tables at once; every seat of every table is one of its own
players (no host bots): each seat has its own WatchEvents stream (with `batch`, several events per
message, as the SDK asks) and acts when the last event of a batch gives it
`your_legal_actions.required`. The move: a play if any (uniformly among them, naming a random colour
when needed, always calling UNO), else ChooseColor / Draw / Pass / the other required commands,
at once or after `--think-ms`. A game is one round (`target_score = 1`); a table that finishes is
replaced by a new one until time is up.

Measured through the host, in three runs, each with a fresh host:
  * the throughput run (`--tables`, 100, or 20 with --quick; flat out), played twice, once before the
    ceiling and once after it, each next to one of the ceiling's two relay runs, so that the machine's
    drift over the minutes between them moves both sides of the ratio: commands/s, the PlayService
    commands answered inside the measuring window, all clients summed, as the mean of the two (each in
    `commands_per_s_runs`, and its ratio to the relay run next to it in `ratio_runs`); cores
    used by the host and the clients and CPU milliseconds per command for each; latency at saturation
    (`p99_ms_flat_out`, first run);
  * the latency run (`--latency-tables` 100, each seat thinking `--latency-think-ms` 500 ms on average
    before it acts: the issue's "100 active tables"): `p50_ms`, `p99_ms` from sending a command to the
    arrival of its CommandResult.last_event_number at EVERY seat's stream of that table (the slowest
    seat), measured in the client process: the medians of every unflooded paced run's own (this one and
    the flood pairs' others below, `latency_runs`, each on a fresh host; each run's in `p50_ms_runs`,
    `p99_ms_runs`, all their samples pooled in `p99_ms_pooled`), with what the machine did meanwhile in
    `latency_machine_runs` (machine_probe.py: the disk's fsync times, which every acknowledged command
    waits on under synchronous=FULL, and the CPU the hypervisor stole), so a p99 set by the machine
    shows as such;
  * the flooded runs: the latency run again on a fresh host that keeps its default rate per token
    (100 commands/s), with one more client process whose one token sends CallUno from 64 concurrent
    callers flat out, `--flood-repeats` times (3), each beside an unflooded run of its own on a fresh
    host (the first is the latency run): `flood_p99_ms`, its ratio to the unflooded run beside it
    (`flood_p99_ratio`) and the other tables' commands/s ratio, each the median over the pairs (every
    pair's in `*_runs`: on a shared machine one run's p99 is noise, a ratio within a pair much less),
    and the floods' answers by status (`flood_by_status`). All clients dial
    from 127.0.0.1, so every run lifts the host's limits per IP address (they would count every client
    as one peer), and all but the flooded run the rate per token too.
The ceiling (a bare grpc.aio server in its own process, raw-bytes generic handlers, no protobuf, stock
thread scheduling; `--ceiling-helper-threads batch` gives it the host's SCHED_BATCH helper threads, a
stricter like-for-like ceiling), with the same client processes, tables and seats:
  * the relay, which is `ceiling_per_s` and the denominator of `ratio`: the same number of no-op unary
    calls and streamed messages as the host run, in the same pattern, measured twice (first and last of
    the ceiling's phases; the mean, each in `ceiling_per_s_runs`). Each table plays game after game,
    as the host clients do: 1 + seats no-op calls one after another (where they call CreateTable and
    JoinTable), a new stream per seat, then the host run's mean number of commands per game. A seat's
    no-op call makes the server queue one message (of the host run's mean message size) for every
    stream of that table, each written by its stream's task as the host writes; the next seat calls as
    soon as its own stream has the message. Latency to every seat is measured as for the host;
  * stricter figures beside it: no-op unary calls/s alone (one caller per table), and server-streamed
    messages/s (200-byte messages) on as many streams as there are seats.
Stalled streams: a fresh host, 200 raw HTTP/2 WatchEvents streams stalled by flow control (a 1 KiB
window never reopened, on connections that stay healthy) while 1,000 chat events of 280 characters
reach their table: `stall_kb_per_stream`, the host's RSS growth beyond what the same events cost on
a table nobody watches, per stream, before the write timeout cuts them.
Memory: a fresh host, 1,000 tables of 4 seats, each with 4 players joined (so each match is dealt and
waiting for its first move; nobody plays), then VmRSS of the host process from /proc/PID/status.

    .venv/bin/python bench/host.py                  # full run: 100 tables flat out, a readable report
    .venv/bin/python bench/host.py --quick --json   # under ~90 s; the last line is one JSON object
    .venv/bin/python bench/host.py --profile        # also py-spy the host during the game run (--gil: the
                                                    # thread holding the interpreter lock only)
    .venv/bin/python bench/host.py --event-loop asyncio   # the host on asyncio's own loop, not uvloop
                                                          # (the relay always runs on asyncio's)
    .venv/bin/python bench/host.py --host-python .venv-compiled/bin/python   # the compiled build's host
                                                          # (make compiled); clients and relay stay pure

Everything binds and dials 127.0.0.1 only; every loop is bounded in count and time; every process
this script starts is stopped at the end, on error too.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import collections
import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from machine_probe import MachineProbe

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
READY_TIMEOUT_S = 60.0
RPC_TIMEOUT_S = 10.0
STREAM_MESSAGE = b"x" * 200
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 4 * 1024 * 1024)]


# ============================================================================ shared helpers


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def disk_written(pid: int) -> int:
    """Bytes the process has caused to be written to storage (/proc/PID/io `write_bytes`: its SQLite
    files, as they reach the disk), or 0 where the kernel does not count them."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


async def wait_for_go() -> None:
    """Block until the orchestrator writes a line on stdin (all processes start measuring together)."""
    loop = asyncio.get_running_loop()
    line = await asyncio.wait_for(loop.run_in_executor(None, sys.stdin.readline), READY_TIMEOUT_S)
    if not line:
        raise SystemExit("orchestrator went away")


def emit(obj: Any) -> None:
    print(json.dumps(obj), flush=True)


# ============================================================================ role: host client


class Seat:
    __slots__ = ("acted_number", "index", "legal", "legal_number", "sent", "token", "wake")

    def __init__(self, index: int, token: str) -> None:
        self.index = index
        self.token = token
        self.legal: Any = None
        self.legal_number = 0
        self.acted_number = 0
        self.wake = asyncio.Event()
        self.sent = 0


class Stats:
    def __init__(self) -> None:
        self.window_start = 0.0
        self.window_end = 0.0
        self.commands = 0
        self.commands_all = 0  # every command answered, in the window or not (for CPU per command)
        self.latencies: list[float] = []
        self.refused = 0
        self.errors = 0
        self.games = 0
        self.abandoned = 0
        self.events = 0
        self.messages = 0
        self.message_bytes = 0
        self.lobby_calls = 0
        self.finished_game_commands = 0  # the commands of the games that finished: commands per game
        self.lobby_s: list[float] = []

    def in_window(self, t: float) -> bool:
        return self.window_start <= t <= self.window_end


class Game:
    """One table with all of its seats played by this process."""

    def __init__(self, stubs: Any, pb: Any, stats: Stats, seat_count: int, rng: random.Random,
                 batch: int = 0, think_s: float = 0.0) -> None:
        self.batch = batch
        self.think_s = think_s
        self.stubs = stubs
        self.pb = pb
        self.stats = stats
        self.seat_count = seat_count
        self.rng = rng
        self.table_id = ""
        self.seats: list[Seat] = []
        self.high: list[int] = []  # per seat, the newest event number its stream delivered
        self.pending: collections.deque[tuple[int, float]] = collections.deque()  # (last event, sent at)
        self.over = asyncio.Event()
        self.commands = 0

    async def setup(self) -> None:
        pb = self.pb
        t0 = time.perf_counter()
        created = await self.stubs.lobby.CreateTable(pb.lobby.CreateTableRequest(
            name="bench", preset="standard", seat_count=self.seat_count,
            overrides=pb.rules.Ruleset(target_score=1),
            clock=pb.table.ClockSettings(turn_time=pb.Duration(seconds=600)),
        ), timeout=RPC_TIMEOUT_S)
        self.table_id = created.table.table_id
        for i in range(self.seat_count):
            joined = await self.stubs.lobby.JoinTable(pb.lobby.JoinTableRequest(
                table_id=self.table_id, name=f"p{i}", role=pb.lobby.JOIN_ROLE_PLAYER), timeout=RPC_TIMEOUT_S)
            self.seats.append(Seat(joined.seat, joined.token))
        self.seats.sort(key=lambda s: s.index)
        self.high = [0] * len(self.seats)
        # When every seat had reached each newest common event number (the latest few transitions).
        self.reached: collections.deque[tuple[int, float]] = collections.deque([(0, 0.0)], maxlen=64)
        self.stats.lobby_calls += 1 + self.seat_count
        self.stats.lobby_s.append(time.perf_counter() - t0)

    def _arrived(self, seat: int, number: int, now: float) -> None:
        """Seat `seat` has every event up to `number` (streams are ordered): settle the commands whose
        last event has now reached every seat, at this moment."""
        self.high[seat] = number
        reached = min(self.high)
        if reached > self.reached[-1][0]:
            self.reached.append((reached, now))
        while self.pending and self.pending[0][0] <= reached:
            _, t0 = self.pending.popleft()
            if self.stats.in_window(t0) and self.stats.in_window(now):
                self.stats.latencies.append(now - t0)

    async def read(self, seat: Seat) -> None:
        pb = self.pb
        stream = self.stubs.watch.WatchEvents(pb.watch.WatchEventsRequest(
            table_id=self.table_id, token=seat.token, batch=self.batch))
        try:
            async for response in stream:
                now = time.perf_counter()
                events = response.events if self.batch > 1 else (response.event,)
                if self.stats.in_window(now):
                    self.stats.messages += 1
                    self.stats.events += len(events)
                    if self.stats.messages % 8 == 0:  # a sample is enough for the mean size
                        self.stats.message_bytes += 8 * response.ByteSize()
                for event in reversed(events):  # the newest legal actions are the ones that count
                    if event.HasField("your_legal_actions"):
                        seat.legal = event.your_legal_actions
                        seat.legal_number = event.number
                        if seat.legal.required:
                            seat.wake.set()
                        break
                self._arrived(seat.index, events[-1].number, now)
                if any(event.WhichOneof("payload") == "match_ended" for event in events):
                    self.over.set()
                    for s in self.seats:
                        s.wake.set()
                    return
        finally:
            stream.cancel()

    async def act(self, seat: Seat) -> None:
        """Answer every LegalActions that requires this seat to act, once each."""
        while not self.over.is_set():
            await seat.wake.wait()
            seat.wake.clear()
            if self.over.is_set():
                return
            legal = seat.legal
            if legal is None or not legal.required or seat.legal_number <= seat.acted_number:
                continue
            seat.acted_number = seat.legal_number
            if self.think_s:  # a player's thinking time: the table's load stays below saturation
                await asyncio.sleep(self.think_s * (0.5 + self.rng.random()))
                if self.over.is_set():
                    return
                if seat.legal_number > seat.acted_number:  # something happened meanwhile: look again
                    seat.wake.set()
                    continue
            await self.command(seat, legal)

    async def unstick(self) -> None:
        """A safety net, not a synchronisation: if the table has not moved for two seconds, ask every
        seat's view (a wake-up lost to a refused command must not stall the bench)."""
        seen = -1
        while not self.over.is_set():
            await asyncio.sleep(2.0)
            if max(self.high) != seen:
                seen = max(self.high)
                continue
            for seat in self.seats:
                view = (await self.stubs.watch.GetView(self.pb.watch.GetViewRequest(
                    table_id=self.table_id, token=seat.token), timeout=RPC_TIMEOUT_S)).view
                if view.legal_actions.required and view.event_number >= seat.legal_number:
                    seat.legal, seat.legal_number = view.legal_actions, view.event_number
                    seat.acted_number = min(seat.acted_number, view.event_number - 1)
                    seat.wake.set()

    async def command(self, seat: Seat, legal: Any) -> None:
        import grpc

        pb, stubs, rng = self.pb, self.stubs, self.rng
        seat.sent += 1
        common = {"table_id": self.table_id, "token": seat.token, "command_id": f"c{seat.sent}"}
        color = rng.randint(1, 4)
        if legal.choose_color:
            call = stubs.play.ChooseColor(pb.play.ChooseColorRequest(color=color, **common), timeout=RPC_TIMEOUT_S)
        elif legal.plays:
            option = rng.choice(legal.plays)
            # Always call UNO (ignored unless the play leaves one card), as a careful player does: no
            # UNO-catch race then holds the table for its reaction time (the host's fairness rules).
            request = pb.play.PlayCardsRequest(cards=option.cards, reaction_window_id=option.reaction_window_id,
                                               call_uno=True, **common)
            if option.needs_color:
                request.color = color
            call = stubs.play.PlayCards(request, timeout=RPC_TIMEOUT_S)
        elif legal.HasField("draw"):
            call = stubs.play.Draw(pb.play.DrawRequest(**common), timeout=RPC_TIMEOUT_S)
        elif legal.pass_turn:
            call = stubs.play.Pass(pb.play.PassRequest(**common), timeout=RPC_TIMEOUT_S)
        elif legal.react_window_ids:
            call = stubs.play.React(pb.play.ReactRequest(reaction_window_id=legal.react_window_ids[0], **common),
                                    timeout=RPC_TIMEOUT_S)
        elif legal.swap_target_seats:
            call = stubs.play.ChooseSwapTarget(pb.play.ChooseSwapTargetRequest(
                target_seat=rng.choice(legal.swap_target_seats), **common), timeout=RPC_TIMEOUT_S)
        elif legal.HasField("five_swap"):
            call = stubs.play.FiveSwap(pb.play.FiveSwapRequest(
                target_seat=rng.choice(legal.five_swap.target_seats), card=rng.choice(legal.five_swap.cards),
                **common), timeout=RPC_TIMEOUT_S)
        elif legal.give_cards:
            call = stubs.play.GiveCard(pb.play.GiveCardRequest(card=rng.choice(legal.give_cards), **common),
                                       timeout=RPC_TIMEOUT_S)
        elif legal.challenge:
            call = stubs.play.Challenge(pb.play.ChallengeRequest(**common), timeout=RPC_TIMEOUT_S)
        else:
            return
        t0 = time.perf_counter()
        try:
            response = await call
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                self.stats.refused += 1  # a race with our own stale view: a newer LegalActions is coming
            else:
                self.stats.errors += 1
            return
        t1 = time.perf_counter()
        self.stats.commands_all += 1
        self.commands += 1
        if self.stats.in_window(t0) and self.stats.in_window(t1):
            self.stats.commands += 1
        last = response.result.last_event_number
        if min(self.high) >= last:  # every seat already had it when the reply came: since when?
            done = next((at for number, at in self.reached if number >= last), t1)
            if self.stats.in_window(t0) and self.stats.in_window(done):
                self.stats.latencies.append(done - t0)
        else:
            bisect.insort(self.pending, (last, t0))

    async def play(self, deadline: float) -> bool:
        readers = [asyncio.create_task(self.read(seat)) for seat in self.seats]
        actors = [asyncio.create_task(self.act(seat)) for seat in self.seats]
        actors.append(asyncio.create_task(self.unstick()))
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.over.wait(), timeout=max(0.0, deadline - time.perf_counter()))
            return self.over.is_set()
        finally:
            for task in (*actors, *readers):
                task.cancel()
            for task in (*actors, *readers):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


class Protos:
    def __init__(self) -> None:
        from google.protobuf.duration_pb2 import Duration

        from unonet.v1 import (
            chat_service_pb2,
            chat_service_pb2_grpc,
            lobby_service_pb2,
            lobby_service_pb2_grpc,
            play_service_pb2,
            play_service_pb2_grpc,
            rules_pb2,
            table_pb2,
            watch_service_pb2,
            watch_service_pb2_grpc,
        )

        self.Duration = Duration
        self.lobby, self.play, self.watch = lobby_service_pb2, play_service_pb2, watch_service_pb2
        self.rules, self.table = rules_pb2, table_pb2
        self.lobby_grpc, self.play_grpc, self.watch_grpc = (
            lobby_service_pb2_grpc, play_service_pb2_grpc, watch_service_pb2_grpc)
        self.chat, self.chat_grpc = chat_service_pb2, chat_service_pb2_grpc


class Stubs:
    def __init__(self, channel: Any, pb: Protos) -> None:
        self.lobby = pb.lobby_grpc.LobbyServiceStub(channel)
        self.play = pb.play_grpc.PlayServiceStub(channel)
        self.watch = pb.watch_grpc.WatchServiceStub(channel)


async def role_host_client(args: argparse.Namespace) -> None:
    import grpc

    pb = Protos()
    stats = Stats()
    rng = random.Random(args.seed)
    async with grpc.aio.insecure_channel(f"{LOOPBACK}:{args.port}", options=CHANNEL_OPTIONS) as channel:
        stubs = Stubs(channel, pb)
        # The first game of every slot is set up before the start line, so the window starts hot.
        first = [Game(stubs, pb, stats, args.seats, random.Random(rng.random()), args.batch, args.think_ms / 1e3)
                 for _ in range(args.tables)]
        await asyncio.gather(*(g.setup() for g in first))
        emit({"ready": True})
        await wait_for_go()
        start = time.perf_counter()
        stats.window_start = start + args.warmup
        stats.window_end = start + args.warmup + args.duration
        stop_at = stats.window_end + 0.5
        games_started = len(first)

        async def slot(game: Game) -> None:
            nonlocal games_started
            while time.perf_counter() < stop_at:
                if await game.play(stop_at):
                    stats.games += 1
                    stats.finished_game_commands += game.commands
                else:
                    stats.abandoned += 1
                    return
                if games_started >= args.max_games:
                    return
                games_started += 1
                game = Game(stubs, pb, stats, args.seats, random.Random(rng.random()), args.batch,
                            args.think_ms / 1e3)
                await game.setup()

        await asyncio.gather(*(slot(g) for g in first))
    emit({
        "commands": stats.commands, "commands_all": stats.commands_all, "window_s": args.duration,
        "latencies_ms": [x * 1e3 for x in stats.latencies],
        "refused": stats.refused, "errors": stats.errors, "games": stats.games, "abandoned": stats.abandoned,
        "events": stats.events, "messages": stats.messages, "message_bytes": stats.message_bytes,
        "lobby_calls": stats.lobby_calls, "finished_game_commands": stats.finished_game_commands,
        "cpu_s": sum(os.times()[:2]),
        "setup_ms_p50": statistics.median(stats.lobby_s) * 1e3 if stats.lobby_s else None,
    })


# ============================================================================ role: flood client


FLOOD_CONCURRENCY = 64


async def role_flood_client(args: argparse.Namespace) -> None:
    """One seat's token sending CallUno as fast as 64 concurrent callers can, for the whole window:
    a misbehaving client. Its answers are counted by status (RATE_LIMITED once past its burst)."""
    import grpc

    pb = Protos()
    async with grpc.aio.insecure_channel(f"{LOOPBACK}:{args.port}", options=CHANNEL_OPTIONS) as channel:
        stubs = Stubs(channel, pb)
        created = await stubs.lobby.CreateTable(pb.lobby.CreateTableRequest(
            name="flood", preset="standard", seat_count=2, manual_start=True), timeout=RPC_TIMEOUT_S)
        table_id = created.table.table_id
        token = (await stubs.lobby.JoinTable(pb.lobby.JoinTableRequest(
            table_id=table_id, name="flood", role=pb.lobby.JOIN_ROLE_PLAYER), timeout=RPC_TIMEOUT_S)).token
        emit({"ready": True})
        await wait_for_go()
        stop_at = time.perf_counter() + args.warmup + args.duration
        codes: collections.Counter[str] = collections.Counter()
        serial = 0

        async def flood() -> None:
            nonlocal serial
            while time.perf_counter() < stop_at:
                serial += 1
                try:
                    await stubs.play.CallUno(pb.play.CallUnoRequest(
                        table_id=table_id, token=token, command_id=f"f{serial}"), timeout=RPC_TIMEOUT_S)
                    codes["OK"] += 1
                except grpc.aio.AioRpcError as error:
                    codes[error.code().name] += 1

        await asyncio.gather(*(flood() for _ in range(FLOOD_CONCURRENCY)))
    emit({"calls": sum(codes.values()), "calls_per_s": sum(codes.values()) / (args.warmup + args.duration),
          "by_status": dict(codes), "cpu_s": sum(os.times()[:2])})


# ============================================================================ role: stall client


async def role_stall_client(args: argparse.Namespace) -> None:
    """Memory per stalled stream: K chat events on a table nobody watches (the control), then N raw
    HTTP/2 streams on another table, each stalled by flow control (window 1 KiB, frames read, the window
    never reopened), and K chat events there. The orchestrator reads the host's RSS at each step."""
    import grpc
    import h2.config
    import h2.connection
    import h2.settings

    pb = Protos()
    async with grpc.aio.insecure_channel(f"{LOOPBACK}:{args.port}", options=CHANNEL_OPTIONS) as channel:
        stubs = Stubs(channel, pb)
        chat = pb.chat_grpc.ChatServiceStub(channel)
        tables = []
        for name in ("control", "stalled"):
            created = await stubs.lobby.CreateTable(pb.lobby.CreateTableRequest(
                name=name, preset="standard", seat_count=2, manual_start=True), timeout=RPC_TIMEOUT_S)
            token = (await stubs.lobby.JoinTable(pb.lobby.JoinTableRequest(
                table_id=created.table.table_id, name="eve", role=pb.lobby.JOIN_ROLE_SPECTATOR),
                timeout=RPC_TIMEOUT_S)).token
            tables.append((created.table.table_id, token))

        async def chats(table_id: str, token: str) -> None:
            for i in range(args.stall_events):
                await chat.SendChat(pb.chat.SendChatRequest(table_id=table_id, token=token, command_id=f"c{i}",
                                                            text="x" * 280), timeout=RPC_TIMEOUT_S)

        emit({"ready": True})
        await wait_for_go()
        await chats(*tables[0])
        emit({"phase": "control"})
        await wait_for_go()
        streams = []
        body = pb.watch.WatchEventsRequest(table_id=tables[1][0], token=tables[1][1]).SerializeToString()

        async def keep_reading(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: Any) -> None:
            while data := await reader.read(65536):
                conn.receive_data(data)  # frames read, pings answered, the window never reopened
                writer.write(conn.data_to_send())

        for _ in range(args.stall_streams):
            reader, writer = await asyncio.open_connection(LOOPBACK, args.port)
            conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            conn.initiate_connection()
            conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1024})
            conn.send_headers(1, [(":method", "POST"), (":scheme", "http"),
                                  (":path", "/unonet.v1.WatchService/WatchEvents"),
                                  (":authority", f"{LOOPBACK}:{args.port}"), ("content-type", "application/grpc"),
                                  ("te", "trailers")])
            conn.send_data(1, b"\0" + len(body).to_bytes(4, "big") + body, end_stream=True)
            writer.write(conn.data_to_send())
            streams.append(asyncio.create_task(keep_reading(reader, writer, conn)))
        await asyncio.sleep(0.5)
        t0 = time.perf_counter()
        await chats(*tables[1])
        emit({"phase": "stalled", "seconds": time.perf_counter() - t0})
        await wait_for_go()
        for task in streams:
            task.cancel()


# ============================================================================ role: memory client


async def role_memory_client(args: argparse.Namespace) -> None:
    import grpc

    pb = Protos()
    async with grpc.aio.insecure_channel(f"{LOOPBACK}:{args.port}", options=CHANNEL_OPTIONS) as channel:
        stubs = Stubs(channel, pb)
        todo = list(range(args.tables))
        failures = 0

        async def worker() -> None:
            nonlocal failures
            while todo:
                todo.pop()
                try:
                    created = await stubs.lobby.CreateTable(pb.lobby.CreateTableRequest(
                        name="idle", preset="standard", seat_count=4,
                        clock=pb.table.ClockSettings(turn_time=pb.Duration(seconds=3600))), timeout=RPC_TIMEOUT_S)
                    for i in range(4):
                        await stubs.lobby.JoinTable(pb.lobby.JoinTableRequest(
                            table_id=created.table.table_id, name=f"p{i}", role=pb.lobby.JOIN_ROLE_PLAYER),
                            timeout=RPC_TIMEOUT_S)
                except grpc.aio.AioRpcError:
                    failures += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(32)))
        emit({"tables": args.tables, "failures": failures, "seconds": time.perf_counter() - t0})


# ============================================================================ role: ceiling server and client

CEILING_SERVICE = "bench.Ceiling"
# The ceiling server's phases, in order. The relay (the ratio's denominator) runs first and last, each
# next to one of the host's two game runs, and the ratio takes the mean of both: the machine's speed
# drifts over minutes, and one relay measured between the two game runs was the noisier side of the
# ratio (±5% between runs, against ±1% for the host's mean).
CEILING_PHASES = ("relay", "unary", "stream", "relay")


async def role_ceiling_server(args: argparse.Namespace) -> None:
    import grpc

    async def noop(request: bytes, context: Any) -> bytes:
        return b""

    async def flood(request: bytes, context: Any) -> Any:
        limit = int.from_bytes(request or b"\x00", "big") or 10_000_000
        for _ in range(limit):
            yield STREAM_MESSAGE

    # The relay: the host's traffic with none of its work. Subscribe(key) is one seat's stream of a
    # table; Poke(key) is a command that answers at once after queueing one message for every stream
    # of that table, each written by its own stream task (context.write of bytes, as the host does).
    message = b"x" * args.message_bytes
    subscribers: dict[bytes, list[asyncio.Queue[bytes]]] = {}

    async def subscribe(request: bytes, context: Any) -> None:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        subscribers.setdefault(request, []).append(queue)
        try:
            await context.write(b"")  # subscribed: the client pokes only once every seat has this
            while True:
                await context.write(await queue.get())
        finally:
            subscribers[request].remove(queue)
            if not subscribers[request]:
                del subscribers[request]

    async def poke(request: bytes, context: Any) -> bytes:
        for queue in subscribers.get(request, ()):
            queue.put_nowait(message)
        return b""

    handler = grpc.method_handlers_generic_handler(CEILING_SERVICE, {
        "Noop": grpc.unary_unary_rpc_method_handler(noop),
        "Flood": grpc.unary_stream_rpc_method_handler(flood),
        "Subscribe": grpc.unary_stream_rpc_method_handler(subscribe),
        "Poke": grpc.unary_unary_rpc_method_handler(poke),
    })
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(f"{LOOPBACK}:0")
    await server.start()
    if args.ceiling_helper_threads == "batch":  # the host's own policy, for a like-for-like ceiling
        from unonet.host.threads import HelperThreads

        HelperThreads().start()
    print(f"ceiling listening on {LOOPBACK}:{port}", flush=True)
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(server.wait_for_termination(), timeout=args.lifetime)
    await server.stop(grace=0)


async def role_ceiling_client(args: argparse.Namespace) -> None:
    import grpc

    async with grpc.aio.insecure_channel(f"{LOOPBACK}:{args.port}", options=CHANNEL_OPTIONS) as channel:
        noop = channel.unary_unary(f"/{CEILING_SERVICE}/Noop")
        flood = channel.unary_stream(f"/{CEILING_SERVICE}/Flood")
        subscribe = channel.unary_stream(f"/{CEILING_SERVICE}/Subscribe")
        poke = channel.unary_unary(f"/{CEILING_SERVICE}/Poke")
        await noop(b"", timeout=RPC_TIMEOUT_S)
        emit({"ready": True})

        async def unary_phase() -> dict[str, Any]:
            """No-op unary calls, one caller per table, each sending its next call when the last returns."""
            latencies: list[float] = []
            count = 0
            start = time.perf_counter()
            w0, w1 = start + args.warmup, start + args.warmup + args.duration

            async def caller() -> None:
                nonlocal count
                while (t0 := time.perf_counter()) < w1:
                    await noop(b"", timeout=RPC_TIMEOUT_S)
                    t1 = time.perf_counter()
                    if t0 >= w0 and t1 <= w1:
                        count += 1
                        latencies.append(t1 - t0)

            await asyncio.gather(*(caller() for _ in range(args.tables)))
            return {"calls": count, "p50_ms": percentile(latencies, 50) * 1e3,
                    "p99_ms": percentile(latencies, 99) * 1e3}

        async def stream_phase() -> dict[str, Any]:
            """Server streaming flat out, one stream per seat."""
            received = 0
            start = time.perf_counter()
            w0, w1 = start + args.warmup, start + args.warmup + args.duration

            async def reader() -> None:
                nonlocal received
                call = flood(b"", timeout=args.warmup + args.duration + RPC_TIMEOUT_S)
                try:
                    async for _ in call:
                        now = time.perf_counter()
                        if now > w1:
                            break
                        if now >= w0:
                            received += 1
                finally:
                    call.cancel()

            await asyncio.gather(*(reader() for _ in range(args.tables * args.seats)))
            return {"messages": received}

        async def relay_phase() -> dict[str, Any]:
            """The issue's ceiling: the same number of no-op unary calls and streamed messages as the host
            run, in the same pattern. Per table, game after game: the set-up calls and a new stream per
            seat, then the host run's mean number of commands per game. One seat pokes (a no-op command
            whose "events" are one message on each of the table's streams); the next seat pokes as soon
            as its own stream has the message, as a player acts on the event that gives it the turn."""
            relay: dict[str, Any] = {"calls": 0, "calls_all": 0, "latencies": []}
            start = time.perf_counter()
            w0, w1 = start + args.warmup, start + args.warmup + args.duration

            async def relay_table(table: int) -> None:
                """Game after game, as a host client plays: the set-up calls (CreateTable, then JoinTable
                per seat: no-op calls here), one new stream per seat, then the game's commands."""
                game = 0
                while time.perf_counter() < w1:
                    game += 1
                    for _ in range(1 + args.seats):
                        await noop(b"", timeout=RPC_TIMEOUT_S)
                    await relay_game(f"{args.seed}-{table}-{game}".encode())

            async def relay_game(key: bytes) -> None:
                got = [0] * args.seats
                arrived: list[dict[int, float]] = [{} for _ in range(args.seats)]
                changed = asyncio.Event()
                sent: dict[int, float] = {}

                async def listen(seat: int) -> None:
                    call = subscribe(key, timeout=args.warmup + args.duration + RPC_TIMEOUT_S)
                    try:
                        async for _ in call:
                            arrived[seat][got[seat]] = time.perf_counter()
                            got[seat] += 1
                            changed.set()
                    finally:
                        call.cancel()

                async def until(seats: range, count: int) -> None:
                    """Until every stream of `seats` has had `count` messages (the subscription's included)."""
                    while any(got[seat] < count for seat in seats):
                        changed.clear()
                        await changed.wait()

                listeners = [asyncio.create_task(listen(seat)) for seat in range(args.seats)]
                try:
                    await until(range(args.seats), 1)  # every stream subscribed (message 0)
                    for number in range(1, args.game_commands + 1):
                        if (t0 := time.perf_counter()) >= w1:
                            break
                        await poke(key, timeout=RPC_TIMEOUT_S)
                        t1 = time.perf_counter()
                        relay["calls_all"] += 1
                        next_seat = number % args.seats
                        await until(range(next_seat, next_seat + 1), number + 1)
                        if t0 >= w0 and t1 <= w1:
                            relay["calls"] += 1
                            sent[number] = t0
                finally:
                    for number, t0 in sent.items():  # latency to every seat, as the host run measures it
                        if all(number in a for a in arrived) and (done := max(a[number] for a in arrived)) <= w1:
                            relay["latencies"].append(done - t0)
                    for task in listeners:
                        task.cancel()
                    await asyncio.gather(*listeners, return_exceptions=True)

            cpu0 = sum(os.times()[:2])
            await asyncio.gather(*(relay_table(k) for k in range(args.tables)))
            lat = relay.pop("latencies")
            return {**relay, "cpu_s": sum(os.times()[:2]) - cpu0,
                    "p50_ms": percentile(lat, 50) * 1e3, "p99_ms": percentile(lat, 99) * 1e3}

        phases = {"relay": relay_phase, "unary": unary_phase, "stream": stream_phase}
        for phase in CEILING_PHASES:
            await wait_for_go()
            emit({"phase": phase, **await phases[phase]()})


# ============================================================================ orchestrator


class Procs:
    """Every process this run starts, stopped at the end whatever happens."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.procs: list[tuple[str, asyncio.subprocess.Process]] = []

    async def start(self, name: str, *argv: str, stdin: bool = False) -> asyncio.subprocess.Process:
        log = (self.logs / f"{name}.log").open("wb")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=log, cwd=str(ROOT), env=env,
            limit=64 * 1024 * 1024)  # a client's result line lists every latency sample
        log.close()
        self.procs.append((name, proc))
        return proc

    def tail(self, name: str, lines: int = 15) -> str:
        path = self.logs / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    async def stop(self, proc: asyncio.subprocess.Process) -> None:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()

    async def stop_all(self) -> None:
        for _, proc in reversed(self.procs):
            await self.stop(proc)


async def read_json_line(proc: asyncio.subprocess.Process, name: str, timeout: float, procs: Procs) -> Any:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RuntimeError(f"{name}: no answer within {timeout:.0f} s\n{procs.tail(name)}")
        line = await asyncio.wait_for(proc.stdout.readline(), remaining)
        if not line:
            await proc.wait()
            raise RuntimeError(f"{name} exited ({proc.returncode}) without an answer\n{procs.tail(name)}")
        text = line.decode().strip()
        if text.startswith("{"):
            return json.loads(text)


def go(clients: list[asyncio.subprocess.Process]) -> None:
    for proc in clients:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")


# Every client process of this bench dials from 127.0.0.1, so the host's limits per IP address would
# count them all as one flooding peer: they are lifted (0), and so is the rate per token, whose default
# a seat played flat out on a tiny run can exceed. The flood run keeps the per-token rate (its default).
NO_RATE_LIMITS = ("--peer-commands-per-second", "0", "--joins-per-second", "0", "--commands-per-second", "0")


async def start_host(procs: Procs, name: str, db: Path, commit_interval_ms: float | None = None,
                     helper_threads: str = "batch", limits: tuple[str, ...] = NO_RATE_LIMITS,
                     event_loop: str | None = None, python: str | None = None,
                     ) -> tuple[asyncio.subprocess.Process, int]:
    """`unonet serve` on `python` (None: this interpreter; `--host-python`), printing its port."""
    interval = [] if commit_interval_ms is None else ["--commit-interval", str(commit_interval_ms)]
    proc = await procs.start(name, python or sys.executable, "-m", "unonet.cli", "serve", "--listen", f"{LOOPBACK}:0",
                             "--db", str(db), "--bot-delay", "0", "--helper-threads", helper_threads, *interval,
                             *([] if event_loop is None else ["--event-loop", event_loop]),
                             *limits)
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), READY_TIMEOUT_S)
    text = line.decode().strip()
    if not text.startswith("unonet host listening on"):
        raise RuntimeError(f"host did not start: {text!r}\n{procs.tail(name)}")
    return proc, int(text.split()[4].rsplit(":", 1)[1])


def client_argv(role: str, port: int, tables: int, args: argparse.Namespace, seed: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--role", role, "--port", str(port),
            "--tables", str(tables), "--seats", str(args.seats), "--duration", str(args.duration),
            "--warmup", str(args.warmup), "--seed", str(seed), "--max-games", str(args.max_games),
            "--batch", str(args.batch), "--think-ms", str(args.think_ms), "--game-commands", str(args.game_commands)]


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


async def run_games(procs: Procs, tmp: Path, args: argparse.Namespace, name: str = "games",
                    flood: bool = False) -> dict[str, Any]:
    """The games; with `flood`, one more client process floods one token's commands all along (on a
    host that keeps its default rate per token), and its answers by status are in `flood`."""
    limits = ("--peer-commands-per-second", "0", "--joins-per-second", "0") if flood else NO_RATE_LIMITS
    if flood and args.flood_token_rate is not None:
        limits += ("--commands-per-second", str(args.flood_token_rate))
    host, port = await start_host(procs, f"{name}-host", tmp / f"{name}.db", args.commit_interval_ms,
                                  args.helper_threads, limits, args.event_loop, args.host_python)
    clients = []
    for i, tables in enumerate(split(args.tables, args.clients)):
        clients.append(await procs.start(f"{name}-client{i}",
                                         *client_argv("host-client", port, tables, args, 1000 + i), stdin=True))
    if flood:
        clients.append(await procs.start(f"{name}-flood", *client_argv("flood-client", port, 1, args, 999),
                                         stdin=True))
    for i, proc in enumerate(clients):
        await read_json_line(proc, f"{name}-client{i}", READY_TIMEOUT_S, procs)
    profiler = None
    if args.profile:
        py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        mode = ["--native"] if args.native else ["--nonblocking"]  # py-spy refuses the two together
        if args.gil:  # only the thread holding the interpreter lock: the loop's Python work, its budget
            mode.append("--gil")
        profiler = await procs.start("py-spy", py_spy, "record", *mode, "--rate", "250", "--pid", str(host.pid),
                                     "--duration", str(int(args.warmup + args.duration)), "--format", "raw",
                                     "--output", str(tmp / "host.folded"))
    cpu0, written0 = cpu_s(host.pid), disk_written(host.pid)
    client_cpu0 = sum(cpu_s(proc.pid) for proc in clients[:len(clients) - flood])
    probe = MachineProbe(tmp)  # the disk the journal is on, and stolen CPU, meanwhile
    probe.start()
    go(clients)
    try:
        results = [await read_json_line(proc, f"{name}-client{i}", args.warmup + args.duration + 90, procs)
                   for i, proc in enumerate(clients)]
    finally:
        machine = probe.stop()
    host_cpu = cpu_s(host.pid) - cpu0
    host_written = disk_written(host.pid) - written0
    client_cpu = sum(r["cpu_s"] for r in results[:len(results) - flood]) - client_cpu0
    host_rss = rss_mb(host.pid)
    hotspots: list[tuple[str, float]] = []
    if profiler is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(profiler.wait(), 30)
        hotspots = fold_hotspots(tmp / "host.folded")
        if args.profile_out and (tmp / "host.folded").exists():
            shutil.copy(tmp / "host.folded", args.profile_out)
    for proc in clients:
        await procs.stop(proc)
    await procs.stop(host)
    flooded = results.pop() if flood else None
    latencies = [x for r in results for x in r["latencies_ms"]]
    commands = commands_total = sum(r["commands"] for r in results)
    return {
        "commands_per_s": commands / args.duration,
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "latency_samples": len(latencies),
        "latencies_ms": latencies,
        "machine": machine,
        "games": sum(r["games"] for r in results),
        "commands_per_game": sum(r["finished_game_commands"] for r in results)
        / max(1, sum(r["games"] for r in results)),
        "refused": sum(r["refused"] for r in results),
        "errors": sum(r["errors"] for r in results),
        "abandoned_at_end": sum(r["abandoned"] for r in results),
        "host_cpu_share": host_cpu / (args.warmup + args.duration),
        "client_cpu_share": client_cpu / (args.warmup + args.duration + 0.5),
        # CPU per command does not depend on what else the machine runs, unlike the rates.
        "host_cpu_ms_per_command": host_cpu * 1e3 / max(1, sum(r["commands_all"] for r in results)),
        "host_disk_kb_per_command": host_written / 1024 / max(1, sum(r["commands_all"] for r in results)),
        "client_cpu_ms_per_command": client_cpu * 1e3 / max(1, sum(r["commands_all"] for r in results)),
        "stream_messages_per_command": sum(r["messages"] for r in results) / max(1, commands_total),
        "stream_events_per_command": sum(r["events"] for r in results) / max(1, commands_total),
        "stream_bytes_per_message": sum(r["message_bytes"] for r in results)
        / max(1, sum(r["messages"] for r in results)),
        "host_rss_mb_after_games": host_rss,
        "hotspots": hotspots,
        "flood": flooded,
    }


def fold_hotspots(path: Path, top: int = 15) -> list[tuple[str, float]]:
    """Inclusive time of the host's own functions (unonet.*) from py-spy's folded stacks, as a share of
    all samples, plus the self time of the innermost frame outside unonet (gRPC, asyncio, sqlite)."""
    if not path.exists():
        return []
    inclusive: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        seen = set()
        for frame in frames:
            name = frame.split(" (")[0]
            where = frame[len(name):]
            if "unonet/" in where and "unonet/cli.py" not in where and name not in seen:
                seen.add(name)
                inclusive[f"{name} {where.strip()}".split(":")[0] + ")"] = inclusive.get(
                    f"{name} {where.strip()}".split(":")[0] + ")", 0) + n
        leaf = frames[-1].split(" (")[0]
        key = f"self: {leaf}"
        inclusive[key] = inclusive.get(key, 0) + n
    ranked = sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]
    return [(frame, count / total) for frame, count in ranked] if total else []


async def run_ceiling(procs: Procs, tmp: Path, args: argparse.Namespace, message_bytes: int) -> dict[str, Any]:
    lifetime = (len(CEILING_PHASES) + 1) * (args.warmup + args.duration) + 120
    server = await procs.start("ceiling", sys.executable, str(Path(__file__).resolve()), "--role", "ceiling-server",
                               "--lifetime", str(lifetime), "--message-bytes", str(message_bytes),
                               "--ceiling-helper-threads", args.ceiling_helper_threads)
    assert server.stdout is not None
    line = (await asyncio.wait_for(server.stdout.readline(), READY_TIMEOUT_S)).decode()
    if not line.startswith("ceiling listening on"):
        raise RuntimeError(f"ceiling server did not start: {line!r}\n{procs.tail('ceiling')}")
    port = int(line.split()[-1].rsplit(":", 1)[1])
    clients = []
    for i, tables in enumerate(split(args.tables, args.clients)):
        clients.append(await procs.start(f"ceiling-client{i}",
                                         *client_argv("ceiling-client", port, tables, args, i), stdin=True))
    for i, proc in enumerate(clients):
        await read_json_line(proc, f"ceiling-client{i}", READY_TIMEOUT_S, procs)
    window = args.warmup + args.duration + 60
    phases: dict[str, list[dict[str, Any]]] = {"relay": [], "unary": [], "stream": []}
    for phase in CEILING_PHASES:
        cpu0 = cpu_s(server.pid)
        probe = MachineProbe(tmp)
        probe.start()
        go(clients)
        try:
            results = [await read_json_line(proc, f"ceiling-client{i}", window, procs)
                       for i, proc in enumerate(clients)]
        finally:
            machine = probe.stop()
        phases[phase].append({"results": results, "server_cpu_s": cpu_s(server.pid) - cpu0, "machine": machine})
    for proc in clients:
        await procs.stop(proc)
    await procs.stop(server)
    (unary,), (stream,) = phases["unary"], phases["stream"]
    relays = [relay_figures(run, args.duration) for run in phases["relay"]]
    return {
        "unary_per_s": sum(r["calls"] for r in unary["results"]) / args.duration,
        "unary_p50_ms": max(r["p50_ms"] for r in unary["results"]),
        "unary_p99_ms": max(r["p99_ms"] for r in unary["results"]),
        "stream_messages_per_s": sum(r["messages"] for r in stream["results"]) / args.duration,
        "relay_runs": relays,
        "message_bytes": message_bytes,
    }


def relay_figures(run: dict[str, Any], duration: float) -> dict[str, Any]:
    """One relay phase, all clients summed: commands/s, latency to every seat, CPU per command."""
    results, calls_all = run["results"], max(1, sum(r["calls_all"] for r in run["results"]))
    return {
        "per_s": sum(r["calls"] for r in results) / duration,
        "p50_ms": max(r["p50_ms"] for r in results),
        "p99_ms": max(r["p99_ms"] for r in results),
        "server_cpu_ms_per_command": run["server_cpu_s"] * 1e3 / calls_all,
        "client_cpu_ms_per_command": sum(r["cpu_s"] for r in results) * 1e3 / calls_all,
        "machine": run["machine"],
    }


async def run_memory(procs: Procs, tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    host, port = await start_host(procs, "memhost", tmp / "memory.db", python=args.host_python)
    await asyncio.sleep(0.3)
    empty = rss_mb(host.pid)
    client = await procs.start("memory-client", sys.executable, str(Path(__file__).resolve()), "--role",
                               "memory-client", "--port", str(port), "--tables", str(args.idle_tables))
    result = await read_json_line(client, "memory-client", 120, procs)
    await procs.stop(client)
    await asyncio.sleep(1.0)  # let the drivers settle into their idle wait
    full = rss_mb(host.pid)
    await procs.stop(host)
    return {"mem_mb_1000_tables": full, "mem_mb_empty_host": empty, "idle_tables": args.idle_tables,
            "idle_setup_s": result["seconds"], "idle_failures": result["failures"]}


async def run_stalls(procs: Procs, tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Host memory per stream stalled by HTTP/2 flow control (role_stall_client), before the host's
    write timeout (10 s) cuts them: what the host holds for a stalled stream at most."""
    host, port = await start_host(procs, "stallhost", tmp / "stalls.db", python=args.host_python)
    client = await procs.start("stall-client", sys.executable, str(Path(__file__).resolve()), "--role",
                               "stall-client", "--port", str(port), "--stall-streams", str(args.stall_streams),
                               "--stall-events", str(args.stall_events), stdin=True)
    await read_json_line(client, "stall-client", 60, procs)
    rss0 = rss_mb(host.pid)
    go([client])
    await read_json_line(client, "stall-client", 120, procs)
    rss1 = rss_mb(host.pid)
    go([client])
    stalled = await read_json_line(client, "stall-client", 120, procs)
    rss2 = rss_mb(host.pid)
    go([client])
    await procs.stop(client)
    await procs.stop(host)
    per_stream_kb = ((rss2 - rss1) - (rss1 - rss0)) * 1024 / args.stall_streams
    return {"stall_streams": args.stall_streams, "stall_events": args.stall_events,
            "stall_kb_per_stream": round(per_stream_kb, 1), "stall_events_mb": round(rss1 - rss0, 2),
            "stall_total_mb": round(rss2 - rss1, 2), "stall_seconds": round(stalled["seconds"], 2)}


def latency_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """p50 and p99 of the unflooded paced `runs`: the medians of the runs' own (each listed), as the flood's
    figures are, so that one run the machine spoiled moves nothing (over all their samples pooled, one run
    with 14% of its CPU stolen made the p99 37 ms where the other two had 17 and 9: `p99_ms_pooled`), and
    the machine probe's figures of each run (its fsync times and stolen CPU: machine_probe.py)."""
    samples = [x for run in runs for x in run["latencies_ms"]]
    return {
        "p50_ms": round(statistics.median(run["p50_ms"] for run in runs), 2),
        "p99_ms": round(statistics.median(run["p99_ms"] for run in runs), 2),
        "p99_ms_pooled": round(percentile(samples, 99), 2),
        "latency_runs": len(runs),
        "p50_ms_runs": [round(run["p50_ms"], 2) for run in runs],
        "p99_ms_runs": [round(run["p99_ms"], 2) for run in runs],
        "latency_machine_runs": [run["machine"] for run in runs],
    }


def machine_line(machine: dict[str, Any]) -> str:
    """A machine probe's figures in a few words (fsync p99 / max, stolen CPU, the CPU canary)."""
    steal = "?" if machine["steal_share"] is None else f"{machine['steal_share']:.1%}"
    if not machine["fsyncs"]:
        return f"no fsync timed, steal {steal}"
    return (f"fsync p99 {machine['fsync_p99_ms']:.1f} ms, max {machine['fsync_max_ms']:.1f}, steal {steal}, "
            f"canary {machine['canary_ms']:.3f} ms")


def flood_figures(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """The flood's cost from (unflooded, flooded) pairs of paced runs: medians over the pairs of the
    flooded runs' latency and of the ratios within each pair, with every pair's ratio listed."""
    p99_ratios = [flooded["p99_ms"] / calm["p99_ms"] for calm, flooded in pairs if calm["p99_ms"]]
    rate_ratios = [flooded["commands_per_s"] / calm["commands_per_s"] for calm, flooded in pairs
                   if calm["commands_per_s"]]
    by_status: collections.Counter[str] = collections.Counter()
    for _, flooded in pairs:
        by_status.update(flooded["flood"]["by_status"])
    return {
        "flood_repeats": len(pairs),
        "flood_p50_ms": round(statistics.median(flooded["p50_ms"] for _, flooded in pairs), 2),
        "flood_p99_ms": round(statistics.median(flooded["p99_ms"] for _, flooded in pairs), 2),
        "flood_unflooded_p99_ms": round(statistics.median(calm["p99_ms"] for calm, _ in pairs), 2),
        "flood_p99_ratio": round(statistics.median(p99_ratios), 2) if p99_ratios else None,
        "flood_p99_ratio_runs": [round(ratio, 2) for ratio in p99_ratios],
        "flood_commands_per_s_ratio": round(statistics.median(rate_ratios), 3) if rate_ratios else None,
        "flood_commands_per_s_ratio_runs": [round(ratio, 3) for ratio in rate_ratios],
        "flood_calls_per_s": round(statistics.median(flooded["flood"]["calls_per_s"] for _, flooded in pairs), 1),
        "flood_by_status": dict(by_status),
    }


async def orchestrate(args: argparse.Namespace) -> dict[str, Any]:
    from unonet.host.event_loop import default_event_loop  # the host's loop, for the report

    tmp = Path(tempfile.mkdtemp(prefix="unonet-bench-"))
    procs = Procs(tmp)
    try:
        say = (lambda *a: print(*a, file=sys.stderr, flush=True)) if args.json else print
        say(f"host bench: {args.tables} tables of {args.seats} seats, {args.clients} client processes, "
            f"{args.duration:.0f} s window after {args.warmup:.0f} s warm-up")
        # The host's games are played twice, before and after the ceiling server's phases, whose relay
        # runs first and last: each game run has a relay run next to it, the ratio is of their means,
        # and a drift of the machine's speed over the minutes moves both sides of it alike.
        games = await run_games(procs, tmp, args)
        say(f"  games done: {games['commands_per_s']:.0f} commands/s")
        relay_args = argparse.Namespace(**{**vars(args), "game_commands": max(1, round(games["commands_per_game"]))})
        ceiling = await run_ceiling(procs, tmp, relay_args, round(games["stream_bytes_per_message"]))
        relays = ceiling["relay_runs"]
        say(f"  ceiling done: {' and '.join(format(r['per_s'], '.0f') for r in relays)} relayed commands/s, "
            f"{ceiling['unary_per_s']:.0f} unary/s")
        again = await run_games(procs, tmp, argparse.Namespace(**{**vars(args), "profile": False}), name="again")
        say(f"  games again: {again['commands_per_s']:.0f} commands/s")
        paced_args = argparse.Namespace(**{**vars(args), "tables": args.latency_tables,
                                           "think_ms": args.latency_think_ms, "profile": False})
        paced = await run_games(procs, tmp, paced_args, name="paced")
        say(f"  paced games done: p99 {paced['p99_ms']:.1f} ms at {args.latency_tables} tables "
            f"({machine_line(paced['machine'])})")
        # The flood's cost, in pairs: each flooded run beside an unflooded run of its own (the first the
        # latency run), each on a fresh host, so the figure is a ratio within a pair (the machine's drift
        # and its other load move both sides) and the median over pairs (one noisy pair moves nothing).
        pairs = []
        for repeat in range(args.flood_repeats):
            calm = paced if repeat == 0 else await run_games(procs, tmp, paced_args, name=f"calm{repeat}")
            flooded = await run_games(procs, tmp, paced_args, name=f"flooded{repeat}", flood=True)
            pairs.append((calm, flooded))
            say(f"  flooded games {repeat + 1}/{args.flood_repeats} done: p99 {flooded['p99_ms']:.1f} ms "
                f"(unflooded beside it {calm['p99_ms']:.1f} ms, {machine_line(calm['machine'])}) while one "
                f"token floods {flooded['flood']['calls_per_s']:.0f} calls/s")
        memory = await run_memory(procs, tmp, args)
        say(f"  memory done: {memory['mem_mb_1000_tables']:.0f} MB")
        stalls = await run_stalls(procs, tmp, args)
        say(f"  stalls done: {stalls['stall_kb_per_stream']:.0f} KB per stalled stream")
    finally:
        await procs.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
    commands_per_s = (games["commands_per_s"] + again["commands_per_s"]) / 2
    relay = {key: statistics.fmean(run[key] for run in relays) for key in relays[0] if key != "machine"}
    out = {
        "commands_per_s": round(commands_per_s, 1),
        # The ceiling: the same number of no-op unary calls and streamed messages (of the same
        # mean size, in the same pattern) on a bare grpc.aio server: the relay.
        "ceiling_per_s": round(relay["per_s"], 1),
        "ratio": round(commands_per_s / relay["per_s"], 3) if relay["per_s"] else None,
        # The runs each mean is of, in order, and the ratio of each game run to the relay run next to it.
        "commands_per_s_runs": [round(games["commands_per_s"], 1), round(again["commands_per_s"], 1)],
        "ceiling_per_s_runs": [round(run["per_s"], 1) for run in relays],
        "ratio_runs": [round(g["commands_per_s"] / r["per_s"], 3) if r["per_s"] else None
                       for g, r in zip((games, again), relays, strict=True)],
        # Each of those runs' server CPU a command (host: games, games again; relay: its two runs): a run
        # slower at the same CPU a command was slowed by the machine, one that spent more was not.
        "host_cpu_ms_per_command_runs": [round(g["host_cpu_ms_per_command"], 3) for g in (games, again)],
        "ceiling_cpu_ms_per_command_runs": [round(r["server_cpu_ms_per_command"], 3) for r in relays],
        # What the machine did during each of the four runs the ratio is of, in the order run (games,
        # relay, relay, games again): a run with CPU stolen by the hypervisor is slower for it.
        "ratio_machine_runs": [games["machine"], relays[0]["machine"], relays[1]["machine"], again["machine"]],
        # Latency at the load: 100 active tables, each seat thinking ~500 ms before it acts: the
        # medians over every unflooded paced run (the latency run and the flood pairs' calm runs, each on
        # a fresh host). One run's p99 is its worst 1% of 22 s, which a stretch of stolen CPU or slow
        # fsyncs on a shared machine sets alone; each run's own and what the machine did meanwhile are
        # listed beside them.
        **latency_figures([calm for calm, _ in pairs]),
        "latency_tables": args.latency_tables, "latency_think_ms": args.latency_think_ms,
        "latency_commands_per_s": round(paced["commands_per_s"], 1),
        "latency_host_cpu_share": round(paced["host_cpu_share"], 2),
        # The same paced games while one more client floods one token's commands (64 callers flat
        # out): what a flood costs the other tables, as ratios to the paced run before it.
        # Each figure is the median over the pairs (flood_repeats), each ratio one within a pair.
        **flood_figures(pairs),
        # Latency with the host saturated (the throughput run): queueing, not service time.
        "p50_ms_flat_out": round(games["p50_ms"], 2),
        "p99_ms_flat_out": round(games["p99_ms"], 2),
        "mem_mb_1000_tables": round(memory["mem_mb_1000_tables"], 1),
        # Host memory per stream stalled by HTTP/2 flow control, while the events keep coming: the
        # growth with N stalled streams beyond the same events' growth on a table nobody watches.
        **stalls,
        "ceiling_p50_ms": round(relay["p50_ms"], 2),
        "ceiling_p99_ms": round(relay["p99_ms"], 2),
        "ceiling_message_bytes": ceiling["message_bytes"],
        # What the bare server's CPU costs per relayed command, beside host_cpu_ms_per_command.
        "ceiling_cpu_ms_per_command": round(relay["server_cpu_ms_per_command"], 3),
        "ceiling_client_cpu_ms_per_command": round(relay["client_cpu_ms_per_command"], 3),
        # Stricter: unary calls alone, with no streamed messages at all.
        "ceiling_unary_per_s": round(ceiling["unary_per_s"], 1),
        "ratio_unary": round(commands_per_s / ceiling["unary_per_s"], 3) if ceiling["unary_per_s"] else None,
        "ceiling_stream_messages_per_s": round(ceiling["stream_messages_per_s"], 1),
        "ceiling_unary_p50_ms": round(ceiling["unary_p50_ms"], 2),
        "ceiling_unary_p99_ms": round(ceiling["unary_p99_ms"], 2),
        "tables": args.tables, "seats": args.seats, "clients": args.clients, "window_s": args.duration,
        "latency_samples": games["latency_samples"], "games": games["games"], "refused": games["refused"],
        "errors": games["errors"], "host_cpu_share": round(games["host_cpu_share"], 2),
        "client_cpu_share": round(games["client_cpu_share"], 2),
        "host_cpu_ms_per_command": round((games["host_cpu_ms_per_command"] + again["host_cpu_ms_per_command"]) / 2, 3),
        # What the journal costs the disk: bytes the host process wrote to storage, per command.
        "host_disk_kb_per_command": round((games["host_disk_kb_per_command"] + again["host_disk_kb_per_command"]) / 2,
                                          2),
        "client_cpu_ms_per_command": round(games["client_cpu_ms_per_command"], 3),
        "stream_messages_per_command": round(games["stream_messages_per_command"], 1),
        "stream_events_per_command": round(games["stream_events_per_command"], 1), "batch": args.batch,
        "commit_interval_ms": args.commit_interval_ms,
        "helper_threads": args.helper_threads, "ceiling_helper_threads": args.ceiling_helper_threads,
        "event_loop": args.event_loop or default_event_loop(),
        "host_python": args.host_python or sys.executable,
        "commands_per_game": round(games["commands_per_game"], 1),
        "think_ms": args.think_ms,
        "host_rss_mb_after_games": round(games["host_rss_mb_after_games"], 1),
        "mem_mb_empty_host": round(memory["mem_mb_empty_host"], 1),
        "mem_idle_tables_note": "4 players joined per table, match dealt, nobody moves",
    }
    if games["hotspots"]:
        out["hotspots"] = [[frame, round(share, 3)] for frame, share in games["hotspots"]]
    return out


def report(out: dict[str, Any]) -> None:
    print()
    print(f"through the host   {out['commands_per_s']:10.0f} commands/s   ({out['tables']} tables x {out['seats']} "
          f"seats, {out['clients']} client processes, {out['games']} games)")
    print(f"CPU (cores)        host {out['host_cpu_share']:.2f}, clients {out['client_cpu_share']:.2f}; "
          f"~{out['stream_messages_per_command']:.1f} streamed messages per command")
    print(f"CPU per command    host {out['host_cpu_ms_per_command']:.3f} ms, its clients "
          f"{out['client_cpu_ms_per_command']:.3f} ms; bare relay server {out['ceiling_cpu_ms_per_command']:.3f} ms, "
          f"its clients {out['ceiling_client_cpu_ms_per_command']:.3f} ms")
    print(f"  each run         host {', '.join(f'{x:.3f}' for x in out['host_cpu_ms_per_command_runs'])} ms "
          f"(games, games again); relay {', '.join(f'{x:.3f}' for x in out['ceiling_cpu_ms_per_command_runs'])} ms")
    print(f"disk per command   host {out['host_disk_kb_per_command']:.2f} KB written (its SQLite journal and marks)")
    print(f"gRPC threads       host: {out['helper_threads']}, bare server: {out['ceiling_helper_threads']} "
          f"(--helper-threads, --ceiling-helper-threads)")
    print(f"event loop         host: {out['event_loop']}, bare server: asyncio (--event-loop)")
    print(f"host interpreter   {out['host_python']} (--host-python; the clients and the relay: {sys.executable})")
    print(f"ceiling (relay)    {out['ceiling_per_s']:10.0f} commands/s   (bare grpc.aio: 1 no-op call + 1 message of "
          f"{out['ceiling_message_bytes']} bytes to each seat; to all p50 {out['ceiling_p50_ms']:.2f} ms, "
          f"p99 {out['ceiling_p99_ms']:.2f} ms)")
    print(f"ratio              {out['ratio']:10.1%}   (target: at least 60%; of the means of two game runs and "
          f"two relay runs; each game run to the relay run next to it: {out['ratio_runs'][0]:.1%} and "
          f"{out['ratio_runs'][1]:.1%})")
    stolen = ["?" if m["steal_share"] is None else f"{m['steal_share']:.1%}" for m in out["ratio_machine_runs"]]
    canary = ["?" if m["canary_ms"] is None else f"{m['canary_ms']:.3f}" for m in out["ratio_machine_runs"]]
    print(f"  the machine      CPU stolen during the games, relay, relay, games again runs: {', '.join(stolen)}; "
          f"the CPU canary's ms (machine_probe.py): {', '.join(canary)}")
    print(f"ceiling (unary)    {out['ceiling_unary_per_s']:10.0f} calls/s      (no streams at all: host at "
          f"{out['ratio_unary']:.0%} of it; p50 {out['ceiling_unary_p50_ms']:.2f} ms, "
          f"p99 {out['ceiling_unary_p99_ms']:.2f} ms)")
    print(f"ceiling (stream)   {out['ceiling_stream_messages_per_s']:10.0f} messages/s")
    print(f"latency to all     p50 {out['p50_ms']:.2f} ms, p99 {out['p99_ms']:.2f} ms (medians of "
          f"{out['latency_runs']} runs) at {out['latency_tables']} active tables, ~{out['latency_think_ms']:.0f} ms "
          f"thinking per move ({out['latency_commands_per_s']:.0f} commands/s, host "
          f"{out['latency_host_cpu_share']:.2f} cores; target: p99 under 20 ms)")
    for p50, p99, machine in zip(out["p50_ms_runs"], out["p99_ms_runs"], out["latency_machine_runs"], strict=True):
        print(f"  one paced run    p50 {p50:.2f} ms, p99 {p99:.2f} ms; the machine meanwhile: {machine_line(machine)}")
    print(f"  pooled           p99 {out['p99_ms_pooled']:.2f} ms over every sample of those runs")
    print(f"  flat out         p50 {out['p50_ms_flat_out']:.2f} ms, p99 {out['p99_ms_flat_out']:.2f} ms over "
          f"{out['latency_samples']} commands (saturated: a queue of {out['tables']} tables)")
    print(f"  under a flood    p50 {out['flood_p50_ms']:.2f} ms, p99 {out['flood_p99_ms']:.2f} ms (p99 x"
          f"{out['flood_p99_ratio']}, commands/s x{out['flood_commands_per_s_ratio']}: medians of "
          f"{out['flood_repeats']} pairs, p99 ratios {out['flood_p99_ratio_runs']}) while one token sends "
          f"{out['flood_calls_per_s']:.0f} calls/s: {out['flood_by_status']}")
    print(f"host memory        {out['mem_mb_1000_tables']:.0f} MB RSS with 1,000 idle 4-seat tables "
          f"({out['mem_mb_empty_host']:.0f} MB empty; {out['mem_idle_tables_note']})")
    print(f"stalled streams    {out['stall_kb_per_stream']:.1f} KB of host memory per stream stalled by flow "
          f"control ({out['stall_streams']} streams, {out['stall_events']} events of 280 characters: "
          f"{out['stall_total_mb']:.1f} MB with them, {out['stall_events_mb']:.1f} MB for the same events unwatched)")
    print(f"refused / errors   {out['refused']} / {out['errors']}")
    for frame, share in out.get("hotspots", []):
        print(f"  {share:6.1%}  {frame}")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer tables and a shorter window (under ~90 s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument("--profile", action="store_true", help="py-spy the host during the game window")
    parser.add_argument("--tables", type=int, help="active tables (default 100, 20 with --quick)")
    parser.add_argument("--seats", type=int, default=4, choices=range(2, 11), metavar="2..10")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--duration", type=float, help="measuring window in seconds (default 20, 8 with --quick)")
    parser.add_argument("--warmup", type=float, help="seconds before the window (default 2, 1 with --quick)")
    parser.add_argument("--native", action="store_true", help="with --profile: native frames too (py-spy --native)")
    parser.add_argument("--gil", action="store_true",
                        help="with --profile: sample only the thread holding the GIL (py-spy --gil)")
    parser.add_argument("--profile-out", help="with --profile: keep py-spy's folded stacks in this file")
    parser.add_argument("--batch", type=int, default=64,
                        help="WatchEventsRequest.batch of every stream (0: one event per message)")
    parser.add_argument("--commit-interval-ms", type=float,
                        help="the host's --commit-interval, a fixed least interval between group commits "
                             "(default: the host's own, paced by load: commit_pacing.py)")
    parser.add_argument("--helper-threads", choices=["batch", "default"], default="batch",
                        help="the host's --helper-threads (the scheduling policy of its gRPC threads)")
    parser.add_argument("--event-loop", choices=["uvloop", "asyncio"],
                        help="the host's --event-loop (default: unonet serve's, uvloop where installed); the "
                             "relay always runs on asyncio's, as a stock grpc.aio server does")
    parser.add_argument("--host-python", metavar="PYTHON",
                        help="the interpreter that runs the host (default: this one): .venv-compiled/bin/python "
                             "measures the compiled build's host (make compiled); the clients and the relay stay on "
                             "this one")
    parser.add_argument("--ceiling-helper-threads", choices=["default", "batch"], default="default",
                        help="the bare server's: default is stock grpc.aio (the issue's ceiling); batch gives it "
                             "the host's policy, a stricter like-for-like ceiling")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="mean thinking time before each command (uniform 0.5x..1.5x); 0: play flat out")
    parser.add_argument("--latency-tables", type=int, default=100,
                        help="active tables in the latency run (which reports p50_ms and p99_ms)")
    parser.add_argument("--latency-think-ms", type=float, default=500.0,
                        help="mean thinking time per command in the latency run")
    parser.add_argument("--idle-tables", type=int, default=1000)
    parser.add_argument("--stall-streams", type=int, default=200,
                        help="streams stalled by flow control in the stall run (stall_kb_per_stream)")
    parser.add_argument("--stall-events", type=int, default=1000, help="chat events sent during the stall run")
    parser.add_argument("--flood-token-rate", type=float, default=None, metavar="RATE",
                        help="the flooded run's rate per token (default: the host's default); a tiny run on a slow "
                        "machine may not outrun the default, so a test sets a low one")
    parser.add_argument("--flood-repeats", type=int, default=3, metavar="N",
                        help="pairs of an unflooded and a flooded paced run, each on a fresh host; the flood figures "
                        "are medians over the pairs, each ratio taken within its pair")
    parser.add_argument("--max-games", type=int, default=100_000)
    # Internal: the roles of the child processes.
    parser.add_argument("--role", default="main", choices=["main", "host-client", "memory-client", "flood-client",
                                                            "stall-client", "ceiling-server", "ceiling-client"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--lifetime", type=float, default=600, help=argparse.SUPPRESS)
    parser.add_argument("--message-bytes", type=int, default=200, help=argparse.SUPPRESS)
    # The relay's commands per game: the host run's mean (set by the orchestrator).
    parser.add_argument("--game-commands", type=int, default=60, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tables is None:
        args.tables = 20 if args.quick else 100
    if args.duration is None:
        args.duration = 8.0 if args.quick else 20.0
    if args.warmup is None:
        args.warmup = 1.0 if args.quick else 2.0
    args.clients = max(1, min(args.clients, args.tables))
    args.flood_repeats = max(1, args.flood_repeats)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    roles = {"host-client": role_host_client, "memory-client": role_memory_client, "flood-client": role_flood_client,
             "stall-client": role_stall_client,
             "ceiling-server": role_ceiling_server, "ceiling-client": role_ceiling_client}
    if args.role in roles:
        asyncio.run(roles[args.role](args))
        return 0
    out = asyncio.run(orchestrate(args))
    if args.json:
        print(json.dumps(out))
    else:
        report(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
