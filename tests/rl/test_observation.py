"""The observation `ObservationLayout.encode` builds (written for speed: one store per number that is not 0,
offsets held as attributes, the compiled build's hot path) equals a straightforward one written field by
field from docs/rl.md's table, for every seat at every step of random rounds of every preset."""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulesets import any_ruleset

from unonet.engine import PLAYABLE_COLORS, PRESETS, Game, Phase, Rank, Ruleset, WindowKind, is_bluff
from unonet.engine.cards import CARDS
from unonet.rl.history import PublicHistory
from unonet.rl.observation import ObservationLayout
from unonet.rl.table import LearningTable

_OBLIGATION_KINDS = [Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.BLANK]


def straightforward(layout: ObservationLayout, game: Game, history: PublicHistory, seat: int, offer: bool):
    """docs/rl.md's table, one field at a time, into an array of Python ints (then capped as documented)."""
    n = layout.players
    vector = np.zeros(layout.size, np.int64)

    def field(name: str) -> npt.NDArray[np.int64]:
        start = layout.offset(name)
        size = next(f.size for f in layout.fields if f.name == name)
        return vector[start : start + size]

    def relative(other: int) -> int:
        return (other - seat) % n

    for card in game.hands[seat]:
        field("hand")[card.index] += 1
    field("top")[game.discard[-1].index] = 1
    field("color")[PLAYABLE_COLORS.index(game.color) if game.color in PLAYABLE_COLORS else 4] = 1
    field("clockwise")[0] = game.direction == 1
    field("phase")[list(Phase).index(game.phase)] = 1
    field("offer")[0] = offer
    if game.drawn is not None and game.to_act == seat:
        field("drawn")[game.drawn.index] = 1
    if game.pending_swap is not None and seat in game.pending_swap[:2]:
        field("swap_card")[game.pending_swap[2].index] = 1
    field("bluff")[0] = is_bluff(game, seat)
    obligation = game.obligation
    if obligation is not None:
        field("obligation")[0] = 1
        field("obligation_amount")[0] = obligation.amount
        field("obligation_kind")[_OBLIGATION_KINDS.index(obligation.kind)] = 1
        field("obligation_target")[relative(obligation.target)] = 1
        field("obligation_setter")[relative(obligation.setter)] = 1
        field("obligation_challengeable")[0] = obligation.bluff is not None and game.ruleset.can_challenge
    for other in range(n):
        if game.in_play[other]:
            field("hand_sizes")[relative(other)] = len(game.hands[other])
            field("in_play")[relative(other)] = 1
            field("uno_called")[relative(other)] = len(game.hands[other]) == 1 and history.uno_called[other]
    for other in game.catchable:
        field("uno_catchable")[relative(other)] = 1
    field("current")[relative(game.current)] = 1
    if game.to_act is not None:
        field("to_act")[relative(game.to_act)] = 1
    field("dealer")[relative(game.dealer)] = 1
    if game.silence is not None:
        field("silence")[relative(game.silence)] = 1
    for window in game.windows.values():
        field("windows_open")[list(WindowKind).index(window.kind)] += 1
        field("windows_eligible")[list(WindowKind).index(window.kind)] += seat in window.eligible
    field("draw_pile")[0] = len(game.draw_pile)
    field("discard_pile")[0] = len(game.discard)
    field("discards")[:] = list(history.discard)
    for r in range(1, n):
        other = (seat + r) % n
        known = history.known[seat][other]
        if known is not None:
            field("known")[(r - 1) * len(CARDS) : r * len(CARDS)] = list(known)
        excluded = history.excluded[other]
        if excluded is not None:
            field("excluded")[(r - 1) * len(CARDS) : r * len(CARDS)] = list(excluded)
        field("lacks")[(r - 1) * 4 : r * 4] = list(history.lacks[other])
    for r in range(n):
        guilty, innocent = history.verdicts[(seat + r) % n]
        field("verdicts")[2 * r : 2 * r + 2] = [guilty, innocent]
    return np.minimum(vector, 255).astype(np.uint8)


def _check_rounds(ruleset: Ruleset, players: int, seeds: range, max_steps: int = 600) -> int:
    """Play random rounds, comparing every seat's observation at every step; how many were compared."""
    layout = ObservationLayout(players)
    compared = 0
    for seed in seeds:
        table = LearningTable(ruleset, players, max_steps=max_steps)
        table.reset(seed)
        rng = random.Random(seed)
        while True:
            for seat in range(players):
                offer = not table.is_over and seat == table.seat and not table.required
                fast = layout.encode(table.game, table.history, seat, offer=offer)
                slow = straightforward(layout, table.game, table.history, seat, offer)
                different = [
                    f.name
                    for f in layout.fields
                    if not np.array_equal(fast[f.offset : f.offset + f.size], slow[f.offset : f.offset + f.size])
                ]
                assert not different, f"seed {seed}, step {table.steps}, seat {seat}: {different}"
                compared += 1
            if table.is_over:
                break
            table.act(rng.choice(list(table.legal)))
    return compared


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fast_observation_is_the_straightforward_one_on_every_preset(preset, players):
    assert _check_rounds(PRESETS[preset], players, range(2)) > 100


def test_the_fast_observation_is_the_straightforward_one_with_ten_players():
    assert _check_rounds(PRESETS["house"], 10, range(1), max_steps=300) > 1_000


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=any_ruleset(), players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_the_fast_observation_is_the_straightforward_one_on_drawn_rulesets(ruleset: Ruleset, players, seed):
    _check_rounds(ruleset, players, range(seed, seed + 1), max_steps=300)
