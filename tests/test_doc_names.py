"""Every dotted `unonet.` name the docs give a reader names something that exists.

A docstring or a doc that sends a newcomer to a module that was renamed (the game screen's was
`tui.app` once, then `tui.screen`) costs them the search the name was meant to save. Read here: the
docstrings and comments of every Python file (the house, its tests, benches and examples), every
Markdown file, and the protos (what bot authors in other languages read). A name resolves when it is
a module of `unonet`, an attribute reached from one (a class, a function, a method), or a full name
of the protocol's descriptors (`unonet.v1.Event.events_lost`: a message, a field, a service, an enum).
"""

from __future__ import annotations

import ast
import importlib
import io
import pkgutil
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import descriptor_pool

import unonet.v1

ROOT = Path(__file__).resolve().parents[1]
PYTHON_FOLDERS = ("server", "client", "bots", "tests", "bench", "examples")
SKIPPED_FOLDERS = {".git", ".venv", ".venv-compiled", "node_modules", "build"}
# Not a path (`server/unonet/engine`), a file name part (`tool.unonet.compiled`) or a longer word.
DOTTED = re.compile(r"(?<![\w./-])unonet(?:\.[A-Za-z_]\w*)+")
# Dotted names the docs use on purpose for something that is not code, each with why.
NOT_CODE = {
    "unonet.db": "the database file name the README's `unonet serve --db` examples use",
    "unonet.db.sent": "the sent marks file beside that database (docs/protocol.md, 'Backing up and restoring')",
    "unonet.v2": "the package a breaking change of the protocol would need: named because it does not exist",
}


def texts_of_python(path: Path) -> Iterator[tuple[int, str]]:
    """Each docstring (module, class, function) and each comment of `path`, with its line."""
    source = path.read_text()
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield (node.body[0].lineno, docstring)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield (token.start[0], token.string)


def doc_files(root: Path) -> Iterator[Path]:
    """The Markdown files and the protos, wherever they are under `root` (installed things aside)."""
    for pattern in ("*.md", "*.proto"):
        for path in sorted(root.rglob(pattern)):
            if not SKIPPED_FOLDERS & set(path.relative_to(root).parts):
                yield path


def dotted_names(root: Path = ROOT) -> dict[str, list[str]]:
    """Every dotted `unonet.` name of a docstring, a comment or a doc, with where it is (`file:line`)."""
    found: dict[str, list[str]] = {}
    texts: list[tuple[Path, int, str]] = []
    for folder in PYTHON_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            if "_pb2" not in path.name and not SKIPPED_FOLDERS & set(path.relative_to(root).parts):
                texts += [(path, line, text) for line, text in texts_of_python(path)]
    for path in doc_files(root):
        texts += [(path, line, text) for line, text in enumerate(path.read_text().splitlines(), start=1)]
    for path, line, text in texts:
        for offset, text_line in enumerate(text.splitlines()):
            for name in DOTTED.findall(text_line):
                found.setdefault(name, []).append(f"{path.relative_to(root)}:{line + offset}")
    return found


def protocol_pool() -> descriptor_pool.DescriptorPool:
    """The default descriptor pool with every generated module of `unonet.v1` loaded into it."""
    for module in pkgutil.iter_modules(unonet.v1.__path__):
        if module.name.endswith("_pb2"):
            importlib.import_module(f"unonet.v1.{module.name}")
    return descriptor_pool.Default()


def is_protocol_name(name: str, pool: descriptor_pool.DescriptorPool) -> bool:
    finders = (pool.FindMessageTypeByName, pool.FindFieldByName, pool.FindServiceByName, pool.FindMethodByName,
               pool.FindEnumTypeByName, pool.FindOneofByName, pool.FindExtensionByName)
    for find in finders:
        try:
            find(name)
            return True
        except KeyError:
            continue
    return False


def is_python_name(name: str) -> bool:
    """`name` is a module, or an attribute chain from the longest prefix of it that imports."""
    parts = name.split(".")
    for length in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:length]))
        except ImportError:
            continue
        try:
            for attribute in parts[length:]:
                found = getattr(found, attribute)
        except AttributeError:
            return False
        return True
    return False


def resolves(name: str, pool: descriptor_pool.DescriptorPool) -> bool:
    return is_python_name(name) or is_protocol_name(name, pool)


@pytest.fixture(scope="module")
def names() -> dict[str, list[str]]:
    return dotted_names()


SAMPLE_MODULE = '''"""Module: `unonet.a`, not server/unonet/path nor tool.unonet.key."""


class C:
    """Class: unonet.b.B."""

    def f(self) -> None:
        """Method: unonet.c."""
        text = "a string, not a doc: unonet.not_read"  # a comment: unonet.d


async def g() -> None:
    """Coroutine: unonet.e."""
'''


def test_the_names_are_read_from_docstrings_comments_docs_and_protos(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "m.py").write_text(SAMPLE_MODULE)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("# Doc\n\nThe `unonet.f.G` class, and a sentence's end: unonet.h.\n")
    (tmp_path / "x.proto").write_text("// A comment: unonet.v1.Event.\npackage unonet.v1;\n")
    assert dotted_names(tmp_path) == {
        "unonet.a": ["server/m.py:1"], "unonet.b.B": ["server/m.py:5"], "unonet.c": ["server/m.py:8"],
        "unonet.d": ["server/m.py:9"], "unonet.e": ["server/m.py:13"], "unonet.f.G": ["docs/x.md:3"],
        "unonet.h": ["docs/x.md:3"], "unonet.v1.Event": ["x.proto:1"], "unonet.v1": ["x.proto:2"],
    }


def test_the_checkout_names_many_things_in_every_kind_of_place(names: dict[str, list[str]]) -> None:
    files = {place.split(":")[0] for places in names.values() for place in places}
    for where in ("server/", "client/", "bots/", "tests/", "docs/", "README.md", "protos/"):
        assert any(name.startswith(where) for name in files), where
    assert len(names) > 100


def test_the_resolver_tells_names_that_exist_from_names_that_do_not() -> None:
    pool = protocol_pool()
    exist = ["unonet.engine", "unonet.engine.Match", "unonet.client.verify.Verifier", "unonet.bots.policy.Bot",
             "unonet.engine.search.determinize", "unonet.v1.Event.events_lost", "unonet.v1.PlayService"]
    missing = ["unonet.client.tui.app", "unonet.engine.NoSuchRule", "unonet.v1.Event.no_such_field",
               "unonet.engine.Match.no_such_method", "unonet.nothing"]
    assert [name for name in exist if not resolves(name, pool)] == []
    assert [name for name in missing if resolves(name, pool)] == []


def test_every_dotted_unonet_name_in_a_docstring_comment_or_doc_exists(names: dict[str, list[str]]) -> None:
    pool = protocol_pool()
    wrong = {name: places for name, places in sorted(names.items())
             if name not in NOT_CODE and not resolves(name, pool)}
    assert wrong == {}, "these names do not exist (renamed or removed?): fix the docs that give them"


def test_the_names_that_are_not_code_are_still_used_and_still_not_code(names: dict[str, list[str]]) -> None:
    pool = protocol_pool()
    assert [name for name in NOT_CODE if name not in names] == [], "no doc uses it any more: drop it from NOT_CODE"
    assert [name for name in NOT_CODE if resolves(name, pool)] == []
