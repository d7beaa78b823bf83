"""No module of the house imports, however indirectly, a module that imports it back (STYLE.md, Boundaries).

The whole `unonet` package (server/, client/, bots/; the generated `unonet.v1` aside), every import
counted: at the top, inside a function and under `TYPE_CHECKING` (tests/support/import_graph.py says
why). tests/host/test_module_boundaries.py checks, besides, which packages may import which.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import circles, house_modules, import_graph, one_cycle


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The house's import graph, read once for the module (each read parses every module)."""
    return import_graph()


def test_the_graph_holds_every_module_of_the_house() -> None:
    modules = house_modules()
    assert {"unonet.cli", "unonet.engine", "unonet.engine.game", "unonet.host.table", "unonet.client.tui.lobby",
            "unonet.bots.runner", "unonet.fairness.errors", "unonet.league.cli", "unonet.wire.convert"} <= set(modules)
    assert not any(name.startswith("unonet.v1") for name in modules)
    assert all(path.suffix == ".py" and path.is_file() for path in modules.values())


def test_the_graph_sees_every_kind_of_import(graph: dict[str, set[str]]) -> None:
    assert "unonet.engine.game" in graph["unonet.engine.match"]  # from a.b import Name, at the top
    assert "unonet.client.commands" in graph["unonet.client.tui.controller"]  # from a import module as m
    assert "unonet.client.tui.command" in graph["unonet.cli"]  # inside a function
    assert "unonet.lan" in graph["unonet.cli"]  # under TYPE_CHECKING
    assert "unonet.engine" in graph["unonet.host.racebook"]  # a name from a package's __init__


def test_the_house_has_no_import_circle(graph: dict[str, set[str]]) -> None:
    found = [f"{', '.join(circle)}: {' -> '.join(one_cycle(graph, circle))}" for circle in circles(graph)]
    assert found == [], "import circles (move the boundary: the right owner, not a late import):\n" + "\n".join(found)


def test_a_circle_is_found_however_it_is_imported(tmp_path: Path) -> None:
    # The check itself can fail: a two-module circle through a late import, and a three-module one
    # through TYPE_CHECKING and a relative import, in a package laid out like the house.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n")
    (package / "b.py").write_text("def late():\n    from pkg import a\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.d import D\n")
    (package / "d.py").write_text("from .e import E\n")
    (package / "e.py").write_text("import pkg.c\n")
    (package / "f.py").write_text("import pkg.a\nfrom pkg import e\n")
    modules = {f"pkg.{path.stem}" if path.stem != "__init__" else "pkg": path for path in package.glob("*.py")}
    graph = import_graph(modules)
    assert circles(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d", "pkg.e"]]
    assert one_cycle(graph, ["pkg.c", "pkg.d", "pkg.e"]) == ["pkg.c", "pkg.d", "pkg.e", "pkg.c"]
