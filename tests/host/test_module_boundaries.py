"""The host's modules import one another one way only: no two import each other, and no cycle; and the
packages import one another as docs/architecture.md says (`unonet.wire` between engine and protobuf).

Every import counts, at the top of a module, inside a function or under TYPE_CHECKING: a module that
needs to import its importer is telling us the boundary is in the wrong place (STYLE.md, Boundaries).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import unonet.bots
import unonet.client
import unonet.engine
import unonet.host
import unonet.wire

HOST = Path(unonet.host.__file__).parent
PACKAGES = {
    "engine": Path(unonet.engine.__file__).parent,
    "wire": Path(unonet.wire.__file__).parent,
    "host": HOST,
    "client": Path(unonet.client.__file__).parent,
    "bots": Path(unonet.bots.__file__).parent,
}
# What each package may import of the others (docs/architecture.md): bots simulate with the engine and
# read their views back through the wire, but reach the host only through the client SDK. The host reads
# two modules of the bots: their registry of kinds, and PolicySeat, which feeds a policy what a seat
# receives (checked below).
MAY_IMPORT = {
    "engine": set(),
    "wire": {"engine"},
    "host": {"engine", "wire", "fairness", "bots"},
    "client": {"fairness"},
    "bots": {"engine", "wire", "client", "fairness"},
}


def imports_of(path: Path) -> set[str]:
    """The `unonet.host` modules that `path` imports, by their short name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "unonet.host":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("unonet.host."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[2] for alias in node.names if alias.name.startswith("unonet.host.")}
    return found - {path.stem}


def host_graph() -> dict[str, set[str]]:
    return {path.stem: imports_of(path) for path in sorted(HOST.glob("*.py")) if path.stem != "__init__"}


def test_the_graph_sees_the_imports_it_should() -> None:
    graph = host_graph()
    assert {"journal", "clocks", "eventlog", "fanout", "seats"} <= graph["table"]
    assert "convert" not in graph and "refs" not in graph  # both live in unonet.wire, beside the engine


def test_no_two_modules_of_the_host_import_each_other() -> None:
    graph = host_graph()
    pairs = sorted({tuple(sorted((a, b))) for a, deps in graph.items() for b in deps if a in graph.get(b, ())})
    assert pairs == []


def test_the_host_modules_have_no_import_cycle() -> None:
    graph = host_graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for dependency in sorted(graph.get(module, ())):
            visit(dependency, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())


def unonet_imports(path: Path) -> set[str]:
    """The top unonet packages (`engine`, `wire`, `host`, ...) that `path` imports, generated code aside."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "unonet" and len(parts) > 1 and parts[1] != "v1":
                found.add(parts[1])
    return found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_each_package_imports_only_what_the_architecture_allows(package: str) -> None:
    wrong = {
        f"{path.relative_to(PACKAGES[package])} imports unonet.{other}"
        for path in PACKAGES[package].rglob("*.py")
        if "_pb2" not in path.name
        for other in unonet_imports(path) - MAY_IMPORT[package] - {package}
    }
    assert sorted(wrong) == []


def test_the_package_graph_sees_the_imports_it_should() -> None:
    assert "engine" in unonet_imports(PACKAGES["wire"] / "cards.py")
    assert "wire" in unonet_imports(HOST / "table.py")


def test_the_host_reads_only_the_bots_registry_and_policy_seat() -> None:
    modules = set()
    for path in HOST.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("unonet.bots"):
                modules.add(node.module)
            elif isinstance(node, ast.Import):
                modules |= {alias.name for alias in node.names if alias.name.startswith("unonet.bots")}
    assert modules == {"unonet.bots.kinds", "unonet.bots.policy_seat"}
