"""Challenge rules (B2, B3) that a scenario file cannot state: who may see an event, and an unreachable state."""

from __future__ import annotations

import random

from unonet.engine import Card, Challenge, ChooseColor, Color, Draw, Game, Play, find_ruleset
from unonet.engine.events import CardTakenBack, Challenged, Event, HandRevealed


def _cards(*texts: str) -> list[Card]:
    return [Card.parse(text) for text in texts]


def _bluff(bluff_penalty: str = "draw_four") -> tuple[Game, list[Event]]:
    """Seat 0 plays an unfair Wild Draw Four (it holds red 1 on red) and names green; seat 1 challenges."""
    game = Game.from_position(
        find_ruleset("standard", bluff_penalty=bluff_penalty),
        random.Random(0),
        hands=[_cards("wild_draw_four", "red 1", "blue 2"), _cards("green 1", "green 2"), _cards("yellow 1")],
        draw_pile=_cards("blue 3", "blue 4", "blue 5", "blue 6", "blue 7", "blue 8", "blue 9"),
        discard=_cards("red 5"),
    )
    game.apply(Play(0, (Card.parse("wild_draw_four"),)))
    game.apply(ChooseColor(0, Color.GREEN))
    return game, game.apply(Challenge(1))


def test_B2_only_the_challenger_sees_the_accused_hand() -> None:
    _, events = _bluff()
    revealed = [event for event in events if isinstance(event, HandRevealed)]
    assert len(revealed) == 1
    reveal = revealed[0]
    assert (reveal.to_seat, reveal.seat, reveal.cards) == (1, 0, tuple(_cards("red 1", "blue 2")))
    assert reveal.visible_to(1) is reveal
    assert reveal.visible_to(0) is None
    assert reveal.visible_to(2) is None
    assert reveal.visible_to(None) is None
    # The verdict itself is public.
    verdict = next(event for event in events if isinstance(event, Challenged))
    assert verdict.visible_to(2) is verdict and verdict.guilty


def test_B3_guilty_player_who_had_gone_out_is_back_in() -> None:
    """A Wild Draw Four that is its player's last card is judged on an empty hand, so it is always fair and the
    state cannot arise from play alone (no rule lets a Wild Draw Four go down with other cards). The branch is
    still checked: the seat is put in the went-out state by hand before the challenge."""
    game = Game.from_position(
        find_ruleset("standard"),
        random.Random(0),
        hands=[_cards("wild_draw_four", "red 1"), _cards("green 1", "green 2"), _cards("yellow 1", "yellow 2")],
        draw_pile=_cards("blue 3", "blue 4", "blue 5", "blue 6", "blue 7"),
        discard=_cards("red 5"),
    )
    game.apply(Play(0, (Card.parse("wild_draw_four"),)))
    game.apply(ChooseColor(0, Color.GREEN))
    game.hands[0].clear()  # as if the Wild Draw Four had been the last card
    game.went_out = 0
    events = game.apply(Challenge(1))
    assert any(isinstance(event, Challenged) and event.guilty for event in events)
    assert not game.is_over
    assert game.went_out is None
    assert len(game.hands[0]) == 4
    assert game.current == 1
    game.apply(Draw(1))
    game.apply(Draw(2))
    assert game.current == 0  # back in the turn order


def test_B3_take_back_event_is_public() -> None:
    game, events = _bluff("take_back")
    taken = next(event for event in events if isinstance(event, CardTakenBack))
    assert taken.visible_to(2) is taken
    assert game.top == Card.parse("red 5") and game.color is Color.RED
