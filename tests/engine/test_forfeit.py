"""Forfeits (a table's takeover policy): a player leaves mid-round and the game goes on without them."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unonet.engine import Card, Draw, Match, find_ruleset, standard_deck
from unonet.engine.errors import GameOver, MalformedAction
from unonet.engine.events import DrawObligation
from unonet.engine.playout import random_step


def deck_of(match: Match) -> Counter[Card]:
    r = match.ruleset
    return Counter(standard_deck(blank_cards=r.blank_cards, sound_wilds=r.sound_wilds, h2o_wilds=r.h2o_wilds))


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(["standard", "house", "russian", "serbian", "polish"]), players=st.integers(2, 6),
       seed=st.integers(0, 2**32), forfeit_at=st.integers(0, 60))
def test_a_forfeit_at_any_moment_keeps_every_invariant(preset: str, players: int, seed: int, forfeit_at: int) -> None:
    match = Match(find_ruleset(preset, target_score=100), players, random.Random(seed))
    match.start()
    chooser = random.Random(seed)
    for _ in range(forfeit_at):
        if match.is_over:
            return
        random_step(match, chooser)
    if match.is_over:
        return
    leaver = chooser.choice([seat for seat in range(players) if seat not in match.eliminated])
    match.forfeit(leaver)
    assert leaver in match.eliminated
    for _ in range(50_000):
        if match.is_over:
            break
        game = match.game
        assert Counter(game.cards_in_play()) == deck_of(match)
        assert not game.hands[leaver] and not game.in_play[leaver]
        assert game.to_act != leaver
        random_step(match, chooser)
    assert match.is_over and leaver not in match.winners


def test_two_players_the_one_left_wins_at_once() -> None:
    match = Match(find_ruleset("standard"), 2, random.Random(1))
    match.start()
    events = match.forfeit(0)
    assert match.winners == (1,)
    assert type(events[-1]).__name__ == "MatchEnded"
    with pytest.raises(GameOver):
        match.apply(Draw(1))


def test_forfeit_refuses_a_seat_not_in_the_match() -> None:
    match = Match(find_ruleset("standard"), 3, random.Random(1))
    match.start()
    match.forfeit(2)
    with pytest.raises(MalformedAction):
        match.forfeit(2)
    with pytest.raises(MalformedAction):
        match.forfeit(7)



@pytest.mark.parametrize("leaver_is", ["target", "setter"])
def test_a_forfeit_that_moves_an_open_obligation_announces_it(leaver_is: str) -> None:
    """The obligation's target leaves: the next player owes it; its setter leaves: nobody can challenge it.
    Either way the forfeit's events say so (a DrawObligation), so a client counting from the events
    (and the audit, which checks who challenges whom) sees whom the obligation now binds."""
    found = 0
    for seed in range(400):
        match = Match(find_ruleset("standard", target_score=500), 4, random.Random(seed))
        match.start()
        chooser = random.Random(seed)
        while not match.is_over and match.game.obligation is None:
            random_step(match, chooser)
        if match.is_over:
            continue
        obligation = match.game.obligation
        assert obligation is not None
        leaver = obligation.target if leaver_is == "target" else obligation.setter
        if leaver == obligation.target and leaver == obligation.setter:
            continue
        events = match.forfeit(leaver)
        announced = [event for event in events if isinstance(event, DrawObligation)]
        now = match.game.obligation
        assert now is not None and announced, seed
        last = announced[-1]
        assert (last.target, last.setter, last.amount) == (now.target, now.setter, now.amount)
        assert last.target != leaver and (leaver_is == "target" or not last.challengeable)
        found += 1
        if found == 10:
            return
    raise AssertionError(f"only {found} positions with an open obligation found")
