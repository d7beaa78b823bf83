"""SQLite group commit: inputs appended together (one loop turn, or under load one commit interval)
share a transaction, and nothing (a reply, a streamed event) leaves the host before the input behind
it is committed."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator

import grpc

from unonet.host import journal
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import JournalEntry, SqliteStore
from unonet.v1 import (
    cards_pb2,
    events_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    time_service_pb2,
    time_service_pb2_grpc,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

TIMEOUT = 10


def committed(path, sql: str) -> int:
    """What another connection (a restarted host) would read."""
    with sqlite3.connect(path) as other:
        return int(other.execute(sql).fetchone()[0])


async def test_appends_of_one_loop_turn_share_one_transaction(tmp_path) -> None:
    path = tmp_path / "g.db"
    store = SqliteStore(path)
    try:
        for table_id in ("a", "b"):
            store.create_table(table_id, {}, 0)
        await store.durable()
        for seq in (1, 2):
            for table_id in ("a", "b"):
                event = events_pb2.Event(number=seq).SerializeToString()
                store.append(table_id, JournalEntry(seq, 0, {"k": "x"}), [(seq, event)])
        assert store.in_transaction
        assert committed(path, "SELECT COUNT(*) FROM journal") == 0  # not yet: nobody may have heard back
        await store.durable()
        assert not store.in_transaction
        assert committed(path, "SELECT COUNT(*) FROM journal") == 4
        assert [number for number, _ in store.public_events("a")] == [1, 2]  # in the journal rows
    finally:
        store.close()


async def test_a_failed_input_leaves_the_others_of_its_group(tmp_path) -> None:
    path = tmp_path / "g.db"
    store = SqliteStore(path)
    try:
        store.append("a", JournalEntry(1, 0, {"k": "x"}), [])
        try:
            store.append("a", JournalEntry(1, 0, {"k": "again"}), [])  # the same key: refused
        except sqlite3.IntegrityError:
            pass
        else:
            raise AssertionError("a duplicate journal key was accepted")
        store.append("b", JournalEntry(1, 0, {"k": "y"}), [])
        await store.durable()
        assert committed(path, "SELECT COUNT(*) FROM journal") == 2
    finally:
        store.close()


async def test_a_busy_store_commits_at_most_once_per_interval_and_an_idle_one_at_once(tmp_path) -> None:
    path = tmp_path / "g.db"
    store = SqliteStore(path, commit_interval_s=3600.0)
    try:
        store.append("a", JournalEntry(1, 0, {"k": "x"}), [])
        await store.durable()  # no commit before it: committed on the loop's next turn
        assert committed(path, "SELECT COUNT(*) FROM journal") == 1
        store.append("a", JournalEntry(2, 0, {"k": "y"}), [])
        for _ in range(5):
            await asyncio.sleep(0)
        assert store.in_transaction  # held: the last commit is less than the interval old
        assert committed(path, "SELECT COUNT(*) FROM journal") == 1
    finally:
        store.close()  # writes what is held
    assert committed(path, "SELECT COUNT(*) FROM journal") == 2


def test_outside_an_event_loop_each_append_commits_at_once(tmp_path) -> None:
    path = tmp_path / "g.db"
    store = SqliteStore(path)
    try:
        store.append("a", JournalEntry(1, 0, {"k": "x"}), [])
        assert not store.in_transaction
        assert committed(path, "SELECT COUNT(*) FROM journal") == 1
    finally:
        store.close()


@contextlib.asynccontextmanager
async def serving(store: SqliteStore) -> AsyncIterator[tuple[Host, grpc.aio.Channel]]:
    """A host on 127.0.0.1:0 over `store`, and a channel to it; everything stopped and closed after."""
    server, port, host = await create_server("127.0.0.1:0", host=Host(store))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield host, channel
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        store.close()


async def test_replies_and_events_leave_only_after_their_input_is_committed(tmp_path) -> None:
    path = tmp_path / "host.db"
    async with serving(SqliteStore(path)) as (host, channel):
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        play = play_service_pb2_grpc.PlayServiceStub(channel)
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
            name="g", preset="standard", seat_count=2), timeout=TIMEOUT)
        table_id = created.table.table_id
        assert committed(path, f"SELECT COUNT(*) FROM tables WHERE table_id = '{table_id}'") == 1
        tokens = []
        for name in ("ann", "bob"):
            joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=table_id, name=name, role=lobby_service_pb2.JOIN_ROLE_PLAYER), timeout=TIMEOUT)
            tokens.append(joined.token)
            inputs = committed(path, f"SELECT COUNT(*) FROM journal WHERE table_id = '{table_id}'")
            assert inputs == host.tables[table_id]._seq  # every input the reply reflects is on disk

        stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(table_id=table_id, token=tokens[0],
                                                                        batch=16))
        seen = 0
        async with asyncio.timeout(TIMEOUT):
            for i in range(8):
                table = host.tables[table_id]
                seat = table.match.game.to_act
                common = {"table_id": table_id, "token": tokens[seat], "command_id": f"c{i}"}
                legal = (await watch.GetView(watch_service_pb2.GetViewRequest(
                    table_id=table_id, token=tokens[seat]), timeout=TIMEOUT)).view.legal_actions
                if legal.choose_color:
                    reply = await play.ChooseColor(play_service_pb2.ChooseColorRequest(
                        color=cards_pb2.COLOR_RED, **common), timeout=TIMEOUT)
                elif legal.HasField("draw"):
                    reply = await play.Draw(play_service_pb2.DrawRequest(**common), timeout=TIMEOUT)
                else:
                    reply = await play.Pass(play_service_pb2.PassRequest(**common), timeout=TIMEOUT)
                assert committed(path, f"SELECT COUNT(*) FROM journal WHERE table_id = '{table_id}'") == table._seq
                while seen < reply.result.last_event_number:
                    response = await stream.read()
                    seen = response.events[-1].number
                    reader = SqliteStore(path)  # what another connection (a restarted host) would read
                    try:
                        on_disk = max(number for number, _ in reader.public_events(table_id))
                    finally:
                        reader.close()
                    assert on_disk >= seen  # a streamed event is never ahead of the journal
        stream.cancel()


async def test_a_ping_answers_without_waiting_for_the_open_group_commit(tmp_path) -> None:
    """A ping shows no table state, so it need not wait for durability; waiting would add the commit's
    wait to the round trip the host measures as network time (the latency that races forgive)."""
    store = SqliteStore(tmp_path / "p.db", commit_interval_s=3600.0)
    async with serving(store) as (host, channel):
        time_service = time_service_pb2_grpc.TimeServiceStub(channel)
        table = await _joined_table(host)  # one group, on an idle store: committed at once
        store.append("other", JournalEntry(1, 0, {"k": "x"}), [])  # opens a group due in an hour
        assert store.in_transaction
        request = time_service_pb2.PingRequest(sequence=1, table_id=table.table_id, token=table.seats[0].token)
        request.client_send_time.GetCurrentTime()
        reply = await time_service.Ping(request, timeout=TIMEOUT)
        assert reply.sequence == 1 and reply.send_time.ToNanoseconds() >= reply.receive_time.ToNanoseconds()
        assert store.in_transaction  # answered while the group was still open
        store._commit()  # the interval would end it; let close() find nothing pending
        await store.durable()


class FailingStore(SqliteStore):
    """A store whose group commit holding a chosen input fails (a full disk). Chosen by the input's
    text, not by which group comes next: the helper thread writes a group whenever it gets to it."""

    fail_text: str | None = None  # the group whose journal rows hold this text fails, once

    def _write(self, group) -> None:
        text = self.fail_text
        if text is not None and any(text in row[3] for row in group.journal):
            self.fail_text = None
            raise sqlite3.OperationalError("database or disk is full")
        super()._write(group)


async def _joined_table(host: Host):
    from unonet.host.table import TableSettings

    settings = TableSettings(name="t", seat_count=2, preset="standard", overrides={}, turn_time_s=600)
    table = host.create_table(settings, seed=3)
    for name in ("ann", "bob"):
        table.join(name, None, False)
    await host.store.durable()
    return table


async def test_a_stream_that_subscribes_while_its_events_are_being_committed_gets_each_once(tmp_path) -> None:
    store = SqliteStore(tmp_path / "g.db", commit_interval_s=3600.0)  # the group stays open until durable()
    host = Host(store)
    try:
        table = await _joined_table(host)
        early = table.subscribe(0)
        table.record(journal.Chat(0, "ann", "before"))  # held in the open group
        assert store.in_transaction and early.queue.qsize() == 0  # not durable: not handed out yet
        late = table.subscribe(1)  # reads up to here from the log (its backlog)
        assert late.first_queued == table.last_number + 1
        table.record(journal.Chat(1, "bob", "after"))
        store._commit()  # the interval would end it; no need to wait
        # Everything after it subscribed: the chat, seat 1's stream opening (SeatConnectionChanged), the chat.
        assert early.queue.take() == list(range(early.first_queued, table.last_number + 1))
        assert late.queue.take() == [table.last_number]  # not the ones in its backlog too
    finally:
        await host.stop()
        store.close()


async def test_a_failed_group_commit_sends_none_of_its_events_and_ends_the_streams(tmp_path) -> None:
    store = FailingStore(tmp_path / "g.db")
    server, port, host = await create_server("127.0.0.1:0", host=Host(store))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        table = await _joined_table(host)
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        stream = watch.WatchEvents(watch_service_pb2.WatchEventsRequest(
            table_id=table.table_id, token=table.seats[0].token, batch=64))
        seen = 0
        async with asyncio.timeout(TIMEOUT):
            while seen < table.last_number:  # the backlog
                seen = (await stream.read()).events[-1].number
            store.fail_text = "a lost message"
            async with table.lock:
                table.record(journal.Chat(0, "ann", "a lost message"))
            try:
                await store.durable()
            except sqlite3.OperationalError:
                pass
            else:
                raise AssertionError("the group commit did not fail")
            try:
                response = await stream.read()
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE
                detail = dict(error.trailing_metadata())["unonet-error-bin"]
                from unonet.v1 import errors_pb2

                assert errors_pb2.ErrorDetail.FromString(detail).reason == "STORE_FAILED"
            else:
                raise AssertionError(f"the stream went on after a failed commit: {response}")
        assert not table.subscribers
    finally:
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
        store.close()


async def test_an_input_recorded_while_the_group_before_commits_leaves_only_with_its_own_group(tmp_path) -> None:
    """The event of an input that joins the next group, because the group before it is being committed,
    waits for that next group: it once rode on the earlier group's callback and left when that group
    committed, so a stream could be sent an event whose input then failed to commit (or died with the
    host), and after a restart its number went to another event."""
    store = FailingStore(tmp_path / "g.db", commit_interval_s=0.0)  # each group commits on the next loop turn
    host = Host(store)
    try:
        table = await _joined_table(host)
        watcher = table.subscribe(0)
        await store.durable()  # its seat's connection, announced
        watcher.queue.take()
        async with table.lock:
            table.record(journal.Chat(0, "ann", "first"))
        first = table.last_number
        await asyncio.sleep(0)  # the first group's commit starts: it is in flight until the loop hears back
        assert store.in_transaction
        store.fail_text = "the second message"  # its group (the next one) fails, as on a full disk
        async with table.lock:
            table.record(journal.Chat(0, "ann", "the second message"))
        async with asyncio.timeout(TIMEOUT):
            waiter = watcher.queue.wait()
            if waiter is not None:
                await waiter  # the first group is committed
        assert watcher.queue.take() == [first], "only the committed group's event is handed to the stream"
        with contextlib.suppress(sqlite3.OperationalError):
            await store.durable()
        assert watcher.store_failed, "the failed group's event never leaves: its stream ends instead"
    finally:
        await host.stop()
        store.close()
