"""`unonet local` (what `make play` runs): an embedded host on 127.0.0.1, three bots and you.

It lives on the server side because it embeds a host; the game screen it opens is the client's own
(`unonet.client.tui`), reached through a `TableClient` over a real gRPC connection like any other
seat. Quitting the screen stops the host.
"""

from __future__ import annotations

import asyncio
import contextlib

from unonet.client.bot_kinds import best_bot_kind
from unonet.client.table_client import TableClient
from unonet.client.tui.play import calm_garbage_collector, log_to_file, play_joined
from unonet.host.host import Host
from unonet.host.pace import DEFAULT_BOT_DELAY_S, Pace
from unonet.host.server import create_server
from unonet.host.store import SqliteStore, Store

__all__ = ["main", "run_local", "seat_against_bots"]


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
) -> None:
    """Start a host, seat `players - 1` bots and you at a new table, play it, stop the host."""
    store: Store | None = SqliteStore(db) if db else None
    pace = Pace.from_bot_delay(bot_delay)
    host = Host(store, pace=pace) if store is not None else Host(pace=pace)
    server, bound, host = await create_server(f"127.0.0.1:{port}", host=host)
    await server.start()
    try:
        async with await TableClient.connect(f"127.0.0.1:{bound}") as client:
            bot_kind = await seat_against_bots(client, name=name, players=players, preset=preset,
                                               target_score=target_score, turn_time=turn_time)

            async def start() -> None:  # once our stream is open, so the shuffle asks our seat too
                await client.start_table(fill_with_bots=True, bot_kind=bot_kind)

            await play_joined(client, colour_blind=colour_blind, on_stream_open=start)
    finally:
        await server.stop(grace=0.5)  # the shutdown order: stop serving, the host's readers, then the store
        await host.stop()
        if store is not None:
            with contextlib.suppress(Exception):
                store.close()


async def seat_against_bots(client: TableClient, *, name: str, players: int, preset: str, target_score: int,
                            turn_time: float | None) -> str:
    """Create the table and take seat 0; return the strongest bot kind the host offers (ListBotKinds,
    ranked by `unonet.client.bot_kinds`), to fill the other seats with."""
    from unonet.v1 import table_pb2

    overrides = {"target_score": target_score} if target_score else None
    clock = None
    if turn_time is not None:
        clock = table_pb2.ClockSettings()
        clock.turn_time.FromNanoseconds(int(turn_time * 1e9))
    created = await client.create_table(preset, overrides, players, name="local game", manual_start=True,
                                        clock=clock)
    await client.join(created.table_id, name, 0)
    return best_bot_kind(await client.list_bot_kinds())


def main(*, name: str, players: int, preset: str, target_score: int, bot_delay: float, turn_time: float | None,
         db: str | None, port: int, colour_blind: bool) -> int:
    log_to_file()
    calm_garbage_collector()
    try:
        asyncio.run(run_local(name=name, players=players, preset=preset, target_score=target_score,
                              bot_delay=bot_delay, turn_time=turn_time, db=db, port=port, colour_blind=colour_blind))
    except KeyboardInterrupt:
        return 130
    return 0
