"""Chaos: N SIGKILLs of a loaded host, then every acknowledged command checked against its log.

One `unonet serve` process (SQLite in a temporary folder, `--no-fair-shuffle` so that every input
is a player's command, no host bots, no clocks) and, in this process, T tables of two seats played
flat out over real gRPC: each table's task reads the seat to act and its legal actions, and sends one
legal command under a fresh command id. At random moments (`--min-gap` to `--max-gap` seconds
apart) the host is killed with SIGKILL, mid-write or mid-commit as it happens, and started again on
the same database. A command whose call fails because the host died is resent with the same command
id once the host is back, until it is answered (the SDK's contract). A finished match is replaced.

After the last kill the database is opened by a fresh host and every acknowledged command is checked:
its (seat, command id) is in the table's journal exactly once (none lost, none doubled), and the
result the host gives for it now is the one the client was given. Every table must replay, and its
events must be numbered 1, 2, ... with no gap. Exit 0 if all of that holds, 1 otherwise.

    .venv/bin/python bench/chaos.py                   # 12 kills, 8 tables
    .venv/bin/python bench/chaos.py --kills 48 --json # the issue's run; the last line is one JSON object

Everything binds and dials 127.0.0.1 only; the host process is killed at the end, on error too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.v1 import (
    cards_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    rules_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
RPC_TIMEOUT_S = 5.0
START_TIMEOUT_S = 60.0
STUBS: dict[str, Any] = {"lobby": lobby_service_pb2_grpc.LobbyServiceStub,
                         "play": play_service_pb2_grpc.PlayServiceStub,
                         "watch": watch_service_pb2_grpc.WatchServiceStub}
DOWN = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN}


@dataclass
class Acked:
    table_id: str
    seat: int
    command_id: str
    event_number: int
    last_event_number: int


@dataclass
class Run:
    db: Path
    log: Path
    process: asyncio.subprocess.Process | None = None
    channel: grpc.aio.Channel | None = None
    up: asyncio.Event = field(default_factory=asyncio.Event)
    acked: list[Acked] = field(default_factory=list)
    retried: int = 0
    tables: list[str] = field(default_factory=list)

    async def start(self) -> None:
        with self.log.open("ab") as stderr:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "unonet.cli", "serve", "--listen", "127.0.0.1:0", "--db", str(self.db),
                "--bot-delay", "0", "--no-fair-shuffle", "--peer-commands-per-second", "0",
                "--commands-per-second", "0", "--joins-per-second", "0",
                stdout=asyncio.subprocess.PIPE, stderr=stderr)
        assert self.process.stdout is not None
        line = (await asyncio.wait_for(self.process.stdout.readline(), START_TIMEOUT_S)).decode()
        found = LISTENING.search(line)
        if not found:
            raise RuntimeError(f"the host did not start: {line!r}; see {self.log}")
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{found.group(1)}")
        self.up.set()

    async def kill(self) -> None:
        self.up.clear()
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
        if self.channel is not None:
            await self.channel.close()

    async def call(self, service: str, method: str, request: Any) -> Any:
        """The call's answer, resent (same request, same command id) across kills until answered."""
        while True:
            await self.up.wait()
            channel = self.channel
            assert channel is not None
            stub: Any = STUBS[service](channel)
            try:
                return await getattr(stub, method)(request, timeout=RPC_TIMEOUT_S)
            except grpc.aio.AioRpcError as error:
                if error.code() not in DOWN:
                    raise
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # this task is being stopped
                # else the channel was closed under the call by a kill: the host is down
            self.retried += 1
            await asyncio.sleep(0.05)  # the host is down: wait for it to come back, then resend


async def new_table(run: Run) -> tuple[str, list[str]]:
    created = await run.call("lobby", "CreateTable", lobby_service_pb2.CreateTableRequest(
        name="chaos", seat_count=2, overrides=rules_pb2.Ruleset(target_score=1)))
    table_id = created.table.table_id
    tokens = []
    for name in ("ann", "bob"):  # a join resent after a kill may find its seat taken by its first try
        joined = await run.call("lobby", "JoinTable", lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER))
        tokens.append(joined.token)
    run.tables.append(table_id)
    return table_id, tokens


async def play(run: Run, index: int, deadline: float) -> None:
    serial = 0
    while time.monotonic() < deadline:
        try:
            table_id, tokens = await new_table(run)
        except grpc.aio.AioRpcError:
            continue  # a join resent after a kill found its seat taken: start another table
        while time.monotonic() < deadline:
            view = (await run.call("watch", "GetView", watch_service_pb2.GetViewRequest(
                table_id=table_id, token=tokens[0]))).view
            if not view.HasField("seat_to_act"):
                break  # the match is over
            seat = view.seat_to_act
            legal = (await run.call("watch", "GetView", watch_service_pb2.GetViewRequest(
                table_id=table_id, token=tokens[seat]))).view.legal_actions
            serial += 1
            command_id = f"t{index}-{serial}"
            common = {"table_id": table_id, "token": tokens[seat], "command_id": command_id}
            if legal.choose_color:
                color = cards_pb2.COLOR_RED
                method, request = "ChooseColor", play_service_pb2.ChooseColorRequest(**common, color=color)
            elif legal.plays:
                option = legal.plays[0]
                request = play_service_pb2.PlayCardsRequest(**common, cards=option.cards, call_uno=True)
                if option.needs_color:
                    request.color = cards_pb2.COLOR_BLUE
                method = "PlayCards"
            elif legal.pass_turn:
                method, request = "Pass", play_service_pb2.PassRequest(**common)
            elif legal.HasField("draw"):
                method, request = "Draw", play_service_pb2.DrawRequest(**common)
            else:
                break  # nothing this simple player can do (a reaction window): leave the table
            try:
                result = (await run.call("play", method, request)).result
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    continue  # the state moved under us (a window opened): look again
                raise
            run.acked.append(Acked(table_id, seat, command_id, result.event_number, result.last_event_number))


def verify(db: Path, acked: list[Acked]) -> dict[str, Any]:
    """Every acknowledged command against the journal and a fresh host's replay of it."""
    with sqlite3.connect(db) as connection:
        counts: dict[tuple[str, int, str], int] = {}
        for table_id, entry in connection.execute("SELECT table_id, entry FROM journal"):
            data = json.loads(entry)
            if data.get("k") == "cmd":
                key = (table_id, int(data["seat"]), str(data["cid"]))
                counts[key] = counts.get(key, 0) + 1
    store = SqliteStore(db)
    host = Host(store)
    lost = doubled = different = 0
    problems: list[str] = []
    try:
        reports = host.check_tables()
        host.restore()
        damaged = [report.line() for report in reports if report.is_damaged]
        for ack in acked:
            n = counts.get((ack.table_id, ack.seat, ack.command_id), 0)
            if n == 0:
                lost += 1
                problems.append(f"lost: {ack}")
                continue
            if n > 1:
                doubled += 1
                problems.append(f"applied {n} times: {ack}")
            table = host.table(ack.table_id)
            record = table.commands.get((ack.seat, ack.command_id))
            if record is None or (record.result.event_number, record.result.last_event_number) != (
                    ack.event_number, ack.last_event_number):
                different += 1
                problems.append(f"another result now: {ack} vs {record.result if record else None}")
        gaps = 0
        for report in reports:
            if report.is_damaged:
                continue
            numbers = [number for number, _ in store.public_events(report.table_id)]
            if numbers != list(range(1, len(numbers) + 1)):
                gaps += 1
                problems.append(f"table {report.table_id}: its public events are not numbered 1..n")
    finally:
        store.close()
    return {"tables": len(reports), "damaged_tables": damaged, "acknowledged": len(acked), "lost": lost,
            "doubled": doubled, "different_result": different, "tables_with_gaps": gaps, "problems": problems[:20]}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="unonet-chaos-") as folder:
        run = Run(Path(folder) / "chaos.db", Path(folder) / "host.log")
        try:
            await run.start()
            deadline = time.monotonic() + 3600
            players = [asyncio.create_task(play(run, i, deadline)) for i in range(args.tables)]
            kills = 0
            started = time.monotonic()
            while kills < args.kills:
                await asyncio.sleep(rng.uniform(args.min_gap, args.max_gap))
                for task in players:
                    if task.done() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                await run.kill()
                kills += 1
                await run.start()
            await asyncio.sleep(args.min_gap)  # the last restart serves a while, then everything stops
            for task in players:
                task.cancel()
            for task in players:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            elapsed = time.monotonic() - started
        finally:
            await run.kill()
        figures = verify(run.db, run.acked)
        figures.update({"kills": kills, "seconds": round(elapsed, 1), "resent_calls": run.retried,
                        "tables_played": len(run.tables), "seed": args.seed})
        if "Traceback" in run.log.read_text(errors="replace"):
            figures["problems"].append("the host's log has a traceback")
        return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--min-gap", type=float, default=0.3, help="least seconds between two kills")
    parser.add_argument("--max-gap", type=float, default=1.5, help="most seconds between two kills")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    result = asyncio.run(main(arguments))
    ok = not (result["lost"] or result["doubled"] or result["different_result"] or result["tables_with_gaps"]
              or result["damaged_tables"] or result["problems"])
    if arguments.json:
        print(json.dumps(result))
    else:
        print(f"{result['kills']} SIGKILLs in {result['seconds']} s, {result['tables_played']} tables, "
              f"{result['acknowledged']} acknowledged commands ({result['resent_calls']} calls resent after a kill)")
        print(f"lost {result['lost']}, applied twice {result['doubled']}, another result {result['different_result']}, "
              f"tables with gaps {result['tables_with_gaps']}, damaged tables {len(result['damaged_tables'])}")
        for problem in result["problems"]:
            print("  " + problem)
        print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)
