"""The host: every table, restored from the store on start, and one driver task per table.

The driver is what moves a table without a client asking: bots' moves, blocking reaction windows
closing at their deadline, and turn clocks running out. Each of those is recorded through
`Table.record` like any client command, so it is journalled and replayed the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable

from unonet.engine import UnoError, legal_actions
from unonet.fairness.latency import DEFAULT_MAX_FORGIVEN_S
from unonet.host.actions_json import dump_action
from unonet.host.bots import choose_action, reaction_for
from unonet.host.errors import not_found
from unonet.host.store import MemoryStore, Store
from unonet.host.table import Table, TableSettings

log = logging.getLogger(__name__)
MAX_BOT_STEPS_PER_WAKE = 64


class Host:
    """All tables of one host process."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        bot_delay_s: float = 0.0,
        write_timeout_s: float = 10.0,
        clock_ns: Callable[[], int] = time.time_ns,
        compensate_latency: bool = True,
        max_forgiven_s: float = DEFAULT_MAX_FORGIVEN_S,
        fair_shuffle: bool = True,
    ) -> None:
        """`compensate_latency` off ranks race answers by arrival alone (for measuring what compensation
        buys, bench/fairness.py); `max_forgiven_s` caps the one-way latency a race forgives.
        `fair_shuffle` off makes the tables created from now on deal with the engine's own seeded shuffle,
        with no commit-reveal round and no card commitments (what they cost, bench/fairness.py). Each
        table keeps the setting it was created with (its stored record), whatever a restarted host says."""
        self.compensate_latency = compensate_latency
        self.fair_shuffle = fair_shuffle
        self.max_forgiven_s = max_forgiven_s
        self.store: Store = store if store is not None else MemoryStore()
        self.bot_delay_s = bot_delay_s
        self.write_timeout_s = write_timeout_s
        self.clock_ns = clock_ns
        self.tables: dict[str, Table] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}

    def restore(self) -> int:
        """Load every stored table and replay its journal. Returns how many tables came back."""
        count = 0
        for stored in self.store.tables():
            record = stored.record
            table = Table(
                stored.table_id, TableSettings(**record["settings"]), owner_token=record["owner_token"],
                seed=int(record["seed"]), created_ns=stored.created_ns, store=self.store, clock_ns=self.clock_ns,
                fair_shuffle=bool(record.get("fair_shuffle", True)),  # tables stored before the switch: on
            )
            self._configure(table)
            table.replay(stored.journal)
            self.tables[table.table_id] = table
            count += 1
        return count

    def start_drivers(self) -> None:
        for table in self.tables.values():
            self._ensure_driver(table)

    async def stop(self) -> None:
        for task in self._drivers.values():
            task.cancel()
        for task in self._drivers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._drivers.clear()

    def table(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise not_found("TABLE_NOT_FOUND", f"there is no table {table_id!r}")
        return table

    def create_table(self, settings: TableSettings, *, seed: int | None = None) -> Table:
        settings.ruleset()  # refuse an impossible ruleset before anything is stored
        table_id = secrets.token_hex(6)
        owner_token = secrets.token_urlsafe(24)
        seed = secrets.randbits(63) if seed is None else seed
        created = self.clock_ns()
        record = {"settings": settings.__dict__, "owner_token": owner_token, "seed": seed,
                  "fair_shuffle": self.fair_shuffle}
        self.store.create_table(table_id, record, created)
        table = Table(
            table_id, settings, owner_token=owner_token, seed=seed, created_ns=created, store=self.store,
            clock_ns=self.clock_ns, fair_shuffle=self.fair_shuffle,
        )
        self._configure(table)
        self.tables[table_id] = table
        self._ensure_driver(table)
        return table

    def _configure(self, table: Table) -> None:
        table.races.compensate = self.compensate_latency
        table.races.max_forgiven_s = self.max_forgiven_s

    def _ensure_driver(self, table: Table) -> None:
        if table.table_id not in self._drivers:
            self._drivers[table.table_id] = asyncio.get_running_loop().create_task(
                self._drive(table), name=f"table-{table.table_id}"
            )

    # ----------------------------------------------------------------------------- the driver

    async def _drive(self, table: Table) -> None:
        while True:
            table.changed.clear()
            try:
                async with table.lock:
                    wait_s = self._step(table)
            except Exception:  # a bug must not kill the table's clock: log it loudly and go on
                log.exception("driver of table %s failed", table.table_id)
                wait_s = 1.0
            if table.match is not None and table.match.is_over:
                return
            if wait_s == 0:
                await asyncio.sleep(0)  # let clients in between bot moves
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.changed.wait(), timeout=wait_s)

    def _step(self, table: Table) -> float | None:
        """Do what is due now; return 0 to come back at once, seconds until the next deadline, or None."""
        match = table.match
        if match is None or match.is_over:
            return None
        now = self.clock_ns()
        shuffle = table.shuffle
        if shuffle is not None:  # before a deal only the shuffle's deadline moves the table on
            if shuffle.deadline_ns is None:
                return None
            if shuffle.deadline_ns <= now:
                table.record({"k": "entropy_timeout", "round": shuffle.round_no, "phase": shuffle.phase})
                return 0
            return (shuffle.deadline_ns - now) / 1e9
        for window_id, deadline in sorted(table.window_deadlines.items()):
            if deadline <= now:  # a race is ruled (races.py), any other window just closes
                table.record(table.races.closing_entry(table, window_id))
                return 0
        game = match.game
        holding = table.races.holding() is not None  # the turn waits for a race's ruling
        if (table.turn_deadline_ns is not None and table.turn_deadline_ns <= now and game.to_act is not None
                and not holding):
            table.record({"k": "timeout", "seat": game.to_act})
            return 0
        due = self._bot_move(table)
        if due == 0:
            return 0
        deadlines = [*table.window_deadlines.values()]
        if table.turn_deadline_ns is not None:
            deadlines.append(table.turn_deadline_ns)
        waits = [max(0.0, (d - now) / 1e9) for d in deadlines]
        if due is not None:
            waits.append(due)
        return min(waits) if waits else None

    def _bot_move(self, table: Table) -> float | None:
        """Let one bot act if one should. Returns 0 if one did, the seconds until one may, or None."""
        assert table.match is not None
        game = table.match.game
        bots = [seat.index for seat in table.seats if seat.is_bot and game.in_play[seat.index]]
        if not bots:
            return None
        waited = (self.clock_ns() - (table.log[-1].time_ns if table.log else 0)) / 1e9
        if waited < self.bot_delay_s:
            return self.bot_delay_s - waited
        rng = random.Random(table.seed + table.last_number)
        for seat in bots:
            options = legal_actions(game, seat)
            action = choose_action(game, seat, options, rng) if game.to_act == seat else reaction_for(
                game, seat, options)
            if action is None:
                continue
            race = table.races.race_for(game, seat, action)
            if race is not None:  # bots answer races like anyone, at once and with nothing to forgive
                if race.has_answered(seat):
                    continue
                table.races.collect(table, race, seat, f"bot-{table.last_number}-w{race.window_id}",
                                    [dump_action(action)], self.clock_ns(), None)
                return 0
            if table.races.holding() is not None:
                continue
            try:
                table.record({"k": "cmd", "seat": seat, "cid": f"bot-{table.last_number}",
                              "actions": [dump_action(action)]})
            except UnoError:
                log.exception("bot at seat %d of table %s chose a refused action", seat, table.table_id)
                continue
            return 0
        return None
