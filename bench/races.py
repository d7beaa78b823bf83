"""Races a person can win: how often a player answering UNO races at 300, 500 and 800 ms beats the host's
bots at each level, at a table with a person (issue 30, point 3).

One host process (this script with `--serve`: a memory store, no fair shuffle, and host bots paced for
people in races but not in their turns, `Pace(turn_s=0, reactions=True)`, so that races come fast)
and, in this process, tables of two seats: a scripted player and one host bot of `greedy:LEVEL`. The
player plays its turns at once and always forgets UNO with its second-to-last card, so every time it
comes down to one card an UNO catch race opens: its own late CallUno against the bot's catch. When the
bot forgets UNO (levels 1 and 2 do, now and then) the player races its CatchUno against the bot's own
late call. Either way the player answers its reaction time X after the window's event reached it
(`--one-way-ms` adds that much network delay each way to everything it sends and receives, pings
included, so the host must forgive it: docs/fairness.md 10), and the ruling (ReactionWindowClosed,
fastest first, `winner_seat`) says who won.

Per X and level it prints: races the player answered, the share it won, the races the bot answered too
("contested") and the share of those it won, and beside it the peer measured in this same process:
the share of the bot's reaction draws (`unonet.bots.levels.reaction_seconds`, 200,000 of them) slower
than the player's reaction as the host measured it, which is what a host that orders races by true
reaction time must give. `contested_vs_expected` is the measured share over that peer (1.0: the host
orders them exactly by reaction time). The player's reaction as the host measured it (the ruling's
`reaction_time`, median) shows what the host saw.

    .venv/bin/python bench/races.py                  # 150 races per cell, a readable table (minutes)
    .venv/bin/python bench/races.py --quick --json   # 40 per cell; the last line is one JSON object
    .venv/bin/python bench/races.py --one-way-ms 60  # the same, across a network 60 ms each way

Loopback only; every loop is bounded in count and time; the host process is stopped at the end, on
error too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from fairness import Player as NetworkPlayer  # sibling bench modules
from subprocess_host import LOOPBACK, host_process, serve_until_stdin_closes

REACTIONS_MS = (300, 500, 800)
LEVEL_KINDS = {1: "greedy:1", 2: "greedy:2", 3: "greedy:3"}
RPC_TIMEOUT_S = 10.0
PEER_DRAWS = 200_000
JITTER_MS = 5.0  # with --one-way-ms: each trip's delay varies by up to this much either way


# ================================================================================== the host process


async def serve() -> None:
    from unonet.host.host import Host
    from unonet.host.pace import Pace

    await serve_until_stdin_closes(Host(pace=Pace(turn_s=0.0, reactions=True), fair_shuffle=False))


# ================================================================================== the player


@dataclass
class Cell:
    """One X and level: the races counted so far."""

    reaction_ms: int
    level: int
    target: int
    races: int = 0
    won: int = 0
    contested: int = 0
    contested_won: int = 0
    calls: int = 0  # races of the player's own late call against the bot's catch (the rest: its catches)
    measured_ms: list[float] = field(default_factory=list)  # the player's reaction as the host measured it
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def record(self, *, won: bool, contested: bool, own_call: bool, measured_ms: float) -> None:
        if self.done.is_set():
            return
        self.races += 1
        self.won += won
        self.contested += contested
        self.contested_won += won and contested
        self.calls += own_call
        self.measured_ms.append(measured_ms)
        if self.races >= self.target:
            self.done.set()


class Player(NetworkPlayer):
    """The scripted player of one table: bench/fairness.py's player (its own channel, its sends and its
    stream delayed by the simulated network, in order, and its pings), answering UNO races X after the
    window reached it and playing its turns at once."""

    def __init__(self, port: int, table_id: str, token: str, cell: Cell, one_way_ms: float, seed: int) -> None:
        super().__init__(port, table_id, token, 0, one_way_ms, random.Random(seed), send_claims=False,
                         bench=None)  # type: ignore[arg-type]  # its own handle() never asks a TableBench
        self.cell = cell
        self.answered: dict[int, bool] = {}  # window id -> whether the race was the player's own late call

    def delay(self) -> float:
        """One trip's delay: `--one-way-ms` with up to JITTER_MS either way; none on plain loopback."""
        if not self.base_ms:
            return 0.0
        return max(0.0, self.base_ms + self.rng.uniform(-JITTER_MS, JITTER_MS)) / 1000

    def handle(self, event: Any, seen: float) -> None:
        from unonet.v1 import views_pb2

        kind = event.WhichOneof("payload")
        if kind == "reaction_window_opened":
            window = event.reaction_window_opened.window
            if window.kind == views_pb2.REACTION_WINDOW_KIND_UNO_CATCH:
                own = window.subject_seat == 0
                if own or 0 in window.eligible_seats:
                    self.answered[window.id] = own
                    self.tasks.append(asyncio.create_task(self.answer(window, own, seen)))
        elif kind == "reaction_window_closed":
            self.closed(event.reaction_window_closed)
        if event.HasField("your_legal_actions"):
            self.new_options(event.your_legal_actions)

    async def answer(self, window: Any, own: bool, seen: float) -> None:
        """The player's answer, X after the window reached it: its own late call, or a catch of the bot."""
        from unonet.v1 import play_service_pb2

        await asyncio.sleep(max(0.0, self.cell.reaction_ms / 1000 - (time.monotonic() - seen)))
        common = {"table_id": self.table_id, "token": self.token}
        with contextlib.suppress(Exception):  # the round ended under it, say: the ruling says nothing then
            if own:
                request = play_service_pb2.CallUnoRequest(**common, command_id=self.cid("call"))
                await self.send(self.play.CallUno, request)
            else:
                await self.send(self.play.CatchUno, play_service_pb2.CatchUnoRequest(
                    **common, command_id=self.cid("catch"), target_seat=window.subject_seat,
                    reaction_window_id=window.id))

    def closed(self, ruling: Any) -> None:
        own = self.answered.pop(ruling.window_id, None)
        if own is None:
            return
        mine = next((r for r in ruling.reactions if r.seat == 0 and not r.late), None)
        if mine is None:
            return  # the player's answer came after the ruling (a round's end, a slow machine): not a race
        bot = next((r for r in ruling.reactions if r.seat == 1 and not r.late), None)
        won = ruling.HasField("winner_seat") and ruling.winner_seat == 0
        self.cell.record(won=won, contested=bot is not None, own_call=own,
                         measured_ms=mine.reaction_time.ToNanoseconds() / 1e6)

    async def take_turn(self) -> None:
        """Play at once: a card when one fits (never calling UNO: every last card is a race), else draw."""
        from unonet.v1 import cards_pb2, play_service_pb2

        legal = self.legal
        common = {"table_id": self.table_id, "token": self.token}
        try:
            if legal.choose_color:
                await self.send(self.play.ChooseColor, play_service_pb2.ChooseColorRequest(
                    **common, command_id=self.cid("color"), color=cards_pb2.COLOR_RED))
                return
            plays = [p for p in legal.plays if not p.reaction_window_id and len(p.cards) == 1]
            if plays:
                option = self.rng.choice(plays)
                request = play_service_pb2.PlayCardsRequest(**common, command_id=self.cid("play"), cards=option.cards)
                if option.needs_color:
                    request.color = cards_pb2.COLOR_RED
                await self.send(self.play.PlayCards, request)
            elif legal.pass_turn:
                await self.send(self.play.Pass, play_service_pb2.PassRequest(**common, command_id=self.cid("pass")))
            elif legal.HasField("draw"):
                await self.send(self.play.Draw, play_service_pb2.DrawRequest(**common, command_id=self.cid("draw")))
        except Exception:  # a stale decision (a race held it, the state moved on): the next legal actions retry
            return


async def run_table(port: int, cell: Cell, one_way_ms: float, seed: int) -> None:
    import grpc

    from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc, rules_pb2, table_pb2

    channel = grpc.aio.insecure_channel(f"{LOOPBACK}:{port}")
    lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
    player: Player | None = None
    try:
        clock = table_pb2.ClockSettings(strikes_before_takeover=0)
        clock.turn_time.FromNanoseconds(30 * 10**9)
        clock.round_start_hold.FromNanoseconds(0)  # the player reads no scores
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name=f"races-{cell.reaction_ms}-{cell.level}-{seed}", seat_count=2, clock=clock, manual_start=True,
            overrides=rules_pb2.Ruleset(target_score=100_000)), timeout=RPC_TIMEOUT_S)
        table_id = created.table.table_id
        joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name="player", role=lobby_service_pb2.JOIN_ROLE_PLAYER, seat=0), timeout=RPC_TIMEOUT_S)
        player = Player(port, table_id, joined.token, cell, one_way_ms, seed)
        player.start()
        await asyncio.sleep(1.0)  # let the pinger measure before the first race (a warm-up, not a sync)
        await lobby.AddBots(lobby_service_pb2.AddBotsRequest(table_id=table_id, owner_token=created.owner_token,
                                                             count=1, bot_kind=LEVEL_KINDS[cell.level]),
                            timeout=RPC_TIMEOUT_S)
        await lobby.StartTable(lobby_service_pb2.StartTableRequest(table_id=table_id, owner_token=created.owner_token),
                               timeout=RPC_TIMEOUT_S)
        await cell.done.wait()
    finally:
        if player is not None:
            await player.stop()
        await channel.close()


# ================================================================================== the peer and the report


def expected_share(level: int, reaction_ms: float) -> float:
    """The peer: the share of the bot's reaction draws slower than `reaction_ms` (what ordering races by
    true reaction time gives), from PEER_DRAWS draws of the level's own distribution, in this process."""
    from unonet.bots.levels import LEVELS, reaction_seconds

    rng = random.Random(level * 1_000 + int(reaction_ms))
    slower = sum(reaction_seconds(LEVELS[level], rng) * 1000 > reaction_ms for _ in range(PEER_DRAWS))
    return slower / PEER_DRAWS


def summary(cell: Cell) -> dict[str, Any]:
    measured = statistics.median(cell.measured_ms) if cell.measured_ms else None
    peer = expected_share(cell.level, measured) if measured is not None else None
    contested = cell.contested_won / cell.contested if cell.contested else None
    return {
        "reaction_ms": cell.reaction_ms, "level": cell.level, "races": cell.races,
        "won_share": round(cell.won / cell.races, 3) if cell.races else None,
        "contested": cell.contested, "contested_won_share": None if contested is None else round(contested, 3),
        "expected_share": None if peer is None else round(peer, 3),
        "contested_vs_expected": round(contested / peer, 3) if contested is not None and peer else None,
        "own_calls": cell.calls, "measured_reaction_ms": None if measured is None else round(measured, 1),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    target = 40 if args.quick else args.races
    cells = [Cell(x, level, target) for x in args.reactions for level in args.levels]
    started = time.monotonic()
    async with host_process(__file__) as port:
        tasks = [asyncio.create_task(run_table(port, cell, args.one_way_ms, seed))
                 for cell in cells for seed in range(args.tables)]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(cell.done.wait() for cell in cells)), args.limit)
        for cell in cells:
            cell.done.set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    return {"one_way_ms": args.one_way_ms, "seconds": round(time.monotonic() - started, 1),
            "cells": [summary(cell) for cell in cells]}


def report(result: dict[str, Any]) -> str:
    lines = [f"Races a person can win (one way {result['one_way_ms']:g} ms; {result['seconds']} s)",
             f"{'X ms':>5} {'level':>5} {'races':>6} {'won':>6} {'contested':>9} {'won':>6} {'expected':>8} "
             f"{'ratio':>6} {'host saw ms':>11}"]
    for c in result["cells"]:
        def shown(value: Any, fmt: str = "{:.0%}") -> str:
            return "-" if value is None else fmt.format(value)
        lines.append(f"{c['reaction_ms']:>5} {c['level']:>5} {c['races']:>6} {shown(c['won_share']):>6} "
                     f"{c['contested']:>9} {shown(c['contested_won_share']):>6} {shown(c['expected_share']):>8} "
                     f"{shown(c['contested_vs_expected'], '{:.2f}'):>6} "
                     f"{shown(c['measured_reaction_ms'], '{:.0f}'):>11}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--races", type=int, default=150, help="races per reaction time and level")
    parser.add_argument("--quick", action="store_true", help="40 races per cell")
    parser.add_argument("--tables", type=int, default=3, help="tables per cell, played at once")
    parser.add_argument("--one-way-ms", type=float, default=0.0, help="network delay each way, added by the player")
    parser.add_argument("--limit", type=float, default=1200.0, help="seconds before the run stops where it is")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    parser.add_argument("--reactions", type=lambda text: [int(x) for x in text.split(",")], default=list(REACTIONS_MS),
                        metavar="MS,MS", help="the player's reaction times (default 300,500,800)")
    parser.add_argument("--levels", type=lambda text: [int(x) for x in text.split(",")], default=list(LEVEL_KINDS),
                        metavar="N,N", help="the bots' levels (default 1,2,3)")
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
        return
    result = asyncio.run(main_async(args))
    print(report(result))
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
