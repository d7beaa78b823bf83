"""Damaged storage is never a silent rollback, and one damaged table never takes the host down.

Each test writes a real database with real host processes (`unonet serve`, killed with SIGKILL where
the WAL must stay behind), damages a copy of it the way a disk or a person would, and starts a real
host process on the copy:

* a journal row deleted, garbled or altered: that table is quarantined (FAILED_PRECONDITION /
  TABLE_DAMAGED), the host's log names it and the entry, every other table is served, and
  `unonet serve --check-db` reports each table's state without serving;
* the WAL's last frame cut, a middle frame flipped, or the WAL missing: SQLite silently gives back an
  older database, so a client resuming after the last event it saw is beyond the table's end. It gets
  DATA_LOSS / EVENTS_LOST naming the last event the host still has, and the log says loudly which
  table lost which events.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from host_process import TIMEOUT, Running, host_process, new_table, play_one, read_until
from host_stubs import reason_of
from written_tables import write_table

from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.host.table import TableSettings
from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc, watch_service_pb2, watch_service_pb2_grpc

WAL_HEADER, FRAME_HEADER = 32, 24


def copy_db(source: Path, target: Path) -> Path:
    """The database and its WAL and shared-memory files, and the sent marks' (store.py), as a disk
    image would hold them."""
    for suffix in ("", "-wal", "-shm", ".sent", ".sent-wal", ".sent-shm"):
        if Path(f"{source}{suffix}").exists():
            shutil.copyfile(f"{source}{suffix}", f"{target}{suffix}")
    return target


async def two_tables_played(host: Running, moves: int) -> list[tuple[str, list[str], int]]:
    """Two tables, each `moves` commands in: (table id, tokens, last event number) for each."""
    tables = []
    for _ in range(2):
        table_id, tokens = await new_table(host)
        result = None
        for i in range(moves):
            _, _, result = await play_one(host, table_id, tokens, f"m{i}")
        assert result is not None
        tables.append((table_id, tokens, result.last_event_number))
    return tables


def damage_journal(db: Path, table_id: str, how: str) -> int:
    """Damage one of `table_id`'s journal rows (the first command after the deal); returns its seq."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT seq, entry FROM journal WHERE table_id = ? ORDER BY seq",
                                  (table_id,)).fetchall()
        seq, entry = next((seq, entry) for seq, entry in rows if json.loads(entry)["k"] == "cmd")
        if how == "deleted":
            connection.execute("DELETE FROM journal WHERE table_id = ? AND seq = ?", (table_id, seq))
        elif how == "garbled":
            connection.execute("UPDATE journal SET entry = ? WHERE table_id = ? AND seq = ?",
                               (entry[: len(entry) // 2], table_id, seq))
        else:  # altered: the same command, said to come from the other seat, which is not to act
            data = json.loads(entry)
            data["seat"] = 1 - data["seat"]
            connection.execute("UPDATE journal SET entry = ? WHERE table_id = ? AND seq = ?",
                               (json.dumps(data), table_id, seq))
    return int(seq)


def check_db(db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unonet.cli", "serve", "--check-db", "--db", str(db)],
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("how", ["deleted", "garbled", "altered"])
async def test_a_table_whose_journal_does_not_replay_is_quarantined_and_the_others_served(tmp_path, how) -> None:
    db, log = tmp_path / "host.db", tmp_path / "host.log"
    async with host_process(db, log) as first:
        (damaged_id, _, _), (sound_id, sound_tokens, sound_last) = await two_tables_played(first, 3)
        first.process.send_signal(signal.SIGTERM)  # a clean stop: the database is whole
        await asyncio.wait_for(first.process.wait(), TIMEOUT)
    copy = copy_db(db, tmp_path / f"{how}.db")
    seq = damage_journal(copy, damaged_id, how)

    log_copy = tmp_path / f"{how}.log"
    async with host_process(copy, log_copy) as second:
        assert second.restored == 1  # the sound table; the damaged one is quarantined, not restored
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await second.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=damaged_id), timeout=TIMEOUT)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(caught.value) == "TABLE_DAMAGED"
        assert f"journal entry {seq}" in (caught.value.details() or "")
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await second.watch.GetView(watch_service_pb2.GetViewRequest(table_id=damaged_id, token="x"),
                                       timeout=TIMEOUT)
        assert reason_of(caught.value) == "TABLE_DAMAGED"
        # The other table is served, resumes and plays on.
        info = await second.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=sound_id), timeout=TIMEOUT)
        assert info.table.last_event_number >= sound_last
        _, _, result = await play_one(second, sound_id, sound_tokens, "after")
        assert result.event_number > sound_last
    logged = log_copy.read_text(errors="replace")
    assert f"table {damaged_id} is damaged at journal entry {seq}" in logged
    assert "Traceback" not in logged

    report = check_db(copy)
    assert report.returncode == 1, report.stderr
    lines = report.stdout.splitlines()
    assert any(line.startswith(f"{damaged_id}  DAMAGED") and f"journal entry {seq}" in line for line in lines)
    assert any(line.startswith(f"{sound_id}  ok") for line in lines), report.stdout
    assert lines[-1] == "2 tables, 1 ok, 1 damaged"


def test_check_db_on_a_sound_database_reports_every_table_ok(tmp_path) -> None:
    asyncio.run(_sound(tmp_path))


async def _sound(tmp_path: Path) -> None:
    db = tmp_path / "host.db"
    async with host_process(db, tmp_path / "host.log") as first:
        tables = await two_tables_played(first, 2)
    report = check_db(db)
    assert report.returncode == 0, report.stdout + report.stderr
    for table_id, _, _ in tables:
        assert any(line.startswith(f"{table_id}  ok (live, playing)") for line in report.stdout.splitlines())
    assert report.stdout.splitlines()[-1] == "2 tables, 2 ok, 0 damaged"


def cut_last_frame(db: Path) -> None:
    """Cut the WAL's last frame of the current generation halfway: the file may end in frames an
    earlier generation left (SQLite rewrites a WAL from its start after a checkpoint, salts changed),
    which hold nothing a restart would read, so the file's own last bytes are not the last commit."""
    wal = Path(f"{db}-wal")
    data = wal.read_bytes()
    page_size = int.from_bytes(data[8:12], "big")
    salts = data[16:24]
    frame = FRAME_HEADER + page_size
    last = None
    for offset in range(WAL_HEADER, len(data) - frame + 1, frame):
        if data[offset + 8:offset + 16] != salts:
            break  # the rest is an earlier generation's
        last = offset
    assert last is not None and last > WAL_HEADER, "the WAL holds fewer than two frames"
    with wal.open("r+b") as f:
        f.truncate(last + frame // 2)  # the last frame, cut halfway


def flip_a_middle_frame(db: Path) -> None:
    wal = Path(f"{db}-wal")
    page_size = 4096
    frames = (wal.stat().st_size - WAL_HEADER) // (FRAME_HEADER + page_size)
    assert frames >= 4
    offset = WAL_HEADER + (frames // 2) * (FRAME_HEADER + page_size) + FRAME_HEADER + 100
    with wal.open("r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0xFF]))


def remove_wal(db: Path) -> None:
    Path(f"{db}-wal").unlink()
    Path(f"{db}-shm").unlink(missing_ok=True)


async def killed_mid_session(tmp_path: Path) -> tuple[Path, str, list[str], int]:
    """A database a host was killed on (SIGKILL) with its last commits in the WAL: (the database, the
    table id, its tokens, the last event a client saw, which was every event of the table)."""
    db, log = tmp_path / "host.db", tmp_path / "host.log"
    async with host_process(db, log) as first:  # a first session, checkpointed by a clean stop
        table_id, tokens = await new_table(first)
        for i in range(2):
            await play_one(first, table_id, tokens, f"early-{i}")
        first.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(first.process.wait(), TIMEOUT)
    async with host_process(db, log) as second:  # a second session, left in the WAL by SIGKILL
        stream = second.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[0]))
        result = None
        for i in range(8):
            _, _, result = await play_one(second, table_id, tokens, f"late-{i}")
        assert result is not None
        # The table's last event (the driver may have recorded more after the last command): the WAL's
        # last commit is then the one behind it.
        last_seen = (await second.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id),
                                                 timeout=TIMEOUT)).table.last_event_number
        seen: list = []
        await read_until(stream, last_seen, seen)  # the client saw every event
        second.process.send_signal(signal.SIGKILL)
        await asyncio.wait_for(second.process.wait(), TIMEOUT)
        stream.cancel()
    return db, table_id, tokens, last_seen


@pytest.mark.parametrize("damage", [cut_last_frame, flip_a_middle_frame, remove_wal],
                         ids=["last-frame-cut", "middle-frame-flipped", "wal-missing"])
async def test_a_client_that_saw_events_the_store_lost_gets_data_loss(tmp_path, damage: Callable[[Path], None]) -> None:
    db, table_id, tokens, last_seen = await killed_mid_session(tmp_path)
    copy = copy_db(db, tmp_path / "damaged.db")
    damage(copy)

    damaged_log = tmp_path / "damaged.log"
    async with host_process(copy, damaged_log) as third:
        end = (await third.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id),
                                          timeout=TIMEOUT)).table.last_event_number
        # The store gave back an older table; the numbers it lost, which the client saw, are markers.
        assert end >= last_seen
        markers = third.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id), timeout=TIMEOUT)
        events: list = []
        await read_until(markers, end, events)
        markers.cancel()
        lost = [event.events_lost for event in events if event.HasField("events_lost")]
        assert lost and all(marker == lost[0] for marker in lost)
        first, last = lost[0].first_number, lost[0].last_number
        assert first <= last_seen <= last and len(lost) == last - first + 1
        assert [event.number for event in events if event.HasField("events_lost")] == list(range(first, last + 1))
        resumed = third.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table_id, token=tokens[0], after_event_number=last_seen), timeout=TIMEOUT)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async with asyncio.timeout(TIMEOUT):
                await resumed.read()
        assert caught.value.code() == grpc.StatusCode.DATA_LOSS
        assert reason_of(caught.value) == "EVENTS_LOST"
        detail = caught.value.details() or ""
        assert f"up to {last_seen}" in detail and table_id in detail
        # Resuming from the number the refusal names works: the client resynchronises.
        again = third.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table_id, token=tokens[0], start_with_snapshot=True), timeout=TIMEOUT)
        async with asyncio.timeout(TIMEOUT):
            first_event = (await again.read()).event
        assert first_event.HasField("snapshot")
        again.cancel()
    logged = damaged_log.read_text(errors="replace")
    assert f"DATA LOSS at table {table_id}: the host had sent events up to {last}" in logged
    assert "Traceback" not in logged


def without_marks(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}.sent{suffix}").unlink(missing_ok=True)


@pytest.mark.parametrize("wal", [True, False], ids=["with-its-wal", "wal-tail-lost"])
@pytest.mark.parametrize("marks", ["missing", "another-database's"])
async def test_a_database_copied_without_its_sent_marks_is_quarantined_not_silently_reused(
        tmp_path, wal: bool, marks: str) -> None:
    """A copy of a live host's database without its marks file (or beside another database's) cannot
    say which events clients saw: with its WAL tail lost, serving it would give their numbers to other
    events. The host quarantines its tables (the copy's own WAL or not: nothing tells the two apart),
    `--check-db` reports them, and a restart still does until the marks are back or accepted lost."""
    db, table_id, tokens, _ = await killed_mid_session(tmp_path)
    copy = copy_db(db, tmp_path / "copied.db")
    if not wal:
        remove_wal(copy)
    without_marks(copy)
    if marks != "missing":
        await write_table(tmp_path / "other.db")
        shutil.copyfile(tmp_path / "other.db.sent", f"{copy}.sent")
    copied_log = tmp_path / "copied.log"
    for _ in range(2):  # and again after a restart
        async with host_process(copy, copied_log) as third:
            assert third.restored == 0
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await third.watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                    table_id=table_id, token=tokens[0], after_event_number=1), timeout=TIMEOUT).read()
            assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(caught.value) == "TABLE_DAMAGED"
            assert "its sent marks file" in (caught.value.details() or "")
            third.process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(third.process.wait(), TIMEOUT)
    logged = copied_log.read_text(errors="replace")
    assert f"table {table_id} is damaged at its sent mark: its sent marks file {copy}.sent is " in logged
    assert ("is missing" if marks == "missing" else "is another database's") in logged
    assert "Traceback" not in logged
    report = check_db(copy)
    assert report.returncode == 1
    assert any(line.startswith(f"{table_id}  DAMAGED") and "its sent mark" in line
               for line in report.stdout.splitlines()), report.stdout
    # The marks restored beside it (the database's own file, as a backup keeps it): served again.
    for suffix in (".sent", ".sent-wal", ".sent-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
        if Path(f"{db}{suffix}").exists():
            shutil.copyfile(f"{db}{suffix}", f"{copy}{suffix}")
    async with host_process(copy, copied_log) as restored:
        assert restored.restored == 1
        info = await restored.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id), timeout=TIMEOUT)
        assert info.table.table_id == table_id


# ------------------------------------------------------------------------------------ in process


async def _served(db: Path, *, accept_lost_marks: bool = False) -> tuple[Any, Any, grpc.aio.Channel]:
    host = Host(SqliteStore(db, accept_lost_marks=accept_lost_marks))
    host.restore()
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    return host, server, grpc.aio.insecure_channel(f"127.0.0.1:{port}")


async def test_in_process_a_table_that_does_not_replay_is_table_damaged(tmp_path) -> None:
    db = tmp_path / "host.db"
    table_id, _, _ = await write_table(db)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE journal SET entry = '{' WHERE table_id = ? AND seq = 2", (table_id,))
    host, server, channel = await _served(db)
    try:
        assert table_id in host.damaged and table_id not in host.tables
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=table_id, name="dee", role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(caught.value) == "TABLE_DAMAGED"
        assert "journal entry 2 is not JSON" in (caught.value.details() or "")
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        host.store.close()


async def test_in_process_a_resume_beyond_a_restored_tables_end_is_events_lost(tmp_path) -> None:
    db = tmp_path / "host.db"
    table_id, token, last = await write_table(db)
    with sqlite3.connect(db) as connection:  # the last input's commit, lost
        connection.execute("DELETE FROM journal WHERE table_id = ? AND seq = (SELECT MAX(seq) FROM journal "
                           "WHERE table_id = ?)", (table_id, table_id))
    without_marks(db)  # and the sent marks with it: the host cannot know what it sent
    host, server, channel = await _served(db)
    try:  # quarantined, until the operator accepts that the marks are lost
        assert table_id in host.damaged and table_id not in host.tables
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        host.store.close()
    host, server, channel = await _served(db, accept_lost_marks=True)
    try:
        end = host.tables[table_id].last_number
        assert end < last
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table_id, token=token, after_event_number=last), timeout=TIMEOUT)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async with asyncio.timeout(TIMEOUT):
                await stream.read()
        assert caught.value.code() == grpc.StatusCode.DATA_LOSS
        assert reason_of(caught.value) == "EVENTS_LOST"
        # A table this host created itself: a number beyond its end is the client's mistake.
        created = host.create_table(TableSettings(name="new", seat_count=2, preset="standard", overrides={},
                                                  manual_start=True))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async with asyncio.timeout(TIMEOUT):
                await watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
                    table_id=created.table_id, after_event_number=5), timeout=TIMEOUT).read()
        assert reason_of(caught.value) == "BAD_EVENT_NUMBER"
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        host.store.close()
