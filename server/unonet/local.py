"""`unonet local` (what `make play` runs): an embedded host on 127.0.0.1, three bots and you.

It lives on the server side because it embeds a host; the game screen it opens is the client's own
(`unonet.client.tui`), reached through a `TableClient` over a real gRPC connection like any other
seat. Quitting the screen stops the host, so Q asks first.

The game is kept in a database in the user's state directory (`local_db`: ``$XDG_STATE_HOME/unonet/
local.db``, or ``~/.local/state/unonet/local.db``), and the seat's token beside the other saved seats
(`unonet.client.tui.seats.SeatStore`, under the database's path instead of a host's address). So a
match left unfinished, by Q or a crash, is offered again the next time: resume it, or start a new one
(the old seat is then left, and bots play that match out by themselves, at once: a table of bots only
never waits). After a restart the seat's turn clock starts afresh (`Host.restore`): the player was
away with the host, not late.

The terminal is the game screen's, so nothing else may write on it: this process logs to the client's
log file (`unonet.client.tui.play.log_to_file`: ``client.log`` in the state directory), and the host's
bot worker processes (a kind that searches, such as the default `strong`) append their stderr to the
same file (`Host(worker_log=...)`). Quitting stops those workers first, while the host still serves,
then the host (`Host.stop_bot_workers`, the shutdown order).

The bots are the strongest kind the host offers at `LOCAL_BOT_LEVEL`, a level below the top that
forgets UNO now and then (so there is someone to catch) and thinks for a human moment; `--bots KIND`
seats another.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from unonet.client.bot_kinds import best_bot_kind
from unonet.client.table_client import TableClient
from unonet.client.tui.play import calm_garbage_collector, log_to_file, play_joined
from unonet.client.tui.seats import SavedSeat, SeatStore, state_dir
from unonet.host.host import Host
from unonet.host.pace import DEFAULT_BOT_DELAY_S, Pace
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.resume import Resumable, find_resumable, seat_key
from unonet.v1 import table_pb2

__all__ = [
    "LOCAL_BOT_LEVEL",
    "QUIT_WARNING",
    "local_bot_kind",
    "local_db",
    "main",
    "run_local",
    "seat_against_bots",
]

LOCAL_BOT_LEVEL = 2
"""The level of `unonet local`'s bots: below the top, so they forget UNO now and then (docs/bots.md)."""
QUIT_WARNING = "This stops the game's host; the match is saved and `unonet local` offers to resume it."


def local_db() -> Path:
    """Where `unonet local` keeps its game by default: ``local.db`` in the user's state directory."""
    return state_dir() / "local.db"


async def ask_in_terminal(question: str) -> bool:
    """Ask `question` on the terminal, yes by default; with no terminal to ask, yes."""
    if not sys.stdin.isatty():
        return True
    answer = await asyncio.to_thread(input, question)
    return answer.strip().lower() not in ("n", "no")


async def run_local(
    *,
    name: str = "you",
    players: int = 4,
    preset: str = "standard",
    target_score: int = 0,
    bot_delay: float = DEFAULT_BOT_DELAY_S,
    turn_time: float | None = None,
    db: str | None = None,
    port: int = 0,
    colour_blind: bool = False,
    bots: str = "",
    resume: bool | None = None,
    seats: SeatStore | None = None,
    ask: Callable[[str], Awaitable[bool]] = ask_in_terminal,
    session_args: dict[str, Any] | None = None,
    worker_log: Path | None = None,
    **screen_args: object,
) -> None:
    """Start a host on `db` (default `local_db()`), resume the unfinished match or seat `players - 1`
    bots and you at a new table, play it, stop the host.

    `resume` True or False decides without asking; None asks (`ask`) when there is a match to resume.
    `seats` is where the seat's token is kept (default: the user's). `session_args` are the player's
    settings for the game screen; `screen_args` go to the game screen too (a test's pipe input and
    dummy output). `worker_log`: the file the host's bot workers write their stderr to (`main` gives the
    log file); None: this process's stderr.
    """
    path = Path(db) if db else local_db()
    path.parent.mkdir(parents=True, exist_ok=True)
    seats = seats if seats is not None else SeatStore()
    store = SqliteStore(path)
    host = Host(store, pace=Pace.from_bot_delay(bot_delay), worker_log=worker_log)
    try:
        host.restore()
        server, bound, host = await create_server(f"127.0.0.1:{port}", host=host)
    except BaseException:
        store.close()
        raise
    await server.start()
    host.start_drivers()
    try:
        async with await TableClient.connect(f"127.0.0.1:{bound}") as client:
            start: Callable[[], Awaitable[None]] | None = None
            old = find_resumable(host, seats, path)
            if old is not None and resume is None:
                resume = await ask(f"unonet local: your last match is not over ({old.description}).\n"
                                   "Resume it? [Y/n] ")
            if old is not None and resume:
                client.attach(old.table_id, old.seat.token, old.seat.seat)
                client.owner_token = old.seat.owner_token
                if (await client.get_table()).status == table_pb2.TABLE_STATUS_WAITING:
                    start = _starter(client, bots or await _bot_kind(client))
            else:
                if old is not None:  # a new match: bots play the old one out by themselves
                    await _leave(client, old)
                    seats.forget(seat_key(path), old.table_id)
                kind = await seat_against_bots(client, name=name, players=players, preset=preset,
                                               target_score=target_score, turn_time=turn_time, bots=bots)
                assert client.table_id is not None and client.seat is not None
                seats.put(seat_key(path), client.table_id, SavedSeat(client.token, client.seat, name,
                                                                     client.owner_token))
                start = _starter(client, kind)
            await play_joined(client, colour_blind=colour_blind, store=seats, address=seat_key(path),
                              on_stream_open=start, quit_warning=QUIT_WARNING, **(session_args or {}), **screen_args)
    finally:
        # The shutdown order: the bot workers (while the host still answers them), serving, the host's
        # readers, then the store.
        await host.stop_bot_workers()
        await server.stop(grace=0.5)
        await host.stop()
        with contextlib.suppress(Exception):
            store.close()


def _starter(client: TableClient, kind: str) -> Callable[[], Awaitable[None]]:
    async def start() -> None:  # once our stream is open, so the shuffle asks our seat too
        await client.start_table(fill_with_bots=True, bot_kind=kind)

    return start


async def _leave(client: TableClient, old: Resumable) -> None:
    """Give the old match's seat up (its clock would run out at the next start anyway)."""
    async with TableClient(client.channel) as leaver:
        leaver.attach(old.table_id, old.seat.token, old.seat.seat)
        with contextlib.suppress(Exception):  # already over, or the seat gone: nothing left to give up
            await leaver.leave()


async def _bot_kind(client: TableClient) -> str:
    return local_bot_kind(await client.list_bot_kinds())


def local_bot_kind(kinds: list[table_pb2.BotKind]) -> str:
    """The strongest kind offered, at `LOCAL_BOT_LEVEL` when the host offers that level of it."""
    best = best_bot_kind(kinds)
    wanted = f"{best.partition(':')[0]}:{LOCAL_BOT_LEVEL}"
    return wanted if any(kind.name == wanted for kind in kinds) else best


async def seat_against_bots(client: TableClient, *, name: str, players: int, preset: str, target_score: int,
                            turn_time: float | None, bots: str = "") -> str:
    """Create the table and take seat 0; return the bot kind to fill the other seats with: `bots`, else
    the strongest kind the host offers (ListBotKinds, ranked by `unonet.client.bot_kinds`) at
    `LOCAL_BOT_LEVEL` (`local_bot_kind`)."""
    overrides = {"target_score": target_score} if target_score else None
    clock = None
    if turn_time is not None:
        clock = table_pb2.ClockSettings()
        clock.turn_time.FromNanoseconds(int(turn_time * 1e9))
    created = await client.create_table(preset, overrides, players, name="local game", manual_start=True,
                                        clock=clock)
    await client.join(created.table_id, name, 0)
    return bots or await _bot_kind(client)


def main(*, name: str, players: int, preset: str, target_score: int, bot_delay: float, turn_time: float | None,
         db: str | None, port: int, colour_blind: bool, bots: str = "", resume: bool | None = None,
         session_args: dict[str, Any] | None = None) -> int:
    log = log_to_file()
    calm_garbage_collector()
    try:
        asyncio.run(run_local(name=name, players=players, preset=preset, target_score=target_score,
                              bot_delay=bot_delay, turn_time=turn_time, db=db, port=port, colour_blind=colour_blind,
                              bots=bots, resume=resume, session_args=session_args, worker_log=log))
    except KeyboardInterrupt:
        return 130
    return 0
