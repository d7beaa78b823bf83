"""Whole games for the bot tests: one table on a real host, a runner per seat, all in this process; and
`CountingInterceptor`, which counts a channel's unary calls by method, so a test can prove a bot needs no
GetView per decision."""

from __future__ import annotations

import asyncio
import collections
import contextlib
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import duration_pb2

from unonet.bots.runner import BotRunner, Seating, play_tables
from unonet.client.table_client import TableClient
from unonet.v1 import events_pb2, table_pb2

CALL_TIMEOUT = 10.0
#: How long the reaction windows of these tables stay open. A window nobody answers (an UNO call that
#: no one can catch opens one for every other seat) holds the whole table until it closes: at the
#: host's default, 1.5 s, those waits were most of a match's wall time. No test of these tables is
#: about the windows' length (tests/host's are, on the host's injectable clock).
REACTION_S = 0.3


class CountingInterceptor(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Counts every unary call by its method's short name (GetView, PlayCards, ...)."""

    def __init__(self) -> None:
        self.calls: collections.Counter[str] = collections.Counter()

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        method = client_call_details.method
        self.calls[(method.decode() if isinstance(method, bytes) else method).rsplit("/", 1)[-1]] += 1
        return await continuation(client_call_details, request)


def _duration(seconds: float) -> duration_pb2.Duration:
    value = duration_pb2.Duration()
    value.FromNanoseconds(int(seconds * 1e9))
    return value


def clock(turn_s: float, strikes: int = 2) -> table_pb2.ClockSettings:
    """A short turn clock (no time bank) after which a seat is taken over by a host bot; short windows."""
    return table_pb2.ClockSettings(turn_time=_duration(turn_s), strikes_before_takeover=strikes,
                                   reaction_time=_duration(REACTION_S))


def default_clock() -> table_pb2.ClockSettings:
    """The host's default clock (TableSettings': 30 s turns, no bank, 3 strikes, a bot takes over), but
    with short reaction windows (`REACTION_S`). A ClockSettings is taken as written, so each is set."""
    return clock(30.0, strikes=3)


@dataclass
class Played:
    table_id: str
    results: list[Any]
    events: list[events_pb2.Event]
    tokens: list[str]

    def kinds(self, kind: str) -> list[Any]:
        return [getattr(event, kind) for event in self.events if event.WhichOneof("payload") == kind]


async def join_table(
    channel: grpc.aio.Channel, seats: int, *, preset: str = "standard", overrides: dict[str, Any] | None = None,
    clock_settings: table_pb2.ClockSettings | None = None, owner: TableClient | None = None,
) -> tuple[str, list[TableClient]]:
    """A new table with every seat joined; with an `owner` client the table waits for its StartTable.
    Its clock is `clock_settings`, else `default_clock()`."""
    manual = owner is not None
    owner = owner or TableClient(channel, timeout=CALL_TIMEOUT)
    created = await asyncio.wait_for(
        owner.create_table(preset, overrides or {"target_score": 50}, seats,
                           clock=clock_settings if clock_settings is not None else default_clock(),
                           manual_start=manual),
        CALL_TIMEOUT,
    )
    clients = [TableClient(channel, timeout=CALL_TIMEOUT) for _ in range(seats)]
    for i, client in enumerate(clients):
        await asyncio.wait_for(client.join(created.table_id, f"seat-{i}", seat=i), CALL_TIMEOUT)
    return created.table_id, clients


async def public_log(channel: grpc.aio.Channel, table_id: str, token: str, seat: int) -> list[events_pb2.Event]:
    """Every event of a finished match, as `seat` received them."""
    watcher = TableClient(channel, timeout=CALL_TIMEOUT)
    watcher.attach(table_id, token, seat)
    events = []
    async with contextlib.aclosing(watcher.events(after=0)) as stream, asyncio.timeout(CALL_TIMEOUT):
        async for event in stream:
            events.append(event)
            if event.HasField("match_ended"):
                break
    return events


async def play_one_table(
    address: str, runners: list[BotRunner], *, timeout: float = 150.0, **table: Any
) -> Played:
    """Seat `runners` in order at a new table, play the match, and return what happened."""
    channel = grpc.aio.insecure_channel(address)
    try:
        table_id, clients = await join_table(channel, len(runners), **table)
        results = await asyncio.wait_for(
            play_tables(Seating(r, c, table_id, i) for i, (r, c) in enumerate(zip(runners, clients, strict=True))),
            timeout,
        )
        tokens = [client.token for client in clients]
        events = await public_log(channel, table_id, tokens[0], 0)
        return Played(table_id, results, events, tokens)
    finally:
        await channel.close()
