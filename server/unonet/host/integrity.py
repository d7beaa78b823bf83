"""A stored table that cannot be rebuilt is quarantined, named and explained, never the host's end.

The journal is the table: a row deleted, garbled or altered so that it no longer replays means the
table's state is unknown; and a table whose sent mark is lost (store.py: the database was opened
without its marks file) could give numbers its clients saw to other events. The host then serves
every other table and answers calls naming this one with FAILED_PRECONDITION / TABLE_DAMAGED (not
UNAVAILABLE, which clients retry forever), and its log says which table and which journal entry (or
its sent mark). `unonet serve --check-db` reports every table's state the same way without serving
(`Host.check_tables`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from unonet.host.loghead import in_words
from unonet.host.store import StoredTable


class ReplayFailed(Exception):
    """Replaying journal entry `seq` raised `error` (Table.replay): the journal does not rebuild the table."""

    def __init__(self, seq: int, error: BaseException) -> None:
        super().__init__(f"journal entry {seq}: {type(error).__name__}: {error}")
        self.seq = seq
        self.error = error


class TableDamaged(Exception):
    """Table `table_id` cannot be rebuilt from the store: `entry` is the first journal entry at fault
    (0: the table's own record; SENT_MARK: its sent mark, lost), `why` says what is wrong with it."""

    SENT_MARK = -1

    def __init__(self, table_id: str, entry: int, why: str) -> None:
        where = {0: "its record", self.SENT_MARK: "its sent mark"}.get(entry, f"journal entry {entry}")
        super().__init__(f"table {table_id} is damaged at {where}: {why}")
        self.table_id = table_id
        self.entry = entry
        self.why = why


def check_rows(stored: StoredTable) -> None:
    """Raise TableDamaged if the stored rows cannot be read or an entry is missing: the journal numbers
    its entries 1, 2, 3, ... with no gap, so a deleted row shows as the first number not there."""
    if stored.damage is not None:
        first_bad = stored.journal[-1].seq + 1 if stored.journal else (0 if not stored.record else 1)
        raise TableDamaged(stored.table_id, first_bad, stored.damage)
    for expected, entry in enumerate(stored.journal, start=1):
        if entry.seq != expected:
            raise TableDamaged(stored.table_id, expected,
                               f"entry {expected} is missing (the next one stored is {entry.seq})")


@dataclass(frozen=True, slots=True)
class TableReport:
    """One stored table's state, as `unonet serve --check-db` prints it."""

    table_id: str
    entries: int  # journal entries stored
    events: int  # events the replay rebuilt (0 for a damaged table)
    status: str  # the table's TableStatus name, or DAMAGED
    damage: str = ""  # why it is damaged (TableDamaged's message)
    archived: bool = False
    sent: int = 0  # the highest event number the host had sent (the store's sent mark), if above `events`
    # The runs of numbers whose replayed events are not the ones that were sent (loghead.py).
    diverged: list[tuple[int, int]] = field(default_factory=list)

    @property
    def is_damaged(self) -> bool:
        return bool(self.damage)

    def line(self) -> str:
        place = "archived" if self.archived else "live"
        if self.is_damaged:
            return f"{self.table_id}  DAMAGED ({place}, {self.entries} journal entries): {self.damage}"
        line = f"{self.table_id}  ok ({place}, {self.status}): {self.entries} journal entries, {self.events} events"
        if self.sent > self.events:  # a serving host turns these numbers into EventsLost markers
            line += f"; events {self.events + 1} to {self.sent} were sent and then lost by the store"
        if self.diverged:  # a serving host journals the ranges, and resumes inside them get DATA_LOSS
            line += (f"; {in_words(self.diverged)} not the ones that were sent (the log's head at event"
                     f" {self.diverged[-1][1]}, the sent mark, does not match the journal's)")
        return line


def summary(reports: list[TableReport]) -> str:
    damaged = sum(report.is_damaged for report in reports)
    return f"{len(reports)} tables, {len(reports) - damaged} ok, {damaged} damaged"
