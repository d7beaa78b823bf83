"""Finding unonet hosts on the LAN: DNS-SD over multicast DNS (zeroconf), service `_unonet._tcp.local.`.

A host that announces itself (`unonet serve --announce`, `unonet host`) publishes one service instance
whose TXT record carries the keys of docs/protocol.md, "Finding hosts on a LAN" (`name`, `version`,
`protocol`, `tables`, `tls`). This module browses for them:

- `discover_hosts(timeout)`: the hosts seen within `timeout` seconds, for a command line or a script;
- `HostBrowser`: a live list for a screen that stays open (the lobby). It runs on the caller's asyncio
  loop (prompt-toolkit's, for the terminal client), keeps `hosts` current as hosts come, change and
  go, and calls `on_change` after each change so the screen can `invalidate()`; `changes()` is the same
  as an async iterator.

Discovery is a convenience, never a requirement: a host it cannot reach is typed as `HOST:PORT`.
`interfaces` restricts which interfaces multicast is sent and heard on (tests pass `["127.0.0.1"]`, so
they never send beyond the loopback interface); None means every interface, zeroconf's default.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from zeroconf import BadTypeInNameException, InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

__all__ = ["SERVICE_TYPE", "DiscoveredHost", "HostBrowser", "discover_hosts"]

SERVICE_TYPE = "_unonet._tcp.local."
# How long one host's address and TXT record may take to resolve once its name was seen.
RESOLVE_TIMEOUT_MS = 3000


@dataclass(frozen=True, slots=True)
class DiscoveredHost:
    """One announced host: where to connect and what its TXT record says.

    `instance` is the DNS-SD instance name (unique on the LAN, e.g. `alice's table._unonet._tcp.local.`);
    `address` an IPv4 or IPv6 address the host announced, `port` its gRPC port; `properties` the TXT
    record's keys and values as text (a key without a value maps to "").
    """

    instance: str
    address: str
    port: int
    properties: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The name the host gave itself (its `name` TXT key), else the instance name without the type."""
        return self.properties.get("name") or self.instance.removesuffix("." + SERVICE_TYPE)

    @property
    def target(self) -> str:
        """What a client dials: `address:port` (IPv6 in brackets)."""
        return f"[{self.address}]:{self.port}" if ":" in self.address else f"{self.address}:{self.port}"

    @property
    def version(self) -> str:
        """The unonet version the host runs ("" when it did not say)."""
        return self.properties.get("version", "")

    @property
    def tables(self) -> int | None:
        """How many tables the host had in play or waiting for players when it last updated its record."""
        text = self.properties.get("tables", "")
        return int(text) if text.isdigit() else None

    @property
    def is_tls(self) -> bool:
        """True when the host serves TLS (dial it with `--tls`)."""
        return self.properties.get("tls") == "1"


def _interfaces(interfaces: Sequence[str] | None) -> list[str] | InterfaceChoice:
    return InterfaceChoice.All if interfaces is None else list(interfaces)


def _host_from(info: AsyncServiceInfo) -> DiscoveredHost | None:
    """The host a resolved record describes, or None when it names no address or port."""
    addresses = info.parsed_scoped_addresses(IPVersion.V4Only) or info.parsed_scoped_addresses(IPVersion.V6Only)
    if not addresses or not info.port:
        return None
    properties = {key: value or "" for key, value in info.decoded_properties.items()}
    return DiscoveredHost(info.name, addresses[0], info.port, properties)


class HostBrowser:
    """A live list of the announced hosts, on the running asyncio loop.

    Use as `async with HostBrowser(on_change=app.invalidate) as browser:` and read `browser.hosts`
    (sorted by name); or iterate `browser.changes()`. Names that are seen but do not resolve to an
    address within RESOLVE_TIMEOUT_MS are left out, so every listed host can be dialled.
    """

    def __init__(self, *, interfaces: Sequence[str] | None = None,
                 on_change: Callable[[], None] | None = None) -> None:
        self._interfaces = interfaces
        self._on_change = on_change
        self._found: dict[str, DiscoveredHost] = {}
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._resolving: set[asyncio.Task[None]] = set()
        self._listeners: list[asyncio.Queue[list[DiscoveredHost] | None]] = []  # None: the browser stopped
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def hosts(self) -> list[DiscoveredHost]:
        """The hosts seen and resolved so far, still announced, sorted by name then address."""
        return sorted(self._found.values(), key=lambda host: (host.name.lower(), host.target))

    async def start(self) -> None:
        """Start browsing. Raises OSError when no multicast socket can be opened on the interfaces."""
        self._loop = asyncio.get_running_loop()
        self._zeroconf = AsyncZeroconf(interfaces=_interfaces(self._interfaces), ip_version=IPVersion.V4Only)
        self._browser = AsyncServiceBrowser(self._zeroconf.zeroconf, [SERVICE_TYPE], handlers=[self._on_state])

    async def stop(self) -> None:
        """Stop browsing and close the sockets; the list is kept as last seen."""
        for task in list(self._resolving):
            task.cancel()
        for task in list(self._resolving):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        if self._zeroconf is not None:
            await self._zeroconf.async_close()
            self._zeroconf = None
        for queue in self._listeners:
            queue.put_nowait(None)

    async def __aenter__(self) -> HostBrowser:
        await self.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        await self.stop()

    async def changes(self) -> AsyncIterator[list[DiscoveredHost]]:
        """The current list at once, then the list after every change, until the browser stops."""
        queue: asyncio.Queue[list[DiscoveredHost] | None] = asyncio.Queue()
        self._listeners.append(queue)
        try:
            yield self.hosts
            while (hosts := await queue.get()) is not None:
                yield hosts
        finally:
            self._listeners.remove(queue)

    def _on_state(self, zeroconf: Zeroconf, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        """zeroconf's handler (called on its loop thread): move the work onto ours."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._handle, name, state_change)

    def _handle(self, name: str, state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            if self._found.pop(name, None) is not None:
                self._changed()
            return
        task = asyncio.ensure_future(self._resolve(name))
        self._resolving.add(task)
        task.add_done_callback(self._resolving.discard)

    async def _resolve(self, name: str) -> None:
        """Ask for the address, port and TXT record of one instance (answers may already be cached)."""
        if self._zeroconf is None:
            return
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
        except BadTypeInNameException:
            return  # a name that is not an instance of our type: nothing to list
        if not await info.async_request(self._zeroconf.zeroconf, RESOLVE_TIMEOUT_MS):
            return
        host = _host_from(info)
        if host is not None and self._found.get(name) != host:
            self._found[name] = host
            self._changed()

    def _changed(self) -> None:
        hosts = self.hosts
        for queue in self._listeners:
            queue.put_nowait(hosts)
        if self._on_change is not None:
            self._on_change()


async def discover_hosts(timeout: float = 2.0, *, interfaces: Sequence[str] | None = None) -> list[DiscoveredHost]:
    """The hosts that answered within `timeout` seconds, sorted by name. Raises OSError as `HostBrowser`."""
    async with HostBrowser(interfaces=interfaces) as browser:
        await asyncio.sleep(timeout)
        return browser.hosts
