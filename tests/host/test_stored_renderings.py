"""The renderings the store keeps of every event (eventlog.py reads old numbers back from them) ride
in the journal row of the input that produced them: one row per input, so a group commit writes one
page of a table's rows rather than one per event and seat. Read back per viewer (its own rendering
over the public one), from rows committed or still held, after a reopen, dropped from a number on
(a restore that found events lost or diverged) even inside one input's events, and stored again."""

from __future__ import annotations

import sqlite3

import pytest

from unonet.host.store import PUBLIC_VIEWER, JournalEntry, SqliteStore


def public(number: int) -> bytes:
    return b"public-%d" % number


def own(number: int, seat: int) -> bytes:
    return b"seat-%d-of-%d" % (seat, number)


def append(store: SqliteStore, seq: int, numbers: range, seats: dict[int, tuple[int, ...]]) -> None:
    """An input whose events are `numbers`, with its own rendering for each seat of `seats[number]`."""
    events = [(number, public(number)) for number in numbers]
    rows = [(number, PUBLIC_VIEWER, public(number)) for number in numbers]
    rows += [(number, seat, own(number, seat)) for number in numbers for seat in seats.get(number, ())]
    store.append("t", JournalEntry(seq, 0, {"k": "x"}), events, rows)


def written(path) -> SqliteStore:
    """Three inputs: events 1-3 (seat 0's own 2), a chat-like 4, 5-7 (seats 0 and 1's own 7), and one with none."""
    store = SqliteStore(path, group_commit=False)
    store.create_table("t", {}, 0)
    append(store, 1, range(1, 4), {2: (0,)})
    append(store, 2, range(4, 5), {})
    append(store, 3, range(5, 8), {7: (0, 1)})
    store.append("t", JournalEntry(4, 0, {"k": "spectate"}), [])
    return store


def expected(viewer: int, numbers: range) -> dict[int, bytes]:
    mine = {(2, 0), (7, 0), (7, 1)}
    return {n: own(n, viewer) if (n, viewer) in mine else public(n) for n in numbers}


@pytest.mark.parametrize("viewer", [PUBLIC_VIEWER, 0, 1, 2])
def test_each_viewer_reads_its_own_rendering_over_the_public_one_before_and_after_a_reopen(tmp_path, viewer) -> None:
    store = written(tmp_path / "r.db")
    try:
        assert store.renderings("t", 1, 7, viewer) == expected(viewer, range(1, 8))
        assert store.renderings("t", 3, 5, viewer) == expected(viewer, range(3, 6))  # across rows, mid-row
        assert store.renderings("t", 8, 9, viewer) == {}
        assert store.rendered_through("t") == 7
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "r.db") as connection:  # one row per input, none per event
        assert connection.execute("SELECT COUNT(*) FROM renderings").fetchone() == (0,)
        assert connection.execute("SELECT seq, through FROM journal ORDER BY seq").fetchall() == [
            (1, 3), (2, 4), (3, 7), (4, None)]
    again = SqliteStore(tmp_path / "r.db")  # a store that has not loaded the table reads it too
    try:
        assert again.renderings("t", 1, 7, viewer) == expected(viewer, range(1, 8))
        assert again.rendered_through("t") == 7
    finally:
        again.close()


async def test_the_renderings_of_inputs_not_yet_committed_are_read_from_the_group(tmp_path) -> None:
    store = SqliteStore(tmp_path / "g.db", commit_interval_s=3600.0)
    try:
        store.create_table("t", {}, 0)
        append(store, 1, range(1, 4), {2: (0,)})
        await store.durable()
        append(store, 2, range(4, 6), {5: (1,)})  # held: the last commit is less than the interval old
        assert store.in_transaction
        assert store.renderings("t", 2, 5, 1) == {2: public(2), 3: public(3), 4: public(4), 5: own(5, 1)}
        assert store.rendered_through("t") == 5
    finally:
        store.close()


@pytest.mark.parametrize("after", [0, 2, 3, 4, 6, 7])
def test_renderings_dropped_from_a_number_on_stay_dropped_and_are_stored_again(tmp_path, after) -> None:
    store = written(tmp_path / "d.db")
    try:
        store.drop_renderings("t", after)
        assert store.rendered_through("t") == after
        for viewer in (PUBLIC_VIEWER, 0, 1):
            assert store.renderings("t", 1, 7, viewer) == expected(viewer, range(1, after + 1))
        store.add_renderings("t", [(n, PUBLIC_VIEWER, b"again-%d" % n) for n in range(after + 1, 8)])
    finally:
        store.close()
    again = SqliteStore(tmp_path / "d.db")
    try:  # what was kept is the same after a reopen, and what was stored again reads back
        assert again.renderings("t", 1, 7, 0) == {**expected(0, range(1, after + 1)),
                                                  **{n: b"again-%d" % n for n in range(after + 1, 8)}}
        assert again.rendered_through("t") == 7
    finally:
        again.close()


def test_a_database_from_before_reads_its_renderings_from_the_renderings_table(tmp_path) -> None:
    path = tmp_path / "old.db"
    store = written(path)
    store.close()
    with sqlite3.connect(path) as connection:  # as a host before journal.renderings wrote it
        connection.execute("UPDATE journal SET through = NULL, renderings = NULL")
        connection.executemany("INSERT INTO renderings VALUES ('t', ?, ?, ?)",
                               [(n, PUBLIC_VIEWER, public(n)) for n in range(1, 8)] + [(2, 0, own(2, 0))])
    old = SqliteStore(path, group_commit=False)
    try:
        assert old.renderings("t", 1, 7, 0) == {**{n: public(n) for n in range(1, 8)}, 2: own(2, 0)}
        assert old.rendered_through("t") == 7
        append(old, 5, range(8, 10), {9: (0,)})  # and goes on in the new way
        assert old.renderings("t", 6, 9, 0) == {6: public(6), 7: public(7), 8: public(8), 9: own(9, 0)}
    finally:
        old.close()


async def test_an_archived_tables_maps_leave_memory_and_read_back_when_it_is_loaded(tmp_path) -> None:
    """A host that plays game after game must not keep a map per finished game: archiving a table drops
    the store's maps of its journal rows, and reads after it rebuild them from the journal."""
    store = SqliteStore(tmp_path / "a.db")
    try:
        store.create_table("t", {}, 0)
        append(store, 1, range(1, 4), {2: (0,)})
        store.add_command("t", 0, "c", "{}", b"r")
        append(store, 2, range(4, 5), {})
        await store.durable()
        assert store.command("t", 0, "c") == ("{}", b"r")
        store.archive("t", 0, b"info")
        await store.durable()
        assert "t" not in store._rendered and "t" not in store._recorded
        assert store.renderings("t", 1, 4, 0) == expected(0, range(1, 5))
        assert store.command("t", 0, "c") == ("{}", b"r")
    finally:
        store.close()
