"""No tracked file holds a merge's conflict markers: a merge committed half-resolved once left two
versions of a row in docs/architecture.md, which lint and mypy never read."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_tracked_file_holds_conflict_markers() -> None:
    found = subprocess.run(
        ["git", "grep", "-n", "-I", "-E", r"^(<<<<<<< |>>>>>>> |=======$)", "--", ".", ":!*.lock"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert found.returncode in (0, 1), found.stderr  # 1: nothing found
    assert found.stdout == "", f"conflict markers left by a merge:\n{found.stdout}"
