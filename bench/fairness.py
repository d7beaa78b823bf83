"""Measured, not claimed: does latency compensation make the truly faster player win races? (issue 4)

One host process (this script with `--serve`, a memory store, host bots with no delay) and, in this
process, T tables of four seats: two host bots and two bench players, each with its own gRPC channel,
its own event stream and its own pinger. Every player injects its own one-way network delay, in the
client, both ways: a send waits `delay()` before the RPC goes out; every event received waits `delay()`
before the player "sees" it (in order, like a TCP stream; events that arrive together, within 1 ms,
share one delay, as one segment would); every ping response waits `delay()` before
its arrival time is taken. `delay()` is the player's base (NEAR 5 ms, FAR 80 ms) plus uniform jitter
of +/- 10 ms (never below 0).

The races: the tables play UNO with Sound Wilds (H12: every seat must React) and UNO slaps (U5: every
seat but the caller must React). Bench players play their turns at random (a Sound Wild when they hold
one, calling UNO always); host bots answer every window at once. Whenever both bench players may
answer a window, both do: per window a base reaction R is drawn (uniform 30-60 ms), the FAR player
reacts after R and the NEAR player after R + 20 ms, each timed from when the window reached that player.
So the far player truly reacts 20 ms faster but its answer usually arrives ~150 ms later. A race
counts when the ruling (ReactionWindowClosed, fastest first) ranks both; the far player wins it when
ranked before the near one.

Three runs, each on a fresh host:
  * compensated: the host compensates measured latency and the clients send their own reaction timing
    (`reaction_time`, believed within the measured network time: docs/fairness.md 10.4);
  * host estimate only: compensated host, clients send no timing (the host removes median latency but
    not this message's jitter);
  * uncompensated: a host run with `compensate_latency=False` (answers ranked by arrival).

Commitment cost (measured first, before the races): events per second through the host with the fair
shuffle on (commit-reveal before each deal, committed piles, CardRefs with commitments and openings)
versus off (`Host(fair_shuffle=False)`, `unonet serve --no-fair-shuffle`: the engine's seeded shuffle,
faces only). Same workload both ways, each on a fresh host process: W bots-only tables of four host bots
(no delay) in flight at once, each watched by one spectator WatchEvents stream (batch 64) in this
process; a table that finishes its match is replaced by a new one until the run is over. The count is
the events delivered to those streams inside a measuring window (after a warm-up). The work unit is a
game event: every event but the fairness protocol's own (ShuffleCommitted, SeatEntropyCommitted/
Revealed, DeckCommitted, ShuffleRevealed), which only exist with commitments on, so both modes are
counted in the same unit; all events/s are printed too. Runs go on, off, off, on (linear drift, say from
a busy machine, cancels out) and each mode's rate is its two windows' events over their seconds.
`commit_overhead_ratio` = game events/s on / off: below 1 is what commitments cost the host.

    .venv/bin/python bench/fairness.py                 # 1000 races per run, a readable report
    .venv/bin/python bench/fairness.py --quick --json  # 500 races compensated, 300 for the others; JSON last
    .venv/bin/python bench/fairness.py --cost-only     # the commitment cost alone

Loopback only; every loop is bounded in count and time; the host process is stopped at the end, on
error too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import subprocess_host  # a sibling bench module
from subprocess_host import LOOPBACK, serve_until_stdin_closes

ROOT = Path(__file__).resolve().parent.parent
NEAR_MS, FAR_MS, JITTER_MS, FASTER_BY_MS = 5.0, 80.0, 10.0, 20.0
REACTION_MS = (30.0, 60.0)
PING_PERIOD_S = 0.1
BURST_S = 0.001  # events arriving closer than this share one delay, as one TCP segment would
RPC_TIMEOUT_S = 10.0
REACTION_TIME_S = 1.0  # the window's duration: far above any delay here, so nobody is ever late
# The commitment cost run: tables in flight, their match, the stream's batch, warm-up and window seconds.
COST_TABLES = 8
COST_TARGET_SCORE = 200
COST_BATCH = 64
COST_WARMUP_S = 1.0
COST_WINDOW_S = {True: 4.0, False: 10.0}  # by --quick; each mode gets two windows
COMMITMENT_KINDS = frozenset({"shuffle_committed", "seat_entropy_committed", "seat_entropy_revealed",
                              "deck_committed", "shuffle_revealed", "shuffle_timed_out"})


# ================================================================================== the host process


async def serve(compensate: bool, fair_shuffle: bool = True) -> None:
    from unonet.host.host import Host

    await serve_until_stdin_closes(Host(compensate_latency=compensate, fair_shuffle=fair_shuffle))


def host_process(compensate: bool, fair_shuffle: bool = True,  # type: ignore[no-untyped-def]
                 started: dict[str, int] | None = None):
    """The host process's port; `started` (if given) gets its "pid"."""
    args = ([] if compensate else ["--uncompensated"]) + ([] if fair_shuffle else ["--no-fair-shuffle"])
    return subprocess_host.host_process(__file__, *args, started=started)


# ================================================================================== the clients


@dataclass
class Tally:
    target: int
    races: int = 0
    far_won: int = 0
    incomplete: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)
    reaction_errors_ms: list[float] = field(default_factory=list)

    def record(self, far_first: bool) -> None:
        if self.done.is_set():
            return
        self.races += 1
        self.far_won += far_first
        if self.races >= self.target:
            self.done.set()


class Player:
    """One bench player: its own channel, delayed sends, delayed delivery of events, and a pinger."""

    def __init__(self, port: int, table_id: str, token: str, seat: int, base_ms: float, rng: random.Random,
                 *, send_claims: bool, bench: TableBench) -> None:
        import grpc

        from unonet.v1 import play_service_pb2_grpc, time_service_pb2_grpc, watch_service_pb2_grpc

        self.channel = grpc.aio.insecure_channel(f"{LOOPBACK}:{port}")
        self.play = play_service_pb2_grpc.PlayServiceStub(self.channel)
        self.watch = watch_service_pb2_grpc.WatchServiceStub(self.channel)
        self.time = time_service_pb2_grpc.TimeServiceStub(self.channel)
        self.table_id, self.token, self.seat = table_id, token, seat
        self.base_ms, self.rng, self.send_claims, self.bench = base_ms, rng, send_claims, bench
        self.inbox: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()
        self.last_delivery = 0.0
        self.legal: Any = None
        self.hand: list[Any] = []
        self.turn_task: asyncio.Task[None] | None = None
        self.tasks: list[asyncio.Task[Any]] = []
        self.counter = 0

    def delay(self) -> float:
        return max(0.0, self.base_ms + self.rng.uniform(-JITTER_MS, JITTER_MS)) / 1000

    def cid(self, kind: str) -> str:
        self.counter += 1
        return f"{kind}-{self.counter}"

    async def send(self, rpc: Any, request: Any) -> Any:
        await asyncio.sleep(self.delay())  # the request's trip to the host
        response = await rpc(request, timeout=RPC_TIMEOUT_S)
        await asyncio.sleep(self.delay())  # the response's trip back
        return response

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self.read()), asyncio.create_task(self.consume()),
                      asyncio.create_task(self.pinger())]

    async def stop(self) -> None:
        for task in [*self.tasks, *( [self.turn_task] if self.turn_task else [])]:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.channel.close()

    async def read(self) -> None:
        from unonet.v1 import watch_service_pb2

        stream = self.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=self.table_id, token=self.token))
        last_arrival, delay = -1.0, 0.0
        async for response in stream:
            arrival = time.monotonic()
            if arrival - last_arrival > BURST_S:  # messages written together travel together (one segment)
                delay = self.delay()
            last_arrival = arrival
            deliver = max(self.last_delivery, arrival + delay)  # in order, like one TCP stream
            self.last_delivery = deliver
            self.inbox.put_nowait((deliver, response.event))

    async def consume(self) -> None:
        while True:
            deliver, event = await self.inbox.get()
            wait = deliver - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self.handle(event, time.monotonic())

    async def pinger(self) -> None:
        from unonet.v1 import time_service_pb2

        previous = None
        for sequence in range(1, 100_000):
            request = time_service_pb2.PingRequest(table_id=self.table_id, token=self.token, sequence=sequence)
            request.client_send_time.FromNanoseconds(time.time_ns())
            if previous is not None:
                request.previous.CopyFrom(previous)
            await asyncio.sleep(self.delay())
            await self.time.Ping(request, timeout=RPC_TIMEOUT_S)
            await asyncio.sleep(self.delay())
            previous = time_service_pb2.PingReport(sequence=sequence)
            previous.client_receive_time.FromNanoseconds(time.time_ns())
            await asyncio.sleep(PING_PERIOD_S)

    # ------------------------------------------------------------------------------ reacting

    def handle(self, event: Any, seen: float) -> None:
        kind = event.WhichOneof("payload")
        if kind == "reaction_window_opened":
            window = event.reaction_window_opened.window
            if self.seat in window.eligible_seats and window.kind in self.bench.react_kinds:
                self.tasks.append(asyncio.create_task(self.react(window, seen)))
            self.bench.opened(window)
        elif kind == "reaction_window_closed" and self.seat == self.bench.counting_seat:
            self.bench.closed(event.reaction_window_closed)
        if event.HasField("your_legal_actions"):
            self.new_options(event.your_legal_actions)

    def new_options(self, legal: Any) -> None:
        """The stream's newest legal actions: a turn is taken when they ask for one, unless one is being
        taken already, which takes them in turn when its call returns (`_turns`)."""
        self.legal = legal
        if legal.required and (self.turn_task is None or self.turn_task.done()):
            self.turn_task = asyncio.create_task(self._turns())

    async def _turns(self) -> None:
        """`take_turn`, again while the options it acted on were replaced by newer ones asking for a move:
        another seat's quick turn can bring this seat's next options before its own call's answer, and no
        more come until the turn clock runs out (30 s)."""
        while True:
            legal = self.legal
            await self.take_turn()
            if self.legal is legal or not self.legal.required:
                return

    async def react(self, window: Any, seen: float) -> None:
        from unonet.v1 import play_service_pb2

        reaction = self.bench.reaction_s(window.id, far=self.base_ms == FAR_MS)
        await asyncio.sleep(max(0.0, reaction - (time.monotonic() - seen)))
        took = time.monotonic() - seen
        request = play_service_pb2.ReactRequest(table_id=self.table_id, token=self.token,
                                                command_id=self.cid("react"), reaction_window_id=window.id)
        if self.send_claims:
            request.reaction_time.FromNanoseconds(int(took * 1e9))
        with contextlib.suppress(Exception):  # a window closed by the end of the round, say
            await self.send(self.play.React, request)

    async def take_turn(self) -> None:
        from unonet.v1 import cards_pb2, play_service_pb2

        legal = self.legal
        if legal is None or not legal.required:
            return
        common = {"table_id": self.table_id, "token": self.token}
        try:
            if legal.choose_color:
                await self.send(self.play.ChooseColor, play_service_pb2.ChooseColorRequest(
                    **common, command_id=self.cid("color"), color=self.rng.choice(
                        [cards_pb2.COLOR_RED, cards_pb2.COLOR_BLUE, cards_pb2.COLOR_GREEN, cards_pb2.COLOR_YELLOW])))
                return
            turn_plays = [p for p in legal.plays if not p.reaction_window_id]
            if turn_plays:
                sound = [p for p in turn_plays if p.cards[0].rank == cards_pb2.RANK_SOUND_WILD]
                option = sound[0] if sound else self.rng.choice(turn_plays)
                request = play_service_pb2.PlayCardsRequest(**common, command_id=self.cid("play"),
                                                            cards=option.cards, call_uno=True)
                if option.needs_color:
                    request.color = cards_pb2.COLOR_RED
                await self.send(self.play.PlayCards, request)
            elif legal.pass_turn:
                await self.send(self.play.Pass, play_service_pb2.PassRequest(**common, command_id=self.cid("pass")))
            elif legal.HasField("draw"):
                await self.send(self.play.Draw, play_service_pb2.DrawRequest(**common, command_id=self.cid("draw")))
            elif legal.challenge:
                await self.send(self.play.Challenge, play_service_pb2.ChallengeRequest(
                    **common, command_id=self.cid("challenge")))
        except Exception:  # a stale decision (the state moved on): the next legal actions retry
            return


class TableBench:
    """One table's two bench players, and the races it has counted."""

    def __init__(self, tally: Tally, send_claims: bool, seed: int) -> None:
        from unonet.v1 import views_pb2

        self.tally = tally
        self.send_claims = send_claims
        self.seed = seed
        self.react_kinds = {views_pb2.REACTION_WINDOW_KIND_SOUND_WILD, views_pb2.REACTION_WINDOW_KIND_UNO_SLAP}
        self.players: list[Player] = []
        self.counting_seat = 0
        self.both_eligible: set[int] = set()
        self.far_seat = 1
        self.near_seat = 0

    def reaction_s(self, window_id: int, *, far: bool) -> float:
        base = random.Random(self.seed * 1_000_003 + window_id).uniform(*REACTION_MS)
        return (base if far else base + FASTER_BY_MS) / 1000

    def opened(self, window: Any) -> None:
        if {self.near_seat, self.far_seat} <= set(window.eligible_seats) and window.kind in self.react_kinds:
            self.both_eligible.add(window.id)

    def closed(self, closed: Any) -> None:
        if closed.window_id not in self.both_eligible:
            return
        self.both_eligible.discard(closed.window_id)
        ranked = [r.seat for r in closed.reactions if not r.late]
        if self.far_seat in ranked and self.near_seat in ranked:
            self.tally.record(ranked.index(self.far_seat) < ranked.index(self.near_seat))
        else:
            self.tally.incomplete += 1


async def run_table(port: int, tally: Tally, send_claims: bool, seed: int) -> None:
    import grpc

    from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc, rules_pb2, table_pb2

    channel = grpc.aio.insecure_channel(f"{LOOPBACK}:{port}")
    lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
    bench = TableBench(tally, send_claims, seed)
    try:
        # A whole clock: a ClockSettings is taken as written (an unset turn_time would be no clock).
        clock = table_pb2.ClockSettings(strikes_before_takeover=3, takeover_policy=table_pb2.TAKEOVER_POLICY_BOT)
        clock.turn_time.FromNanoseconds(30 * 10**9)
        clock.reaction_time.FromNanoseconds(int(REACTION_TIME_S * 1e9))
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name=f"race-{seed}", seat_count=4, clock=clock,
            overrides=rules_pb2.Ruleset(sound_wilds=True, uno_slap=True, target_score=100_000)),
            timeout=RPC_TIMEOUT_S)
        table_id = created.table.table_id
        rng = random.Random(seed)
        for seat, base in ((0, NEAR_MS), (1, FAR_MS)):
            joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=table_id, name=f"p{seat}", role=lobby_service_pb2.JOIN_ROLE_PLAYER, seat=seat),
                timeout=RPC_TIMEOUT_S)
            player = Player(port, table_id, joined.token, seat, base, random.Random(rng.random()),
                            send_claims=send_claims, bench=bench)
            bench.players.append(player)
            player.start()
        await asyncio.sleep(1.0)  # let the pingers measure before the match starts (warm-up, not a sync)
        await lobby.AddBots(lobby_service_pb2.AddBotsRequest(
            table_id=table_id, owner_token=created.owner_token, count=2), timeout=RPC_TIMEOUT_S)
        await tally.done.wait()
    finally:
        for player in bench.players:
            await player.stop()
        await channel.close()


async def run(compensate: bool, send_claims: bool, races: int, tables: int, limit_s: float) -> dict[str, Any]:
    tally = Tally(target=races)
    started = time.monotonic()
    async with host_process(compensate) as port:
        tasks = [asyncio.create_task(run_table(port, tally, send_claims, seed)) for seed in range(tables)]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tally.done.wait(), limit_s)
        tally.done.set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    return {"races": tally.races, "far_won": tally.far_won, "incomplete": tally.incomplete,
            "share": tally.far_won / tally.races if tally.races else None,
            "seconds": round(time.monotonic() - started, 1)}


# ================================================================================== commitment cost


@dataclass
class CostCount:
    """Events delivered to the spectator streams inside the measuring window [start, end]."""

    start: float
    end: float
    game: int = 0
    fairness: int = 0
    matches: int = 0
    host_cpu_s: float = 0.0  # the host process's CPU time (user + system) inside the window
    bench_cpu_s: float = 0.0  # this process's (the streams' reader)

    def add(self, events: Any, arrival: float) -> None:
        if self.start <= arrival <= self.end:
            for event in events:
                if event.WhichOneof("payload") in COMMITMENT_KINDS:
                    self.fairness += 1
                else:
                    self.game += 1


async def cost_table_loop(port: int, count: CostCount, name: str) -> None:
    """Bots-only tables one after another, each watched by a spectator until MatchEnded, until the end."""
    import grpc

    from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc, rules_pb2, watch_service_pb2
    from unonet.v1 import watch_service_pb2_grpc as watch_grpc

    channel = grpc.aio.insecure_channel(f"{LOOPBACK}:{port}")
    lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
    watch = watch_grpc.WatchServiceStub(channel)
    try:
        for game in range(100_000):
            if time.monotonic() >= count.end:
                return
            created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
                name=f"{name}-{game}", seat_count=4, manual_start=True,
                overrides=rules_pb2.Ruleset(target_score=COST_TARGET_SCORE)), timeout=RPC_TIMEOUT_S)
            table_id = created.table.table_id
            joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=table_id, name="watcher", role=lobby_service_pb2.JOIN_ROLE_SPECTATOR),
                timeout=RPC_TIMEOUT_S)
            # The stream replays from the first event, so it may open after the start: nothing is missed.
            await lobby.StartTable(lobby_service_pb2.StartTableRequest(
                table_id=table_id, owner_token=created.owner_token, fill_with_bots=True), timeout=RPC_TIMEOUT_S)
            stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=joined.token, batch=COST_BATCH))
            try:
                async for response in stream:
                    arrival = time.monotonic()
                    count.add(response.events, arrival)
                    if any(event.HasField("match_ended") for event in response.events):
                        count.matches += count.start <= arrival <= count.end
                        break
                    if arrival > count.end:
                        return
            finally:
                stream.cancel()
    finally:
        await channel.close()


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc), 0.0 where that cannot be read."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


async def cpu_over_window(count: CostCount, pid: int) -> None:
    """Sample both processes' CPU time at the window's start and end."""
    await asyncio.sleep(max(0.0, count.start - time.monotonic()))
    host0, bench0 = process_cpu_s(pid), time.process_time()
    await asyncio.sleep(max(0.0, count.end - time.monotonic()))
    count.host_cpu_s, count.bench_cpu_s = process_cpu_s(pid) - host0, time.process_time() - bench0


async def cost_run(fair_shuffle: bool, window_s: float) -> CostCount:
    """One fresh host process with the fair shuffle on or off, COST_TABLES tables in flight."""
    started: dict[str, int] = {}
    async with host_process(True, fair_shuffle, started) as port:
        start = time.monotonic() + COST_WARMUP_S
        count = CostCount(start, start + window_s)
        tasks = [asyncio.create_task(cost_table_loop(port, count, f"cost-{i}")) for i in range(COST_TABLES)]
        tasks.append(asyncio.create_task(cpu_over_window(count, started["pid"])))
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), COST_WARMUP_S + window_s + 60)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
    return count


async def commit_cost(quick: bool) -> dict[str, Any]:
    """Events/s through the host with commitments on and off: runs on, off, off, on (module docstring)."""
    window = COST_WINDOW_S[quick]
    runs = {True: [], False: []}  # type: dict[bool, list[CostCount]]
    for fair in (True, False, False, True):
        runs[fair].append(await cost_run(fair, window))

    def rates(counts: list[CostCount]) -> dict[str, Any]:
        seconds = sum(c.end - c.start for c in counts)
        game, fairness = sum(c.game for c in counts), sum(c.fairness for c in counts)
        host_cpu = sum(c.host_cpu_s for c in counts)
        return {"game_events_per_s": round(game / seconds, 1), "events_per_s": round((game + fairness) / seconds, 1),
                "game_events": game, "fairness_events": fairness, "matches_ended": sum(c.matches for c in counts),
                "seconds": round(seconds, 1),
                "host_cpu_share": round(host_cpu / seconds, 2),
                "bench_cpu_share": round(sum(c.bench_cpu_s for c in counts) / seconds, 2),
                "host_cpu_ms_per_1000_game_events": round(1e6 * host_cpu / game, 1) if game else None}

    on, off = rates(runs[True]), rates(runs[False])
    ratio = on["game_events_per_s"] / off["game_events_per_s"] if off["game_events_per_s"] else None
    return {"on": on, "off": off, "ratio": None if ratio is None else round(ratio, 3)}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    cost = await commit_cost(args.quick)
    if args.cost_only:
        return {"commit_overhead_ratio": cost["ratio"], "commit_cost": cost}
    races = 500 if args.quick else 1000
    others = 300 if args.quick else 1000
    limit = 240.0 if args.quick else 900.0
    compensated = await run(True, True, races, args.tables, limit)
    host_only = await run(True, False, others, args.tables, limit)
    uncompensated = await run(False, True, others, args.tables, limit)
    return {
        "faster_wins_compensated": compensated["share"],
        "faster_wins_host_estimate_only": host_only["share"],
        "faster_wins_uncompensated": uncompensated["share"],
        "races": compensated["races"],
        "races_host_estimate_only": host_only["races"],
        "races_uncompensated": uncompensated["races"],
        "incomplete_races": compensated["incomplete"] + host_only["incomplete"] + uncompensated["incomplete"],
        "target_met": compensated["share"] is not None and compensated["share"] >= 0.95,
        "commit_overhead_ratio": cost["ratio"],
        "commit_cost": cost,
        "setup": {"near_ms": NEAR_MS, "far_ms": FAR_MS, "jitter_ms": JITTER_MS, "faster_by_ms": FASTER_BY_MS,
                  "reaction_ms": REACTION_MS, "tables": args.tables, "faster": "far"},
        "seconds": {"compensated": compensated["seconds"], "host_estimate_only": host_only["seconds"],
                    "uncompensated": uncompensated["seconds"]},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer races (500, then 300 per comparison run)")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--tables", type=int, default=24, help="tables racing at once")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cost-only", action="store_true", help="measure the commitment cost only, no races")
    parser.add_argument("--uncompensated", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-fair-shuffle", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(not args.uncompensated, not args.no_fair_shuffle))
        return 0
    result = asyncio.run(main_async(args))
    cost = result["commit_cost"]
    if not args.json:
        print(f"commitment cost: {COST_TABLES} bots-only tables in flight, spectator streams, on/off/off/on:")
        for mode in ("on", "off"):
            rates = cost[mode]
            print(f"  commitments {mode:3}  {rates['game_events_per_s']:8.0f} game events/s "
                  f"({rates['events_per_s']:.0f} events/s with the fairness events; "
                  f"{rates['matches_ended']} matches ended in {rates['seconds']:g} s); host CPU "
                  f"{rates['host_cpu_ms_per_1000_game_events']} ms per 1000 game events, "
                  f"busy {rates['host_cpu_share']:.0%} (the bench's streams {rates['bench_cpu_share']:.0%})")
        print(f"  commit_overhead_ratio (game events/s on / off): {cost['ratio']}")
    if args.cost_only:
        print(json.dumps(result))
        return 0
    if not args.json:
        print(f"races where the far player ({FAR_MS:g} ms away) truly reacted {FASTER_BY_MS:g} ms faster than the "
              f"near one ({NEAR_MS:g} ms), jitter +/-{JITTER_MS:g} ms:")
        for key in ("faster_wins_compensated", "faster_wins_host_estimate_only", "faster_wins_uncompensated"):
            share = result[key]
            print(f"  {key:34} {'n/a' if share is None else f'{share:.1%}'}")
        print(f"  races: {result['races']} (+{result['races_host_estimate_only']}, "
              f"+{result['races_uncompensated']}); target >= 95% met: {result['target_met']}")
    print(json.dumps(result) if args.json else json.dumps(result, indent=None))
    return 0


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT / "server"), str(ROOT / "protos")]
    raise SystemExit(main())
