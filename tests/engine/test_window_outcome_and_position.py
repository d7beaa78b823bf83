"""`resolve_window_outcome` names the reactions the rules refused; `from_position` opens an obligation.

Both serve callers that must not lose a fact the engine knows: a scenario file asserting a refusal
inside a resolved window, and a dispute that starts with a Draw Two or Wild Draw Four already played.
"""

from __future__ import annotations

import random

import pytest

from unonet.engine import (
    BluffRecord,
    Card,
    Color,
    Draw,
    Game,
    MalformedAction,
    Match,
    Obligation,
    Play,
    Rank,
    React,
    find_ruleset,
)
from unonet.engine import events as ev
from unonet.engine.actions import Challenge


def cards(*texts: str) -> list[Card]:
    return [Card.parse(text) for text in texts]


def slap_position() -> Match:
    """Seat 0 calls UNO with uno_slap on: seats 1 and 2 must slap, the slowest draws 2 (U5)."""
    game = Game.from_position(
        find_ruleset("standard", uno_slap=True),
        random.Random(0),
        hands=[cards("red 1", "blue 1"), cards("red 4", "green 3"), cards("red 2", "yellow 2")],
        draw_pile=cards("blue 7", "blue 8", "blue 9"),
        discard=cards("red 5"),
    )
    match = Match(game.ruleset, 3, random.Random(0), first_round=game)
    match.start()
    match.apply(Play(0, (Card.parse("red 1"),), call_uno=True))
    return match


def test_a_refused_reaction_is_reported_with_its_reason_and_the_others_still_apply() -> None:
    match = slap_position()
    window = next(iter(match.game.windows))
    reactions = [React(2, window), React(0, window), React(1, window)]  # seat 0 called: not eligible
    outcome = match.resolve_window_outcome(window, reactions)
    assert [(r.action, r.reason) for r in outcome.refused] == [(React(0, window), "NOT_ELIGIBLE")]
    assert "0" in outcome.refused[0].message
    closed = next(e for e in outcome.events if isinstance(e, ev.WindowClosed))
    assert closed.order == (2, 1) and closed.penalised == (1,)


def test_resolve_window_keeps_returning_the_same_events() -> None:
    """The host's caller (`host/racebook.py`) keeps its list of events, refusals dropped as before."""
    first, second = slap_position(), slap_position()
    window = next(iter(first.game.windows))
    reactions = [React(2, window), React(0, window), React(1, window)]
    assert first.resolve_window(window, reactions) == second.resolve_window_outcome(window, reactions).events
    assert first.game.fingerprint() == second.game.fingerprint()


def test_no_refusal_gives_an_empty_record() -> None:
    match = slap_position()
    window = next(iter(match.game.windows))
    assert match.resolve_window_outcome(window, [React(1, window), React(2, window)]).refused == ()


def obligation_position(obligation: Obligation, *, current: int = 1) -> Game:
    return Game.from_position(
        find_ruleset("standard"),
        random.Random(0),
        hands=[cards("red 1", "red 3"), cards("blue 4", "green 3"), cards("yellow 2")],
        draw_pile=cards("blue 7", "blue 8", "blue 9", "green 1", "green 2", "green 4"),
        discard=cards("red 5", "wild_draw_four"),
        color=Color.GREEN,
        current=current,
        obligation=obligation,
    )


def test_a_position_may_open_a_draw_obligation_on_the_seat_to_act() -> None:
    game = obligation_position(Obligation(4, Rank.WILD_DRAW_FOUR, 1, 0, True))
    assert game.obligation is not None and (game.obligation.target, game.obligation.amount) == (1, 4)
    start = Match(game.ruleset, 3, random.Random(0), first_round=game).start()
    assert start == [ev.DrawObligation(1, 4, 0, Rank.WILD_DRAW_FOUR, False), ev.TurnStarted(1)]
    out = game.apply(Draw(1))
    drawn = tuple(cards("blue 7", "blue 8", "blue 9", "green 1"))
    assert ev.Drew(1, 4, ev.DrawReason.OBLIGATION, drawn, hand_size=len(game.hands[1])) in out
    assert game.current == 2 and game.obligation is None


def test_a_position_obligation_with_a_bluff_record_can_be_challenged() -> None:
    wild = Card.parse("wild_draw_four")
    bluff = BluffRecord(0, tuple(cards("red 1", "red 3")), False, wild, Color.RED)
    game = obligation_position(Obligation(4, Rank.WILD_DRAW_FOUR, 1, 0, True, bluff))
    out = game.apply(Challenge(1))
    assert ev.Challenged(1, 0, True, penalty=4, bluff_penalty=game.ruleset.bluff_penalty) in out
    assert len(game.hands[0]) == 6 and game.current == 1


@pytest.mark.parametrize(
    ("obligation", "current", "quoted"),
    [
        (Obligation(4, Rank.WILD_DRAW_FOUR, 2, 0, True), 1, "must be the seat to act"),
        (Obligation(4, Rank.WILD_DRAW_FOUR, 1, 1, True), 1, "setter 1 is not another seat"),
        (Obligation(4, Rank.WILD_DRAW_FOUR, 1, 9, True), 1, "setter 9 is not another seat"),
        (Obligation(0, Rank.DRAW_TWO, 1, 0, True), 1, "not 0 of draw_two"),
        (Obligation(2, Rank.SKIP, 1, 0, True), 1, "not 2 of skip"),
        (
            Obligation(2, Rank.DRAW_TWO, 1, 0, True, BluffRecord(0, (), False, Card.parse("red 1"), None)),
            1,
            "only the setter of a Wild Draw Four",
        ),
    ],
)
def test_an_impossible_position_obligation_is_refused(obligation: Obligation, current: int, quoted: str) -> None:
    with pytest.raises(MalformedAction) as refused:
        obligation_position(obligation, current=current)
    assert refused.value.reason == "BAD_POSITION" and quoted in str(refused.value)
