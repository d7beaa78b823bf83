"""`unonet host`: a host in this process on the LAN address, announced, with a new table and a seat for you.

`lan_host` runs everything a LAN game needs from one command: the gRPC host (in memory, or on a SQLite
file with `db`), its zeroconf announcement (announce.py), a table, and the user's seat at it taken
through the protocol like any client's. It yields a `HostedSeat`: what the terminal client needs to
open that seat, and the address friends type when discovery does not reach them.

With a database (`--db`), the host's own seat is saved like every seat a client holds
(`unonet.client.tui.seats.SeatStore`, under the database's path rather than an address that changes
with the port), so `unonet host` started again on the same database reopens that seat at its table,
unfinished, instead of creating a second one (`HostedSeat.reopened`); once that match is over, the
next start creates a new table.

`run_lan_host` is the command: it prints that address, then hands the seat to `open_seat` (the
terminal client) and stops the host when it returns; with no `open_seat` it waits for Ctrl-C (SIGINT)
or SIGTERM. The terminal client asks before Q stops the host (`quit_warning`): every friend at the
table is disconnected with it. Like `unonet demo`, this embeds a host, so it lives on the server side:
the client package never imports the host.

With the game screen, the terminal is the screen's: the command logs to the client's log file and
gives it as `LanOptions.worker_log`, where the host's bot worker processes append their stderr too.
Without one (a service), the workers share this process's stderr, like `unonet serve`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from unonet.client.table_client import TableClient
from unonet.client.tui.seats import SavedSeat, SeatStore
from unonet.host.announce import Announcer, announcer_for, is_wildcard, lan_address
from unonet.host.host import Host
from unonet.host.pace import DEFAULT_BOT_DELAY_S, Pace
from unonet.host.server import create_server
from unonet.host.store import MemoryStore, SqliteStore, Store
from unonet.resume import find_resumable, seat_key
from unonet.v1 import rules_pb2

__all__ = ["DEFAULT_LISTEN", "HostedSeat", "LanOptions", "OpenSeat", "describe", "lan_host", "quit_warning",
           "run_lan_host"]

DEFAULT_LISTEN = "0.0.0.0:50051"


@dataclass(frozen=True, slots=True)
class HostedSeat:
    """The user's seat at the table `unonet host` created, and how to reach the host.

    `address` is what friends dial (`unonet play ADDRESS`): the LAN address for a wildcard bind, else
    the bound address. `local_address` is what this process dials. `instance` is the announced DNS-SD
    name; when announcing failed it is "" and `not_announced` says why (friends then type `address`).
    `owner_token` lets the seat's client add bots and start the table (AddBots, StartTable); `token` is
    the seat's own secret. `reopened`: the table was this database's unfinished one, not a new table;
    `kept`: the host keeps its tables in a database (`--db`), so a restart reopens this one.
    """

    address: str
    local_address: str
    name: str
    instance: str
    table_id: str
    seat: int
    token: str
    owner_token: str
    seat_count: int
    player_name: str
    not_announced: str = ""  # why the LAN announcement failed ("" when it is announced)
    reopened: bool = False
    kept: bool = False


# The terminal client's entry point for a hosted seat: it returns when the user quits.
OpenSeat = Callable[[HostedSeat], Awaitable[object]]


def _split(listen: str) -> tuple[str, int]:
    """`HOST:PORT` (IPv6 in brackets) into its parts. Raises ValueError for anything else."""
    bound, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--listen {listen!r} is not HOST:PORT")
    return bound, int(port)


def _dial(bound: str, port: int) -> str:
    host = "127.0.0.1" if is_wildcard(bound) else bound
    return f"[{host.strip('[]')}]:{port}" if ":" in host.strip("[]") else f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class LanOptions:
    """What `unonet host` is told: where to listen, the names, and the table to create.

    `listen` is HOST:PORT (0.0.0.0 for every interface, announced with the LAN address); `db` a SQLite
    file to keep the tables in (None: memory only); `bots` how many host bots take seats at once;
    `target_score` 0 keeps the preset's; `worker_log` the file the host's bot workers append their
    stderr to (None: this process's stderr)."""

    listen: str = DEFAULT_LISTEN
    name: str = "unonet"
    player_name: str = "you"
    seat_count: int = 4
    bots: int = 0
    preset: str = "standard"
    target_score: int = 0
    db: str | None = None
    bot_delay_s: float = DEFAULT_BOT_DELAY_S
    worker_log: Path | None = None


@contextlib.asynccontextmanager
async def lan_host(options: LanOptions, seats: SeatStore | None = None) -> AsyncIterator[HostedSeat]:
    """Serve, announce, create a table, take seat 0, seat the bots; yield the seat; on exit withdraw the
    announcement and stop the host. With `options.db`, reopen instead the seat saved in `seats` (default:
    the user's) for that database when its table is unfinished, and save a new table's seat there.

    The table starts by itself when its last seat is filled (friends joining, or bots); the seat's
    owner token starts it sooner. A host that cannot be announced still runs (`HostedSeat.not_announced`
    says why). Raises ValueError for a bad `listen`, OSError when it cannot be bound, and the client's
    typed errors (`InvalidArgument`, ...) for refused table options.
    """
    bound, port = _split(options.listen)
    store: Store = SqliteStore(options.db) if options.db else MemoryStore()
    host = Host(store, pace=Pace.from_bot_delay(options.bot_delay_s), worker_log=options.worker_log)
    host.restore()
    server, port, _ = await create_server(options.listen, host=host)
    await server.start()
    host.start_drivers()
    announcer: Announcer | None = None
    try:
        local = _dial(bound, port)
        key = seat_key(options.db) if options.db else ""
        if options.db and seats is None:
            seats = SeatStore()
        old = find_resumable(host, seats, options.db) if options.db and seats is not None else None
        async with await TableClient.connect(local) as client:
            if old is not None:
                table_id, seat, token, owner_token = old.table_id, old.seat.seat, old.seat.token, old.seat.owner_token
                assert seat is not None
                seat_count = len(host.tables[table_id].seats)
            else:
                overrides = rules_pb2.Ruleset(target_score=options.target_score) if options.target_score else None
                created = await client.create_table(options.preset, overrides, options.seat_count,
                                                    name=f"{options.name}'s table")
                joined = await client.join(created.table_id, options.player_name, seat=0)
                assert joined.seat is not None
                table_id, seat, token, owner_token = created.table_id, joined.seat, joined.token, created.owner_token
                seat_count = options.seat_count
                if seats is not None:
                    seats.put(key, table_id, SavedSeat(token, seat, options.player_name, owner_token))
                if options.bots:
                    await client.add_bots(options.bots)
        announcer, not_announced = await _announce(bound, port, options.name, host)
        friends = f"{lan_address()}:{port}" if is_wildcard(bound) else local
        yield HostedSeat(friends, local, options.name, announcer.instance if announcer else "", table_id,
                         seat, token, owner_token, seat_count, options.player_name, not_announced,
                         reopened=old is not None, kept=bool(options.db))
    finally:
        if announcer is not None:
            await announcer.stop()
        # The shutdown order: the bot workers (while the host still answers them), serving, the host's
        # readers, then the store.
        await host.stop_bot_workers()
        await server.stop(grace=1)
        await host.stop()
        store.close()


async def _announce(bound: str, port: int, name: str, host: Host) -> tuple[Announcer | None, str]:
    """Start the announcement; on failure return why instead: friends can still type the address."""
    try:
        announcer = announcer_for(bound, port, name, host)
        await announcer.start()
    except Exception as error:  # OSError (no multicast), ValueError (no IPv4 to announce), zeroconf's refusal
        return None, str(error) or type(error).__name__
    return announcer, ""


def describe(seat: HostedSeat) -> str:
    """What `unonet host` prints: where friends connect, the table, and the user's seat."""
    announced = (f"is announced on the LAN as {seat.instance!r}" if not seat.not_announced
                 else f"could not be announced on the LAN ({seat.not_announced})")
    table = ("reopened: your unfinished table from the database" if seat.reopened
             else f"{seat.seat_count} seats; it starts when the last one is filled")
    return (
        f"unonet host {seat.name!r} {announced}\n"
        f"friends run:  unonet play {seat.address}   (or pick it from the LAN list)\n"
        f"table:        {seat.table_id}  ({table})\n"
        f"your seat:    {seat.seat} as {seat.player_name!r}, token {seat.token}\n"
        f"owner token:  {seat.owner_token}  (adds bots and starts the table)\n"
    )


def quit_warning(seat: HostedSeat) -> str:
    """What the terminal client says before Q stops this host (Q asks first)."""
    then = ("run the same command to reopen the table" if seat.kept
            else "without --db the table is gone")
    return f"This stops the host: everyone at this table is disconnected ({then})."


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(sig)


async def run_lan_host(options: LanOptions, *, out: TextIO, open_seat: OpenSeat | None = None,
                       stop: Awaitable[object] | None = None, seats: SeatStore | None = None) -> HostedSeat:
    """`unonet host`: print the hosted seat, then run `open_seat(seat)` until it returns, or, without
    one, wait for `stop` (default: SIGINT or SIGTERM). `seats`: where the host's own seat is kept with
    `options.db` (default: the user's). Returns the seat that was hosted; raises what `lan_host` raises."""
    async with lan_host(options, seats) as seat:
        out.write(describe(seat))
        out.flush()
        if open_seat is not None:
            await open_seat(seat)
        else:
            out.write("Ctrl-C stops the host.\n")
            out.flush()
            await (stop if stop is not None else _until_signalled())
    return seat
