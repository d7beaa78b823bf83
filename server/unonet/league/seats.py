"""The bots' side of the gRPC path, in a process of its own: `python -m unonet.league.seats ADDRESS`.

The runner's process holds the embedded host; the bots play from here, over loopback, as any bot
plays any host, so the host's event loop and the bots' run on two cores. The runner sends one job per
game on stdin (a JSON line: the table, and for each seat its token and the bot to play it) and reads
one JSON line back on stdout when the job's seats are done (`{"id": ..., "done": true}`). Many jobs
run at once on this process's event loop, each seat with the bots' own `BotRunner`.

A seat whose runner raises is restarted on its seat with its token, up to `max_restarts` times; then
the seat leaves the table, which forfeits it. An `exec` or `launch` entrant's program is started and
supervised from here too (`unonet.league.programs`), so it is this process's child. This module
imports the client SDK and the bots only, never the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import sys
from collections.abc import Sequence
from typing import Any

import grpc

from unonet.bots import Bot, BotRunner
from unonet.client import TableClient
from unonet.league.config import BotSpec
from unonet.league.entrants import Program, entrant
from unonet.league.programs import play_program

__all__ = ["play_seat", "serve"]

log = logging.getLogger(__name__)


async def play_seat(client: TableClient, bot: Bot, table_id: str, seat: int, max_restarts: int) -> None:
    """Play the seat to the match's end; a runner that raises is restarted; out of restarts, leave."""
    for attempt in range(max_restarts + 1):
        runner = BotRunner(bot, reaction_delay=0.0, pauses=False)  # no human waits: no level's pause
        try:
            await runner.run(client, table_id, seat)
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("seat %d at %s: the bot failed (attempt %d); restarting it", seat, table_id, attempt + 1)
    with contextlib.suppress(Exception):
        await client.leave()  # out of restarts: the seat forfeits


async def _job(channel: grpc.aio.Channel, address: str, job: dict[str, Any], timeout: float) -> None:
    tasks = []
    restarts = int(job["max_restarts"])
    for seat in job["seats"]:
        client = TableClient(channel, timeout=timeout)
        client.attach(job["table_id"], seat["token"], seat["seat"])
        played = entrant(BotSpec(seat["name"], seat["source"], seat["target"]))
        if isinstance(played, Program):
            tasks.append(play_program(client, played, address, job["table_id"], seat["seat"], restarts,
                                      int(seat["seed"])))
        else:
            tasks.append(play_seat(client, played(int(seat["seed"])), job["table_id"], seat["seat"], restarts))
    await asyncio.gather(*tasks)


async def serve(address: str, timeout: float = 10.0) -> None:
    """Read jobs from stdin until it closes; answer each on stdout when its seats are done."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 22)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    running: set[asyncio.Task[None]] = set()
    async with grpc.aio.insecure_channel(address) as channel:

        async def run(job: dict[str, Any]) -> None:
            try:
                await _job(channel, address, job, timeout)
                answer: dict[str, Any] = {"id": job["id"], "done": True}
            except Exception as error:  # a job's failure is reported, never the whole process's
                answer = {"id": job["id"], "done": False, "error": repr(error)}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()

        while line := await reader.readline():
            job = json.loads(line)
            if job.get("cancel"):
                for task in running:
                    if task.get_name() == job["cancel"]:
                        task.cancel()
                continue
            task = loop.create_task(run(job), name=str(job["id"]))
            running.add(task)
            task.add_done_callback(running.discard)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m unonet.league.seats HOST:PORT", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="seats %(levelname)s %(message)s")
    # Ctrl-C reaches the whole foreground process group: the runner, which stops this process by closing
    # its stdin (and whose death closes it too), is the one to handle it, not a traceback from here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(serve(args[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
