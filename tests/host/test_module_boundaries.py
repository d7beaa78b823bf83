"""The host's modules import one another one way only: no two import each other, and no cycle.

Every import counts, at the top of a module, inside a function or under TYPE_CHECKING: a module that
needs to import its importer is telling us the boundary is in the wrong place (STYLE.md, Boundaries).
"""

from __future__ import annotations

import ast
from pathlib import Path

import unonet.host

HOST = Path(unonet.host.__file__).parent


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
    assert {"convert", "journal", "clocks", "eventlog", "fanout", "seats"} <= graph["table"]
    assert "refs" in graph["convert"] and "convert" in graph["shuffles"]


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
