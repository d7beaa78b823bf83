"""Unparsable request bytes sent to the services the host serves from grpcio's own packages (health
checking, server reflection v1 and v1alpha) are refused as the game services refuse them:
INVALID_ARGUMENT with the reason MALFORMED_REQUEST, and no traceback in the host's log (gRPC's own
answer would be UNKNOWN, with a traceback per request). Requests that parse are answered as before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from host_stubs import reason_of

from unonet.host.host import Host
from unonet.host.server import create_server

TIMEOUT = 10.0
GARBAGE = b"\xff\xff\xff\xff\x0f"  # a field number no parser takes
HEALTH = "/grpc.health.v1.Health"
REFLECTIONS = ["/grpc.reflection.v1.ServerReflection", "/grpc.reflection.v1alpha.ServerReflection"]


@pytest.fixture
async def channel(caplog: pytest.LogCaptureFixture) -> AsyncIterator[grpc.aio.Channel]:
    caplog.set_level(logging.DEBUG)
    server, port, host = await create_server("127.0.0.1:0", host=Host())
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as opened:
        yield opened
    await host.stop()
    await server.stop(grace=None)
    errors = [record for record in caplog.records if record.exc_info or record.levelno >= logging.ERROR]
    assert not errors, [f"{record.name}: {record.getMessage()}" for record in errors]


def _raw(kind: str, channel: grpc.aio.Channel, path: str) -> object:
    """A call of `kind` on `path` that sends and receives bytes as they are."""
    return getattr(channel, kind)(path, request_serializer=None, response_deserializer=None)


def _refused_as_malformed(error: grpc.aio.AioRpcError) -> None:
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
    assert reason_of(error) == "MALFORMED_REQUEST"


async def test_health_check_refuses_unparsable_bytes_as_malformed(channel: grpc.aio.Channel) -> None:
    check = _raw("unary_unary", channel, f"{HEALTH}/Check")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await check(GARBAGE, timeout=TIMEOUT)  # type: ignore[operator]
    _refused_as_malformed(refused.value)
    answer = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING


async def test_health_watch_refuses_unparsable_bytes_as_malformed(channel: grpc.aio.Channel) -> None:
    watch = _raw("unary_stream", channel, f"{HEALTH}/Watch")
    call = watch(GARBAGE, timeout=TIMEOUT)  # type: ignore[operator]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        async with asyncio.timeout(TIMEOUT):
            async for _ in call:
                pass
    _refused_as_malformed(refused.value)
    watched = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
    first = await asyncio.wait_for(watched.read(), TIMEOUT)
    assert first.status == health_pb2.HealthCheckResponse.SERVING
    watched.cancel()


@pytest.mark.parametrize("service", REFLECTIONS)
async def test_reflection_refuses_unparsable_bytes_as_malformed(channel: grpc.aio.Channel, service: str) -> None:
    info = _raw("stream_stream", channel, f"{service}/ServerReflectionInfo")
    listing = reflection_pb2.ServerReflectionRequest(list_services="").SerializeToString()
    call = info(timeout=TIMEOUT)  # type: ignore[operator]
    await call.write(listing)  # a request that parses is answered, on the same stream
    answer = reflection_pb2.ServerReflectionResponse.FromString(await asyncio.wait_for(call.read(), TIMEOUT))
    assert "unonet.v1.PlayService" in [s.name for s in answer.list_services_response.service]
    await call.write(GARBAGE)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await asyncio.wait_for(call.read(), TIMEOUT)
    _refused_as_malformed(refused.value)
