"""Announcing a running host on the LAN over multicast DNS (zeroconf), so `unonet play` lists it.

The host publishes one DNS-SD instance of `_unonet._tcp.local.` (the type `unonet.client.discovery`
browses for) with its address, gRPC port and a TXT record (docs/protocol.md, "Finding hosts on a LAN"):

| key        | value |
| ---------- | ----- |
| `name`     | the host's display name (`--name`, else the machine's host name) |
| `version`  | the unonet version it runs |
| `protocol` | `unonet.v1`, the protocol package it serves |
| `tables`   | how many of its tables are waiting for players or in play (refreshed while it runs) |
| `tls`      | `1` when it serves TLS, `0` otherwise |

The instance name is the display name followed by the machine and port (`instance_label`), so two
hosts of one display name are both listed. Withdrawing (`stop`) sends the goodbye packets that make
browsers drop the host at once rather than when its records expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Callable, Sequence
from importlib import metadata

from zeroconf import InterfaceChoice, IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from unonet.host.host import Host

__all__ = [
    "SERVICE_TYPE", "Announcer", "announce_addresses", "announcer_for", "instance_label", "is_wildcard",
    "lan_address", "unonet_version",
]

# The DNS-SD service type of docs/protocol.md. `unonet.client.discovery` browses for the same string
# (the host does not import the client; a test pins the two equal).
SERVICE_TYPE = "_unonet._tcp.local."

# How often the `tables` count is looked at and, when it changed, the TXT record updated.
REFRESH_S = 5.0
# DNS labels are at most 63 bytes; the instance name is one label.
MAX_INSTANCE_BYTES = 63


def unonet_version() -> str:
    """The installed distribution's version ("0" when run from a tree that was never installed)."""
    try:
        return metadata.version("unonet")
    except metadata.PackageNotFoundError:
        return "0"


def lan_address() -> str:
    """This machine's address on its default route, found without sending a packet (a UDP socket is
    connected, which only picks the route); 127.0.0.1 on a machine with no route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real, and nothing is sent
            address = str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
    return address if address != "0.0.0.0" else "127.0.0.1"


def is_wildcard(bound: str) -> bool:
    """True for a bind address that means every interface (`0.0.0.0`, `::`, `*` or nothing)."""
    return bound.strip("[]") in ("", "0.0.0.0", "::", "*")


def announce_addresses(bound: str) -> list[str]:
    """The IPv4 addresses to announce for a server bound to `bound` (the host part of --listen).

    A wildcard bind (`0.0.0.0`, `::`, empty) announces the LAN address; a name is resolved; an address
    is announced as it is. Raises ValueError for a bound address that is not IPv4 and resolves to none.
    """
    host = bound.strip("[]")
    if is_wildcard(host):
        return [lan_address()]
    try:
        return [str(ipaddress.IPv4Address(host))]
    except ipaddress.AddressValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, socket.AF_INET)
    except socket.gaierror as error:
        raise ValueError(f"cannot announce {bound!r}: it names no IPv4 address ({error})") from None
    return sorted({str(info[4][0]) for info in infos})


def instance_label(name: str, port: int, machine: str | None = None) -> str:
    """The DNS-SD instance label: the display name, then the machine and port, so two hosts never share
    one (another machine has another name, another host on this machine another port) and no probing
    race on the LAN decides which one is listed. Dots become spaces (a dot would split the label); the
    display name is cut so the label fits DNS's 63 bytes."""
    machine = (machine if machine is not None else socket.gethostname()).split(".")[0] or "unonet"
    suffix = f" ({machine} port {port})"
    label = name.replace(".", " ").strip() or "unonet"
    while label and len((label + suffix).encode("utf-8")) > MAX_INSTANCE_BYTES:
        label = label[:-1]
    return (label.rstrip() + suffix)[-MAX_INSTANCE_BYTES:].strip()


class Announcer:
    """Publishes one host on the LAN from `start` until `stop`, on the running asyncio loop.

    `addresses` are the IPv4 addresses clients should dial (see `announce_addresses`), `port` the gRPC
    port. `interfaces` are the interfaces multicast is sent on: None for every interface, or a list of
    interface addresses (tests and a loopback-only host pass `["127.0.0.1"]`). `tables` is read every
    REFRESH_S seconds for the `tables` TXT key.
    """

    def __init__(self, name: str, port: int, addresses: Sequence[str], *, interfaces: Sequence[str] | None = None,
                 tls: bool = False, tables: Callable[[], int] = lambda: 0, refresh_s: float = REFRESH_S) -> None:
        if not addresses:
            raise ValueError("a host is announced with at least one address")
        self.name = name
        self.port = port
        self.addresses = [str(ipaddress.IPv4Address(address)) for address in addresses]
        self.interfaces = None if interfaces is None else list(interfaces)
        self._tls = tls
        self._tables = tables
        self._refresh_s = refresh_s
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._refresher: asyncio.Task[None] | None = None
        self._announced_tables = -1

    @property
    def instance(self) -> str:
        """The full instance name announced (after any conflict suffix); "" before `start`."""
        return self._info.name if self._info is not None else ""

    def properties(self, tables: int) -> dict[str, str]:
        """The TXT record for a host with `tables` tables waiting or in play."""
        return {"name": self.name, "version": unonet_version(), "protocol": "unonet.v1",
                "tables": str(tables), "tls": "1" if self._tls else "0"}

    def _service_info(self, instance: str, tables: int) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE, f"{instance}.{SERVICE_TYPE}", port=self.port,
            addresses=[socket.inet_aton(address) for address in self.addresses],
            properties=self.properties(tables), server=f"unonet-{socket.gethostname()}.local.",
        )

    async def start(self) -> None:
        """Register the service: zeroconf probes the name for about a second, then announces it.

        Raises OSError when no multicast socket can be opened on the interfaces, or zeroconf's own
        error when the LAN refuses the name; nothing is left open then."""
        interfaces = InterfaceChoice.All if self.interfaces is None else self.interfaces
        self._zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        self._announced_tables = self._tables()
        info = self._service_info(instance_label(self.name, self.port), self._announced_tables)
        try:
            await (await self._zeroconf.async_register_service(info, allow_name_change=True))  # probed, announced
        except BaseException:
            await self._zeroconf.async_close()
            self._zeroconf = None
            raise
        self._info = info
        self._refresher = asyncio.create_task(self._refresh())

    async def update(self) -> None:
        """Publish the current `tables` count if it changed since the last announcement."""
        tables = self._tables()
        if self._zeroconf is None or self._info is None or tables == self._announced_tables:
            return
        self._info = self._service_info(self._info.name.removesuffix("." + SERVICE_TYPE), tables)
        await (await self._zeroconf.async_update_service(self._info))
        self._announced_tables = tables

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(self._refresh_s)
            await self.update()

    async def stop(self) -> None:
        """Withdraw the host (goodbye packets) and close the sockets. Safe to call twice."""
        if self._refresher is not None:
            self._refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refresher
            self._refresher = None
        if self._zeroconf is not None:
            if self._info is not None:
                await (await self._zeroconf.async_unregister_service(self._info))  # goodbyes sent
            await self._zeroconf.async_close()
            self._zeroconf = None


def announcer_for(bound: str, port: int, name: str, host: Host, *, tls: bool = False) -> Announcer:
    """The announcer of a server bound to `bound` (the host part of its listen address) on `port`.

    A wildcard bind is announced with the LAN address on every interface; a bind to one address is
    announced with that address on that interface only (so a host on 127.0.0.1 never multicasts
    beyond the loopback interface). Raises ValueError as `announce_addresses`."""
    addresses = announce_addresses(bound)
    interfaces = None if is_wildcard(bound) else addresses
    return Announcer(name, port, addresses, interfaces=interfaces, tls=tls, tables=host.open_tables)
