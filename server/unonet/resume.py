"""An embedded host's own seat across restarts: `unonet local` and `unonet host` find the unfinished
table their user sat at, in the database they were started on, to resume it instead of starting anew.

The seat's token is saved like every seat a client holds (`unonet.client.tui.seats.SeatStore`), under
the database's absolute path (`seat_key`) instead of a host's address, which changes with the port. A
saved seat whose table is over or gone is forgotten when looked for.
"""

from __future__ import annotations

from pathlib import Path

from unonet.client.tui.seats import SavedSeat, SeatStore
from unonet.host.host import Host
from unonet.v1 import table_pb2

__all__ = ["Resumable", "describe_table", "find_resumable", "seat_key"]


def seat_key(db: str | Path) -> str:
    """The key `unonet local` and `unonet host` save their own seats under in the `SeatStore`: the
    database's absolute path, which outlives the port a host happened to get."""
    return f"db:{Path(db).resolve()}"


class Resumable:
    """An unfinished match of this database that the saved seat can resume: its table and the seat."""

    def __init__(self, table_id: str, seat: SavedSeat, description: str) -> None:
        self.table_id = table_id
        self.seat = seat
        self.description = description


def find_resumable(host: Host, store: SeatStore, db: str | Path) -> Resumable | None:
    """The newest table of `host` (restored from `db`) still unfinished at which `store` holds a seat;
    saved seats whose tables are over or gone are forgotten."""
    key = seat_key(db)
    found: list[tuple[int, Resumable]] = []
    for table_id in store.tables(key):
        table = host.tables.get(table_id)
        saved = store.get(key, table_id)
        if table is None or saved is None or saved.seat is None or table.status == table_pb2.TABLE_STATUS_FINISHED:
            store.forget(key, table_id)
            continue
        found.append((table.created_ns, Resumable(table_id, saved, describe_table(table.info(), saved.seat))))
    return max(found, key=lambda pair: pair[0])[1] if found else None


def describe_table(info: table_pb2.TableInfo, seat: int) -> str:
    """One line on an unfinished match: the round and every seat's total, the player's first."""
    target = info.settings.ruleset.target_score
    seats = sorted((s for s in info.seats if s.occupied), key=lambda s: s.seat != seat)
    totals = ", ".join(f"{'you' if s.seat == seat else s.name} {s.score}" for s in seats)
    if info.status == table_pb2.TABLE_STATUS_WAITING:
        return f"{info.settings.name}: not started yet"
    return f"{info.settings.name}: round {info.round_number}, first to {target}; {totals}"
