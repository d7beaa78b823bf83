"""A league seat played by a program of its own: an `exec` bot (JSON lines) or a `launch` bot (gRPC).

Both are supervised the same way, as a seat the runner already joined (it holds the token):

- **exec**: the program is started with the bots' bridge (`unonet.bots.bridge.ExecBot`) and played by
  the bots' own `BotRunner` over this process's connection to the host, like any policy seat.
- **launch**: the program is started by the launch convention (`unonet.bots.launch.Launched`: the
  address, table and seat as arguments and as UNONET_ADDRESS, UNONET_TABLE, UNONET_SEAT, the token
  as UNONET_TOKEN only) and speaks gRPC to the host itself; it exits 0 when the match ends.

Either way the program gets the bot's seed for the game (`entrants.bot_seed`, what a Python policy is
built with) as UNONET_SEED, so with fixed seeds a program that seeds its own choices with it plays the
same games on a rerun, as the built-in bots do.

A program that crashes (exits, or closes its output, before the match is over) or hangs (the host
struck the seat: its turn clock ran out, `SeatState.strikes` went up, and an exec program gave no answer
the bots' runner refused for that turn: a garbage or illegal answer is counted as such, not as a hang) is
stopped and started again on its seat, up to `max_restarts` times, as long as the host still lets the
seat play; out of restarts, the seat leaves the table, which forfeits it (the log's SeatTakenOver, reason LEFT: outcome
"forfeit"). The turns a hung program missed are the table's clock's to judge, as for any bot: each
is a strike, and out of strikes the host forfeits the seat (outcome "time_loss"). Every program is
stopped when its game ends, and when its seat is cancelled (a stall, the league's end, a Ctrl-C): it runs
in a session of its own, which gets SIGTERM and, after a grace, SIGKILL (`unonet.bots.sessions`; an exec
program's stdin is closed first). While it runs its pid is recorded (`reaper.ProgramRecords`), so that if
this process dies before it could stop it, whoever outlives it kills what is left. The record is made
before the program runs a single instruction of its own: it is started through `sh -c 'echo > RECORDS/$$
&& exec "$@"'` (`ProgramRecords.command`), which writes its pid (the session's id) and only then becomes the
program, so even a supervisor killed the moment it started a program leaves nothing the reaper does not
know of, and a program whose records were reaped before its shim ran never starts.

What the seat's program did wrong is counted in the seat's `SeatTally`: a crash (it exited, or closed
its output, before the match was over; a launched one exited with a failure), each restart, and the
answers the bots' runner refused (garbage, illegal). This module imports the client SDK and the bots
only, never the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable

from unonet.bots import BotRunner
from unonet.bots.bridge import ExecBot
from unonet.bots.faults import FaultKind
from unonet.bots.launch import Launched, SeatGrant
from unonet.client import TableClient
from unonet.league.entrants import Program
from unonet.league.reaper import ProgramRecords
from unonet.league.tallies import SeatTally
from unonet.v1 import table_pb2

__all__ = ["RESTART_BACKOFF_S", "play_program"]

log = logging.getLogger(__name__)

#: Seconds before a crashed program is started again, doubled for each next restart of the seat.
RESTART_BACKOFF_S = 0.1
#: How often a program's seat asks the host whether it was struck (a hung program: restarted).
STRIKE_CHECK_S = 0.25
#: How often a seat out of restarts asks whether its table has started (to forfeit, not empty, the seat).
START_CHECK_S = 0.05


async def play_program(
    client: TableClient, program: Program, address: str, table_id: str, seat: int, max_restarts: int,
    seed: int | None = None, *, tally: SeatTally | None = None, records: ProgramRecords | None = None,
) -> None:
    """Play the seat with `program` to the match's end: restarts after crashes, then leaving (see the module).

    `client` is attached to the seat (its token); `address` is the host's, for a launched program;
    `seed` is the bot's seed for this game, handed to the program (and to each restart) as UNONET_SEED;
    `tally` counts its failures; `records` lists its pid while it runs."""
    tally = SeatTally() if tally is None else tally
    play = _exec_once if program.source == "exec" else _launch_once
    delay = RESTART_BACKOFF_S
    for attempt in range(max_restarts + 1):
        answers = _Answers()
        try:
            run = play(client, program, address, table_id, seat, seed, tally, records, answers)
            finished = await _until_struck(client, table_id, seat, run, answers)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s could not play", program.argv[0])
            tally.crashes += 1
            finished = False
        if finished or not await _still_playing(client, table_id, seat):
            return
        if attempt < max_restarts:
            log.warning("%s crashed or hung (start %d); starting it again", program.argv[0], attempt + 1)
            tally.restarts += 1
            await asyncio.sleep(delay)
            delay *= 2
    log.warning("%s crashed or hung %d times; the seat leaves", program.argv[0], max_restarts + 1)
    # Leaving a table that has not started would empty the seat instead of forfeiting it (and the table
    # could not start): a program that died before the start leaves once the match is under way.
    while await _status(client, table_id) == table_pb2.TABLE_STATUS_WAITING:
        await asyncio.sleep(START_CHECK_S)
    with contextlib.suppress(Exception):
        await client.leave()  # out of restarts: the seat forfeits


class _Answers:
    """The answers of one run of an exec program that the bots' runner refused (garbage, illegal): a strike
    that follows one is the clock deciding a turn the program did answer, not a hang."""

    def __init__(self) -> None:
        self.runner: BotRunner | None = None

    def refused(self) -> int:
        faults = [] if self.runner is None else self.runner.faults
        return sum(fault.kind in (FaultKind.GARBAGE, FaultKind.ILLEGAL) for fault in faults)


async def _until_struck(client: TableClient, table_id: str, seat: int, run: Awaitable[bool], answers: _Answers) -> bool:
    """`run`'s result, or False (the program hung) as soon as the host strikes the seat meanwhile for a turn
    the program did not answer; the run is cancelled then, which stops its program."""
    task = asyncio.ensure_future(run)
    try:
        strikes = await _strikes(client, table_id, seat)
        refused = answers.refused()
        while True:
            done, _ = await asyncio.wait({task}, timeout=STRIKE_CHECK_S)
            if done:
                return task.result()
            # Each answer refused (garbage, illegal) is a turn the clock decided although the program answered:
            # only strikes beyond those are turns it did not answer at all.
            struck = await _strikes(client, table_id, seat) - strikes
            if struck > answers.refused() - refused:
                log.warning("its program let the turn clock run out")
                return False
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _strikes(client: TableClient, table_id: str, seat: int) -> int:
    try:
        seats = (await client.get_table(table_id)).seats
    except Exception:
        log.exception("cannot read the table")
        return 0
    return seats[seat].strikes if seat < len(seats) else 0


async def _exec_once(
    client: TableClient, program: Program, address: str, table_id: str, seat: int, seed: int | None,
    tally: SeatTally, records: ProgramRecords | None, answers: _Answers,
) -> bool:
    """One run of an exec program: True when it played to the match's end, False when it is gone."""
    bot = ExecBot(_recorded(program.argv, records), seed=seed)
    await bot.start()
    pid = bot.process.pid if bot.process is not None else 0
    if records is not None:
        records.add(pid)
    runner = answers.runner = BotRunner(bot, reaction_delay=0.0, pauses=False)
    try:
        ended = await runner.run(client, table_id, seat)
    finally:  # also when the game is cancelled (its end, a stall): the program never outlives its seat
        tally.count(runner.faults)
        await _stopped(bot.close(), records, [pid])
    return ended is not None


async def _launch_once(
    client: TableClient, program: Program, address: str, table_id: str, seat: int, seed: int | None,
    tally: SeatTally, records: ProgramRecords | None, answers: _Answers,
) -> bool:
    """One run of a launched program: True when it exited 0 (it played the match to its end)."""
    started: list[int] = []

    def on_start(pid: int) -> None:
        started.append(pid)
        if records is not None:
            records.add(pid)

    launched = Launched(_recorded(program.argv, records), SeatGrant(address, table_id, seat, client.token),
                        max_restarts=0, seed=seed, on_start=on_start)
    try:
        status = await launched.run()
    finally:  # also when the game is cancelled (its end, a stall): the program never outlives its seat
        await _stopped(launched.stop(), records, started)
    if status != 0:
        log.warning("%s exited with status %d", program.argv[0], status)
        tally.crashes += 1
    return status == 0


def _recorded(argv: tuple[str, ...] | list[str], records: ProgramRecords | None) -> list[str]:
    """`argv` started through the recording shim (`ProgramRecords.command`); unchanged without records."""
    return list(argv) if records is None else records.command(argv)


async def _stopped(stop: Awaitable[object], records: ProgramRecords | None, pids: list[int]) -> None:
    """Run `stop` (a program's stop) to its end even if this seat is cancelled again meanwhile, and only
    then forget the program's record: a stop cut short (this process dies) leaves the record for the reaper."""
    task = asyncio.ensure_future(stop)
    if records is not None:
        task.add_done_callback(lambda done: _forget(records, pids) if not done.cancelled() and
                               done.exception() is None else None)
    await asyncio.shield(task)


def _forget(records: ProgramRecords, pids: list[int]) -> None:
    for pid in pids:
        records.discard(pid)


async def _still_playing(client: TableClient, table_id: str, seat: int) -> bool:
    """Whether the host still waits for this seat: the match goes on and the seat is not taken over."""
    try:
        info = await client.get_table(table_id)
    except Exception:
        log.exception("cannot read the table")
        return False
    if info.status == table_pb2.TABLE_STATUS_FINISHED or seat >= len(info.seats):
        return False
    state = info.seats[seat]
    return not (state.taken_over or state.eliminated)


async def _status(client: TableClient, table_id: str) -> int:
    """The table's status; FINISHED when it cannot be read (nothing more to wait for)."""
    try:
        return (await client.get_table(table_id)).status
    except Exception:
        log.exception("cannot read the table")
        return table_pb2.TABLE_STATUS_FINISHED
