"""Every RPC the protocol defines is registered through the generated code and implemented by the host."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, NamedTuple

import pytest

import unonet.v1
from unonet.host.host import Host
from unonet.host.service import (
    ChatService,
    LobbyService,
    PlayService,
    TimeService,
    WatchService,
    add_services,
)
from unonet.v1 import (
    chat_service_pb2,
    chat_service_pb2_grpc,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    time_service_pb2,
    time_service_pb2_grpc,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

SERVICES = [
    (lobby_service_pb2, "LobbyService", LobbyService, lobby_service_pb2_grpc.LobbyServiceServicer),
    (play_service_pb2, "PlayService", PlayService, play_service_pb2_grpc.PlayServiceServicer),
    (chat_service_pb2, "ChatService", ChatService, chat_service_pb2_grpc.ChatServiceServicer),
    (watch_service_pb2, "WatchService", WatchService, watch_service_pb2_grpc.WatchServiceServicer),
    (time_service_pb2, "TimeService", TimeService, time_service_pb2_grpc.TimeServiceServicer),
]


class CallDetails(NamedTuple):
    """A call as the server hands it to generic handlers (grpc.HandlerCallDetails)."""

    method: str
    invocation_metadata: tuple[Any, ...]


class RecordingServer:
    """What a grpc.aio server is told to serve: its generic handlers, and the methods each serves."""

    def __init__(self) -> None:
        self.generic: list[Any] = []
        self.registered_methods: list[str] = []  # methods registered one by one (none: see `Registering`)

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        self.generic.extend(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.registered_methods += [f"/{service}/{name}" for name in handlers]

    def handler(self, service: str, method: str) -> Any:
        """The handler the server finds for a call of `/service/method`, as grpc.aio looks it up: the
        first generic handler that serves the call's full method name."""
        details = CallDetails(f"/{service}/{method}", ())
        return next((found for generic in self.generic if (found := generic.service(details)) is not None), None)


@pytest.fixture
def served() -> tuple[RecordingServer, list[str]]:
    server = RecordingServer()
    return server, add_services(server, Host())  # type: ignore[arg-type]


@pytest.mark.parametrize(("module", "name", "servicer", "base"), SERVICES, ids=[s[1] for s in SERVICES])
def test_every_method_of_the_service_is_registered_and_implemented(served, module, name, servicer, base) -> None:
    server, names = served
    service = module.DESCRIPTOR.services_by_name[name]
    assert service.full_name in names
    methods = {method.name for method in service.methods}
    assert all(server.handler(service.full_name, method) is not None for method in methods)
    assert server.handler(service.full_name, "NoSuchMethod") is None
    # Not the generated base's UNIMPLEMENTED stub: the host answers every RPC the protocol defines.
    assert [m for m in sorted(methods) if getattr(servicer, m) is getattr(base, m)] == []


def protocol_services() -> set[str]:
    """Every service any module of the protocol (`unonet.v1`) defines."""
    names = set()
    for info in pkgutil.iter_modules(unonet.v1.__path__):
        if info.name.endswith("_pb2"):
            module = importlib.import_module(f"unonet.v1.{info.name}")
            names |= {service.full_name for service in module.DESCRIPTOR.services_by_name.values()}
    return names


def test_every_service_of_the_protocol_is_served(served) -> None:
    server, names = served
    assert set(names) == protocol_services()
    assert protocol_services() == {module.DESCRIPTOR.services_by_name[name].full_name
                                   for module, name, _, _ in SERVICES}  # each checked method by method above
    assert len(server.generic) == len(names)  # one generic handler per service
    # No method registered one by one: grpc.aio would wait on a pending request per method for every call.
    assert server.registered_methods == []


def test_watch_events_sends_the_bytes_it_serialized_and_get_view_its_message(served) -> None:
    server, _ = served
    watch_events, get_view = (server.handler("unonet.v1.WatchService", name) for name in ("WatchEvents", "GetView"))
    assert watch_events.response_serializer is None  # gRPC writes the stream's bytes as they are
    view = watch_service_pb2.GetViewResponse()
    assert get_view.response_serializer(view) == view.SerializeToString()
