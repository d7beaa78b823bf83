"""Random matches keep every invariant over rulesets drawn from every option, not only the presets.

`test_properties.py` draws a preset and flips booleans, so enum and number options keep their preset
values there: `bluff_penalty = "take_back"`, `blank_effect = "wild"`, `wild_draw_four =
"no_other_play"` with other house rules, a `uno_penalty` of 0 or 4 outside the Serbian and Polish
presets would never appear. Here every option is drawn (`rulesets.any_ruleset`),
rounds are checked as they end (exactly one `RoundEnded`, naming one winner whose hand is empty),
whole matches run to a winner within a step budget, and the same seed replays event for event.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulesets import OPTIONS, any_ruleset, card_indexes, option_values

from unonet.engine import Card, Match, Ruleset, events, standard_deck
from unonet.engine.playout import random_step


def test_every_option_can_be_drawn() -> None:
    for name in OPTIONS:
        assert option_values(name) is not None


def _deck(ruleset: Ruleset) -> Counter[Card]:
    return Counter(
        standard_deck(blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds, h2o_wilds=ruleset.h2o_wilds)
    )


def play_match(ruleset: Ruleset, players: int, seed: int, max_steps: int = 400_000) -> list[object]:
    """Play a whole match with random legal actions, checking every invariant after every step."""
    match = Match(ruleset, players, random.Random(seed))
    log: list[object] = list(match.start())
    chooser = random.Random(seed ^ 0x5EED)
    deck = card_indexes(_deck(ruleset).elements())
    rounds_seen = 0
    for _ in range(max_steps):
        round_no = match.round_no
        out = random_step(match, chooser)
        log += out
        ended = [event for event in out if isinstance(event, events.RoundEnded)]
        if match.round_no != round_no or match.is_over:
            assert len(ended) == 1, f"round {round_no} ended with {len(ended)} RoundEnded events"
            (end,) = ended
            assert end.round_no == round_no
            assert isinstance(end.winner, int) and 0 <= end.winner < players
            if ruleset.russian_scoring and ruleset.seven_o:  # P3: a final 0 rotates hands before counting
                assert any(len(hand) == 0 for hand in end.hands), "nobody holds the winner's empty hand"
            else:
                assert len(end.hands[end.winner]) == 0, "the round's winner still holds cards"
            rounds_seen += 1
        else:
            assert not ended, "a RoundEnded event, yet the round goes on"
        if match.is_over:
            assert match.winners, "the match ended without a winner"
            assert rounds_seen >= 1
            return log
        game = match.game
        assert card_indexes(game.cards_in_play()) == deck, "a card was lost or duplicated"
        if game.to_act is None:
            assert game.has_blocking_window, "nobody to act and no window to close"
        else:
            assert match.legal_actions(game.to_act), f"seat {game.to_act} has no legal action"
    raise AssertionError(f"the match did not end within {max_steps} steps")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=any_ruleset(), players=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_random_matches_over_every_option_keep_every_invariant(ruleset: Ruleset, players: int, seed: int) -> None:
    play_match(ruleset, players, seed)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=any_ruleset(), players=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_same_seed_replays_a_whole_match_identically(ruleset: Ruleset, players: int, seed: int) -> None:
    assert play_match(ruleset, players, seed) == play_match(ruleset, players, seed)
