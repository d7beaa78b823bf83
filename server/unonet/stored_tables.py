"""The tables a host's database holds, listed for a person to pick: `unonet export --db` and `unonet replay --db`
without a table.

`stored_tables(db)` reads each stored table's public log (the same rows `unonet export` writes) and
says what a person recognises it by: its name, the players at its seats, whether it is waiting,
playing or finished (and who won), when it was created, and its id. `pick(rows, ...)` lists them
numbered, newest first, and reads a number; with no terminal to ask in, the caller prints the list
and asks for `--table` instead. It opens the file read-only in spirit (it never writes), through the
host's own store, since only the host knows its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TextIO

from unonet.host.store import SqliteStore
from unonet.v1 import events_pb2

__all__ = ["StoredTableRow", "describe", "pick", "stored_tables"]


@dataclass(frozen=True, slots=True)
class StoredTableRow:
    """One stored table as the list shows it."""

    table_id: str
    name: str
    seats: tuple[str, ...]
    status: str
    created: float  # seconds since the epoch
    events: int


def _row(table_id: str, created_ns: int, events: Sequence[events_pb2.Event], name: str = "") -> StoredTableRow:
    names: dict[int, str] = {}
    status = "waiting"
    for event in events:
        kind = event.WhichOneof("payload")
        if kind == "player_joined":
            names[event.player_joined.seat] = event.player_joined.name
        elif kind == "bot_seated":
            names[event.bot_seated.seat] = event.bot_seated.name
        elif kind == "match_started":
            name = event.match_started.settings.name or name
            names |= {state.seat: state.name for state in event.match_started.seats if state.name}
            status = "playing"
        elif kind == "round_started":
            status = f"playing, round {event.round_started.round_number}"
        elif kind == "match_ended":
            winners = " and ".join(names.get(seat, f"seat {seat}") for seat in event.match_ended.winner_seats)
            status = f"finished, {winners} won" if winners else "finished"
    seats = tuple(names.get(seat, "") for seat in range(max(names, default=-1) + 1))
    return StoredTableRow(table_id, name, seats, status, created_ns / 1e9, len(events))


def stored_tables(db: str) -> list[StoredTableRow]:
    """Every table in a host's SQLite file, newest first. Raises OSError or sqlite3 errors for a file
    that is not a host's database."""
    store = SqliteStore(db)
    try:
        rows = []
        for table in store.tables():
            events = [events_pb2.Event.FromString(blob) for _, blob in store.public_events(table.table_id)]
            settings = table.record.get("settings")
            name = str(settings.get("name", "")) if isinstance(settings, dict) else ""
            rows.append(_row(table.table_id, table.created_ns, events, name))
    finally:
        store.close()
    return sorted(rows, key=lambda row: row.created, reverse=True)


def describe(rows: Sequence[StoredTableRow]) -> str:
    """The list, numbered from 1: name, seats, status, when, id."""
    lines = []
    for number, row in enumerate(rows, start=1):
        when = datetime.fromtimestamp(row.created).strftime("%Y-%m-%d %H:%M")
        seats = ", ".join(name or "(empty)" for name in row.seats) or "no players"
        lines.append(f"{number:>3}. {(row.name or '(unnamed)')[:28]:<28} {when}  {row.status}\n"
                     f"     {seats[:70]}\n     id {row.table_id}")
    return "\n".join(lines) + ("\n" if lines else "")


def pick(rows: Sequence[StoredTableRow], stdin: TextIO, stdout: TextIO) -> str | None:
    """List `rows` and read the number of one; returns its table id, or None (an empty answer, end of
    input, or no table to pick)."""
    if not rows:
        stdout.write("no tables in this database\n")
        return None
    stdout.write(describe(rows))
    while True:
        stdout.write(f"which table? 1-{len(rows)} (Enter for none): ")
        stdout.flush()
        answer = stdin.readline()
        if not answer.strip():
            return None
        if answer.strip().isdigit() and 1 <= int(answer) <= len(rows):
            return rows[int(answer) - 1].table_id
        stdout.write(f"{answer.strip()!r} is not a number from 1 to {len(rows)}\n")
