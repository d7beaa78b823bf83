"""A table's retry record: the first result of every command id each seat used, bounded in memory.

The protocol's retry contract (docs/protocol.md, "Command ids") has no window: a command resent with
its id, however late, gets its first result and is never applied twice, and an id reused for another
request is refused. So every record is kept, in the store (`Store.add_command`, written in the journal
row of the input that made it, so a record exists exactly when its input was journalled), and only
the latest `RECENT_COMMANDS` of a table stay in memory: a retry comes within seconds, and an older id
costs one primary-key read. Before this a long match's records were most of what its memory grew by.
Until a table's book first lets a record go (its first RECENT_COMMANDS commands, most matches' all),
memory holds every record, so a new command id, which is most of what is looked up, costs no read.

While a replay rebuilds the table (`holding`), every record stays in memory and nothing is written:
`release` stores the ones a host before the store kept them did not, then keeps only the recent ones.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from unonet.host import json_text
from unonet.host.store import Store
from unonet.v1 import actions_pb2

# How many of a table's latest command records stay in memory (a retry follows its first send closely).
RECENT_COMMANDS = 512

Key = tuple[int, str]  # (seat, command id); chat ids have keys of their own (table._chat_key)


@dataclass(slots=True)
class CommandRecord:
    """What a command id was used for (its request, as journalled) and the result it got."""

    request: dict[str, Any]
    result: actions_pb2.CommandResult


class CommandBook:
    """The command records of one table, as a mapping from (seat, command id): the recent ones in
    memory, every one in the store."""

    def __init__(self, store: Store, table_id: str, *, recent: int | None = None) -> None:
        """`recent`: how many records stay in memory (None: RECENT_COMMANDS, read now)."""
        self._store, self._table_id = store, table_id
        self._recent_limit = RECENT_COMMANDS if recent is None else recent
        # Each record as the store keeps it (the request's JSON, the result's bytes): a tuple of a str and
        # bytes, which the garbage collector stops tracking, where a CommandRecord was four tracked
        # objects that every full collection traversed (512 a table: at 100 tables, 39% of what a full
        # collection walked). A retry parses it back.
        self._recent: collections.OrderedDict[Key, tuple[str, bytes]] = collections.OrderedDict()
        self.holding = False  # while a replay rebuilds the table: kept in memory, not written (`release`)
        # Every record of the table is in memory: a new table's, until the first one is let go. A table
        # rebuilt from the store reads there (`release`).
        self._all_in_memory = True
        # The record set last, as it was given: its table reads the result back at once (no parsing).
        self._latest: tuple[Key, CommandRecord] | None = None

    def get(self, key: Key) -> CommandRecord | None:
        """The record of `key`: from memory if it is recent (or memory holds them all), else read back
        from the store."""
        if self._latest is not None and self._latest[0] == key:  # the command just applied, read for its result
            return self._latest[1]
        stored = self._recent.get(key)
        if stored is None:
            if self.holding or self._all_in_memory:
                return None
            stored = self._store.command(self._table_id, *key)
            if stored is None:
                return None
        request, result = stored
        return CommandRecord(json.loads(request), actions_pb2.CommandResult.FromString(result))

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and (key in self._recent or self.get(key) is not None)

    def __getitem__(self, key: Key) -> CommandRecord:
        record = self.get(key)
        if record is None:
            raise KeyError(key)
        return record

    def __setitem__(self, key: Key, record: CommandRecord) -> None:
        """Keep a new record; the store writes it with the input being journalled (its group commit)."""
        stored = self._recent[key] = (json_text.dumps(record.request), record.result.SerializeToString())
        self._latest = (key, record)
        if not self.holding:
            self._store.add_command(self._table_id, key[0], key[1], *stored)
            self._trim()

    def __iter__(self) -> Iterator[Key]:
        """Every key, the stored ones first (a slow walk over the store: for tests and tools)."""
        seen = set()
        for key in self._store.command_keys(self._table_id):
            seen.add(key)
            yield key
        yield from (key for key in list(self._recent) if key not in seen)

    @property
    def in_memory(self) -> int:
        """How many records are held in memory now."""
        return len(self._recent)

    def release(self, *, backfill: bool) -> None:
        """After a replay: store the records a host before the store kept them did not (with `backfill`;
        a check of the database writes nothing), then keep only the recent ones."""
        if backfill and self._recent:
            self._store.add_commands(self._table_id, [
                (seat, command_id, request, result) for (seat, command_id), (request, result) in self._recent.items()])
        self.holding = False
        self._all_in_memory = False
        self._trim()

    def _trim(self) -> None:
        while len(self._recent) > self._recent_limit:
            self._recent.popitem(last=False)
            self._all_in_memory = False
