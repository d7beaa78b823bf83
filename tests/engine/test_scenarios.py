"""Every scenario file under tests/scenarios is a test, named after the rule ID it proves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from unonet.scenarios import run_file, scenario_files

SCENARIOS = Path(__file__).parent.parent / "scenarios"
FILES = scenario_files([str(SCENARIOS)])

# Every rule ID of RULES.md; each needs at least one scenario file named after it.
RULE_IDS = (
    [f"C{i}" for i in range(1, 4)]
    + [f"S{i}" for i in range(1, 6)]
    + [f"T{i}" for i in range(1, 11)]
    + [f"U{i}" for i in range(1, 6)]
    + [f"B{i}" for i in range(1, 6)]
    + [f"P{i}" for i in range(1, 4)]
    + [f"H{i}" for i in range(1, 16)]
)


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_scenario(path: Path) -> None:
    result = run_file(path)
    assert result.passed, result.report()


@pytest.mark.parametrize("rule", RULE_IDS)
def test_every_rule_has_a_scenario(rule: str) -> None:
    named = [path for path in FILES if re.match(rf"{rule}_", path.stem)]
    assert named, f"no scenario file in tests/scenarios is named after rule {rule}"
