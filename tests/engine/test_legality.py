"""`legal_actions` and `Game.apply` agree: every listed action applies, every unlisted one is refused.

Both are built from the same check functions (each returns a refusal or nothing), so they cannot drift
apart; these tests prove it over random rulesets, player counts and forfeits. "Refused" here also
admits the plays the rules punish instead of refusing (a wrong jump-in, H7; an illegal play, H15) and
a false catch (U4): `legal_actions` never lists them, as a careful player would not make them.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from unonet.engine import (
    PLAYABLE_COLORS,
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
    Obligation,
    Pass,
    Play,
    Rank,
    React,
    Ruleset,
    UnoError,
    find_ruleset,
    legal_actions,
)
from unonet.engine import events as ev

BOOL_OPTIONS = [f.name for f in fields(Ruleset) if f.type in ("bool", bool) and f.name != "name"]
PRESETS = ["standard", "house", "serbian", "french", "russian", "polish"]

# Events by which the rules punish an action they do not refuse.
PUNISHED = (ev.WrongJumpIn, ev.IllegalPlay, ev.FalseCatch)


def c(color: Color, rank: Rank) -> Card:
    return Card.of(color, rank)


RED = Color.RED


def test_a_reverse_cannot_send_an_obligation_back_to_a_setter_who_forfeited() -> None:
    """H3, P1: 4 players, deflecting. Seat 0 plays a Draw Two, seat 1 passes it on with a Skip, seat 2
    goes out on a Skip, then seats 0 and 1 forfeit. Seat 3 is alone with the obligation: a Reverse
    could only send it back to its setter, who left, so seat 3 must draw, and nothing else is listed."""
    ruleset = find_ruleset("standard").replace(deflecting=True)
    filler = [c(Color.BLUE, Rank.NINE), c(Color.GREEN, Rank.EIGHT)]
    game = Game.from_position(
        ruleset,
        random.Random(1),
        hands=[
            [c(RED, Rank.DRAW_TWO), *filler],
            [c(RED, Rank.SKIP), *filler],
            [c(RED, Rank.SKIP)],
            [c(RED, Rank.REVERSE), *filler],
        ],
        draw_pile=[c(Color.YELLOW, rank) for rank in (Rank.ONE, Rank.TWO, Rank.THREE, Rank.FOUR)] * 3,
        discard=[c(RED, Rank.FIVE)],
    )
    game.apply(Play(0, (c(RED, Rank.DRAW_TWO),)))
    game.apply(Play(1, (c(RED, Rank.SKIP),)))
    game.apply(Play(2, (c(RED, Rank.SKIP),)))
    game.forfeit(0)
    game.forfeit(1)
    assert game.to_act == 3 and game.obligation is not None and game.obligation.target == 3
    reverse = Play(3, (c(RED, Rank.REVERSE),))
    assert legal_actions(game, 3) == [Draw(3)]
    before = game.fingerprint()
    with pytest.raises(IllegalAction) as refused:
        game.apply(reverse)
    assert refused.value.reason == "MUST_DRAW"
    assert game.fingerprint() == before


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    ruleset = find_ruleset(draw(st.sampled_from(PRESETS)))
    for name, value in draw(st.dictionaries(st.sampled_from(BOOL_OPTIONS), st.booleans(), max_size=8)).items():
        try:
            ruleset = ruleset.replace(**{name: value})
        except UnoError:
            continue  # an impossible combination: keep the previous one
    return ruleset


def candidates(game: Game, seat: int, chooser: random.Random) -> Iterator[Action]:
    """Every action of the kinds `legal_actions` lists that `seat` could send now, listed or not.

    One-card plays of each card held (with an UNO call when it would leave one card), a sample of
    two-card groups, and every choice of every other kind over the seats in play, open windows,
    colours and cards held.
    """
    hand = game.hands[seat]
    distinct = list(dict.fromkeys(hand))
    others = [other for other in range(game.num_players) if other != seat]
    for card in distinct:
        yield Play(seat, (card,))
        if len(hand) == 2:
            yield Play(seat, (card,), True)
    pairs = list(itertools.permutations(hand, 2))
    for pair in chooser.sample(pairs, min(len(pairs), 12)):
        yield Play(seat, pair, len(hand) == 3)
    yield Draw(seat)
    yield Pass(seat)
    yield Challenge(seat)
    yield CallUno(seat)
    for color in PLAYABLE_COLORS:
        yield ChooseColor(seat, color)
    for other in others:
        yield CatchUno(seat, other)
        yield ChooseSwapTarget(seat, other)
        for card in distinct:
            yield FiveSwap(seat, other, card)
    for card in distinct:
        yield GiveCard(seat, card)
    for window_id in sorted(game.windows):
        yield React(seat, window_id)


def check_agreement(game: Game, chooser: random.Random) -> None:
    """Every seat's listed actions apply (to a copy), and every other candidate is refused or punished.

    The unlisted candidates are tried one after another on one copy, replaced only when one applied (a
    punished mistake): most are refused, and a refusal changes nothing, which the copy's fingerprint,
    equal to a fresh copy's at the end, proves here too. (A copy per candidate was most of the time.)
    """
    untouched = game.copy().fingerprint()
    for seat in range(game.num_players):
        listed = legal_actions(game, seat)
        assert len(set(listed)) == len(listed), f"seat {seat} has an action listed twice: {listed}"
        for action in listed:
            try:
                game.copy().apply(action)
            except UnoError as error:
                raise AssertionError(f"listed {action} was refused: {error.reason}: {error}") from error
        wanted = set(listed)
        probe = game.copy()
        for action in candidates(game, seat, chooser):
            if action in wanted:
                continue
            try:
                out = probe.apply(action)
            except UnoError:
                continue
            assert any(isinstance(event, PUNISHED) for event in out), f"unlisted {action} applied: {out}"
            probe = game.copy()
        assert probe.fingerprint() == untouched, f"a refused candidate of seat {seat} changed the game"


def random_step(game: Game, chooser: random.Random) -> None:
    """One random step of a bare game: a listed action of the seat to act (or any seat, now and then:
    jump-ins, catches, run cuts), a window's answers or its close, and now and then a forfeit."""
    seats = game.seats()
    if len(seats) > 2 and chooser.random() < 0.03:
        game.forfeit(chooser.choice(seats))
        return
    to_act = game.to_act
    options = legal_actions(game, to_act) if to_act is not None else []
    if to_act is None or chooser.random() < 0.15:
        options = [action for seat in seats for action in legal_actions(game, seat)] or options
    if not options:
        window = next(w for w in game.windows.values() if w.is_blocking)
        game.close_window(window.id)
        return
    keen = [action for action in options if not isinstance(action, Draw | Pass)]
    game.apply(chooser.choice(keen if keen and chooser.random() < 0.8 else options))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=rulesets(), players=st.integers(2, 10), seed=st.integers(0, 2**32), steps=st.integers(10, 100))
@example(ruleset=find_ruleset("standard").replace(deflecting=True, stacking=True), players=4, seed=3, steps=80)
def test_every_listed_action_applies_and_every_unlisted_one_is_refused(
    ruleset: Ruleset, players: int, seed: int, steps: int
) -> None:
    game = Game(ruleset, players, random.Random(seed))
    chooser = random.Random(seed + 1)
    for _ in range(steps):
        if game.is_over:
            break
        check_agreement(game, chooser)
        random_step(game, chooser)
    check_agreement(game, chooser)


# Not state: derived from other attributes (`_seats`, `_blocking`), a function (`shuffle`), the events
# the last call returned (`_out`), whether the last call was the search path's `step`, which builds none
# (`_quiet`).
NOT_IN_FINGERPRINT = {"_seats", "_blocking", "shuffle", "_out", "_quiet"}


@pytest.mark.parametrize("preset", PRESETS)
def test_the_fingerprint_reads_every_attribute_of_the_state(preset: str) -> None:
    """`fingerprint` is what tests compare to prove a refusal changed nothing, so it must miss nothing:
    replacing any attribute of the state with a stranger changes it (or breaks reading it)."""
    game = Game(find_ruleset(preset), 4, random.Random(7))
    if not hasattr(game, "__dict__"):
        pytest.skip("the compiled build types every attribute, so no stranger can be put in; same source")
    stranger = object()
    for name in sorted(set(vars(game)) - NOT_IN_FINGERPRINT):
        probe = game.copy()
        before = probe.fingerprint()
        probe.__dict__[name] = stranger  # past any property setter: the attribute itself
        try:
            after = probe.fingerprint()
        except (AttributeError, TypeError):
            continue  # the fingerprint reads it
        assert after != before, f"Game.fingerprint() leaves out {name}"


def test_the_fingerprint_tells_apart_whether_an_obligation_skips_the_turn() -> None:
    """T8, H9: `Obligation.skips` decides who plays after the draw, so two states differing in it differ."""
    game = Game(find_ruleset("standard"), 2, random.Random(3))
    game.obligation = Obligation(2, Rank.DRAW_TWO, game.current, 1 - game.current, True)
    other = game.copy()
    assert other.obligation is not None
    other.obligation.skips = False
    assert game.fingerprint() != other.fingerprint()
