"""The log's head beside the sent mark: a journal that replays into other events than were sent is noticed.

The store writes each table's sent mark with the head of the table's log there (loghead.py), in the
same statement, before the events leave. On start the host links the replayed log's public renderings
and compares. Damaged copies of a real database (a chat line altered in the journal, which still
replays, and a mark from another copy) must be reported by `--check-db`, logged loudly, journalled as a
`Diverged` range, and answered with DATA_LOSS / EVENTS_LOST to a client that resumes inside it.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import grpc
import pytest
from host_stubs import reason_of
from written_tables import write_table

from unonet.fairness.encoding import tagged_hash
from unonet.host import journal, loghead
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import PUBLIC_VIEWER, SqliteStore
from unonet.v1 import events_pb2, watch_service_pb2, watch_service_pb2_grpc

TIMEOUT = 10.0
LINES = ("hello", "the second line", "good luck")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, int]:
    db = tmp_path_factory.mktemp("head") / "host.db"
    return db, *asyncio.run(write_table(db, LINES))


@pytest.fixture
def copy(written, tmp_path: Path) -> tuple[Path, str, str, int]:
    """A fresh copy of the written database and its sent marks, for a test to damage."""
    db, *rest = written
    shutil.copyfile(db, tmp_path / "host.db")
    shutil.copyfile(f"{db}.sent", tmp_path / "host.db.sent")
    return tmp_path / "host.db", *rest


def _stored_head(db: Path, table_id: str) -> tuple[int, bytes]:
    store = SqliteStore(db)
    try:
        last = store.sent_through(table_id)
        rendered = store.renderings(table_id, 1, last, PUBLIC_VIEWER)
        mark = store.sent_head(table_id)
    finally:
        store.close()
    assert mark is not None and mark[0] == last
    assert mark == loghead.head_over(table_id, sorted(rendered.items())), "the head of what the streams send"
    return mark


def _chat_number(db: Path, table_id: str, text: str) -> int:
    store = SqliteStore(db)
    try:
        events = [events_pb2.Event.FromString(blob) for _, blob in store.public_events(table_id)]
    finally:
        store.close()
    return next(e.number for e in events if e.HasField("chat_message") and e.chat_message.text == text)


def _alter_chat(db: Path, old: str, new: str) -> None:
    """A journal row altered into another input that still replays: the chat line says something else."""
    with sqlite3.connect(db) as connection:
        changed = connection.execute(
            "UPDATE journal SET entry = json_set(entry, '$.text', ?) WHERE json_extract(entry, '$.text') = ?",
            (new, old)).rowcount
    assert changed == 1


def _restore(db: Path) -> Host:
    host = Host(SqliteStore(db))
    host.restore()
    return host


def test_each_link_is_the_tagged_hash_the_docs_define() -> None:
    """`link` builds the hash's bytes itself (the store links every event): the same chain as
    `H("unonet/v1/host-log", head, n, public_n)` of docs/protocol.md, step by step."""
    events = [(1, b""), (2, b"\x08\x02" + b"e" * 300), (3, bytes(range(256)))]
    digest = tagged_hash(loghead.GENESIS_TAG, b"t1")
    assert loghead.genesis("t1") == (0, digest)
    for event_number, public in events:
        digest = tagged_hash(loghead.LINK_TAG, digest, event_number.to_bytes(8, "big"), public)
    assert loghead.head_over("t1", events) == (3, digest)
    with pytest.raises(ValueError, match="event 5 cannot follow event 3"):
        loghead.link((3, digest), [(5, b"")])


def test_the_sent_mark_carries_the_head_of_the_log_that_was_sent(written) -> None:
    db, table_id, _, sent = written
    assert _stored_head(db, table_id)[0] == sent


def test_a_sound_restart_finds_its_head_and_links_on_from_it(copy, caplog) -> None:
    db, table_id, token, sent = copy
    host = _restore(db)
    table = host.tables[table_id]
    assert table.lost == [] and table.diverged == [] and "DATA LOSS" not in caplog.text
    table.chat(token, "after", "after the restart")
    host.store.close()
    assert _stored_head(db, table_id)[0] == sent + 1  # the chain goes on from the replayed log's head


def test_marks_written_before_heads_are_checked_from_the_next_event_on(copy, caplog) -> None:
    db, table_id, token, sent = copy
    with sqlite3.connect(f"{db}.sent") as marks:  # the sent marks an earlier host wrote: no head column
        marks.execute("ALTER TABLE sent DROP COLUMN head")
    host = _restore(db)
    assert host.tables[table_id].diverged == [] and "DATA LOSS" not in caplog.text
    host.tables[table_id].chat(token, "after", "after the upgrade")
    host.store.close()
    assert _stored_head(db, table_id)[0] == sent + 1


async def _resume(host: Host, table_id: str, token: str, after: int) -> list[events_pb2.Event] | grpc.aio.AioRpcError:
    """The events after `after` (up to the table's last), or the stream's refusal."""
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            watch = watch_service_pb2_grpc.WatchServiceStub(channel)
            stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=token, after_event_number=after), timeout=TIMEOUT)
            events: list[events_pb2.Event] = []
            try:
                async with asyncio.timeout(TIMEOUT):
                    while not events or events[-1].number < host.tables[table_id].last_number:
                        events.append((await stream.read()).event)
            except grpc.aio.AioRpcError as refused:
                return refused
            stream.cancel()
            return events
    finally:
        await server.stop(grace=None)
        await host.stop()


def test_journal_rows_altered_into_other_inputs_are_named_event_by_event(copy, caplog) -> None:
    db, table_id, token, sent = copy
    first, between = _chat_number(db, table_id, LINES[0]), _chat_number(db, table_id, LINES[1])
    assert (first, between) == (sent - 2, sent - 1)
    _alter_chat(db, LINES[0], "an altered line")
    _alter_chat(db, LINES[2], "another altered line")
    named = [(first, first), (sent, sent)]  # the line between replays as it was sent: not named

    checked = Host(SqliteStore(db))  # `unonet serve --check-db` reports it, and writes nothing
    (report,) = checked.check_tables()
    checked.store.close()
    assert report.diverged == named
    assert f"events {first} and {sent} are not the ones that were sent" in report.line()

    host = _restore(db)
    table = host.tables[table_id]
    assert table.diverged == named and table.last_number == sent
    assert (f"DATA LOSS at table {table_id}: the journal the host restarted from gives back other events"
            in caplog.text)
    assert f"events {first} and {sent} are not the ones clients were sent" in caplog.text
    refused = asyncio.run(_resume(host, table_id, token, first))  # a client that saw the first line as sent
    assert isinstance(refused, grpc.aio.AioRpcError) and refused.code() == grpc.StatusCode.DATA_LOSS
    assert reason_of(refused) == "EVENTS_LOST"
    assert dict(refused.trailing_metadata() or ()).get("unonet-error-bin") is not None
    assert f"or from event {first - 1}" in (refused.details() or "")

    host = _restore(db)  # the ranges are journalled: a later restart answers alike, and finds the head sound
    caplog.clear()
    assert host.tables[table_id].diverged == named
    assert "DATA LOSS" not in caplog.text
    refused = asyncio.run(_resume(host, table_id, token, sent))  # it saw the last line as sent
    assert isinstance(refused, grpc.aio.AioRpcError) and refused.code() == grpc.StatusCode.DATA_LOSS
    assert f"or from event {sent - 1}" in (refused.details() or "")
    host = _restore(db)
    resumed = asyncio.run(_resume(host, table_id, token, between))  # it never saw the last line: no loss
    assert isinstance(resumed, list)
    assert [e.chat_message.text for e in resumed if e.HasField("chat_message")] == ["another altered line"]
    host = _restore(db)
    resumed = asyncio.run(_resume(host, table_id, token, first - 1))  # before the ranges: the journal's events
    assert isinstance(resumed, list)
    assert [e.chat_message.text for e in resumed if e.HasField("chat_message")] == [
        "an altered line", LINES[1], "another altered line"]
    again = Host(SqliteStore(db))
    stored = again.store.table(table_id)
    assert stored is not None
    entries = [journal.decode(item.entry) for item in stored.journal]
    assert [entry for entry in entries if isinstance(entry, journal.Diverged)] == [
        journal.Diverged(first, first), journal.Diverged(sent, sent)]
    again.store.close()


def test_a_mark_whose_head_matches_nothing_stored_makes_every_number_suspect(copy, caplog) -> None:
    db, table_id, token, sent = copy
    with sqlite3.connect(f"{db}.sent") as marks:  # a mark from another copy of the database
        marks.execute("UPDATE sent SET head = ? WHERE table_id = ?", (bytes(32), table_id))
    host = _restore(db)
    assert host.tables[table_id].diverged == [(1, sent)]
    refused = asyncio.run(_resume(host, table_id, token, 1))
    assert isinstance(refused, grpc.aio.AioRpcError) and refused.code() == grpc.StatusCode.DATA_LOSS
    assert "or from event 0" in (refused.details() or "")


async def _sdk_resumes(host: Host, table_id: str, token: str, after: int) -> tuple[events_pb2.Event, int]:
    """The SDK's first event when it resumes after `after`, and the stream requests' positions."""
    from unonet.client.table_client import TableClient

    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    try:
        async with await TableClient.connect(f"127.0.0.1:{port}", timeout=TIMEOUT) as client:
            client.attach(table_id, token, 0)
            stream = client.events(after)
            try:
                first = await asyncio.wait_for(anext(stream), TIMEOUT)
            finally:
                await stream.aclose()
            return first, client.last_event_number
    finally:
        await server.stop(grace=None)
        await host.stop()


def test_the_sdk_resumes_into_the_journal_s_history_with_a_snapshot(copy) -> None:
    db, table_id, token, sent = copy
    first = _chat_number(db, table_id, LINES[1])
    _alter_chat(db, LINES[1], "an altered line")
    host = _restore(db)
    event, position = asyncio.run(_sdk_resumes(host, table_id, token, first))  # it saw the line as sent
    assert event.WhichOneof("payload") == "snapshot", "DATA_LOSS made the SDK reopen with a snapshot"
    assert event.number == position == host.tables[table_id].last_number
    assert first < sent
