"""No two exception classes of the code base share a name (docs/architecture.md, "Exceptions").

A name such as `NotYourTurn` meaning the engine's refusal in one module and the client's typed
status in another makes every `except NotYourTurn` a guess at which was imported.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

import unonet
import unonet.bots
import unonet.client
import unonet.v1

# The editable install maps each subpackage to its own source root, so each is walked on its own.
ROOTS = [(unonet.__path__, "unonet."), (unonet.client.__path__, "unonet.client."),
         (unonet.bots.__path__, "unonet.bots."), (unonet.v1.__path__, "unonet.v1.")]


def defined_exceptions() -> dict[str, list[str]]:
    """Every exception class defined in an `unonet` module (generated code and entry points aside), by name."""
    found: dict[str, list[str]] = defaultdict(list)
    names = {info.name for path, prefix in ROOTS for info in pkgutil.walk_packages(path, prefix)}
    for name in sorted(names):
        if name.endswith(("_pb2", "_pb2_grpc", "__main__")):
            continue
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[attribute].append(name)
    return found


def test_no_two_exception_classes_share_a_name() -> None:
    found = defined_exceptions()
    assert {"UnoError", "HostError", "FairnessError", "UnonetError", "NotYourTurn", "NotYourTurnError"} <= set(found)
    assert {name: modules for name, modules in found.items() if len(modules) > 1} == {}
