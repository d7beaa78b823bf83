"""Which documented fields a host actually fills: walked from the generated descriptors, never listed.

`FieldCoverage.observe(message)` records every field of `message`, recursively, that is set to something
other than its default: a repeated field with an element, a message field present, an `optional` scalar
present, a plain scalar different from zero, false or empty. `universe()` is every field of every
`unonet.v1` message a host sends (the Event and each RPC's response, recursing into the messages they
hold), so a field added to a proto joins the check without anyone listing it.

`proto_comments()` reads the leading comment of every field from the `.proto` files that ship inside
the `unonet.v1` package, so an exemption (a field that may legitimately stay at its default) can be
checked against what its comment says about when it is zero.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from unonet.v1 import (
    chat_service_pb2,
    errors_pb2,
    events_pb2,
    lobby_service_pb2,
    play_service_pb2,
    time_service_pb2,
    watch_service_pb2,
)

__all__ = ["FieldCoverage", "proto_comments", "sent_roots", "set_fields", "universe"]

PACKAGE = "unonet.v1"
_SERVICE_FILES = (chat_service_pb2, lobby_service_pb2, play_service_pb2, time_service_pb2, watch_service_pb2)


def sent_roots() -> list[Descriptor]:
    """The messages a host sends: every RPC's response (the event stream's included), the Event they
    carry, and the ErrorDetail of every refusal."""
    roots = [events_pb2.Event.DESCRIPTOR, errors_pb2.ErrorDetail.DESCRIPTOR]
    for module in _SERVICE_FILES:
        for service in module.DESCRIPTOR.services_by_name.values():
            roots += [method.output_type for method in service.methods]
    return roots


@functools.cache  # asked for every field of every message a run receives: the answer is the type's
def _ours(descriptor: Any) -> bool:
    """`descriptor` is a message Descriptor (of either implementation) of this package, or None."""
    return descriptor is not None and descriptor.full_name.startswith(PACKAGE + ".") and not (
        descriptor.GetOptions().map_entry)


def universe(roots: Iterable[Descriptor] | None = None) -> set[str]:
    """The full name of every field reachable from `roots` (default: `sent_roots()`)."""
    names: set[str] = set()
    seen: set[str] = set()
    stack = list(sent_roots() if roots is None else roots)
    while stack:
        descriptor = stack.pop()
        if descriptor.full_name in seen:
            continue
        seen.add(descriptor.full_name)
        for field in descriptor.fields:
            names.add(field.full_name)
            nested = field.message_type
            if nested is not None and _ours(nested):
                stack.append(nested)
    return names


def set_fields(message: Message) -> Iterator[str]:
    """The full names of the fields set to a non-default value in `message` and the messages it holds.

    protobuf's `ListFields` lists exactly those (a repeated field with an element, a message field
    present, a field with presence that has it, a plain scalar other than zero, false or empty), in C: a
    conformance run receives millions of fields, and reading each by name in Python was most of its CPU.
    """
    for field, value in message.ListFields():
        yield field.full_name
        if _ours(field.message_type):
            if field.is_repeated:
                for item in value:
                    yield from set_fields(item)
            else:
                yield from set_fields(value)


class FieldCoverage:
    """Everything observed in a run: the fields set, and the reasons of the refusals met."""

    def __init__(self) -> None:
        self.fields: set[str] = set()
        self.reasons: set[str] = set()

    def observe(self, message: Message) -> None:
        """Record every field `message` (and what it holds) sets to a non-default value."""
        self.fields.update(set_fields(message))


_MESSAGE = re.compile(r"^message (\w+) \{")
_BLOCK = re.compile(r"^(?:oneof|enum|service) \w+ \{")
_FIELD = re.compile(r"^(?:optional |repeated )?(?:map<[\w.]+, *[\w.]+>|[\w.]+) (\w+) = \d+;")


def proto_comments(directory: Traversable | None = None) -> dict[str, str]:
    """Each field's leading comment, by full name (`unonet.v1.CardsPlayed.hand_size`), one line of text,
    from the `.proto` files in `directory` (default: the ones installed with `unonet.v1`)."""
    comments: dict[str, str] = {}
    protos = resources.files(PACKAGE) if directory is None else directory
    for path in sorted((item for item in protos.iterdir() if item.name.endswith(".proto")), key=lambda p: p.name):
        stack: list[str | None] = []  # message names, None for a oneof or enum block
        lines: list[str] = []
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if line.startswith("//"):
                lines.append(line[2:].strip())
                continue
            if line.endswith("{}"):
                pass  # an empty message on one line
            elif match := _MESSAGE.match(line):
                stack.append(match.group(1))
            elif _BLOCK.match(line):
                stack.append(None)
            elif line == "}":
                if stack:
                    stack.pop()
            elif (match := _FIELD.match(line)) and any(stack):
                owner = next(name for name in reversed(stack) if name is not None)
                comments[f"{PACKAGE}.{owner}.{match.group(1)}"] = " ".join(lines)
            lines = []
    return comments
