"""A host's bot workers at shutdown, as a person meets it: quitting `unonet local` (or `unonet host`, or
stopping `unonet serve`) while its bots play writes nothing on the terminal, and leaves no worker behind.

A worker shares the host's stderr unless the host gives it a file (`Host(worker_log=...)`). It used to
be ended after the host stopped serving, so one mid-move saw its host vanish and said so
(``WARNING seat 1: Draw() lost (UNAVAILABLE: ...)``) over the game screen. Now the shutdown order ends
the workers first (`Host.stop_bot_workers`), while the host still answers them.

Each table here is left to its bots (the person leaves, or there is none) on a host that paces its bots
for people (`--bot-delay`, as `unonet local`'s does): a table of bots only never waits, so its workers
play move after move, and the host is stopped once they have made several, with the match (to 500
points) far from over: a worker is mid-move then. `capfd` (and, for `unonet serve`, its stderr file)
holds whatever a worker wrote.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from host_process import bot_worker_pids, host_process, seat_bot_workers
from polling import poll_until
from processes import alive, describe
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import unonet.cli
import unonet.lan
import unonet.local
from unonet.client.table_client import TableClient
from unonet.client.tui.seats import SeatStore
from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.host.table import Table
from unonet.lan import HostedSeat, LanOptions, lan_host
from unonet.local import run_local

MOVES = 10  # worker commands seen after the table was left to its bots, before the host is stopped
KIND = "strong:1"  # the kind `unonet local` seats (at level 2), searching in worker processes: the cheapest level
TIMEOUT = 10.0
START_TIMEOUT = 90.0  # a worker process importing grpc and the bots on a loaded 2-core machine
# What a worker writes: its log lines ("WARNING seat 1: ..."; the host's own start with a time, or go to
# the test's log capture), its last word ("refused: UNAVAILABLE ...") and tracebacks. (gRPC's C core's
# lines, "I0000 00:00:...", come from the host too: spawning a worker while its threads call into gRPC.)
WORKER_OUTPUT = re.compile(r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) |^refused: |Traceback", re.M)


@pytest.fixture
def hosts(monkeypatch: pytest.MonkeyPatch) -> list[Host]:
    """The hosts `unonet local` and `unonet host` build in this test, to look at their tables and workers."""
    made: list[Host] = []

    class Kept(Host):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(unonet.local, "Host", Kept)
    monkeypatch.setattr(unonet.lan, "Host", Kept)
    return made


def _playing(hosts: list[Host], seats: tuple[int, ...]) -> Callable[[], bool]:
    """The host's one table has a match, and each of `seats` has its worker running and its stream open."""
    def condition() -> bool:
        if not hosts or len(hosts[0].tables) != 1:
            return False
        host = hosts[0]
        (table,) = host.tables.values()
        running = host.workers.processes(table.table_id)
        return table.match is not None and all(seat in running and table.seats[seat].connected for seat in seats)

    return condition


def _where(hosts: list[Host]) -> str:
    if not hosts:
        return "no host yet"
    return "; ".join(f"table {table.table_id}: status {table.status}, workers "
                     f"{sorted(hosts[0].workers.processes(table.table_id))}, streams "
                     f"{[seat.connected for seat in table.seats]}" for table in hosts[0].tables.values())


def _only_table(host: Host) -> Table:
    (table,) = host.tables.values()
    return table


def _worker_moves(table: Table) -> int:
    """The commands the table's workers sent (the host's own bots' ids start with "bot-")."""
    return sum(1 for seat, command_id in table.commands if seat != 0 and not command_id.startswith("bot-"))


async def _left_to_its_bots(table: Table, address: str) -> None:
    """Seat 0's player leaves (the bots play on by themselves, at once); wait until the workers made `MOVES`."""
    before = _worker_moves(table)
    async with await TableClient.connect(address, timeout=TIMEOUT) as me:
        me.attach(table.table_id, table.seats[0].token, 0)
        await me.leave()
    await poll_until(lambda: _worker_moves(table) >= before + MOVES, f"{MOVES} worker moves", timeout=START_TIMEOUT)


def _assert_silent(err: str) -> None:
    assert not WORKER_OUTPUT.search(err), f"a bot worker wrote on the terminal at shutdown:\n{err}"


@pytest.mark.timeout(2 * START_TIMEOUT + 60)
async def test_quitting_unonet_local_while_its_bots_play_writes_nothing_on_the_terminal(
        tmp_path: Path, hosts: list[Host], capfd: pytest.CaptureFixture[str]) -> None:
    with create_pipe_input() as pipe:
        local = asyncio.create_task(run_local(
            name="ann", players=3, target_score=500, db=str(tmp_path / "local.db"), bots=KIND, resume=False,
            seats=SeatStore(tmp_path / "seats.json"), input=pipe, output=DummyOutput()))
        try:
            await poll_until(_playing(hosts, (1, 2)), "both bot workers playing", timeout=START_TIMEOUT,
                             state=lambda: _where(hosts))
            host = hosts[0]
            table = _only_table(host)
            workers = host.workers.processes(table.table_id)
            assert host.workers.address is not None
            await _left_to_its_bots(table, host.workers.address)
            pipe.send_text("qy")  # Q, and Y to its question: the game's host stops with the screen
            await asyncio.wait_for(local, 3 * TIMEOUT)
        finally:
            local.cancel()
    assert table.match is not None and not table.match.is_over, "the match ended: no worker was mid-move"
    assert all(process.returncode is not None for process in workers.values())
    assert not host.workers.processes(table.table_id)
    _assert_silent(capfd.readouterr().err)


@pytest.mark.timeout(2 * START_TIMEOUT + 60)
async def test_the_lan_hosts_bot_workers_are_stopped_before_it_stops_serving(
        hosts: list[Host], capfd: pytest.CaptureFixture[str]) -> None:
    options = LanOptions(listen="127.0.0.1:0", name=f"shutdown {secrets.token_hex(3)}", seat_count=3,
                         target_score=500)
    async with lan_host(options) as seat:
        async with await TableClient.connect(seat.local_address, timeout=TIMEOUT) as owner:
            owner.owner_token = seat.owner_token
            assert await owner.add_bots(2, KIND, table_id=seat.table_id) == [1, 2]  # the last seats: it starts
        await poll_until(_playing(hosts, (1, 2)), "both bot workers playing", timeout=START_TIMEOUT,
                         state=lambda: _where(hosts))
        table = _only_table(hosts[0])
        workers = hosts[0].workers.processes(table.table_id)
        await _left_to_its_bots(table, seat.local_address)
    assert table.match is not None and not table.match.is_over, "the match ended: no worker was mid-move"
    assert all(process.returncode is not None for process in workers.values())
    _assert_silent(capfd.readouterr().err)


@pytest.mark.timeout(2 * START_TIMEOUT + 60)
async def test_unonet_serve_stopped_while_its_bots_play_leaves_no_worker_line_in_its_log(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    # Paced for people (`unonet serve`'s default), which a table of bots only never waits for.
    async with (host_process(tmp_path / "unonet.db", log, "--bot-delay", "1") as host,
                await TableClient.connect(f"127.0.0.1:{host.port}", timeout=TIMEOUT) as client):
        table_id = await seat_bot_workers(host, client, KIND, timeout=START_TIMEOUT)
        started = bot_worker_pids(host)
        # Both play (each move is theirs: a table of bots only), at once, until the host stops.
        first = (await client.get_table(table_id)).last_event_number
        async with asyncio.timeout(START_TIMEOUT):
            while (await client.get_table(table_id)).last_event_number < first + 2 * MOVES:
                await asyncio.sleep(0.05)
        host.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(host.process.wait(), 3 * TIMEOUT) == 0
    assert not [pid for pid in started if alive(pid)], describe(started)
    _assert_silent(log.read_text(errors="replace"))


async def test_no_worker_is_started_again_once_the_bot_workers_are_stopped() -> None:
    """The drivers run on until `Host.stop`, and a driver asks for its seats' workers at every step:
    once stopped, the supervisor starts none (the host still serves; a worker would see it vanish)."""
    host = Host(fair_shuffle=False)
    host.workers.command = lambda spec: [sys.executable, "-c", "import signal; signal.pause()"]
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    asked_after_stop: list[bool] = []
    try:
        async with await TableClient.connect(f"127.0.0.1:{port}", timeout=TIMEOUT) as client:
            created = await client.create_table("standard", {}, 2, name="w", manual_start=True)
            await client.add_bots(2, KIND, table_id=created.table_id)
            await client.start_table(table_id=created.table_id)
            table = host.tables[created.table_id]
            await poll_until(lambda: len(host.workers.processes(table.table_id)) == 2, "two workers",
                             timeout=TIMEOUT)
            running = host.workers.processes(table.table_id)
            await asyncio.wait_for(host.stop_bot_workers(), TIMEOUT)
            assert all(process.returncode is not None for process in running.values())
            ensure = host.workers.ensure

            def recorded(*args: object, **kwargs: object) -> bool:
                asked_after_stop.append(ensure(*args, **kwargs))  # type: ignore[arg-type]
                return asked_after_stop[-1]

            host.workers.ensure = recorded  # type: ignore[method-assign]
            table.wake_driver(force=True)
            await poll_until(lambda: bool(asked_after_stop), "the driver asks for a worker again", timeout=TIMEOUT)
            assert not any(asked_after_stop)
            assert not host.workers.processes(table.table_id) and host.workers.state(table.table_id, 0) is None
    finally:
        await asyncio.wait_for(host.stop(), TIMEOUT)  # after stop_bot_workers: harmless
        await server.stop(None)


@pytest.mark.parametrize("to_file", [True, False], ids=["full-screen host", "console host"])
async def test_a_worker_writes_its_stderr_to_the_hosts_worker_log_or_else_beside_the_host(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], to_file: bool) -> None:
    """`unonet local` and the LAN host's game screen log to a file, and their workers append to it;
    `unonet serve`'s share its stderr."""
    log = tmp_path / "client.log"
    log.write_text("the host's own line\n")
    host = Host(worker_log=log if to_file else None)
    host.workers.address = "127.0.0.1:1"  # never dialled
    said = tmp_path / "said"
    host.workers.command = lambda spec: [sys.executable, "-c", (
        f"import pathlib, signal, sys\nsys.stderr.write('WARNING seat {spec.seat}: a worker speaks\\n')\n"
        f"sys.stderr.flush()\npathlib.Path({str(said)!r}).touch()\nsignal.pause()")]
    try:
        assert host.workers.ensure("t", 1, "k", "token")
        await poll_until(said.exists, "the worker wrote", timeout=TIMEOUT)
    finally:
        await asyncio.wait_for(host.stop_bot_workers(), TIMEOUT)
    err = capfd.readouterr().err
    if to_file:
        assert log.read_text() == "the host's own line\nWARNING seat 1: a worker speaks\n"
        assert "a worker speaks" not in err
    else:
        assert log.read_text() == "the host's own line\n"
        assert "WARNING seat 1: a worker speaks" in err


def test_unonet_local_gives_its_log_file_to_its_hosts_bot_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "client.log"
    given: dict[str, object] = {}

    async def run(**kwargs: object) -> None:
        given.update(kwargs)

    monkeypatch.setattr(unonet.local, "log_to_file", lambda: log)
    monkeypatch.setattr(unonet.local, "calm_garbage_collector", lambda: None)  # process-wide: not in a test
    monkeypatch.setattr(unonet.local, "run_local", run)
    assert unonet.local.main(name="ann", players=2, preset="standard", target_score=0, bot_delay=0, turn_time=None,
                             db=None, port=0, colour_blind=False) == 0
    assert given["worker_log"] == log


def test_unonet_host_on_its_game_screen_gives_its_log_file_to_its_hosts_bot_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "client.log"
    given: list[LanOptions] = []

    async def open_seat(seat: HostedSeat) -> None:
        raise AssertionError("not opened here")

    async def run(options: LanOptions, **kwargs: object) -> None:
        given.append(options)

    monkeypatch.setattr(unonet.cli, "_game_screen_for_hosted_seat", lambda: (open_seat, log))
    monkeypatch.setattr(unonet.lan, "run_lan_host", run)
    assert unonet.cli.main(["host", "--listen", "127.0.0.1:0"]) == 0
    assert [options.worker_log for options in given] == [log]
