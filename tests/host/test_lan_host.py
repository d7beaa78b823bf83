"""`unonet host`: a host in this process, announced (on loopback only here), a table and a seat for you.

Every host in these tests listens on 127.0.0.1, so its announcement multicasts on the loopback
interface only, and the browser is bound there too.
"""

from __future__ import annotations

import asyncio
import io
import re
import secrets
import signal
import sys

import pytest

from unonet.cli import main
from unonet.client.discovery import DiscoveredHost, HostBrowser
from unonet.client.errors import Unavailable
from unonet.client.table_client import TableClient
from unonet.lan import HostedSeat, LanOptions, run_lan_host
from unonet.v1 import table_pb2

LOOPBACK = ["127.0.0.1"]
WAIT_S = 10.0
# A `unonet host` process's start (grpc, zeroconf and the host imported, a table made) and its stop (the
# grace for calls in flight, its bot workers stopped): bounds for a loaded machine, where both took
# over 10 s in a full parallel suite.
PROCESS_S = 60.0
# Host names unique to this run, so a test never mistakes another run's host on the same machine for its own.
RUN = secrets.token_hex(3)
PARTY, LONELY, CLI_PARTY = (f"{name} {RUN}" for name in ("party", "lonely", "cli party"))


async def found(browser: HostBrowser, name: str, *, present: bool = True) -> list[DiscoveredHost]:
    """Wait (bounded) until the browser lists, or no longer lists, a host called `name`."""
    async def first() -> list[DiscoveredHost]:
        async for hosts in browser.changes():
            if any(host.name == name for host in hosts) == present:
                return hosts
        raise AssertionError("the browser stopped")

    return await asyncio.wait_for(first(), WAIT_S)


async def test_the_hosted_seat_is_announced_joined_and_playable_by_friends() -> None:
    seen: list[HostedSeat] = []

    async def terminal_client(seat: HostedSeat) -> None:  # stands in for the full-screen client
        seen.append(seat)
        (host,) = [h for h in await found(browser, PARTY) if h.name == PARTY]
        assert host.target == seat.address == seat.local_address
        async with await TableClient.connect(seat.address) as me, await TableClient.connect(host.target) as friend:
            me.attach(seat.table_id, seat.token, seat.seat)
            table = await me.get_table()
            assert [(s.seat, s.name) for s in table.seats if s.occupied][:1] == [(0, "ada")]
            assert sum(s.is_bot for s in table.seats) == 1 and table.status == table_pb2.TABLE_STATUS_WAITING
            await friend.join(seat.table_id, "friend")  # the last empty seat: the table starts by itself
            assert (await me.get_table()).status == table_pb2.TABLE_STATUS_PLAYING
            assert (await me.get_view()).seat == 0

    out = io.StringIO()
    async with HostBrowser(interfaces=LOOPBACK) as browser:
        options = LanOptions(listen="127.0.0.1:0", name=PARTY, player_name="ada", seat_count=3, bots=1)
        seat = await asyncio.wait_for(run_lan_host(options, out=out, open_seat=terminal_client), 3 * WAIT_S)
        await found(browser, PARTY, present=False)  # withdrawn once the client returned
    assert seen == [seat]
    printed = out.getvalue()
    assert f"unonet play {seat.address}" in printed and seat.table_id in printed and seat.token in printed
    with pytest.raises(Unavailable):
        await TableClient.connect(seat.address, connect_timeout=1.0)  # and the host is gone


async def test_without_a_client_it_serves_until_stopped() -> None:
    stop = asyncio.Event()
    async with HostBrowser(interfaces=LOOPBACK) as browser:
        hosting = asyncio.create_task(run_lan_host(LanOptions(listen="127.0.0.1:0", name=LONELY),
                                                   out=io.StringIO(), stop=stop.wait()))
        await found(browser, LONELY)
        assert not hosting.done()
        stop.set()
        seat = await asyncio.wait_for(hosting, WAIT_S)
        await found(browser, LONELY, present=False)
    assert seat.seat == 0 and seat.seat_count == 4


def test_unonet_host_refuses_an_address_it_cannot_use(capsys) -> None:
    assert main(["host", "--listen", "no-port-here"]) == 2
    assert "is not HOST:PORT" in capsys.readouterr().err


async def test_unonet_host_prints_where_to_connect_and_stops_on_ctrl_c() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "unonet.cli", "host", "--listen", "127.0.0.1:0", "--name", CLI_PARTY,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        lines = [(await asyncio.wait_for(process.stdout.readline(), PROCESS_S)).decode() for _ in range(6)]
        address = re.search(r"unonet play (127\.0\.0\.1:\d+)", "".join(lines)).group(1)  # type: ignore[union-attr]
        table_id = re.search(r"table: +(\w+)", "".join(lines)).group(1)  # type: ignore[union-attr]
        assert lines[-1] == "Ctrl-C stops the host.\n"
        async with await TableClient.connect(address) as friend:
            assert (await friend.get_table(table_id)).seats[0].name == "you"
    finally:
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), PROCESS_S) == 0


async def test_a_host_that_cannot_announce_still_hosts_and_says_so(monkeypatch) -> None:
    import unonet.lan
    from unonet.host.announce import Announcer

    def nowhere(bound, port, name, host, *, tls=False):  # an interface this machine lacks: no socket opens
        return Announcer(name, port, ["127.0.0.1"], interfaces=["192.0.2.77"])

    monkeypatch.setattr(unonet.lan, "announcer_for", nowhere)
    out = io.StringIO()

    async def terminal_client(seat: HostedSeat) -> None:
        assert seat.instance == "" and seat.not_announced
        async with await TableClient.connect(seat.address) as friend:
            await friend.join(seat.table_id, "friend")

    seat = await asyncio.wait_for(run_lan_host(LanOptions(listen="127.0.0.1:0", seat_count=2), out=out,
                                               open_seat=terminal_client), WAIT_S)
    assert "could not be announced on the LAN" in out.getvalue() and f"unonet play {seat.address}" in out.getvalue()
