"""`REASONS` lists every refusal reason the engine raises, so scenario files can refuse a misspelt one.

The set is kept by hand; this test reads the engine's source and fails when a `reason="..."` or a
`default_reason` is added, renamed or dropped without `REASONS` following.
"""

from __future__ import annotations

import ast
from pathlib import Path

import unonet.engine
from unonet.engine import REASONS

ENGINE = Path(unonet.engine.__file__).parent


def reasons_in_source() -> set[str]:
    found: set[str] = set()
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "reason":
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    found.add(node.value.value)
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "default_reason" for target in node.targets
            ):
                assert isinstance(node.value, ast.Constant), f"{path.name}: default_reason must be a literal"
                found.add(str(node.value.value))
    return found


def test_reasons_lists_exactly_the_reasons_the_engine_raises() -> None:
    source = reasons_in_source()
    assert source - REASONS == set(), "raised by the engine but missing from REASONS"
    assert REASONS - source == set(), "in REASONS but raised nowhere"


def test_every_reason_is_upper_snake_case() -> None:
    assert all(reason.replace("_", "").isalpha() and reason.isupper() for reason in REASONS)
