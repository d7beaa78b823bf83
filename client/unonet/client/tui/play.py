"""`unonet play`: from an address (or the lobby) to a seat on the game screen.

`play_table` joins a table (or rejoins the seat whose token is saved for that host and table, see
`unonet.client.tui.seats`) and runs the game screen; `play_joined` runs it for a client already
joined (what an embedded host, `unonet local`, uses). The lobby (`unonet.client.tui.lobby`) plays
each table chosen with `play_table`; the command line's entry, which opens the lobby or goes straight
to a table, is `unonet.client.tui.command.main`, above both.

The log goes to a file in the user's state directory, never to the screen.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from unonet.client.discovery import discover_hosts
from unonet.client.errors import PermissionDenied
from unonet.client.table_client import TableClient
from unonet.client.tui.seats import SavedSeat, SeatStore, state_dir
from unonet.client.tui.session import Session

__all__ = ["calm_garbage_collector", "lan_hosts", "log_to_file", "play_joined", "play_table", "play_token"]


def calm_garbage_collector() -> None:
    """Freeze what start-up allocated out of every later collection, so a full collection's pause
    (tens of ms over the generated protocol modules) does not land in the middle of a redraw."""
    gc.collect()
    gc.freeze()


def log_to_file() -> Path:
    """Send every log record to ``<state dir>/client.log``: a full-screen client has no stderr to spare.
    Returns that file, for whatever else this process starts that would write on the terminal (an
    embedded host's bot workers)."""
    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "client.log"
    logging.basicConfig(
        filename=path, level=logging.INFO, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return path


async def play_joined(client: TableClient, *, colour_blind: bool = False, store: SeatStore | None = None,
                      address: str = "", on_stream_open: Callable[[], Awaitable[None]] | None = None,
                      quit_warning: str = "", **screen_args: Any) -> None:
    """Run the game screen for `client`'s seat until the player quits or leaves.

    With a `store`, the seat's shuffle shares are saved in it (under `address`) and read back from it,
    so a restarted client reveals what it committed to. `on_stream_open` is awaited once the seat's
    event stream is open (to start the match then). `quit_warning`: the game stops with this client
    (an embedded host), and Q asks first in these words. `screen_args` go to the game screen (a test's
    pipe input and dummy output).
    """

    # The table is read at each call: a rematch moves the client to a new table on the same screen.
    def forget() -> None:
        if store is not None:
            store.forget(address, client.table_id)

    def keep(round_no: int, value: bytes) -> None:
        if store is not None:
            store.keep_entropy(address, client.table_id, round_no, value)

    def seated(table_id: str, token: str, seat: int | None, owner_token: str) -> None:
        if store is not None and seat is not None:
            store.put(address, table_id, SavedSeat(token, seat, "", owner_token))

    saved = store.entropy(address, client.table_id) if store is not None else {}
    await Session(client, colour_blind=colour_blind, on_leave=forget, on_stream_open=on_stream_open,
                  entropy=saved, keep_entropy=keep, on_seat=seated, quit_warning=quit_warning, **screen_args).run()


async def play_table(
    address: str,
    table_id: str,
    *,
    name: str,
    seat: int | None = None,
    watch: bool = False,
    tls: bool = False,
    colour_blind: bool = False,
    store: SeatStore | None = None,
    owner_token: str = "",
    **session_args: Any,
) -> None:
    """Join `table_id` at `address` (or rejoin the saved seat) and play it on the game screen
    (`session_args`: the player's settings, `config.PlayerSettings.session_args`).

    `owner_token` (the table was just created by this user) is saved with the seat, so this client,
    restarted or not, can start the match early and add bots from the game screen.

    Raises:
        UnonetError: the host is unreachable, or refused the join (the table is full or started...).
    """
    store = store if store is not None else SeatStore()
    client = await TableClient.connect(address, tls=tls)
    try:
        await _take_place(client, store, address, table_id, name=name, seat=seat, watch=watch,
                          owner_token=owner_token)
        await play_joined(client, colour_blind=colour_blind, store=store, address=address, **session_args)
    finally:
        await client.close()


async def _take_place(client: TableClient, store: SeatStore, address: str, table_id: str, *, name: str,
                      seat: int | None, watch: bool, owner_token: str = "") -> None:
    """Attach the saved seat when it still works, else join (saving the new seat's token and the
    table's owner token when known)."""
    saved = None if watch else store.get(address, table_id)
    if saved is not None:
        client.attach(table_id, saved.token, saved.seat)
        try:
            await client.get_view()
            client.owner_token = owner_token or saved.owner_token
            return
        except PermissionDenied:
            store.forget(address, table_id)  # the host no longer knows it (a new database, say)
    joined = await client.join(table_id, name, seat, spectator=watch)
    client.owner_token = owner_token
    if not joined.is_spectator:
        store.put(address, table_id, SavedSeat(joined.token, joined.seat, name, owner_token))


async def play_token(address: str, table_id: str, token: str, seat: int | None, *, tls: bool = False,
                     colour_blind: bool = False, notice: str = "", owner_token: str = "",
                     quit_warning: str = "", **session_args: Any) -> None:
    """Play a seat whose token the caller already holds (a host that seated its user, `unonet host`).

    `notice` is shown in the middle of the table until the match starts (the address friends dial);
    `owner_token` lets the screen start the match early and add bots; `quit_warning`: the host stops
    with this client, and Q asks first in these words.
    """
    async with await TableClient.connect(address, tls=tls) as client:
        client.attach(table_id, token, seat)
        client.owner_token = owner_token
        session = Session(client, colour_blind=colour_blind, quit_warning=quit_warning, **session_args)
        session.model.invite = notice
        await session.run()


async def lan_hosts(timeout: float = 2.0) -> list[str]:
    """The addresses of the unonet hosts announced on the LAN (zeroconf), found within `timeout` seconds."""
    try:
        found = await discover_hosts(timeout)
    except OSError:  # no interface to browse on: typed addresses only
        return []
    return [host.target for host in found]
