"""The host's limits on load: tables, event streams per table, and commands and joins per second.

A host on a LAN serves whoever can reach it; one misbehaving client (a bug in a loop, a script) must
not take the host's memory or its event loop from every other table. Each limit is refused before
anything is looked up or changed, with its documented reason: TOO_MANY_TABLES, TOO_MANY_SUBSCRIBERS,
RATE_LIMITED (all RESOURCE_EXHAUSTED; a client waits and retries, the refused call changed nothing).

Rates are token buckets (`RateLimiter`): a sustained rate and a burst, per seat token and per peer
(the client's IP address, whatever port or connection it uses), so a player's burst of reactions
passes and a flood does not. The defaults, which `unonet serve` takes as flags, are generous for a
person or a bot playing and tight for a flood; zero switches a limit off.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

from unonet.host.errors import HostError, exhausted

DEFAULT_MAX_TABLES = 2_000  # tables not finished, in memory at once
DEFAULT_MAX_SUBSCRIBERS = 256  # WatchEvents streams open on one table (seats and spectators together)
DEFAULT_COMMANDS_PER_S_TOKEN = 100.0  # commands (PlayService, SendChat) per second from one token
DEFAULT_COMMANDS_PER_S_PEER = 1_000.0  # the same, from one IP address, all its tokens together
DEFAULT_JOINS_PER_S_PEER = 50.0  # JoinTable and CreateTable per second from one IP address
BURST_SECONDS = 2.0  # a bucket holds this many seconds' worth of its rate
# Buckets untouched this long are full again: they are dropped, so memory follows the active clients.
IDLE_BUCKET_S = 60.0


@dataclass(frozen=True, slots=True)
class Limits:
    """A host's limits; 0 is no limit. The defaults are the ones `unonet serve` documents."""

    max_tables: int = DEFAULT_MAX_TABLES
    max_subscribers: int = DEFAULT_MAX_SUBSCRIBERS
    commands_per_s_token: float = DEFAULT_COMMANDS_PER_S_TOKEN
    commands_per_s_peer: float = DEFAULT_COMMANDS_PER_S_PEER
    joins_per_s_peer: float = DEFAULT_JOINS_PER_S_PEER

    @classmethod
    def off(cls) -> Limits:
        """No limit at all (a benchmark driving one host from one address, a test that floods on purpose)."""
        return cls(0, 0, 0.0, 0.0, 0.0)


class RateLimiter:
    """Token buckets by key: `rate` per second sustained, `rate * BURST_SECONDS` at once."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._burst = max(1.0, rate * BURST_SECONDS)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens left, when counted)
        self._next_sweep = 0.0

    def allow(self, key: str) -> bool:
        """Take one token from `key`'s bucket; False (and nothing taken) if it is empty."""
        if self._rate <= 0:
            return True
        now = self._clock()
        left, then = self._buckets.get(key, (self._burst, now))
        left = min(self._burst, left + (now - then) * self._rate)
        if now >= self._next_sweep:
            self._sweep(now)
        if left < 1.0:
            self._buckets[key] = (left, now)
            return False
        self._buckets[key] = (left - 1.0, now)
        return True

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + IDLE_BUCKET_S
        self._buckets = {key: value for key, value in self._buckets.items() if now - value[1] < IDLE_BUCKET_S}

    def __len__(self) -> int:
        return len(self._buckets)


@functools.lru_cache(maxsize=4096)  # a connection's every call names the same peer: one parse per connection
def peer_address(peer: str) -> str:
    """The client's address without its port, from a gRPC peer string: `ipv4:10.0.0.7:51234` and
    `ipv6:[fe80::1]:51234` give `ipv4:10.0.0.7` and `ipv6:[fe80::1]`; anything else (a Unix socket)
    stays as it is."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and rest.rfind(":") > rest.rfind("]"):
        return f"{kind}:{rest.rsplit(':', 1)[0]}"
    return peer


class Guard:
    """The checks `service.py` makes before a call touches any table, for one host's `Limits`."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._by_token = RateLimiter(limits.commands_per_s_token, clock)
        self._by_peer = RateLimiter(limits.commands_per_s_peer, clock)
        self._joins = RateLimiter(limits.joins_per_s_peer, clock)

    def command(self, token: str, peer: str) -> None:
        """A command from `token` at `peer`. Raises RATE_LIMITED if either sends faster than allowed."""
        address = peer_address(peer)
        if not self._by_peer.allow(address):
            raise _rate_limited(f"more than {self.limits.commands_per_s_peer:g} commands per second from {address}")
        if token and not self._by_token.allow(token):
            raise _rate_limited(f"more than {self.limits.commands_per_s_token:g} commands per second from one token")

    def join(self, peer: str) -> None:
        """A JoinTable or CreateTable from `peer`. Raises RATE_LIMITED if it asks faster than allowed."""
        address = peer_address(peer)
        if not self._joins.allow(address):
            raise _rate_limited(f"more than {self.limits.joins_per_s_peer:g} joins per second from {address}")

    def new_table(self, open_tables: int) -> None:
        """A table to create while `open_tables` are not finished. Raises TOO_MANY_TABLES at the limit."""
        limit = self.limits.max_tables
        if limit and open_tables >= limit:
            raise exhausted("TOO_MANY_TABLES", f"this host plays at most {limit} tables at once; "
                            "try again when one has finished")

    def new_subscriber(self, open_streams: int) -> None:
        """An event stream to open on a table that has `open_streams`. Raises TOO_MANY_SUBSCRIBERS."""
        limit = self.limits.max_subscribers
        if limit and open_streams >= limit:
            raise exhausted("TOO_MANY_SUBSCRIBERS", f"a table has at most {limit} event streams open at once")


def _rate_limited(message: str) -> HostError:
    return exhausted("RATE_LIMITED", f"{message}; slow down and retry")
