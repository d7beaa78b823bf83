"""Only a window of recent events stays in memory; older numbers are read back from the store.

A match played with a small window must give every receiver (each seat, a spectator) exactly the
events a host that kept the whole log in memory gives, from memory, from SQLite, after a restart, and
from a database written before the host stored renderings (its old events rendered again on restore).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from fair_games import TABLE_ID, drive, new_table
from host_stubs import reason_of

from unonet.host import eventlog, journal
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import PUBLIC_VIEWER, SqliteStore
from unonet.v1 import events_pb2, watch_service_pb2, watch_service_pb2_grpc

SEED = 11
WINDOW = 40
TIMEOUT_S = 10.0


def _played(store, window: int):
    host, table, clock = new_table(SEED, store=store)
    table.events.window = window
    table.record(journal.Start(fill=True))
    drive(host, table, clock)
    return table


def _renderings(table) -> dict[int | None, list[events_pb2.Event]]:
    """Every receiver's events, from the log in memory."""
    return {seat: [table.render(entry, seat) for entry in table.log] for seat in (None, 0, 1, 2, 3)}


@dataclass
class PlayedOnce:
    table: object  # the table as played, its whole log in memory: only the read-back test changes it
    store: SqliteStore
    reference: dict[int | None, list[events_pb2.Event]]
    template: Path  # a copy of the database as the match left it: tests that change a database copy this

    def database(self, directory: Path) -> Path:
        """A copy of the template, with its sent marks (a database copied without them is quarantined)."""
        shutil.copy(f"{self.template}.sent", directory / "unonet.db.sent")
        return Path(shutil.copy(self.template, directory / "unonet.db"))


@pytest.fixture(scope="module")
def played_once(tmp_path_factory) -> Iterator[PlayedOnce]:
    """The seeded match, played once for the module (it is most of each test's time): what the store
    keeps does not depend on the window in memory, so every test that starts from its database shares it."""
    directory = tmp_path_factory.mktemp("played")
    store = SqliteStore(directory / "played.db", group_commit=False)
    table = _played(store, 10**9)
    template = directory / "template.db"
    for suffix in ("", ".sent"):  # the database, then its sent marks (docs/hosting.md, "Backups")
        with sqlite3.connect(f"{directory / 'played.db'}{suffix}") as source, \
                sqlite3.connect(f"{template}{suffix}") as target:
            source.backup(target)
    try:
        yield PlayedOnce(table, store, _renderings(table), template)
    finally:
        store.close()


def test_events_that_left_the_window_read_back_as_they_were_rendered_in_memory(played_once) -> None:
    table, reference = played_once.table, played_once.reference
    assert table.last_number > 10 * WINDOW
    table.events.window = WINDOW
    table.events.trim(0)
    assert len(table.log) == WINDOW and table.log[0].number == table.last_number - WINDOW + 1
    for seat, events in reference.items():
        assert list(table.events.rendered_since(0, seat)) == events, f"seat {seat}"
        assert list(table.events.rendered_since(100, seat)) == events[100:], f"seat {seat}"


def test_a_match_played_with_a_small_window_holds_only_the_window(tmp_path) -> None:
    store = SqliteStore(tmp_path / "unonet.db", group_commit=False)
    table = _played(store, WINDOW)
    assert len(table.log) == WINDOW and table.last_number > 10 * WINDOW
    spectator = [event.SerializeToString() for event in table.events.rendered_since(0, None)]
    assert spectator == [blob for _, blob in store.public_events(TABLE_ID)]  # the journal's own public copy
    for seat in range(4):
        numbers = [event.number for event in table.events.rendered_since(0, seat)]
        assert numbers == list(range(1, table.last_number + 1))
    store.close()


async def _stream_all(port: int, batch: int) -> list[events_pb2.Event]:
    """Every event of the table, anonymously (a spectator's rendering), from event 1."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=TABLE_ID, batch=batch),
                                   timeout=TIMEOUT_S)
        events: list[events_pb2.Event] = []
        while not events or not events[-1].HasField("match_ended"):
            reply = await asyncio.wait_for(stream.read(), TIMEOUT_S)
            events += [reply.event] if reply.HasField("event") else list(reply.events)
        stream.cancel()
        return events


async def _restarted_streams(db: Path) -> tuple[int, list[events_pb2.Event], list[events_pb2.Event]]:
    host = Host(SqliteStore(db))
    host.restore()
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    try:
        one_by_one = await _stream_all(port, 1)
        batched = await _stream_all(port, 64)
        return len(host.table(TABLE_ID).log), one_by_one, batched
    finally:
        await host.stop()
        await server.stop(grace=None)


@pytest.mark.parametrize("stored_renderings", [True, False], ids=["renderings stored", "a database from before"])
def test_a_restarted_host_streams_from_event_1_what_it_streamed_before(
        tmp_path, monkeypatch, played_once, stored_renderings) -> None:
    db, reference = played_once.database(tmp_path), played_once.reference
    with sqlite3.connect(db) as connection:  # the record a host writes: window ids numbered per table
        connection.execute("UPDATE tables SET record = json_set(record, '$.window_ids', 'table')")
        if not stored_renderings:  # a database from before: neither the journal nor the table holds any
            connection.execute("UPDATE journal SET through = NULL, renderings = NULL")
            connection.execute("DELETE FROM renderings")
    monkeypatch.setattr(eventlog, "WINDOW_EVENTS", WINDOW)
    kept, one_by_one, batched = asyncio.run(_restarted_streams(db))
    assert kept == WINDOW
    assert one_by_one == batched == reference[None]
    store = SqliteStore(db)  # the restore stored what the older host did not: every rendering is there
    try:
        for seat, events in reference.items():
            viewer = PUBLIC_VIEWER if seat is None else seat
            stored = store.renderings(TABLE_ID, 1, len(events), viewer)
            assert [events_pb2.Event.FromString(stored[n]) for n in range(1, len(events) + 1)] == events, f"seat {seat}"
    finally:
        store.close()


async def _stream_refused(db: Path) -> grpc.aio.AioRpcError:
    host = Host(SqliteStore(db))
    host.restore()
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    try:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _stream_all(port, 64)
        return caught.value
    finally:
        await host.stop()
        await server.stop(grace=None)


def test_an_old_event_the_store_lost_ends_the_stream_with_table_damaged(tmp_path, monkeypatch, caplog,
                                                                          played_once) -> None:
    db = played_once.database(tmp_path)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE tables SET record = json_set(record, '$.window_ids', 'table')")  # as a host writes
        # The renderings of the input holding event 40 (past the deal's), lost.
        connection.execute("UPDATE journal SET renderings = NULL WHERE table_id = ? AND seq = (SELECT MIN(seq)"
                           " FROM journal WHERE table_id = ? AND through >= 40)", (TABLE_ID, TABLE_ID))
        (first_lost,) = connection.execute(
            "SELECT MAX(through) + 1 FROM journal WHERE table_id = ? AND through < 40", (TABLE_ID,)).fetchone()
    assert 1 < first_lost <= 40
    monkeypatch.setattr(eventlog, "WINDOW_EVENTS", WINDOW)
    refused = asyncio.run(_stream_refused(db))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(refused) == "TABLE_DAMAGED"
    assert f"no rendering of event {first_lost}" in (refused.details() or "")  # the first of the input's events
    assert "Traceback" not in caplog.text
