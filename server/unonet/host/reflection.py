"""Server reflection under both of its names: the current `grpc.reflection.v1` and the older `v1alpha`.

Tools ask for v1 first (grpcurl, buf curl, Postman) and older ones only know v1alpha. grpcio-reflection
(pinned at 1.85) implements only v1alpha, but v1 is the same protocol moved to a new package: every
message has the same fields with the same numbers and types, so the bytes on the wire are identical.
The same servicer therefore answers both names. So that v1 describes itself like any other service, its
file (`grpc/reflection/v1/reflection.proto`) is added to the descriptor pool, derived from the v1alpha
file by renaming the package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from unonet.host.undecodable import Registering

V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"
_V1ALPHA_PACKAGE = reflection_pb2.DESCRIPTOR.package


def v1_file_proto() -> descriptor_pb2.FileDescriptorProto:
    """The v1 reflection file: v1alpha's, with every name moved from its package to v1's."""
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name, proto.package = V1_FILE, V1_PACKAGE
    proto.ClearField("options")  # v1alpha's language options (its Java package) are not v1's
    old, new = f".{_V1ALPHA_PACKAGE}.", f".{V1_PACKAGE}."
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name.removeprefix(old)
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type.removeprefix(old)
            method.output_type = new + method.output_type.removeprefix(old)
    return proto


def _add_v1_file(pool: descriptor_pool.DescriptorPool) -> None:
    """Put the v1 file into `pool` once (a second server in the same process finds it there)."""
    try:
        pool.FindFileByName(V1_FILE)
    except KeyError:
        pool.Add(v1_file_proto())


def enable_server_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Offer reflection v1 and v1alpha on `server`, listing `service_names` and both reflection services.
    Both are registered through `undecodable.Registering`, as the host's own services are: a request
    whose bytes do not parse ends the stream with INVALID_ARGUMENT (MALFORMED_REQUEST), not UNKNOWN."""
    _add_v1_file(descriptor_pool.Default())
    names = [*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME]
    registering = Registering(server)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(  # type: ignore[no-untyped-call]
        reflection.aio.ReflectionServicer(names), registering)
    servicer = reflection.aio.ReflectionServicer(names)  # v1's: the same servicer class, on v1's path
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
        ),
    }
    registering.add_registered_method_handlers(V1_SERVICE_NAME, handlers)
