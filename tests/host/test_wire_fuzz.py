"""A seeded wire fuzzer: thousands of hostile requests across every RPC of the protocol, none of which
may get UNKNOWN or INTERNAL, leave a traceback in the host's log, or go unanswered for 5 s.

Four kinds of request, for every method of every unonet service (looked up in the protos' descriptors,
so a new RPC is fuzzed without touching this file): random bytes; a valid request's bytes with some of
them flipped, cut or appended to; a request whose fields hold random values (extreme integers, enum
numbers the protocol does not define, non-ASCII and unprintable text, timestamps and durations outside
their documented range, oversized strings); and a "valid envelope" (the real table id, a real token,
a fresh command id) around random values, so the request gets past the lookups into the handler.

The requests are drawn from one `random.Random(FUZZ_SEED)` before any is sent, so a failure names the
seed and the request's index and reproduces (set UNONET_FUZZ_SEED to try others); the order in which
the host answers them is concurrent and is not part of what must reproduce. Server streams
(WatchEvents) wait by design: such a call passes if it sends an event, stays open, or ends with a
precise status within a second, and it is then cancelled.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import random
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import descriptor as pb_descriptor
from google.protobuf import message_factory

from unonet.host.host import Host
from unonet.host.server import create_server
from unonet.v1 import (
    chat_service_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    rules_pb2,
    table_pb2,
    time_service_pb2,
    watch_service_pb2,
)

FUZZ_SEED = int(os.environ.get("UNONET_FUZZ_SEED", "20261202"))
REQUESTS = 5_200
CONCURRENCY = 48
ANSWER_WITHIN_S = 5.0
STREAM_OPEN_S = 1.0
SERVICES = (lobby_service_pb2, play_service_pb2, chat_service_pb2, watch_service_pb2, time_service_pb2)
FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.DEADLINE_EXCEEDED}
Field = pb_descriptor.FieldDescriptor

TEXTS = ("", "a", "ann", "x" * 65, "²:x", "²", "\u00e9t\u00e9", "\x00", "\n", "\U0001f0cf", "  ", "-1", "1:",
         "99999999999999999999999:x", "9223372036854775808:abc", "0:", ":", "💥" * 40)
INTS32 = (0, 1, -1, 2, 7, 10, 11, 64, 2**31 - 1, -(2**31))
INTS64 = (*INTS32, 2**63 - 1, -(2**63), 10**18)


@dataclass(frozen=True)
class Method:
    path: str
    request: type[Any]
    streams: bool


@dataclass(frozen=True)
class Fuzzed:
    index: int
    kind: str
    method: Method
    data: bytes


def methods() -> list[Method]:
    found = []
    for module in SERVICES:
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                request = message_factory.GetMessageClass(method.input_type)
                found.append(Method(f"/{service.full_name}/{method.name}", request, method.server_streaming))
    return found


class Generator:
    """Random requests from one seeded Random, and the real names a valid envelope carries."""

    def __init__(self, rng: random.Random, table_id: str, tokens: list[str], owner_token: str) -> None:
        self.rng = rng
        self.table_id = table_id
        self.tokens = tokens
        self.owner_token = owner_token
        self.serial = 0

    def text(self) -> str:
        rng = self.rng
        if rng.random() < 0.5:
            return rng.choice(TEXTS)
        return "".join(chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x80, 0x3000), rng.randrange(0, 32))))
                       for _ in range(rng.randrange(0, 40)))

    def scalar(self, field: Any) -> Any:
        rng, kind = self.rng, field.type
        if kind == Field.TYPE_BOOL:
            return rng.random() < 0.5
        if kind in (Field.TYPE_INT32, Field.TYPE_SINT32, Field.TYPE_SFIXED32):
            return rng.choice(INTS32)
        if kind in (Field.TYPE_INT64, Field.TYPE_SINT64, Field.TYPE_SFIXED64):
            return rng.choice(INTS64)
        if kind in (Field.TYPE_UINT32, Field.TYPE_FIXED32):
            return rng.choice((0, 1, 2, 5, 64, 65, 1000, 2**32 - 1))
        if kind in (Field.TYPE_UINT64, Field.TYPE_FIXED64):
            return rng.choice((0, 1, 3, 10**6, 2**63, 2**64 - 1))
        if kind in (Field.TYPE_FLOAT, Field.TYPE_DOUBLE):
            return rng.choice((0.0, -1.0, 1e300, float("inf"), float("nan"), rng.uniform(-10, 10)))
        if kind == Field.TYPE_STRING:
            return self.text()
        if kind == Field.TYPE_BYTES:
            return rng.randbytes(rng.choice((0, 1, 31, 32, 33, 64, 200)))
        if kind == Field.TYPE_ENUM:
            return rng.randrange(-2, 12)
        raise AssertionError(f"no scalar of type {kind}")

    def fill(self, message: Any, depth: int, envelope: bool) -> None:
        rng = self.rng
        for field in message.DESCRIPTOR.fields:
            name = field.name
            if envelope and name in ("table_id", "token", "owner_token", "command_id"):
                setattr(message, name, self.envelope_value(name))
                continue
            if rng.random() < 0.45:
                continue
            if field.type == Field.TYPE_MESSAGE:
                target = field.message_type
                if depth > 3:
                    continue
                if target.GetOptions().map_entry:
                    key_field, value_field = target.fields_by_name["key"], target.fields_by_name["value"]
                    if value_field.type != Field.TYPE_MESSAGE:
                        getattr(message, name)[self.scalar(key_field)] = self.scalar(value_field)
                    continue
                items = [getattr(message, name).add() for _ in range(rng.randrange(0, 4))] if _repeated(field) \
                    else [getattr(message, name)]
                for item in items:
                    self.fill_message(item, target, depth + 1)
            elif _repeated(field):
                getattr(message, name).extend(self.scalar(field) for _ in range(rng.randrange(0, 5)))
            else:
                setattr(message, name, self.scalar(field))

    def fill_message(self, message: Any, target: Any, depth: int) -> None:
        if target.full_name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
            rng = self.rng
            message.seconds = rng.choice((0, 1, -1, 5, 10**6, 253402300800, -62135596801, 315576000001, 2**62))
            message.nanos = rng.choice((0, 1, -1, 999_999_999, 1_000_000_000, -(2**31), 2**31 - 1))
            return
        message.SetInParent()
        self.fill(message, depth, envelope=False)

    def envelope_value(self, name: str) -> str:
        rng = self.rng
        if name == "table_id":
            return self.table_id if rng.random() < 0.9 else self.text()
        if name == "owner_token":
            return self.owner_token if rng.random() < 0.8 else self.text()
        if name == "token":
            return rng.choice(self.tokens) if rng.random() < 0.85 else self.text()
        self.serial += 1
        return f"fuzz-{self.serial}" if rng.random() < 0.9 else self.text()

    def request(self, index: int, method: Method) -> Fuzzed:
        rng = self.rng
        roll = rng.random()
        if roll < 0.2:
            return Fuzzed(index, "random bytes", method, rng.randbytes(rng.randrange(0, 120)))
        message = method.request()
        envelope = roll >= 0.55
        self.fill(message, 0, envelope)
        data = message.SerializeToString()
        if 0.2 <= roll < 0.35 and data:
            mutated = bytearray(data)
            for _ in range(rng.randrange(1, 4)):
                choice = rng.random()
                if choice < 0.5:
                    mutated[rng.randrange(len(mutated))] ^= 1 << rng.randrange(8)
                elif choice < 0.75:
                    del mutated[rng.randrange(len(mutated)):]
                    if not mutated:
                        break
                else:
                    mutated += rng.randbytes(rng.randrange(1, 8))
            return Fuzzed(index, "damaged valid bytes", method, bytes(mutated))
        if rng.random() < 0.01:  # over the 64 KiB the handlers take: MESSAGE_TOO_LARGE, never UNKNOWN
            data += b"\xfa\x3f" + bytes([0x80, 0x80, 0x05]) + b"x" * 81920  # unknown field 1023, 80 KiB
        return Fuzzed(index, "valid envelope" if envelope else "random fields", method, data)


def _repeated(field: Any) -> bool:
    return bool(field.is_repeated) if hasattr(field, "is_repeated") else field.label == Field.LABEL_REPEATED


class Tracebacks(logging.Handler):
    """Every log record that carries a traceback or is at ERROR or above, from any logger."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.records.append(record)


async def send(channel: grpc.aio.Channel, fuzzed: Fuzzed) -> str:
    """The call's outcome: a status code's name, or 'streaming' for a stream still open by design."""
    method = fuzzed.method
    if not method.streams:
        call = channel.unary_unary(method.path)(fuzzed.data, timeout=ANSWER_WITHIN_S)
        try:
            await call
        except grpc.aio.AioRpcError as error:
            return error.code().name
        return "OK"
    stream = channel.unary_stream(method.path)(fuzzed.data, timeout=ANSWER_WITHIN_S + STREAM_OPEN_S)
    try:
        async with asyncio.timeout(STREAM_OPEN_S):
            first = await stream.read()
        return "OK" if first is not grpc.aio.EOF else (await stream.code()).name
    except grpc.aio.AioRpcError as error:
        return error.code().name
    except TimeoutError:
        return "streaming"
    finally:
        stream.cancel()


async def prepared_table(channel: grpc.aio.Channel) -> tuple[str, list[str], str]:
    """A started two-seat table with a spectator, on short reaction windows, so envelopes reach the rules."""
    lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
    created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name="fuzz", preset="standard", seat_count=3, overrides=rules_pb2.Ruleset(),
        clock=table_pb2.ClockSettings(reaction_time={"nanos": 200_000_000})), timeout=10)
    table_id = created.table.table_id
    tokens = []
    for name, role in (("ann", lobby_service_pb2.JOIN_ROLE_PLAYER), ("bob", lobby_service_pb2.JOIN_ROLE_PLAYER),
                       ("eve", lobby_service_pb2.JOIN_ROLE_SPECTATOR)):
        joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(table_id=table_id, name=name, role=role),
                                       timeout=10)
        tokens.append(joined.token)
    return table_id, tokens, created.owner_token


async def test_no_request_gets_unknown_internal_a_traceback_or_no_answer() -> None:
    tracebacks = Tracebacks()
    root = logging.getLogger()
    root.addHandler(tracebacks)
    server, port, host = await create_server("127.0.0.1:0", host=Host(write_timeout_s=2.0))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        table_id, tokens, owner = await prepared_table(channel)
        generator = Generator(random.Random(FUZZ_SEED), table_id, tokens, owner)
        every = methods()
        assert len(every) >= 26
        requests = [generator.request(i, every[i % len(every)]) for i in range(REQUESTS)]
        outcomes: collections.Counter[str] = collections.Counter()
        failures: list[str] = []
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(fuzzed: Fuzzed) -> None:
            async with gate:
                outcome = await send(channel, fuzzed)
            outcomes[outcome] += 1
            if outcome in {code.name for code in FORBIDDEN}:
                failures.append(f"#{fuzzed.index} {fuzzed.kind} {fuzzed.method.path}: {outcome} "
                                f"for {fuzzed.data[:80]!r}")

        async with asyncio.timeout(120):
            await asyncio.gather(*(one(fuzzed) for fuzzed in requests))
        print(f"\nwire fuzzer, seed {FUZZ_SEED}, {REQUESTS} requests: "
              + ", ".join(f"{name} {count}" for name, count in outcomes.most_common()))
        assert not failures, f"seed {FUZZ_SEED}: {len(failures)} bad answers, e.g.\n" + "\n".join(failures[:15])
        logged = [f"{record.name}: {record.getMessage()[:200]}" for record in tracebacks.records]
        assert not logged, f"seed {FUZZ_SEED}: the host logged {len(logged)} errors, e.g.\n" + "\n".join(logged[:10])
        assert sum(outcomes.values()) == REQUESTS
    finally:
        root.removeHandler(tracebacks)
        await channel.close()
        await host.stop()
        await server.stop(grace=None)
