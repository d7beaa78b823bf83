"""League files for the league tests: a round-robin of seeded random bots, written to a folder."""

from __future__ import annotations

from pathlib import Path


def league_file(tmp_path: Path, *, games: int = 24, size: int = 4, bots: int = 4, extra: str = "",
                bot_lines: str = "") -> Path:
    lines = [
        "[league]", 'name = "test"', "seed = 11", f"games = {games}", f"table_size = {size}", extra, "",
    ]
    for index in range(bots):
        lines += ["[[bot]]", f'name = "r{index}"', 'kind = "random"', f"seed = {index}", ""]
    path = tmp_path / "league.toml"
    path.write_text("\n".join(lines) + bot_lines)
    return path
