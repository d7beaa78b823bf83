"""The bots' side of the gRPC path, in a process of its own: `python -m unonet.league.seats ADDRESS RECORDS`.

The runner's process holds the embedded host; the bots play from here, over loopback, as any bot
plays any host, so the host's event loop and the bots' run on two cores. The runner sends one job per
game on stdin (a JSON line: the job's id, the game's, its table, and for each seat its token and the
bot to play it) and reads one JSON line back on stdout when the job's seats are done:

    {"id": "g000012.1", "done": true, "tallies": [{"crashes": 0, "restarts": 0, ...}, ...]}

with each seat's `tallies.SeatTally` (its bot's crashes, restarts, bad and illegal answers). The runner
may ask a job to stop (`{"stop": "g000012.1"}`: its game ended, or stalled); the job then stops its
seats and answers the same way, with `"stopped": true`. Every second or so it pings (`{"ping": true}`),
answered at once with `{"pong": true}` (and `{"ready": true}` says it started): a seats process that
answers nothing for a while is hung, and the runner kills it and plays its games again. A job that
fails for a reason of this process's own, not its bots', answers `{"id": ..., "done": false, "error":
...}`: the runner aborts that game and plays it again. Many jobs run at once on this process's event
loop, each seat with the bots' own `BotRunner`; log lines name the game, seat and bot (`unonet.league.logs`).

A seat whose runner raises is restarted on its seat with its token, up to `max_restarts` times; then
the seat leaves the table, which forfeits it. An `exec` or `launch` entrant's program is started and
supervised from here too (`unonet.league.programs`), so it is this process's child, in a session of
its own; its pid is recorded in the folder RECORDS while it runs (`reaper.ProgramRecords`), so the
runner kills what is left if this process dies (SIGKILL) before it could stop them. When stdin closes
(the runner stopped, or died) every job is stopped, its programs with it, and the process exits. This
module imports the client SDK and the bots only, never the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Sequence
from typing import Any

import grpc

from unonet.bots import Bot, BotRunner
from unonet.client import TableClient
from unonet.league import logs
from unonet.league.config import BotSpec
from unonet.league.entrants import Program, entrant
from unonet.league.programs import play_program
from unonet.league.reaper import ProgramRecords
from unonet.league.tallies import SeatTally

__all__ = ["labelled", "play_seat", "play_seats", "serve"]

log = logging.getLogger(__name__)


async def play_seat(
    client: TableClient, bot: Bot, table_id: str, seat: int, max_restarts: int, tally: SeatTally | None = None
) -> None:
    """Play the seat to the match's end; a runner that raises is restarted; out of restarts, leave.
    `tally` counts the bot's crashes (its runner raised, or its policy did), restarts, bad and illegal answers."""
    tally = SeatTally() if tally is None else tally
    for attempt in range(max_restarts + 1):
        if attempt:
            tally.restarts += 1
        runner = BotRunner(bot, reaction_delay=0.0, pauses=False)  # no human waits: no level's pause
        try:
            await runner.run(client, table_id, seat)
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            tally.crashes += 1
            log.exception("the bot failed (attempt %d); restarting it", attempt + 1)
        finally:
            tally.count(runner.faults)
    with contextlib.suppress(Exception):
        await client.leave()  # out of restarts: the seat forfeits


async def labelled(game_id: str, seat: int, bot: str, play: Awaitable[None]) -> None:
    """Play one seat with its log lines naming the game, the seat and the bot (`logs.playing`)."""
    logs.playing(game_id, seat, bot)
    await play


async def play_seats(
    channel: grpc.aio.Channel, address: str, job: dict[str, Any], tallies: Sequence[SeatTally],
    *, timeout: float, records: ProgramRecords | None,
) -> None:
    """Play one job's seats (a game) until every seat is done; cancelling it stops them all, programs too."""
    tasks = []
    restarts = int(job["max_restarts"])
    for seat, tally in zip(job["seats"], tallies, strict=True):
        client = TableClient(channel, timeout=timeout)
        client.attach(job["table_id"], seat["token"], seat["seat"])
        played = entrant(BotSpec(seat["name"], seat["source"], seat["target"]))
        play: Awaitable[None]
        if isinstance(played, Program):
            play = play_program(client, played, address, job["table_id"], seat["seat"], restarts, int(seat["seed"]),
                                tally=tally, records=records)
        else:
            play = play_seat(client, played(int(seat["seed"])), job["table_id"], seat["seat"], restarts, tally)
        tasks.append(asyncio.ensure_future(labelled(str(job["game"]), int(seat["seat"]), str(seat["name"]), play)))
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _forget(running: dict[str, asyncio.Task[None]], key: str, _: object) -> None:
    running.pop(key, None)


def _answer(line: dict[str, Any]) -> None:
    with contextlib.suppress(OSError, ValueError):  # the runner is gone: nobody to tell
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


async def serve(address: str, records: ProgramRecords | None = None, timeout: float = 10.0) -> None:
    """Read jobs from stdin until it closes; answer each on stdout when its seats are done."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 22)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    running: dict[str, asyncio.Task[None]] = {}
    _answer({"ready": True})  # the runner's watchdog times this process's silences from here
    async with grpc.aio.insecure_channel(address) as channel:

        async def run(job: dict[str, Any]) -> None:
            tallies = [SeatTally() for _ in job["seats"]]
            answer: dict[str, Any]
            try:
                await play_seats(channel, address, job, tallies, timeout=timeout, records=records)
                answer = {"id": job["id"], "done": True}
            except asyncio.CancelledError:  # asked to stop: the seats are stopped, their tallies still count
                answer = {"id": job["id"], "done": True, "stopped": True}
            except Exception as error:  # a job's failure is reported, never the whole process's
                log.exception("%s: the seats could not be played", job["game"])
                answer = {"id": job["id"], "done": False, "error": repr(error)}
            answer["tallies"] = [tally.to_json() for tally in tallies]
            _answer(answer)

        while line := await reader.readline():
            job = json.loads(line)
            if "ping" in job:  # the runner's watchdog: this process's event loop still turns
                _answer({"pong": True})
                continue
            if "stop" in job:
                task = running.get(str(job["stop"]))
                if task is not None:
                    task.cancel()
                continue
            key = str(job["id"])  # unique per attempt: a game played again is a job of its own
            running[key] = task = loop.create_task(run(job), name=key)
            task.add_done_callback(functools.partial(_forget, running, key))
        # The runner is gone or done: stop every job (a job already asked to stop is left to finish
        # stopping: cancelling it again would cut its programs' stop short).
        for task in list(running.values()):
            if not task.cancelling():
                task.cancel()
        await asyncio.gather(*running.values(), return_exceptions=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (1, 2):
        print("usage: python -m unonet.league.seats HOST:PORT [RECORDS_FOLDER]", file=sys.stderr)
        return 2
    logs.install(fmt="seats %(levelname)s %(message)s")
    # Ctrl-C reaches the whole foreground process group: the runner, which stops this process by closing
    # its stdin (and whose death closes it too), is the one to handle it, not a traceback from here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    records = ProgramRecords(args[1]) if len(args) == 2 else None
    asyncio.run(serve(args[0], records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
