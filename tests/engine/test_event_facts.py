"""The facts events carry beyond what happened (hand sizes, totals, kinds), checked against the state
in seeded random playouts of every preset: what the protocol sends is what the engine holds."""

from __future__ import annotations

import random

import pytest

from unonet.engine import PRESETS, Match, Scoring, find_ruleset
from unonet.engine import events as ev
from unonet.engine.playout import random_step

# Events after which a seat's hand may have changed without a Played or Drew saying how big it is.
_RESHAPING = (ev.HandsRotated, ev.HandsSwapped, ev.SwapOffered, ev.CardsExchanged, ev.CardTakenBack, ev.Dealt,
              ev.PlayerEliminated, ev.RoundStarted)


def _seats_changed(event: ev.Event) -> set[int] | None:
    """The seats whose hands `event` changes without stating the size; None for every seat."""
    if isinstance(event, ev.HandsSwapped | ev.SwapOffered | ev.CardsExchanged):
        return {event.seat, event.target}
    if isinstance(event, ev.CardTakenBack | ev.Dealt | ev.PlayerEliminated):
        return {event.seat}
    return None  # a rotation or a new round: every hand


@pytest.mark.parametrize("preset", list(PRESETS))
def test_plays_and_draws_state_the_hand_left_and_totals_add_up(preset: str) -> None:
    ruleset = find_ruleset(preset, target_score=200)
    sign = -1 if ruleset.scoring is Scoring.WINNER_TAKES else 1
    checked = 0
    for seed in range(3):
        match = Match(ruleset, 4, random.Random(seed))
        out = match.start()
        chooser = random.Random(seed + 100)
        steps = 0
        while not match.is_over and steps < 5_000:
            steps += 1
            out = random_step(match, chooser)
            game = match.game
            stated: dict[int, int] = {}
            for event in out:
                if isinstance(event, ev.Played | ev.Drew):
                    stated[event.seat] = event.hand_size
                elif isinstance(event, _RESHAPING):
                    changed = _seats_changed(event)
                    stated = {} if changed is None else {s: n for s, n in stated.items() if s not in changed}
                elif isinstance(event, ev.PenaltyPoints):
                    assert event.total == match.totals[event.seat] + sign * game.penalty_points[event.seat]
                elif isinstance(event, ev.RoundEnded):
                    stated = {}
            if any(isinstance(event, ev.RoundEnded) for event in out):
                continue  # the next round's hands, if dealt, are not the ones stated
            for seat, size in stated.items():
                assert size == len(game.hands[seat]), (preset, seed, steps, seat, out)
            checked += len(stated)
    assert checked > 300, "the playouts checked too few hand sizes to mean anything"


def test_an_elimination_states_the_total_and_the_last_seat_standing_ends_the_match() -> None:
    match = Match(find_ruleset("polish", target_score=60), 3, random.Random(4))
    events = match.start()
    chooser = random.Random(5)
    while not match.is_over:
        events += random_step(match, chooser)
    for event in events:
        if isinstance(event, ev.PlayerEliminated):
            assert event.total == match.totals[event.seat] >= 60
    ended = events[-1]
    assert isinstance(ended, ev.MatchEnded)
    assert ended.reason is (ev.MatchEndReason.LAST_SEAT_STANDING if len(ended.eliminated) == 2
                            else ev.MatchEndReason.TARGET_SCORE)
