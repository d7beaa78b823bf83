"""The `unonet play` command: the lobby of one or more hosts, or straight to a table's game screen.

It sits above both screens it opens: the lobby (`unonet.client.tui.lobby`) plays each table chosen
with `unonet.client.tui.play.play_table`, so the entry that chooses between them cannot live in
either without the two importing each other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from unonet.client.errors import UnonetError
from unonet.client.tui.config import player_settings
from unonet.client.tui.lobby import run_lobby
from unonet.client.tui.play import calm_garbage_collector, log_to_file, play_table

__all__ = ["main"]


def main(address: str | None, *, table_id: str | None, name: str | None, seat: int | None, watch: bool, tls: bool,
         colour_blind: bool | None, hosts: Sequence[str] = (), bell: bool | None = None,
         pace: float | None = None, default_name: str = "player") -> int:
    """The `unonet play` command: the lobby of `address` (or of `hosts`, or of the hosts announced on the
    LAN when neither is given), or straight to `table_id`. A flag left None takes the config file's
    value (`unonet.client.tui.config`)."""
    log_to_file()
    calm_garbage_collector()
    settings = player_settings(name=name, colour_blind=colour_blind, bell=bell, pace=pace, default_name=default_name)
    try:
        if table_id:
            if not address:
                print("--table needs the host's address: unonet play HOST:PORT --table ID")
                return 2
            asyncio.run(play_table(address, table_id, name=settings.name, seat=seat, watch=watch, tls=tls,
                                   **settings.session_args()))
            return 0
        addresses = [address] if address else list(hosts)
        asyncio.run(run_lobby(addresses, name=settings.name, tls=tls, browse=not addresses,
                              session_args=settings.session_args()))
        return 0
    except UnonetError as error:
        print(f"unonet play: {error}")
        return 1
    except KeyboardInterrupt:
        return 130
