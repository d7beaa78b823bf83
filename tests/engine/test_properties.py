"""Property tests over random seeds, player counts and rulesets (issue 2).

After every action of a random playout: every card is accounted for, the game waits for someone (or
a window the host must close), and a finished round has exactly one winner. The same seed replays
identically, event for event, and a refused action changes nothing.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.rulesets import card_indexes, full_deck
from support.rulesets import preset_rulesets as rulesets

from unonet.engine import (
    Card,
    Color,
    Draw,
    Game,
    Match,
    Pass,
    Play,
    Rank,
    Ruleset,
    UnoError,
    find_ruleset,
    legal_actions,
)
from unonet.engine.playout import random_step


def check_invariants(match: Match, deck: list[int]) -> None:
    game = match.game
    assert card_indexes(game.cards_in_play()) == deck, "a card was lost or duplicated"
    if game.is_over:
        assert game.winner is not None
        return
    if game.to_act is None:
        assert game.has_blocking_window, "nobody to act and no window to close"
    else:
        assert match.legal_actions(game.to_act), f"seat {game.to_act} has no legal action"


# House rules that pass draw obligations on (stacking, deflecting, +1/+2 wilds, draw-10 blanks) let
# random two-player rounds swell to tens of thousands of steps before someone goes out; the budget is a
# guard against rounds that never end, not a claim about how long they take.
def play(ruleset: Ruleset, players: int, seed: int, max_steps: int = 300_000) -> list[object]:
    match = Match(ruleset, players, random.Random(seed))
    log: list[object] = list(match.start())
    chooser = random.Random(seed * 7 + 1)
    deck = card_indexes(full_deck(ruleset).elements())
    round_no = match.round_no
    for _ in range(max_steps):
        log += random_step(match, chooser)
        if match.round_no != round_no or match.is_over:
            return log  # one round is enough per example; whole matches run in test_whole_matches_end
        check_invariants(match, deck)
    raise AssertionError(f"round did not end within {max_steps} steps")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=rulesets(), players=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_random_rounds_keep_every_invariant(ruleset: Ruleset, players: int, seed: int) -> None:
    play(ruleset, players, seed)


# Two-player rounds that once outran a 20,000-step budget (they end, after ~80k and ~130k steps).
_SWOLLEN = dict(
    blank_cards=True, h2o_wilds=True, draw_to_match=True, false_call_penalty=True, uno_slap=True, multi_play=False,
    jump_in_wilds=True, illegal_play_penalty=True, target_score=150,
)


@example(find_ruleset("russian", **_SWOLLEN, sound_wilds=True, five_swap=False, silent_two=False), 2, 3056)
@example(find_ruleset("russian", **_SWOLLEN, stacking_mixed=True), 2, 2)
@settings(max_examples=25, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_same_seed_replays_identically(ruleset: Ruleset, players: int, seed: int) -> None:
    assert play(ruleset, players, seed) == play(ruleset, players, seed)


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(["standard", "house", "russian", "polish"]), players=st.integers(2, 5),
       seed=st.integers(0, 2**32))
def test_whole_matches_end_with_winners(preset: str, players: int, seed: int) -> None:
    match = Match(find_ruleset(preset, target_score=100), players, random.Random(seed))
    match.start()
    chooser = random.Random(seed)
    for _ in range(200_000):
        if match.is_over:
            break
        random_step(match, chooser)
    assert match.is_over and match.winners


@settings(max_examples=30, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_refused_actions_change_nothing(ruleset: Ruleset, players: int, seed: int) -> None:
    match = Match(ruleset, players, random.Random(seed))
    match.start()
    chooser = random.Random(seed)
    bogus = [Card.of(Color.RED, Rank.FIVE), Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)]
    for _ in range(40):
        if match.is_over or match.round_no != 1:
            break
        game = match.game
        for seat in range(players):
            for action in (Draw(seat), Play(seat, (chooser.choice(bogus),)), Play(seat, ())):
                if action in match.legal_actions(seat):
                    continue
                before = game.fingerprint()
                try:
                    match.apply(action)
                except UnoError:
                    assert game.fingerprint() == before, f"refused {action} changed the state"
                else:
                    break
            else:
                continue
            break
        if not match.is_over and match.round_no == 1:
            random_step(match, chooser)


@settings(max_examples=30, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_a_copied_game_goes_on_exactly_as_the_original_and_apart_from_it(
    ruleset: Ruleset, players: int, seed: int, steps: int
) -> None:
    match = Match(ruleset, players, random.Random(seed))
    match.start()
    chooser = random.Random(seed)
    for _ in range(steps):
        if match.is_over or match.round_no != 1:
            return
        random_step(match, chooser)
    original = match.game
    before = original.fingerprint()
    clone = original.copy()
    # Its random stream (reshuffles) continues the original's, but apart from it.
    assert clone.rng is not original.rng and clone.rng.getstate() == original.rng.getstate()
    # The copy plays on alone first (drawing, reshuffling: its random stream is its own) ...
    clone_log = _play_on(clone, random.Random(seed + 1))
    assert original.fingerprint() == before, "playing the copy changed the original"
    # ... then the original, with the same choices: the same events, the same state.
    assert _play_on(original, random.Random(seed + 1)) == clone_log
    assert original.fingerprint() == clone.fingerprint()


def _play_on(game: Game, chooser: random.Random, max_steps: int = 40) -> list[object]:
    """Up to `max_steps` random steps of one round on a bare Game (no Match), its events in order."""
    log: list[object] = []
    for _ in range(max_steps):
        if game.is_over:
            break
        seat = game.to_act
        if seat is None:
            window = next(w for w in game.windows.values() if w.is_blocking)
            log += game.close_window(window.id)
            continue
        actions = legal_actions(game, seat)
        keen = [a for a in actions if not isinstance(a, Draw | Pass)]
        log += game.apply(chooser.choice(keen if keen and chooser.random() < 0.8 else actions))
    return log
