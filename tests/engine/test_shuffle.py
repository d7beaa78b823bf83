"""The engine's inlined shuffle must be `random.Random.shuffle` exactly: journals replay through it."""

from __future__ import annotations

import random

from unonet.engine.game import shuffle_like_random


def test_shuffle_like_random_matches_random_shuffle() -> None:
    for seed in range(300):
        for length in (0, 1, 2, 3, 7, 50, 108, 112, 120, 128, 129, 300):
            ours, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(length)), list(range(length))
            shuffle_like_random(ours, a)
            theirs.shuffle(b)
            assert a == b
            assert ours.getstate() == theirs.getstate()


def test_a_random_subclass_keeps_its_own_shuffle() -> None:
    class Reversing(random.Random):
        def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
            x.reverse()

    cards = [1, 2, 3]
    shuffle_like_random(Reversing(1), cards)  # type: ignore[arg-type]
    assert cards == [3, 2, 1]
