"""The import graph of the house: every module of `unonet` (the generated `unonet.v1` aside) and what it imports.

Read from the sources with `ast`, never by importing them, so a circle that Python would only trip over
in one import order is seen in every order. Every import counts: at the top of a module, inside a
function (a late import hides a circle from Python, not from a reader) and under `TYPE_CHECKING` (the
annotation still says the module needs the other). Importing a submodule also runs its package's
`__init__`; that is not an edge here, or every package that re-exports its modules would be a circle,
but a module that imports a name from its own package's `__init__` is one (it imports its importer).

The modules are found by folder, from pyproject's `[tool.setuptools.package-dir]`, so a module or a
subpackage added under `server/`, `client/` or `bots/` is in the graph without anyone listing it.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS = ("server", "client", "bots")
GENERATED = "unonet.v1"


def package_folders(root: Path = ROOT) -> dict[Path, str]:
    """Each source folder pyproject maps to a package, by folder (the generated package aside)."""
    mapping = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {(root / folder).resolve(): package for package, folder in mapping.items() if package != GENERATED}


def module_name(path: Path, folders: Mapping[Path, str]) -> str | None:
    """The dotted name of the module at `path`, from the nearest folder that maps to a package."""
    for folder in [path.parent, *path.parent.parents]:
        if folder in folders:
            parts = [folders[folder], *path.parent.relative_to(folder).parts]
            if path.stem != "__init__":
                parts.append(path.stem)
            return ".".join(parts)
    return None


def house_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module under server/, client/ and bots/, by dotted name."""
    folders = package_folders(root)
    found: dict[str, Path] = {}
    for source in SOURCE_FOLDERS:
        for path in sorted((root / source).rglob("*.py")):
            name = module_name(path.resolve(), folders)
            if name is not None and not name.startswith(GENERATED):
                found[name] = path
    return found


def imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    """Every dotted name an import anywhere in `tree` reaches (`from a import b` gives `a.b`; relative
    imports are made absolute from `module`)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield from (f"{base}.{alias.name}" for alias in node.names)


def resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """The module of the house that `name` (a module, or a name in one) lives in, if any."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(modules: Mapping[str, Path] | None = None) -> dict[str, set[str]]:
    """Each module of the house and the modules of the house it imports."""
    modules = house_modules() if modules is None else modules
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        targets = {resolve(imported, modules) for imported in imported_names(tree, name, path.stem == "__init__")}
        graph[name] = {target for target in targets if target is not None and target != name}
    return graph


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import circles of `graph`: its strongly connected components of more than one module (Tarjan's
    algorithm, iterative), each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def one_cycle(graph: Mapping[str, Iterable[str]], members: Iterable[str]) -> list[str]:
    """A path that goes round inside the circle `members`, from its first member back to it: what to read
    to see why they form one."""
    inside = set(members)
    start = min(inside)
    path = [start]
    seen = {start}
    while True:
        following = sorted(set(graph[path[-1]]) & inside)
        step = start if start in following else next((m for m in following if m not in seen), following[0])
        path.append(step)
        if step in seen:
            return path[path.index(step):]
        seen.add(step)
