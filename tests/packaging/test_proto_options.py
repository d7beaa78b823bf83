"""Every protocol file says where its generated code goes in Go, Java and C#, alike, as docs/protocol.md
says, so a newcomer generates code with no per-file flags; and the published image holds the same
options, so `buf breaking` fails if one ever changes."""

from __future__ import annotations

from pathlib import Path

from google.protobuf import descriptor_pb2

from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    chat_service_pb2,
    errors_pb2,
    events_pb2,
    lobby_service_pb2,
    play_service_pb2,
    rules_pb2,
    table_pb2,
    time_service_pb2,
    views_pb2,
    watch_service_pb2,
)

ROOT = Path(__file__).resolve().parents[2]
FILES = (actions_pb2, cards_pb2, chat_service_pb2, errors_pb2, events_pb2, lobby_service_pb2, play_service_pb2,
         rules_pb2, table_pb2, time_service_pb2, views_pb2, watch_service_pb2)
OPTIONS = {"go_package": "unonet/v1;unonetv1", "java_package": "unonet.v1", "csharp_namespace": "Unonet.V1"}


def _options(proto: descriptor_pb2.FileDescriptorProto) -> dict[str, str]:
    return {name: getattr(proto.options, name) for name in OPTIONS}


def test_every_file_names_its_generated_code_s_place_alike() -> None:
    assert len(FILES) == len(list((ROOT / "protos" / "unonet" / "v1").glob("*.proto")))
    for module in FILES:
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        assert _options(proto) == OPTIONS, proto.name


def test_the_documentation_and_the_published_image_say_the_same() -> None:
    documented = (ROOT / "docs" / "protocol.md").read_text()
    for name, value in OPTIONS.items():
        assert f'`{name} = "{value}"`' in documented
    image = descriptor_pb2.FileDescriptorSet.FromString((ROOT / "buf" / "unonet-v1.binpb").read_bytes())
    published = [proto for proto in image.file if proto.package == "unonet.v1"]
    assert len(published) == len(FILES)
    assert all(_options(proto) == OPTIONS for proto in published)
