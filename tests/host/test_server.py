"""The server around the services: health checking, reflection (what `buf curl` uses) and TLS."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from unonet.host.server import create_server
from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc

TIMEOUT = 10
SERVICES = {
    f"unonet.v1.{name}" for name in ("LobbyService", "PlayService", "ChatService", "WatchService", "TimeService")
}


async def test_health_reports_every_service_serving(stubs) -> None:
    health = health_pb2_grpc.HealthStub(stubs.channel)
    for service in ["", *SERVICES]:
        reply = await health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_reflection_lists_and_describes_the_services(stubs) -> None:
    def ask() -> tuple[set[str], list[str]]:
        # The reflection client is synchronous: it runs in a thread while the server's loop serves it.
        with grpc.insecure_channel(stubs.address) as channel:
            database = ProtoReflectionDescriptorDatabase(channel)
            described = database.FindFileContainingSymbol("unonet.v1.PlayService")
            return set(database.get_services()), [service.name for service in described.service]

    services, described = await asyncio.wait_for(asyncio.to_thread(ask), TIMEOUT)
    assert services >= SERVICES
    assert "PlayService" in described


async def test_reflection_v1_lists_and_describes_the_services(stubs) -> None:
    """The current reflection protocol, `grpc.reflection.v1`, as a v1 client speaks it: its own message
    types (from the descriptor pool, where the server put the v1 file) on its own method path."""
    pool = descriptor_pool.Default()
    request_type = message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "grpc.reflection.v1.ServerReflectionRequest"))
    response_type = message_factory.GetMessageClass(pool.FindMessageTypeByName(
        "grpc.reflection.v1.ServerReflectionResponse"))
    info = stubs.channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=request_type.SerializeToString, response_deserializer=response_type.FromString)
    call = info(iter([
        request_type(list_services=""),
        request_type(file_containing_symbol="unonet.v1.PlayService"),
        request_type(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
    ]), timeout=TIMEOUT)
    listed, play_file, reflection_file = [response async for response in call]

    services = {service.name for service in listed.list_services_response.service}
    assert services >= SERVICES | {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
                                   "grpc.health.v1.Health"}
    files = {descriptor_pb2.FileDescriptorProto.FromString(raw).name: descriptor_pb2.FileDescriptorProto.FromString(raw)
             for raw in play_file.file_descriptor_response.file_descriptor_proto}
    assert "PlayService" in [service.name for service in files["unonet/v1/play_service.proto"].service]
    (raw_v1,) = reflection_file.file_descriptor_response.file_descriptor_proto
    v1 = descriptor_pb2.FileDescriptorProto.FromString(raw_v1)
    assert (v1.name, v1.package) == ("grpc/reflection/v1/reflection.proto", "grpc.reflection.v1")
    method = v1.service[0].method[0]
    assert (method.name, method.input_type) == ("ServerReflectionInfo", ".grpc.reflection.v1.ServerReflectionRequest")


BUF = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "buf"


@pytest.mark.skipif(shutil.which("node") is None, reason="buf comes from npm (`make pytest` runs npm ci)")
async def test_buf_curl_lists_the_methods_through_reflection_v1(stubs) -> None:
    """A third-party client that speaks only v1 (buf curl told to) finds every service."""
    process = await asyncio.create_subprocess_exec(
        str(BUF), "curl", "--protocol", "grpc", "--http2-prior-knowledge", "--reflect-protocol", "grpc-v1",
        "--list-methods", f"http://{stubs.address}", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await asyncio.wait_for(process.wait(), TIMEOUT)
    assert process.returncode == 0, err.decode()
    methods = set(out.decode().split())
    assert {"unonet.v1.PlayService/PlayCards", "unonet.v1.LobbyService/JoinTable",
            "grpc.reflection.v1.ServerReflection/ServerReflectionInfo"} <= methods


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a test certificate")
async def test_tls_serves_when_given_a_certificate(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )
    server, port, host = await create_server("127.0.0.1:0", tls=(cert.read_bytes(), key.read_bytes()))
    await server.start()
    try:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        async with grpc.aio.secure_channel(f"127.0.0.1:{port}", credentials) as channel:
            lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
            created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(seat_count=2), timeout=TIMEOUT)
            assert created.table.table_id
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as plain:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await lobby_service_pb2_grpc.LobbyServiceStub(plain).ListTables(
                    lobby_service_pb2.ListTablesRequest(), timeout=2)
            assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    finally:
        await host.stop()
        await server.stop(grace=None)
