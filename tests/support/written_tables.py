"""A small table written to a real SQLite store by an in-process host, for the tests that damage,
mark or reread a database: three seats joined (and, if asked, chat lines said), then the host stopped
and the store closed, so the file on disk is all a restarted host will have."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from unonet.host.host import Host
from unonet.host.store import SqliteStore
from unonet.host.table import TableSettings


async def write_table(db: Path, chat: Sequence[str] = ()) -> tuple[str, str, int]:
    """(table id, the first seat's token, the table's last event number) of a table written to `db`."""
    store = SqliteStore(db)
    host = Host(store)
    table = host.create_table(TableSettings(name="t", seat_count=3, preset="standard", overrides={},
                                            manual_start=True))
    token, _ = table.join("ann", None, False)
    for name in ("bob", "cy"):
        table.join(name, None, False)
    for number, text in enumerate(chat):
        table.chat(token, f"c{number}", text)
    await host.stop()
    store.close()
    return table.table_id, token, table.last_number
