"""An illegal or malformed action raises a typed error that says what was wrong and leaves the state
exactly as it was; under H15 an illegal play on one's own turn is a penalty instead.

`test_properties.py` compares `Game.fingerprint()`, which leaves out some private state (reaction
logs, the jump-in window, the bluff snapshot, the blocking count). Here the whole object graph of the
match (every attribute of `Match` and `Game`, the random generator's state included) is compared
before and after each refused action, for many kinds of bad action in random positions.
"""

from __future__ import annotations

import random
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulesets import any_ruleset

from unonet.engine import (
    Action,
    CallUno,
    Card,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    FiveSwap,
    Game,
    GiveCard,
    IllegalAction,
    MalformedAction,
    Match,
    Pass,
    Play,
    Rank,
    React,
    UnoError,
    events,
    find_ruleset,
    standard_deck,
)
from unonet.engine.playout import random_step

# `Game._out` is the buffer of events the next call returns, not state: each call starts it afresh.
OUTBOX = {"_out"}


def snapshot(value: Any) -> Any:
    """The whole state under `value`, as nested comparable data (callables left out)."""
    if isinstance(value, random.Random):
        return ("Random", value.getstate())
    if isinstance(value, Card | Enum | str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(snapshot(item) for item in value))
    if isinstance(value, set | frozenset):
        return (type(value).__name__, tuple(sorted(repr(snapshot(item)) for item in value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), snapshot(v)) for k, v in value.items())))
    if is_dataclass(value):
        return (type(value).__name__, tuple((f.name, snapshot(getattr(value, f.name))) for f in fields(value)))
    native = getattr(type(value), "__mypyc_attrs__", None)  # a class of the compiled build has no __dict__
    if native is not None or hasattr(value, "__dict__"):
        state = vars(value) if native is None else {k: getattr(value, k) for k in native if hasattr(value, k)}
        return (
            type(value).__name__,
            tuple((k, snapshot(v)) for k, v in sorted(state.items()) if not callable(v) and k not in OUTBOX),
        )
    raise TypeError(f"cannot snapshot {type(value).__name__}")


ALL_CARDS = sorted(set(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)), key=str)
GENERIC_REASONS = {"UNO_ERROR", "MALFORMED_ACTION", "ILLEGAL_ACTION"}
# What an unlisted action may still do instead of being refused: a punished mistake (H6, H15, U4) or
# a table-talk action. Anything else that is applied without being listed is a gap in legal_actions.
PENALTIES = (events.IllegalPlay, events.WrongJumpIn, events.FalseCatch, events.PenaltyPoints)


def bad_actions(game: Game, seat: int, players: int, rng: random.Random) -> list[Action]:
    """Many kinds of action that are usually wrong for `seat` now, malformed ones included."""
    hand = list(game.hands[seat])
    absent = rng.sample([card for card in ALL_CARDS if card not in hand], 3)
    found: list[Action] = [
        Draw(seat),
        Pass(seat),
        CallUno(seat),
        Challenge(seat),
        Play(seat, ()),
        ChooseColor(seat, Color.BLACK),
        ChooseColor(seat, rng.choice(list(Color)[:4])),
        ChooseSwapTarget(seat, seat),
        ChooseSwapTarget(seat, players),
        ChooseSwapTarget(seat, (seat + 1) % players),
        CatchUno(seat, seat),
        CatchUno(seat, players),
        CatchUno(seat, (seat + 1) % players),
        React(seat, 10_000),
        Draw(players),
        Draw(-1),
        Play(-1, (Card(Color.RED, Rank.ONE),)),
    ]
    found += [Play(seat, (card,)) for card in absent]
    if hand:
        mine = rng.choice(hand)
        found += [Play(seat, (card,)) for card in hand]
        found += [GiveCard(seat, mine), FiveSwap(seat, (seat + 1) % players, mine), FiveSwap(seat, seat, mine)]
        found += [GiveCard(seat, absent[0]), FiveSwap(seat, (seat + 1) % players, absent[0])]
    if len(hand) >= 2:
        found += [Play(seat, tuple(rng.sample(hand, 2))), Play(seat, (hand[0], hand[0]))]
    return found


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=any_ruleset(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_refused_actions_change_nothing_anywhere(ruleset: Any, players: int, seed: int) -> None:
    match = Match(ruleset, players, random.Random(seed))
    match.start()
    chooser = random.Random(seed)
    for _ in range(40):
        if match.is_over:
            break
        game = match.game
        to_act = game.to_act
        seat = to_act if to_act is not None and chooser.random() < 0.6 else chooser.randrange(players)
        listed = set(match.legal_actions(seat))
        before = snapshot(match)
        for action in bad_actions(game, seat, players, chooser):
            if action in listed or (isinstance(action, ChooseColor) and game.has_blocking_window):
                continue  # (the second case is the known gap of test_no_colour_is_named_while_a_slap_window_blocks)
            try:
                out = match.apply(action)
            except UnoError as error:
                assert isinstance(error, MalformedAction | IllegalAction), (action, error)
                assert error.reason not in GENERIC_REASONS, f"{action}: untyped reason {error.reason}"
                assert str(error), f"{action}: empty message"
                assert snapshot(match) == before, f"refused {action} ({error.reason}) changed the state"
            else:  # a punished mistake: the game moved on, so this step is over
                assert any(isinstance(event, PENALTIES) for event in out), (
                    f"{action} is not listed as legal, yet was applied without a penalty: {out}"
                )
                break
        else:
            random_step(match, chooser)


@settings(max_examples=30, deadline=None)
@given(ruleset=any_ruleset(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_refused_window_calls_change_nothing(ruleset: Any, players: int, seed: int) -> None:
    match = Match(ruleset, players, random.Random(seed))
    match.start()
    chooser = random.Random(seed)
    for _ in range(30):
        if match.is_over:
            break
        before = snapshot(match)
        with pytest.raises(IllegalAction) as refused:
            match.close_window(9_999)
        assert refused.value.reason == "WINDOW_CLOSED"
        assert snapshot(match) == before
        with pytest.raises(IllegalAction) as refused:
            match.resolve_window(9_999, [])
        assert refused.value.reason == "WINDOW_CLOSED"
        assert snapshot(match) == before
        random_step(match, chooser)


# One named position per kind of refusal, with the reason and a message that quotes the input.
def position(**options: Any) -> Match:
    game = Game.from_position(
        find_ruleset("standard", **options),
        random.Random(1),
        hands=[
            [Card.parse("red 5"), Card.parse("blue 7"), Card.parse("wild_draw_four")],
            [Card.parse("green 2"), Card.parse("yellow 3")],
            [Card.parse("green 9"), Card.parse("green 8")],
        ],
        draw_pile=[Card.parse("yellow 1"), Card.parse("yellow 2"), Card.parse("yellow 4")],
        discard=[Card.parse("red 9")],
    )
    match = Match(game.ruleset, 3, random.Random(1), first_round=game)
    match.start()
    return match


REFUSALS: list[tuple[Action, type[UnoError], str, str]] = [
    (Play(0, (Card.parse("green 2"),)), MalformedAction, "CARD_NOT_IN_HAND", "green 2"),
    (Play(0, (Card.parse("blue 7"),)), IllegalAction, "CARD_DOES_NOT_MATCH", "blue 7"),
    (Draw(1), IllegalAction, "NOT_YOUR_TURN", "seat 1"),
    (Draw(7), MalformedAction, "BAD_SEAT", "7"),
    (Pass(0), IllegalAction, "WRONG_PHASE", ""),
    (Challenge(0), IllegalAction, "NOTHING_TO_CHALLENGE", ""),
    (CallUno(0), IllegalAction, "NOTHING_TO_CALL", ""),
    (CatchUno(1, 0), IllegalAction, "NOT_CATCHABLE", "0"),
    (ChooseColor(0, Color.RED), IllegalAction, "NO_COLOR_TO_CHOOSE", ""),
    (Play(0, (Card.parse("red 5"), Card.parse("blue 7"))), IllegalAction, "ONE_CARD_ONLY", ""),
]


@pytest.mark.parametrize(("action", "kind", "reason", "quoted"), REFUSALS, ids=[f"{r[2]}-{r[0]}" for r in REFUSALS])
def test_each_refusal_is_typed_quotes_its_input_and_changes_nothing(
    action: Action, kind: type[UnoError], reason: str, quoted: str
) -> None:
    match = position()
    before = snapshot(match)
    with pytest.raises(kind) as refused:
        match.apply(action)
    assert refused.value.reason == reason, str(refused.value)
    assert quoted in str(refused.value)
    assert snapshot(match) == before


def test_h15_turns_an_illegal_play_into_a_penalty_and_the_turn_continues() -> None:
    match = position(illegal_play_penalty=True)
    out = match.apply(Play(0, (Card.parse("blue 7"),)))
    game = match.game
    assert any(isinstance(event, events.IllegalPlay) for event in out)
    assert sorted(map(str, game.hands[0])) == ["blue 7", "red 5", "wild_draw_four", "yellow 1", "yellow 2"]
    assert game.current == 0 and str(game.top) == "red 9"
    # Every other illegal action is still refused at no cost under H15.
    for action, kind, reason, _ in REFUSALS:
        if reason == "CARD_DOES_NOT_MATCH":
            continue
        before = snapshot(match)
        with pytest.raises(kind):
            match.apply(action)
        assert snapshot(match) == before, action


# `Game.from_position` must check `current` and `dealer`: unchecked, a seat past the last raised
# IndexError and a negative one was silently taken from the end.
@pytest.mark.parametrize(("current", "dealer"), [(7, 0), (-1, 0), (0, 5), (0, -1)])
def test_from_position_refuses_a_seat_outside_the_table(current: int, dealer: int) -> None:
    with pytest.raises(MalformedAction):
        Game.from_position(
            find_ruleset("standard"),
            random.Random(0),
            hands=[[Card.parse("red 5")], [Card.parse("blue 5")]],
            draw_pile=[],
            discard=[Card.parse("red 1")],
            current=current,
            dealer=dealer,
        )


# With `uno_slap` on, a black card played as one's second-to-last card with an UNO
# call opens the blocking slap window while its player still has to name the colour; `ChooseColor` was
# accepted but not listed. Naming the colour is part of the play (the turn passes on under the window
# after any other card too), so legal_actions now lists it; refusing it would have to be WINDOW_OPEN.
@pytest.mark.parametrize("black", ["wild", "wild_draw_four"])
def test_no_colour_is_named_while_a_slap_window_blocks(black: str) -> None:
    game = Game.from_position(
        find_ruleset("standard", uno_slap=True),
        random.Random(0),
        hands=[[Card.parse(black), Card.parse("red 1")], [Card.parse("green 1")] * 2, [Card.parse("yellow 1")] * 2],
        draw_pile=[Card.parse("blue 1"), Card.parse("blue 2"), Card.parse("blue 3"), Card.parse("blue 4")],
        discard=[Card.parse("red 5")],
    )
    match = Match(game.ruleset, 3, random.Random(0), first_round=game)
    match.start()
    match.apply(Play(0, (Card.parse(black),), call_uno=True))
    assert game.has_blocking_window and game.phase.value == "choose_color"
    choose = ChooseColor(0, Color.GREEN)
    assert choose in match.legal_actions(0)  # listed, beside the slap
    assert not any(isinstance(a, ChooseColor) for seat in (1, 2) for a in match.legal_actions(seat))
    match.apply(choose)
    assert game.color is Color.GREEN
    assert game.has_blocking_window and game.to_act is None  # the window still holds the next turn


@pytest.mark.parametrize("seat", [3, -1])
def test_a_match_refuses_to_list_or_show_a_seat_outside_the_table(seat: int) -> None:
    match = Match(find_ruleset("standard"), 3, random.Random(0))
    match.start()
    for ask in (match.legal_actions, match.view_for):
        with pytest.raises(MalformedAction) as refused:
            ask(seat)
        assert refused.value.reason == "BAD_SEAT"
