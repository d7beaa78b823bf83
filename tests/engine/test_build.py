"""Which engine build the tests run on, and that compiled modules never sit beside the sources.

The pure-Python engine in `server/` is the reference, and what the editable install runs. The compiled
build (`make compiled`: mypyc, `[tool.unonet.compiled]` in pyproject.toml: the engine, the learning
environments' and the host's hot path) is a wheel in its own environment; `make compiled-test` runs
tests/engine, tests/scenarios, tests/rl, tests/host and tests/wire there with `UNONET_BUILD=compiled`,
so a wheel that silently fell back to Python (or an editable install that picked up a stray `.so`) fails
here instead of passing for the wrong build.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = ("server", "client", "bots", "protos")
_LISTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["unonet"]["compiled"]
COMPILED = _LISTS["modules"]
COMPILED_RL = _LISTS["rl_modules"]  # unonet.rl's hot path, compiled with the engine
COMPILED_HOST = _LISTS["host_modules"]  # the host's per-command path, compiled with the engine
COMPILED_WIRE = _LISTS["wire_modules"]  # and the conversions to and from the wire it calls
BUILD = os.environ.get("UNONET_BUILD", "pure")


def _is_extension(module_name: str) -> bool:
    spec = importlib.import_module(module_name).__spec__
    assert spec is not None and spec.origin is not None
    return spec.origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def test_no_compiled_module_sits_beside_the_sources() -> None:
    strays = [
        str(path.relative_to(ROOT))
        for root in SOURCE_ROOTS
        for suffix in ("*.so", "*.pyd")
        for path in (ROOT / root).rglob(suffix)
    ]
    assert strays == [], "the editable install would import these instead of the code beside them"


def test_the_compiled_list_names_engine_modules() -> None:
    engine = ROOT / "server" / "unonet" / "engine"
    assert COMPILED and all((engine / f"{name}.py").is_file() for name in COMPILED)
    assert {"cards", "game", "legal", "search"} <= set(COMPILED)  # the hot path


def test_the_compiled_rl_list_names_learning_modules() -> None:
    rl = ROOT / "server" / "unonet" / "rl"
    assert COMPILED_RL and all((rl / f"{name}.py").is_file() for name in COMPILED_RL)
    assert {"observation", "table"} <= set(COMPILED_RL)  # bench/rl.py's hot path


def test_the_compiled_host_lists_name_host_and_wire_modules() -> None:
    server = ROOT / "server" / "unonet"
    assert all((server / "host" / f"{name}.py").is_file() for name in COMPILED_HOST)
    assert all((server / "wire" / f"{name}.py").is_file() for name in COMPILED_WIRE)
    assert {"table", "eventlog"} <= set(COMPILED_HOST) and {"events", "legal"} <= set(COMPILED_WIRE)  # the hot path


@pytest.mark.parametrize(
    "module", [f"unonet.engine.{name}" for name in COMPILED] + [f"unonet.rl.{name}" for name in COMPILED_RL]
    + [f"unonet.host.{name}" for name in COMPILED_HOST] + [f"unonet.wire.{name}" for name in COMPILED_WIRE]
)
def test_each_listed_module_is_of_the_build_under_test(module: str) -> None:
    assert BUILD in ("pure", "compiled"), f"UNONET_BUILD is pure or compiled, not {BUILD!r}"
    assert _is_extension(module) is (BUILD == "compiled")


def test_the_pure_build_is_the_source_tree() -> None:
    if BUILD != "pure":
        pytest.skip("the compiled build is installed from its wheel")
    import unonet.engine

    assert Path(unonet.engine.__file__).resolve().parent == ROOT / "server" / "unonet" / "engine"
