"""A host on 127.0.0.1:0 whose clock only the test moves, with stubs for its services: the rig of the
race tests (`tests/host/test_races.py`, `test_window_open.py`), where "an answer arrived 100 ms after
the other" must mean exactly that.

The host shuffles fairly (its own secret seed), so a test that needs a particular deal deals tables
until one fits (`deal_until`, bounded). The joins limit counts on the host's clock, which stands still
here, so the rig lifts it: dealing is not what these tests test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from unonet.host.host import Host
from unonet.host.limits import Limits
from unonet.host.server import create_server
from unonet.host.store import Store
from unonet.host.table import Table, TableSettings
from unonet.v1 import (
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2_grpc,
    time_service_pb2_grpc,
    watch_service_pb2_grpc,
)

MS = 1_000_000
T0 = 1_700_000_000_000_000_000
TABLES_TRIED = 200
MAX_SEATS = 10  # no table of these tests has more seats
CALL_TIMEOUT = 60  # every wait ends on its condition (the clock is the test's); only a hang uses it up


class FakeClock:
    """The host's clock, moved only by the test."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: float) -> None:
        self.now += int(ms * MS)


@dataclass
class Rig:
    host: Host
    clock: FakeClock
    channel: grpc.aio.Channel
    lobby: lobby_service_pb2_grpc.LobbyServiceStub
    play: play_service_pb2_grpc.PlayServiceStub
    watch: watch_service_pb2_grpc.WatchServiceStub
    time: time_service_pb2_grpc.TimeServiceStub


async def start_rig(store: Store | None = None, **host_options: Any) -> tuple[Rig, Any]:
    """A started rig and its server (for `stop_rig`)."""
    clock = FakeClock()
    host_options.setdefault("limits", Limits(joins_per_s_peer=float(MAX_SEATS * TABLES_TRIED)))
    host = Host(store, clock_ns=clock, write_timeout_s=2.0, **host_options)
    server, port, _ = await create_server("127.0.0.1:0", host=host)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    rig = Rig(host, clock, channel, lobby_service_pb2_grpc.LobbyServiceStub(channel),
              play_service_pb2_grpc.PlayServiceStub(channel), watch_service_pb2_grpc.WatchServiceStub(channel),
              time_service_pb2_grpc.TimeServiceStub(channel))
    return rig, server


async def stop_rig(rig: Rig, server: Any) -> None:
    await rig.channel.close()
    await rig.host.stop()
    await server.stop(grace=None)


async def deal_until(rig: Rig, settings: dict[str, Any], fits: Callable[[Table], bool],
                     what: str = "fits") -> tuple[Table, list[str]]:
    """A started table of `settings` whose deal `fits(table)`, and its seats' tokens."""
    for _ in range(TABLES_TRIED):
        table = rig.host.create_table(TableSettings(**settings))
        tokens = []
        for seat in range(settings["seat_count"]):
            joined = await rig.lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=table.table_id, name=f"p{seat}", role=lobby_service_pb2.JOIN_ROLE_PLAYER),
                timeout=CALL_TIMEOUT)
            tokens.append(joined.token)
        if fits(table):
            return table, tokens
    raise AssertionError(f"none of {TABLES_TRIED} deals {what}")
