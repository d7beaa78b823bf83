"""docs/rl.md names every observation field, in order, and the action space's size."""

from __future__ import annotations

import re
from pathlib import Path

from unonet.rl.actions import ACTION_COUNT
from unonet.rl.observation import ObservationLayout

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_the_observation_table_lists_every_field_in_order():
    section = DOC.read_text().split("## The observation", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    assert documented == [field.name for field in ObservationLayout(4).fields]


def test_the_action_space_size_is_the_documented_one():
    text = DOC.read_text()
    assert f"Discrete({ACTION_COUNT})" in text
    assert f"-{ACTION_COUNT - 1} |" in text  # the table's last row ends at the last index
