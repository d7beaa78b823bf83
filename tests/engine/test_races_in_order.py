"""A ruled window is the same answers applied in order: `Game.resolve_window` against `apply` one by one.

The host rules a race and hands the engine the answers in the ruled order. Whatever the ruling, the
outcome must be what the rules give the same actions applied one after another, with one difference
the race rules make and nothing more: once an exclusive window (a catch, jump-in, skip escape or run
cut) has been decided, the answers after it lost the race and change nothing. The penalties stay
those of RULES.md: the slowest slapper or reactor draws 2 (U5, H12), a catch of a player who called
or was already caught costs its catcher 2 under `false_call_penalty` (U4).
"""

from __future__ import annotations

import random

import pytest

from unonet.engine import (
    Action,
    CallUno,
    Card,
    CatchUno,
    ChooseColor,
    Color,
    Game,
    Match,
    Play,
    Rank,
    React,
    UnoError,
    Window,
    WindowKind,
    find_ruleset,
    legal_actions,
)
from unonet.engine import events as ev
from unonet.engine.playout import random_step

RACE_RULES = [
    {"jump_in": True, "uno_slap": True, "false_call_penalty": True},
    {"jump_in": True, "super_jump_in": True, "false_call_penalty": False, "uno_slap": False},
    {"skip_escape": True, "runs": True, "sound_wilds": True, "false_call_penalty": True},
    {"runs": True, "uno_slap": True, "sound_wilds": True, "jump_in": True, "false_call_penalty": True},
]
PENALTIES = (ev.FalseCatch, ev.WrongJumpIn, ev.UnoCaught, ev.PenaltyPoints)


def answers(game: Game, window: Window, action: Action) -> bool:
    """Does `action` (from its seat's legal actions) answer `window`?"""
    if isinstance(action, React):
        return action.window == window.id
    if isinstance(action, CallUno):
        return window.kind is WindowKind.UNO_CATCH and action.seat == window.target
    return isinstance(action, Play) and action.seat != game.current and window.kind in (
        WindowKind.JUMP_IN, WindowKind.SKIP_ESCAPE, WindowKind.RUN_CUT)


def answers_to(game: Game, window: Window) -> list[Action]:
    """Every answer some seat's legal actions offer for `window`, plus every other seat's catch of
    the target of a catch window (a second catcher, a catch after the call)."""
    out: list[Action] = []
    for seat in game.seats():
        out += [action for action in legal_actions(game, seat) if answers(game, window, action)]
        if window.kind is WindowKind.UNO_CATCH and window.target is not None and seat != window.target:
            out.append(CatchUno(seat, window.target))
    return out


def in_order(game: Game, window: Window, answers: list[Action]) -> list[ev.Event]:
    """The same answers with `apply`, one after another, under the race rule; then the close."""
    log: list[ev.Event] = []
    for answer in answers:
        if game.is_over:
            break
        late_catch = window.kind is WindowKind.UNO_CATCH and isinstance(answer, CatchUno)
        if window.id not in game.windows and not (late_catch and game.ruleset.false_call_penalty):
            continue  # the race was decided: this answer lost, and changes nothing
        try:
            log += game.apply(answer)
        except UnoError:
            continue  # refused: it changes nothing
    if window.id in game.windows and not game.is_over:
        log += game.close_window(window.id)
    return log


def pick(chooser: random.Random, answers: list[Action]) -> list[Action]:
    """A ruled order: at most one answer per seat, in a random order, some seats silent."""
    chooser.shuffle(answers)
    by_seat: dict[int, Action] = {}
    for answer in answers:
        if answer.seat not in by_seat and chooser.random() < 0.8:
            by_seat[answer.seat] = answer
    return list(by_seat.values())


@pytest.mark.parametrize("overrides", RACE_RULES)
@pytest.mark.parametrize("seed", range(6))
def test_resolving_a_window_equals_applying_its_answers_in_order(overrides: dict[str, bool], seed: int) -> None:
    ruleset = find_ruleset("standard", **overrides)
    chooser = random.Random(seed)
    match = Match(ruleset, 2 + seed % 3, random.Random(seed))
    match.start()
    compared = 0
    for _ in range(3000):
        if match.is_over:
            break
        game = match.game
        for window in list(game.windows.values()):
            answers = pick(chooser, answers_to(game, window))
            if not answers:
                continue
            ruled, applied = game.copy(), game.copy()
            ruled_log = ruled.resolve_window(window.id, answers)
            applied_log = in_order(applied, window, answers)
            assert ruled.fingerprint() == applied.fingerprint(), (window, answers)
            assert [e for e in ruled_log if isinstance(e, PENALTIES)] == [
                e for e in applied_log if isinstance(e, PENALTIES)]
            lost = {e.seat for e in ruled_log if isinstance(e, ev.RaceLost)}
            assert not lost & {e.catcher for e in ruled_log if isinstance(e, ev.FalseCatch)}
            compared += 1
        random_step(match, chooser)
    assert compared > 20  # the playouts did open windows and answer them


def catch_position(*, false_call_penalty: bool) -> Game:
    """Seat 0 plays its second-to-last card without calling UNO: seats 1 and 2 may catch it."""
    ruleset = find_ruleset("standard", false_call_penalty=false_call_penalty)
    red = [Card.of(Color.RED, rank) for rank in (Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX)]
    blue = [Card.of(Color.BLUE, rank) for rank in (Rank.ONE, Rank.TWO, Rank.THREE, Rank.FOUR)]
    game = Game.from_position(ruleset, random.Random(1), hands=[red[:2], blue[:3], blue[1:]],
                              draw_pile=blue * 3, discard=[red[3]], current=0)
    game.apply(Play(0, (red[0],)))
    return game


def catch_window(game: Game) -> Window:
    return next(w for w in game.windows.values() if w.kind is WindowKind.UNO_CATCH)


def test_U4_a_catch_ruled_after_the_target_called_costs_the_catcher_2() -> None:
    game = catch_position(false_call_penalty=True)
    window = catch_window(game)
    events = game.resolve_window(window.id, [CallUno(0), CatchUno(1, 0)])
    assert ev.FalseCatch(1, 0, 2) in events and not any(isinstance(e, ev.RaceLost) for e in events)
    assert len(game.hands[1]) == 5 and len(game.hands[0]) == 1


def test_U4_a_second_catch_in_the_same_window_costs_its_catcher_2() -> None:
    game = catch_position(false_call_penalty=True)
    events = game.resolve_window(catch_window(game).id, [CatchUno(1, 0), CatchUno(2, 0)])
    assert ev.UnoCaught(1, 0, 2) in events and ev.FalseCatch(2, 0, 2) in events
    assert (len(game.hands[0]), len(game.hands[2])) == (3, 5)


def test_U3_without_false_call_penalty_the_later_catch_just_loses_the_race() -> None:
    game = catch_position(false_call_penalty=False)
    window = catch_window(game)
    events = game.resolve_window(window.id, [CallUno(0), CatchUno(1, 0)])
    assert ev.RaceLost(1, window.id) in events and len(game.hands[1]) == 3


def test_a_ruling_recorded_before_replays_as_it_was_ruled() -> None:
    game = catch_position(false_call_penalty=True)
    window = catch_window(game)
    events = game.resolve_window(window.id, [CallUno(0), CatchUno(1, 0)], as_recorded_before=True)
    assert ev.RaceLost(1, window.id) in events and len(game.hands[1]) == 3


def test_window_ids_are_unique_within_a_match() -> None:
    """ReactionWindow.id: unique within the table, so an id never names a window of an earlier round."""
    for per_round in (False, True):
        match = Match(find_ruleset("house", target_score=300), 3, random.Random(7), window_ids_per_round=per_round)
        match.start()
        chooser = random.Random(7)
        opened: list[tuple[int, int]] = []
        while not match.is_over:
            opened += [(match.round_no, e.window.id) for e in random_step(match, chooser)
                       if isinstance(e, ev.WindowOpened)]
        assert len({round_no for round_no, _ in opened}) > 1
        ids = [window_id for _, window_id in opened]
        if per_round:  # as tables recorded before: every round starts again at 1
            assert ids.count(1) > 1
        else:
            assert ids == sorted(set(ids)) and match.game.next_window_id == ids[-1] + 1


def last_card_position(card: Card) -> Match:
    ruleset = find_ruleset("standard")
    other = [Card.of(Color.BLUE, Rank.FIVE), Card.of(Color.BLUE, Rank.SIX)]
    game = Game.from_position(ruleset, random.Random(1), hands=[[card], other], draw_pile=other * 4,
                              discard=[Card.of(Color.RED, Rank.THREE)], current=0)
    match = Match(ruleset, 2, random.Random(1), first_round=game)
    match.start()
    return match


def test_T9_a_wild_going_out_with_its_colour_ends_the_round_like_one_without() -> None:
    wild = Card.of(Color.BLACK, Rank.WILD)
    for command in ([Play(0, (wild,)), ChooseColor(0, Color.GREEN)], [Play(0, (wild,))]):
        match = last_card_position(wild)
        events = match.apply_command(command)
        assert [e.winner for e in events if isinstance(e, ev.RoundEnded)] == [0]
        assert not any(isinstance(e, ev.ColorChosen) for e in events)  # the colour names nothing


def test_T10_a_wild_draw_four_going_out_with_its_colour_still_names_it() -> None:
    four = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)
    match = last_card_position(four)
    events = match.apply_command([Play(0, (four,)), ChooseColor(0, Color.GREEN)])
    assert ev.ColorChosen(0, Color.GREEN) in events and match.game.obligation is not None


def test_a_refused_follow_up_leaves_nothing_half_applied() -> None:
    five, six = Card.of(Color.RED, Rank.FIVE), Card.of(Color.RED, Rank.SIX)
    ruleset = find_ruleset("standard")
    game = Game.from_position(ruleset, random.Random(1), hands=[[five, six], [six, six]], draw_pile=[six] * 8,
                              discard=[Card.of(Color.RED, Rank.THREE)], current=0)
    before = game.fingerprint()
    with pytest.raises(UnoError):
        game.apply_command([Play(0, (five,)), ChooseColor(0, Color.GREEN)])  # a red five names no colour
    assert game.fingerprint() == before
