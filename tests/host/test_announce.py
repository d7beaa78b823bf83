"""LAN discovery on the loopback interface only: a real host announced, found, updated and withdrawn.

Every zeroconf instance here is bound to 127.0.0.1 (`interfaces=["127.0.0.1"]`), so no test sends
multicast on any other interface.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import sys
from collections.abc import AsyncIterator, Callable

import grpc
import pytest

from unonet.cli import build_parser
from unonet.client import discovery
from unonet.client.discovery import DiscoveredHost, HostBrowser, discover_hosts
from unonet.host import announce
from unonet.host.announce import Announcer, announce_addresses, announcer_for, instance_label
from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc

LOOPBACK = ["127.0.0.1"]
WAIT_S = 10.0
# Host names unique to this run, so a test never mistakes another run's host on the same machine for its own.
RUN = secrets.token_hex(3)
ALICE, BOB, TWIN, CAROL, DAVE, PARTY = (f"{name} {RUN}" for name in ("alice's table", "bob", "twin", "carol",
                                                                        "dave", "lan party"))


async def until(changes: AsyncIterator[list[DiscoveredHost]],
                holds: Callable[[list[DiscoveredHost]], bool]) -> list[DiscoveredHost]:
    """The first list of hosts the browser reports for which `holds` is true (or TimeoutError)."""
    async def first() -> list[DiscoveredHost]:
        async for hosts in changes:
            if holds(hosts):
                return hosts
        raise AssertionError("the browser stopped")

    return await asyncio.wait_for(first(), WAIT_S)


def named(name: str) -> Callable[[list[DiscoveredHost]], bool]:
    return lambda hosts: any(host.name == name for host in hosts)


def ours(hosts: list[DiscoveredHost]) -> list[DiscoveredHost]:
    """The hosts this run (this process) announced, by the run's token in their names."""
    return [host for host in hosts if host.name.endswith(f" {RUN}")]


def test_the_host_and_the_client_announce_and_browse_the_same_service_type() -> None:
    assert announce.SERVICE_TYPE == discovery.SERVICE_TYPE == "_unonet._tcp.local."


async def test_a_real_host_is_announced_found_dialled_updated_and_withdrawn(stubs) -> None:
    port = int(stubs.address.rsplit(":", 1)[1])
    announcer = Announcer(ALICE, port, ["127.0.0.1"], interfaces=LOOPBACK,
                          tables=lambda: len(stubs.host.tables), refresh_s=3600)
    async with HostBrowser(interfaces=LOOPBACK) as browser:
        changes = browser.changes()
        await announcer.start()
        try:
            hosts = await until(changes, named(ALICE))
            (found,) = [host for host in hosts if host.name == ALICE]
            assert found.target == stubs.address
            label = instance_label(ALICE, port)
            assert found.instance == announcer.instance == f"{label}.{announce.SERVICE_TYPE}"
            assert found.tables == 0 and not found.is_tls
            assert found.properties["protocol"] == "unonet.v1" and found.version == announce.unonet_version()
            async with grpc.aio.insecure_channel(found.target) as channel:  # what was found can be dialled
                lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
                await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(name="t", seat_count=2), timeout=5)
            await announcer.update()
            await until(changes, lambda hosts: any(host.name == ALICE and host.tables == 1 for host in hosts))
        finally:
            await announcer.stop()
        hosts = await until(changes, lambda hosts: not named(ALICE)(hosts))
        # The browser's own list agrees with what it last reported, for this run's hosts: other tests on
        # other workers announce on the same loopback at the same time (one appeared in between once).
        assert ours(browser.hosts) == ours(hosts)
        await changes.aclose()


async def test_discover_hosts_lists_what_answers_within_its_timeout() -> None:
    announcer = Announcer(BOB, 50999, ["127.0.0.1"], interfaces=LOOPBACK, tls=True)
    await announcer.start()
    try:
        hosts = await asyncio.wait_for(discover_hosts(4.0, interfaces=LOOPBACK), WAIT_S)
    finally:
        await announcer.stop()
    (bob,) = [host for host in hosts if host.name == BOB]
    assert bob.target == "127.0.0.1:50999" and bob.is_tls


async def test_two_hosts_of_one_name_are_both_listed(stubs) -> None:
    first = Announcer(TWIN, 50997, ["127.0.0.1"], interfaces=LOOPBACK)
    second = Announcer(TWIN, 50998, ["127.0.0.1"], interfaces=LOOPBACK)
    async with HostBrowser(interfaces=LOOPBACK) as browser:
        changes = browser.changes()
        await first.start()
        await second.start()
        try:
            hosts = await until(changes, lambda hosts: sum(host.name == TWIN for host in hosts) == 2)
        finally:
            await second.stop()
            await first.stop()
        await changes.aclose()
    assert first.instance != second.instance
    assert sorted(host.port for host in hosts if host.name == TWIN) == [50997, 50998]


def test_the_live_list_calls_back_after_each_change() -> None:
    calls: list[int] = []

    async def run() -> list[DiscoveredHost]:
        announcer = Announcer(CAROL, 50996, ["127.0.0.1"], interfaces=LOOPBACK)
        async with HostBrowser(interfaces=LOOPBACK, on_change=lambda: calls.append(1)) as browser:
            changes = browser.changes()
            await announcer.start()
            try:
                return await until(changes, named(CAROL))
            finally:
                await announcer.stop()
                await changes.aclose()

    hosts = asyncio.run(run())
    assert named(CAROL)(hosts) and calls


def test_announced_addresses_follow_the_listen_address() -> None:
    assert announce_addresses("127.0.0.1") == ["127.0.0.1"]
    assert announce_addresses("localhost") == ["127.0.0.1"]
    (lan,) = announce_addresses("0.0.0.0")
    assert lan == announce.lan_address()
    with pytest.raises(ValueError, match="names no IPv4 address"):
        announce_addresses("no-such-host.invalid")


def test_instance_names_are_one_dns_label_unique_per_machine_and_port() -> None:
    assert instance_label("alice's table", 50051, "box.lan") == "alice's table (box port 50051)"
    assert instance_label("v1.2", 1, "m") == "v1 2 (m port 1)"
    long = instance_label("é" * 80, 50051, "m")
    assert len(long.encode()) <= 63 and long.endswith("(m port 50051)")
    announcer = Announcer("a.b", 1, ["127.0.0.1"])
    assert announcer.properties(3) == {"name": "a.b", "version": announce.unonet_version(),
                                       "protocol": "unonet.v1", "tables": "3", "tls": "0"}
    with pytest.raises(ValueError, match="at least one address"):
        Announcer("x", 1, [])
    assert DiscoveredHost("x._unonet._tcp.local.", "::1", 5).target == "[::1]:5"
    assert DiscoveredHost("x._unonet._tcp.local.", "10.0.0.2", 5).name == "x"


async def test_unonet_serve_announce_is_found_on_loopback_and_withdrawn_when_it_stops(tmp_path) -> None:
    async with HostBrowser(interfaces=LOOPBACK) as browser:
        changes = browser.changes()
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "unonet.cli", "serve", "--listen", "127.0.0.1:0", "--db", str(tmp_path / "h.db"),
            "--announce", "--name", PARTY, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            assert process.stdout is not None
            listening = (await asyncio.wait_for(process.stdout.readline(), WAIT_S)).decode()
            port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", listening).group(1))  # type: ignore[union-attr]
            announced = (await asyncio.wait_for(process.stdout.readline(), WAIT_S)).decode()
            assert "announced on the LAN as" in announced and "127.0.0.1" in announced
            hosts = await until(changes, named(PARTY))
            assert [host.target for host in hosts if host.name == PARTY] == [f"127.0.0.1:{port}"]
        finally:
            process.terminate()  # SIGTERM: the host withdraws itself before it shuts down
            assert await asyncio.wait_for(process.wait(), WAIT_S) == 0
        await until(changes, lambda hosts: not named(PARTY)(hosts))
        await changes.aclose()


def test_serve_announces_only_when_asked() -> None:
    assert build_parser().parse_args(["serve"]).announce is False
    args = build_parser().parse_args(["serve", "--announce", "--name", "x"])
    assert args.announce and args.name == "x"


def test_a_host_bound_to_one_address_multicasts_on_that_interface_only(stubs) -> None:
    announcer = announcer_for("127.0.0.1", 1, "x", stubs.host)
    assert announcer.addresses == ["127.0.0.1"] and announcer.interfaces == ["127.0.0.1"]
    everywhere = announcer_for("0.0.0.0", 1, "x", stubs.host)
    assert everywhere.interfaces is None and everywhere.addresses == [announce.lan_address()]


async def test_serve_keeps_serving_when_it_cannot_announce(capsys) -> None:
    from unonet.host.server import announce_or_warn

    assert await announce_or_warn(Announcer("x", 1, ["127.0.0.1"], interfaces=["192.0.2.77"])) is None
    assert "not announced on the LAN" in capsys.readouterr().out


async def test_the_tables_count_is_refreshed_while_the_host_runs() -> None:
    tables = [0]
    announcer = Announcer(DAVE, 50995, ["127.0.0.1"], interfaces=LOOPBACK, tables=lambda: tables[0],
                          refresh_s=0.05)
    async with HostBrowser(interfaces=LOOPBACK) as browser:
        changes = browser.changes()
        await announcer.start()
        try:
            await until(changes, lambda hosts: any(h.name == DAVE and h.tables == 0 for h in hosts))
            tables[0] = 2  # nobody calls update(): the announcer's own refresher publishes it
            await until(changes, lambda hosts: any(h.name == DAVE and h.tables == 2 for h in hosts))
        finally:
            await announcer.stop()
        await changes.aclose()


async def test_the_live_list_ends_when_the_browser_stops() -> None:
    browser = HostBrowser(interfaces=LOOPBACK)
    await browser.start()
    changes = browser.changes()
    assert await asyncio.wait_for(anext(changes), WAIT_S) == browser.hosts
    waiting = asyncio.ensure_future(anext(changes))
    await browser.stop()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(waiting, WAIT_S)
