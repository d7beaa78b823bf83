"""Deal books: a file of deal seeds, so two leagues, or two versions of a bot, play the very same deals.

A league's deal number k is dealt from a 64-bit seed (the deck order, the dealer draw, every reshuffle
and, with per-seat draws, every seat's draws: docs/leagues.md). By default the seed is derived from the
league's own `seed` (`derived_seed`). A deal book replaces that: deal k is dealt from the book's k-th
seed, whatever the league's seed, its bots or its schedule, as chess engines are measured on the same
opening book. `unonet league deals --count N [--seed S] -o FILE` writes one (with `--seed`, the very
seeds a league with that seed deals; without, fresh ones from the operating system's entropy), and a
league file's `deals = "FILE"` or `--deals FILE` (`unonet league run`, `unonet league sprt`) plays it.

The format is text, so it can be read, diffed and cut: a first line `# unonet deal book v1`, then one
seed per line, a decimal integer from 0 to 2**64 - 1; blank lines and lines starting with `#` are
skipped. A book that runs out before the league's last deal is refused before any game is played.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from pathlib import Path

__all__ = ["HEADER", "DealBookError", "derived_seed", "make_book", "read_book", "write_book"]

HEADER = "# unonet deal book v1"


class DealBookError(ValueError):
    """A deal book cannot be read: missing, not a deal book, or a line that is not a seed (named)."""


def derived_seed(league_seed: int, deal: int) -> int:
    """The seed of deal number `deal` of a league seeded `league_seed`: the first 8 bytes of a SHA-256."""
    digest = hashlib.sha256(f"unonet-league:{league_seed}:deal:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def make_book(count: int, seed: int | None = None) -> list[int]:
    """`count` deal seeds: a league seeded `seed`'s first `count` deals, or fresh random ones."""
    if count < 1:
        raise ValueError("a deal book needs at least one deal")
    if seed is None:
        return [secrets.randbits(64) for _ in range(count)]
    return [derived_seed(seed, deal) for deal in range(1, count + 1)]


def write_book(path: Path, seeds: Iterable[int], comment: str = "") -> int:
    """Write a deal book; returns how many deals it holds."""
    lines = [HEADER] + ([f"# {comment}"] if comment else [])
    count = 0
    for seed in seeds:
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"a deal seed is an integer from 0 to 2**64 - 1, not {seed}")
        lines.append(str(seed))
        count += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def read_book(path: Path) -> tuple[int, ...]:
    """The seeds of the deal book at `path`, in order. Raises DealBookError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DealBookError(f"cannot read the deal book {path}: {error}") from error
    lines = text.splitlines()
    if not lines or lines[0].strip() != HEADER:
        raise DealBookError(f"{path} is not a deal book (its first line must be {HEADER!r})")
    seeds = []
    for number, line in enumerate(lines[1:], start=2):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not line.isdigit() or int(line) >= 1 << 64:
            raise DealBookError(f"{path}:{number}: {line[:40]!r} is not a deal seed (0 to 2**64 - 1)")
        seeds.append(int(line))
    if not seeds:
        raise DealBookError(f"the deal book {path} holds no deals")
    return tuple(seeds)
