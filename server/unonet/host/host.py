"""The host: every table, restored from the store on start, and one driver task per table.

The driver is what moves a table without a client asking: bots' moves, blocking reaction windows
closing at their deadline, and turn clocks running out. Each of those is recorded through
`Table.record` like any client command, so it is journalled and replayed the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import grpc

from unonet.bots.kinds import fallback_kind, runs_in_worker
from unonet.engine import Draw, Pass, UnoError, legal_actions
from unonet.fairness.latency import DEFAULT_MAX_FORGIVEN_S
from unonet.host import journal, loghead
from unonet.host.actions_json import dump_action
from unonet.host.bot_seats import HostBots, bot_seed
from unonet.host.bot_watch import Expired, WorkerWatch
from unonet.host.bot_workers import BotWorkers
from unonet.host.errors import HostError, not_found, precondition
from unonet.host.integrity import ReplayFailed, TableDamaged, TableReport, check_rows
from unonet.host.limits import Guard, Limits
from unonet.host.pace import INSTANT, Pace
from unonet.host.seats import Seat
from unonet.host.store import PUBLIC_VIEWER, MemoryStore, Store, StoreClosed, StoredTable
from unonet.host.table import EVENT_FORMAT, Table, TableSettings
from unonet.v1 import table_pb2

log = logging.getLogger(__name__)
DEFAULT_KEEP_FINISHED_S = 60.0
# How long `Host.stop` waits for the event streams it cancelled to end (each ends at its next await).
STREAM_STOP_TIMEOUT_S = 5.0


class Host:
    """All tables of one host process."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        pace: Pace = INSTANT,
        write_timeout_s: float = 10.0,
        clock_ns: Callable[[], int] = time.time_ns,
        compensate_latency: bool = True,
        max_forgiven_s: float = DEFAULT_MAX_FORGIVEN_S,
        fair_shuffle: bool = True,
        keep_finished_s: float = DEFAULT_KEEP_FINISHED_S,
        limits: Limits | None = None,
        hang_up_after_s: float | None = None,
        worker_log: Path | None = None,
    ) -> None:
        """`pace`: how fast host bots act at a table with a person (pace.py; tables of bots only never
        wait). `compensate_latency` off ranks race answers by arrival alone (for measuring what compensation
        buys, bench/fairness.py); `max_forgiven_s` caps the one-way latency a race forgives.
        `fair_shuffle` off makes the tables created from now on deal with the engine's own seeded shuffle,
        with no commit-reveal round and no card commitments (what they cost, bench/fairness.py). Each
        table keeps the setting it was created with (its stored record), whatever a restarted host says.
        `keep_finished_s`: how long a finished table nobody watches stays in memory before it is archived
        (its final TableInfo kept in the store, its journal where it was): a host that plays game after
        game holds only the games being played. Any call naming an archived table loads it back.
        `worker_log`: the file the bot worker processes' stderr is appended to (bot_workers.py), for a host
        whose terminal is a full screen and whose own log is that file; None: they share the host's stderr."""
        self.compensate_latency = compensate_latency
        self.fair_shuffle = fair_shuffle
        self.max_forgiven_s = max_forgiven_s
        self.store: Store = store if store is not None else MemoryStore()
        self.pace = pace
        self.write_timeout_s = write_timeout_s
        # How long the status of a stream cut off as too slow may wait behind data its client does not
        # read before the host hangs up the client's connection (hangup.py); the write timeout by default.
        self.hang_up_after_s = write_timeout_s if hang_up_after_s is None else hang_up_after_s
        self.clock_ns = clock_ns
        self.keep_finished_s = keep_finished_s
        self.guard = Guard(limits if limits is not None else Limits(), lambda: self.clock_ns() / 1e9)
        self.tables: dict[str, Table] = {}  # the tables in memory: every table not archived
        # The tables in memory not yet seen finished (`open_tables`): a finished match stays finished, so
        # each count looks at the open ones only, not at every finished table kept for `keep_finished_s`.
        self._maybe_open: dict[str, Table] = {}
        self.damaged: dict[str, TableDamaged] = {}  # tables whose journal does not replay (integrity.py)
        # Each table rebuilt from the store: the last event its journal gave back, and the highest
        # number a client has since said it saw beyond that (`lost_events`).
        self._restored_end: dict[str, int] = {}
        self._claimed_lost: dict[str, int] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self.bots = HostBots()  # the policies of every table's bot seats
        # The processes of the bot seats whose kind searches, their stderr in `worker_log` when given.
        self.workers = BotWorkers(clock_ns=clock_ns, stderr_path=worker_log)
        self.workers.human_pace = pace.turn_s if pace.reactions else None  # they time themselves (pace.py)
        self.workers.wanted = self._wants_worker
        self.workers.changed = self._worker_changed
        self.watch = WorkerWatch(self.workers)  # times their decisions (bot_watch.py)

    def restore(self) -> int:
        """Load every stored table not archived and replay its journal. Returns how many came back. The
        seat to act at each gets its turn clock afresh (`Table.restart_clocks`): it was away with the host."""
        count = 0
        for stored in self.store.tables(live_only=True):
            try:
                table = self._load(stored)
            except TableDamaged:
                continue  # quarantined: every other table is served
            if table.status == table_pb2.TABLE_STATUS_FINISHED:
                self._archive(table)  # finished before any host archived it
            else:
                table.restart_clocks(self.clock_ns())
                self._keep(table)
            count += 1
        return count

    def _load(self, stored: StoredTable) -> Table:
        """The table rebuilt from its stored rows. Raises TableDamaged (and quarantines the table, with
        a log line naming it and the entry) if they cannot be read or do not replay."""
        try:
            table = self._rebuild(stored)
            self._check_head(table)  # before the release: the whole replayed log is still in memory
            table.events.release(backfill=True)  # a table stored before renderings were: stored now
            table.commands.release(backfill=True)  # and before command records were
            self._mark_lost(table)
            return table
        except TableDamaged as damaged:
            self.damaged[stored.table_id] = damaged
            log.error("%s; the table is quarantined (TABLE_DAMAGED), every other table is served", damaged)
            raise

    def _rebuild(self, stored: StoredTable) -> Table:
        check_rows(stored)
        lost = self.store.mark_lost(stored.table_id)
        if lost is not None:
            raise TableDamaged(stored.table_id, TableDamaged.SENT_MARK, lost)
        record = stored.record
        try:
            table = Table(
                stored.table_id, TableSettings(**record["settings"]), owner_token=record["owner_token"],
                seed=int(record["seed"]), created_ns=stored.created_ns, store=self.store, clock_ns=self.clock_ns,
                fair_shuffle=bool(record.get("fair_shuffle", True)),  # tables stored before the switch: on
                # Tables stored before window ids were unique per table numbered them per round: their
                # journals name those ids, so they replay with the numbering they were played with.
                window_ids_per_round=record.get("window_ids") != "table",
                event_format=int(record.get("event_format", 1)),  # tables stored before it: what they sent
            )
        except Exception as error:  # a record altered into something no table was created with
            raise TableDamaged(stored.table_id, 0, f"{type(error).__name__}: {error}") from error
        self._configure(table)
        try:
            table.replay(stored.journal)
        except ReplayFailed as failed:
            raise TableDamaged(stored.table_id, failed.seq, f"it does not replay ({failed.error!r})") from failed
        self._restored_end[table.table_id] = table.last_number
        return table

    def _diverged(self, table: Table) -> tuple[loghead.ChainHead, list[tuple[int, int]]]:
        """The replayed table's log head, and the ranges of numbers (first, last) whose events are not
        the ones the host sent (the head at its sent mark does not match: loghead.check), if any."""
        public = [(entry.number, table.events.render_bytes(entry, None, cache=False)) for entry in table.events.entries]
        return loghead.check(table.table_id, public, self.store.sent_head(table.table_id),
                             lambda last: self.store.renderings(table.table_id, 1, last, PUBLIC_VIEWER))

    def _check_head(self, table: Table) -> None:
        """Follow the replayed table's log head from its end on; if the journal gave back other events
        than the host sent under numbers clients may have seen, say so loudly, naming those events,
        keep the journal's events (stored as the renderings from now on) and journal each range of
        them (journal.Diverged), so a client that resumes inside one, now or after any later restart,
        gets DATA_LOSS."""
        head, diverged = self._diverged(table)
        self.store.follow_chain(table.table_id, head)
        if not diverged:
            return
        log.error("DATA LOSS at table %s: the journal the host restarted from gives back other events than the "
                  "host had sent: the log's head at event %d (the sent mark) does not match the journal's, and "
                  "%s not the ones clients were sent; the table goes on from its journal, and a "
                  "client that resumes after one of those numbers gets DATA_LOSS", table.table_id, diverged[-1][1],
                  loghead.in_words(diverged))
        self.store.drop_renderings(table.table_id, diverged[0][0] - 1)  # the release stores the journal's renderings
        for first, last in diverged:
            table.record(journal.Diverged(first, last))
        self.store.set_mark(table.table_id, head)  # the mark's head is the journal's log from now on

    def _mark_lost(self, table: Table) -> None:
        """A table the store gave back shorter than the host had sent it (its sent mark, store.py):
        every number from its end to the mark becomes an EventsLost marker (journal.Lost), so no number
        a client may have seen names another event, and the loss is logged loudly."""
        sent, end = self.store.sent_through(table.table_id), table.last_number
        if sent <= end:
            return
        log.error("DATA LOSS at table %s: the host had sent events up to %d, but the journal it restarted from "
                  "ends at event %d: the store lost the inputs behind events %d to %d, which had been acknowledged; "
                  "those numbers are now EventsLost markers", table.table_id, sent, end, end + 1, sent)
        self.store.drop_renderings(table.table_id, end)  # any the lost commits left behind
        table.record(journal.Lost(end + 1, sent))

    def lost_events(self, table: Table, claimed: int) -> HostError | None:
        """A client resumes table `table` after event `claimed`, beyond its last event: DATA_LOSS
        (EVENTS_LOST) if the table was rebuilt from the store, whose journal must then have lost
        committed inputs (a cut, damaged or missing WAL), else None (the client is simply wrong: the
        caller answers BAD_EVENT_NUMBER). The loss is logged loudly, once for each higher number."""
        lost = table.lost_range(claimed)
        if lost is not None and lost in table.diverged:  # the journal's event under that number is another
            return HostError(grpc.StatusCode.DATA_LOSS, "EVENTS_LOST",
                             f"the events {lost[0]} to {lost[1]} of table {table.table_id} the host has now are "
                             f"not the ones it sent (its stored journal was damaged), and you saw some of them "
                             f"(up to {claimed}); resume with start_with_snapshot, or from event {lost[0] - 1}",
                             {"event_number": str(lost[0] - 1)})
        if lost is not None:  # the client saw an event the store lost; its number is a marker now
            return HostError(grpc.StatusCode.DATA_LOSS, "EVENTS_LOST",
                             f"the host lost events {lost[0]} to {lost[1]} of table {table.table_id} after sending "
                             f"them, and you saw some of them (up to {claimed}): those numbers are EventsLost "
                             f"markers now; resume with start_with_snapshot, or from event {lost[0] - 1}",
                             {"event_number": str(lost[0] - 1)})
        end = self._restored_end.get(table.table_id)
        if end is None:
            return None
        last = table.last_number
        if claimed > self._claimed_lost.get(table.table_id, end):
            self._claimed_lost[table.table_id] = claimed
            log.error("DATA LOSS at table %s: a client saw event %d, but the journal the host restarted from ends at "
                      "event %d (now %d): the store lost the inputs behind events %d to %d at least, which had "
                      "been acknowledged; the events after %d are not the ones that client saw",
                      table.table_id, claimed, end, last, end + 1, claimed, end)
        return HostError(grpc.StatusCode.DATA_LOSS, "EVENTS_LOST",
                         f"the host lost events of table {table.table_id} you saw (up to {claimed}): its journal "
                         f"ends at event {last}, and the events after {end} are not the ones you saw; resume "
                         f"with start_with_snapshot, or from event {end}", {"event_number": str(end)})

    def check_tables(self) -> list[TableReport]:
        """Every stored table, archived ones too, rebuilt as a starting host would and reported (for
        `unonet serve --check-db`; nothing is served and nothing is written)."""
        reports = []
        for stored in self.store.tables():
            archived = self.store.archived(stored.table_id) is not None
            try:
                table = self._rebuild(stored)
            except TableDamaged as damaged:
                reports.append(TableReport(stored.table_id, len(stored.journal), 0, "DAMAGED", str(damaged), archived))
                continue
            status = table_pb2.TableStatus.Name(table.status).removeprefix("TABLE_STATUS_").lower()
            reports.append(TableReport(stored.table_id, len(stored.journal), table.last_number, status,
                                       archived=archived, sent=self.store.sent_through(stored.table_id),
                                       diverged=self._diverged(table)[1]))
        return reports

    def _archive(self, table: Table) -> None:
        self.store.archive(table.table_id, table.created_ns, table.info().SerializeToString())
        self.tables.pop(table.table_id, None)
        self._maybe_open.pop(table.table_id, None)
        self._drivers.pop(table.table_id, None)
        self.bots.forget(table.table_id)
        self.watch.forget(table.table_id)
        self.workers.stop_table(table.table_id)

    def start_drivers(self) -> None:
        for table in self.tables.values():
            self._ensure_driver(table)

    async def stop_bot_workers(self) -> None:
        """End every bot worker process (bot_workers.py), and start none again, while the host still
        serves: the first step of the shutdown order (`stop`). Why first: a worker ended after serving
        stopped could be mid-move, see its host vanish and say so (``Draw() lost (UNAVAILABLE ...)``) on
        the stderr it shares with the host, over `unonet local`'s game screen. Ended while its calls still
        succeed, it exits on SIGTERM without a word. The drivers run on until `stop`: a seat whose worker
        is gone waits as it would for a slow worker (bot_watch.py). Calling it again, or `stop` after it,
        is harmless."""
        await self.workers.close()

    async def stop(self) -> None:
        """Stop everything that reads or writes the store, so the caller may close it next: the tables'
        drivers, then every event stream still open (a server stopped with a grace period cancels its
        calls, but their tasks may not have run their ends yet), then the bot workers, if
        `stop_bot_workers` has not already. The order of a clean shutdown: `stop_bot_workers`, stop
        serving (`server.stop`), this, then `store.close()`."""
        drivers = list(self._drivers.values())  # a driver that archives its table leaves the dict
        for task in drivers:
            task.cancel()
        for task in drivers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._drivers.clear()
        streams = [subscriber.task for table in self.tables.values() for subscriber in table.subscribers
                   if subscriber.task is not None and not subscriber.task.done()]
        for task in streams:
            task.cancel()
        if streams:
            await asyncio.wait(streams, timeout=STREAM_STOP_TIMEOUT_S)
        await self.workers.close()

    def table(self, table_id: str) -> Table:
        """The table in memory, loading an archived one back from its journal. Raises NOT_FOUND, or
        TABLE_DAMAGED for a table whose journal does not replay."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        self._refuse_damaged(table_id)
        stored = self.store.table(table_id) if self.store.archived(table_id) is not None else None
        if stored is None:
            raise not_found("TABLE_NOT_FOUND", f"there is no table {table_id!r}")
        try:
            table = self._keep(self._load(stored))
        except TableDamaged:
            self._refuse_damaged(table_id)
            raise
        with contextlib.suppress(RuntimeError):  # outside an event loop, start_drivers starts it
            self._ensure_driver(table)
        return table

    def _refuse_damaged(self, table_id: str) -> None:
        damaged = self.damaged.get(table_id)
        if damaged is not None:
            raise precondition("TABLE_DAMAGED", f"{damaged}; the host does not serve it")

    def _keep(self, table: Table) -> Table:
        """Hold `table` in memory (created, restored or loaded back from the archive)."""
        self.tables[table.table_id] = self._maybe_open[table.table_id] = table
        return table

    def open_tables(self) -> int:
        """How many tables in memory are not finished (what `Limits.max_tables` counts, and the LAN
        announcement shows). Every CreateTable asks, so it costs the open tables, not every table in
        memory: at 100 tables played flat out, the finished ones kept for `keep_finished_s` were 4-5 times
        as many, and counting them all took 1.3% of the host's loop."""
        self._maybe_open = {table_id: table for table_id, table in self._maybe_open.items()
                            if table.status != table_pb2.TABLE_STATUS_FINISHED}
        return len(self._maybe_open)

    def info(self, table_id: str) -> table_pb2.TableInfo:
        """A table's summary, from memory or, for an archived table, from the store (no replay)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table.public_info()  # no token: a spectator's, behind any spectator delay
        self._refuse_damaged(table_id)
        archived = self.store.archived(table_id)
        if archived is None:
            raise not_found("TABLE_NOT_FOUND", f"there is no table {table_id!r}")
        return table_pb2.TableInfo.FromString(archived)

    def create_table(self, settings: TableSettings, *, seed: int | None = None) -> Table:
        settings.ruleset()  # refuse an impossible ruleset before anything is stored
        table_id = secrets.token_hex(6)
        owner_token = secrets.token_urlsafe(24)
        if settings.league_seed is not None:  # a league's deal: its seed, the engine's shuffle
            seed = settings.league_seed
        seed = secrets.randbits(63) if seed is None else seed
        fair_shuffle = self.fair_shuffle and settings.league_seed is None
        created = self.clock_ns()
        record = {"settings": dataclasses.asdict(settings), "owner_token": owner_token, "seed": seed,
                  "fair_shuffle": fair_shuffle, "window_ids": "table", "event_format": EVENT_FORMAT}
        self.store.create_table(table_id, record, created)
        table = Table(
            table_id, settings, owner_token=owner_token, seed=seed, created_ns=created, store=self.store,
            clock_ns=self.clock_ns, fair_shuffle=fair_shuffle,
        )
        self._configure(table)
        self._keep(table)
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
        """Step the table, then sleep until its next deadline or until `Table.wake_driver`.

        The sleep is one future and at most one timer handle (an `asyncio.wait_for`, a task and a timeout
        per wait, cost more than the step itself), and a command wakes it only when it may have work
        before that timer (bots, an earlier deadline, a finished match)."""
        loop = asyncio.get_running_loop()
        while True:
            wake = table.driver_wake = loop.create_future()
            try:
                async with table.lock:
                    wait_s = self._step(table)
            except StoreClosed:  # past the shutdown order (`stop`): the host is going, and so is the driver
                log.info("the driver of table %s stopped: its store is closed", table.table_id)
                return
            except Exception:  # a bug must not kill the table's clock: log it loudly and go on
                log.exception("driver of table %s failed", table.table_id)
                wait_s = 1.0
            if table.match is not None and table.match.is_over:
                await self._retire(table)
                return
            if wait_s == 0:
                await asyncio.sleep(0)  # let clients in between bot moves
                continue
            timer = None
            table.driver_due_ns = None
            if wait_s is not None:
                timer = loop.call_later(wait_s, _wake, wake)
                table.driver_due_ns = self.clock_ns() + int(wait_s * 1e9)
            try:
                await wake
            finally:
                if timer is not None:
                    timer.cancel()

    async def _retire(self, table: Table) -> None:
        """A finished table stays while anyone watches it and until `keep_finished_s` pass with no
        change (chat goes on after a match); then it is archived."""
        loop = asyncio.get_running_loop()
        while True:
            wake = table.driver_wake = loop.create_future()
            timer = loop.call_later(self.keep_finished_s, _wake, wake)
            try:
                timed_out = await wake
            finally:
                timer.cancel()
            if timed_out and not table.subscribers and not table.lock.locked():
                self._archive(table)
                return

    def _step(self, table: Table) -> float | None:
        """Do what is due now; return 0 to come back at once, seconds until the next deadline, or None."""
        table.sync_connections()  # a stream that closed since the last step (Table.unsubscribe)
        match = table.match
        if match is None or match.is_over:
            return None
        now = self.clock_ns()
        shuffle = table.shuffle
        if shuffle is not None:  # before a deal only the shuffle's deadline moves the table on
            if shuffle.deadline_ns is None:
                return None
            if shuffle.deadline_ns <= now:
                table.record(journal.EntropyTimeout(shuffle.round_no, shuffle.phase))
                return 0
            return (shuffle.deadline_ns - now) / 1e9
        for window_id, deadline in sorted(table.window_deadlines.items()):
            if deadline <= now:  # a race is ruled (racebook.py), any other window just closes
                table.record(table.races.closing_entry(table, window_id))
                return 0
        hold = table.holds.current
        if hold is not None:  # a round's first turn is held (holds.py): nothing moves but the hold's end
            if hold.until_ns <= now:
                table.record(journal.Release(hold.round_no))
                return 0
            soonest = table.next_deadline_ns()
            return max(0.0, ((soonest if soonest is not None else hold.until_ns) - now) / 1e9)
        game = match.game
        holding = table.races.holding() is not None  # the turn waits for a race's ruling
        if (table.turn_deadline_ns is not None and table.turn_deadline_ns <= now and game.to_act is not None
                and not holding):
            table.record(journal.Timeout(game.to_act))
            return 0
        due = self._bot_move(table)
        if due == 0:
            return 0
        soonest = table.next_deadline_ns()  # the shuffle's is not among them here: it returned above
        waits = [] if soonest is None else [max(0.0, (soonest - now) / 1e9)]
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
        now = self.clock_ns()
        waits: list[float] = []
        for seat in bots:
            kind: str | None = table.seats[seat].bot_kind
            if runs_in_worker(table.seats[seat].bot_kind):
                kind, due = self._worker_seat(table, table.seats[seat], now)
                if due is not None:
                    waits.append(due)
                if kind is None:
                    continue
            chosen = self.bots.choose(table, table.seats[seat], now, self.pace, kind=kind)
            if chosen is None:
                continue
            if isinstance(chosen, float):  # paced for a person at the table (bot_seats.py, pace.py)
                waits.append(chosen)
                continue
            action = chosen[0]
            race = table.races.race_for(game, seat, action)
            if race is not None:  # bots answer races like anyone, when they send, with nothing to forgive
                if race.has_answered(seat):
                    continue
                table.races.collect(table, race, seat, f"bot-{table.last_number}-w{race.window_id}",
                                    [dump_action(a) for a in chosen], self.clock_ns(), None)
                return 0
            if table.races.holding() is not None:
                continue
            try:
                table.record(journal.Command(seat, f"bot-{table.last_number}", [dump_action(a) for a in chosen]))
            except UnoError:
                log.exception("bot at seat %d of table %s chose a refused action", seat, table.table_id)
                fallback = next((a for a in legal_actions(game, seat) if isinstance(a, Draw | Pass)), None)
                if fallback is None or game.to_act != seat:
                    continue
                table.record(journal.Command(seat, f"bot-{table.last_number}", [dump_action(fallback)]))
            return 0
        return min(waits) if waits else None


    def _worker_seat(self, table: Table, seat: Seat, now: int) -> tuple[str | None, float | None]:
        """A seat whose kind searches is played by a worker process (bot_workers.py), never here, but for
        its fallback kind when the worker does not decide in time (bot_watch.py). Returns the kind to
        play the seat by here now (None: the worker has it) and the seconds until the watch looks again."""
        fallback = table.fallback_kinds.get(seat.index)
        if fallback is not None:  # the worker was retired: the fallback plays the rest of the match
            return fallback, None
        if not seat.worker_token:
            seat.worker_token = BotWorkers.new_token()
        self.workers.ensure(table.table_id, seat.index, seat.bot_kind, seat.worker_token, bot_seed(table, seat))
        worker = self.workers.state(table.table_id, seat.index)
        if worker is not None and worker.retired:  # it kept exiting (the supervisor logged each exit)
            self._fall_back(table, seat, Expired("down", 0), final=True)
            return self._worker_seat(table, seat, now)
        checked = self.watch.check(table, seat, worker, now)
        if not isinstance(checked, Expired):
            return None, checked
        final = checked.reason == "silent" and self.workers.failed(table.table_id, seat.index)
        kind = fallback_kind(seat.bot_kind)
        if checked.reason == "silent":
            then = "retired after failing too often; it plays the rest of the match" if final else "the worker restarts"
            log.warning("seat %d of table %s (%s): its worker made no decision in %.1f s; %s decides, %s",
                        seat.index, table.table_id, seat.bot_kind, checked.allowed_ns / 1e9, kind, then)
        else:
            log.warning("seat %d of table %s (%s): its worker is not running after %.1f s; %s decides",
                        seat.index, table.table_id, seat.bot_kind, checked.allowed_ns / 1e9, kind)
        self._fall_back(table, seat, checked, final=final)
        return kind, None

    def _fall_back(self, table: Table, seat: Seat, expired: Expired, *, final: bool) -> None:
        """Record that the seat's fallback kind decides next (the BotFallback event), for good if `final`."""
        kind = fallback_kind(seat.bot_kind)
        table.record(journal.Fallback(seat.index, seat.bot_kind, kind, expired.reason, expired.allowed_ns, final))

    def _wants_worker(self, table_id: str, seat: int, kind: str) -> bool:
        table = self.tables.get(table_id)
        if table is None or table.match is None or table.match.is_over or seat in table.fallback_kinds:
            return False
        return table.seats[seat].is_bot and table.seats[seat].bot_kind == kind

    def _worker_changed(self, table_id: str) -> None:
        """A worker of the table exited or was retired: its driver looks again (bot_watch.py)."""
        table = self.tables.get(table_id)
        if table is not None:
            table.wake_driver(force=True)


def _wake(wake: asyncio.Future[bool]) -> None:
    """A driver's timer: the wait is over because time is up (`Table.wake_driver` says False)."""
    if not wake.done():
        wake.set_result(True)
