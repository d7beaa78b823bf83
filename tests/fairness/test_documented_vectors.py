"""docs/fairness.md's test vectors and encodings, read from the document and checked against the code.

A vector someone copies from the document must be the one our code computes, every byte of it: the
Merkle roots and audit paths of section 11 are parsed from the document, and section 3's card bytes
are checked for every protocol enum member (the colour byte is the `Color` number, the rank byte the
`Rank` number minus one).
"""

from __future__ import annotations

import re
from pathlib import Path

from unonet.client.verify import card_code
from unonet.fairness import ColorCode, RankCode, inclusion_proof, merkle_root
from unonet.v1 import cards_pb2

FAIRNESS = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def _merkle_block() -> list[str]:
    text = FAIRNESS.read_text()
    start = text.index("```text\nleaves ")
    return text[start:text.index("```", start + 3)].splitlines()[1:]


def _vectors() -> tuple[list[bytes], dict[int, str], dict[tuple[int, int], list[str]]]:
    leaves: list[bytes] = []
    roots: dict[int, str] = {}
    paths: dict[tuple[int, int], list[str]] = {}
    current: list[str] | None = None
    for line in _merkle_block():
        if line.startswith("leaves"):
            leaves = [bytes.fromhex(leaf.strip().strip('"')) for leaf in line.split("=", 1)[1].split(",")]
        elif found := re.fullmatch(r"root\(n=(\d+)\)\s*= ([0-9a-f]{64})", line):
            roots[int(found[1])] = found[2]
        elif found := re.fullmatch(r"path\(m=(\d+), n=(\d+)\) = ([0-9a-f]{64})", line):
            current = paths[(int(found[1]), int(found[2]))] = [found[3]]
        else:
            assert current is not None and re.fullmatch(r"\s+[0-9a-f]{64}", line), line
            current.append(line.strip())
    return leaves, roots, paths


def test_the_documented_merkle_vectors_are_whole_and_ours() -> None:
    leaves, roots, paths = _vectors()
    assert len(leaves) == 8 and sorted(roots) == list(range(9)) and len(paths) == 4
    for n, root in roots.items():
        assert merkle_root(leaves[:n]).hex() == root, f"root(n={n})"
    for (m, n), path in paths.items():
        assert [node.hex() for node in inclusion_proof(leaves[:n], m)] == path, f"path(m={m}, n={n})"


def test_a_protocol_card_s_bytes_are_its_colour_number_and_its_rank_number_minus_one() -> None:
    for color_name, color in cards_pb2.Color.items():
        if color:
            assert ColorCode[color_name.removeprefix("COLOR_")] == color
    for rank_name, rank in cards_pb2.Rank.items():
        if rank:
            assert RankCode[rank_name.removeprefix("RANK_")] == rank - 1, rank_name
    blue_draw_two = card_code(cards_pb2.Card(color=cards_pb2.COLOR_BLUE, rank=cards_pb2.RANK_DRAW_TWO))
    assert blue_draw_two.to_bytes() == bytes.fromhex("040c")  # section 3's example
