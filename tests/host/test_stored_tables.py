"""A database's tables, listed for a person to pick (`unonet export --db` and `unonet replay --db` without a
table): name, seats, status and who won, when, id, newest first; a number picks one, anything else is
asked again; without a terminal the list goes to stderr with how to name a table."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from unonet.cli import main as cli
from unonet.client.table_client import TableClient
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.store import SqliteStore
from unonet.stored_tables import describe, pick, stored_tables
from unonet.v1 import table_pb2

TIMEOUT = 60.0


async def fill(db: Path) -> tuple[str, str]:
    """A finished bots' match and a table still waiting for players, in `db`: their ids."""
    store = SqliteStore(db)
    server, port, host = await create_server("127.0.0.1:0", host=Host(store))
    await server.start()
    try:
        async with await TableClient.connect(f"127.0.0.1:{port}") as client:
            played = await client.create_table("standard", {"target_score": 1}, 3, name="bots' match",
                                               manual_start=True)
            await client.start_table(fill_with_bots=True, table_id=played.table_id)
            async with asyncio.timeout(TIMEOUT):
                while (await client.get_table(played.table_id)).status != table_pb2.TABLE_STATUS_FINISHED:
                    await asyncio.sleep(0.02)
            waiting = await client.create_table("standard", None, 4, name="ann's table")
            await client.join(waiting.table_id, "ann", 0)
        return played.table_id, waiting.table_id
    finally:
        await host.stop()
        await server.stop(grace=None)
        store.close()


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, str, str]:
    path = tmp_path / "host.db"
    played, waiting = asyncio.run(asyncio.wait_for(fill(path), TIMEOUT))
    return path, played, waiting


def test_the_tables_are_listed_newest_first_with_what_a_person_knows_them_by(db: tuple[Path, str, str]) -> None:
    path, played, waiting = db
    rows = stored_tables(str(path))
    assert [row.table_id for row in rows] == [waiting, played]
    assert rows[0].name == "ann's table" and rows[0].seats == ("ann",) and rows[0].status == "waiting"
    assert rows[1].name == "bots' match" and len(rows[1].seats) == 3 and rows[1].status.startswith("finished, ")
    assert rows[1].status.removeprefix("finished, ").removesuffix(" won") in rows[1].seats
    listed = describe(rows)
    assert f"id {played}" in listed and "  1. " in listed and "  2. bots' match" in listed


def test_a_number_picks_a_table_and_anything_else_is_asked_again(db: tuple[Path, str, str]) -> None:
    path, played, _ = db
    rows = stored_tables(str(path))
    shown = io.StringIO()
    assert pick(rows, io.StringIO("seven\n9\n2\n"), shown) == played
    assert shown.getvalue().count("which table? 1-2") == 3 and "'seven' is not a number" in shown.getvalue()
    assert pick(rows, io.StringIO("\n"), io.StringIO()) is None  # Enter: none
    assert pick(rows, io.StringIO(""), io.StringIO()) is None  # end of input: none
    assert pick([], io.StringIO("1\n"), io.StringIO()) is None


def test_export_without_a_table_lists_them_on_stderr_outside_a_terminal(db: tuple[Path, str, str],
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path, played, _ = db
    assert cli(["export", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"id {played}" in err and "give one of these with --table ID" in err
    assert cli(["replay", "--db", str(path)]) == 2
    assert "--table-id ID" in capsys.readouterr().err
    assert cli(["export", "--db", str(path.with_name("missing.db"))]) == 2
    assert "no database" in capsys.readouterr().err and not path.with_name("missing.db").exists()
