"""The search API (`unonet.engine.search`, `Game.step`, `Match.copy`): trusted steps reach the states
`apply` reaches, playouts finish rounds, and determinization deals only what the seat cannot see."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.rulesets import full_deck
from support.rulesets import preset_rulesets as rulesets

from unonet.engine import (
    Action,
    Card,
    Color,
    Game,
    MalformedAction,
    Match,
    Obligation,
    Play,
    Rank,
    Ruleset,
    find_ruleset,
    legal_actions,
)
from unonet.engine.game import BluffRecord
from unonet.engine.legal import legal_plays, policy_choices
from unonet.engine.rules import is_wild_draw_four_fair
from unonet.engine.scoring import round_points
from unonet.engine.search import Knowledge, PlayoutLimit, determinize, playout, settle_blocking


def _random_move(game: Game, chooser: random.Random) -> int | Action:
    """A legal action of any seat (out-of-turn reactions included), or the id of a window to close."""
    if game.to_act is None or (game.windows and chooser.random() < 0.1):
        window = chooser.choice(list(game.windows.values()))
        if chooser.random() < 0.5:
            return window.id
    seats = game.seats()
    chooser.shuffle(seats)
    for seat in seats:
        options = legal_actions(game, seat)
        if options:
            return chooser.choice(options)
    return next(iter(game.windows))


@settings(max_examples=40, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_step_reaches_the_state_apply_reaches_along_random_playouts(ruleset: Ruleset, players: int, seed: int) -> None:
    applied = Game(ruleset, players, random.Random(seed), dealer=seed % players)
    stepped = applied.copy()
    chooser = random.Random(seed + 1)
    for _ in range(400):
        if applied.is_over:
            break
        move = _random_move(applied, chooser)
        if isinstance(move, int):
            applied.close_window(move)
            stepped.close_window(move)
        else:
            applied.apply(move)
            stepped.step(move)
        assert stepped.fingerprint() == applied.fingerprint(), f"step and apply parted after {move}"
    assert stepped.is_over == applied.is_over


@settings(max_examples=30, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_apply_after_step_returns_every_event_of_its_action(ruleset: Ruleset, players: int, seed: int) -> None:
    """`step` builds no events, but a game that stepped and then applies reports the action's events in
    full, the very ones a game that only ever applied reports, and the list it returned before stays as
    it was."""
    mixed = Game(ruleset, players, random.Random(seed), dealer=seed % players)
    applied = mixed.copy()
    chooser = random.Random(seed + 1)
    kept: list[tuple[list[object], list[object]]] = []
    for _ in range(300):
        if applied.is_over:
            break
        move = _random_move(applied, chooser)
        if isinstance(move, int):
            events, alone = mixed.close_window(move), applied.close_window(move)
        elif chooser.random() < 0.5:
            applied.apply(move)
            mixed.step(move)
            continue
        else:
            events, alone = mixed.apply(move), applied.apply(move)
        assert events == alone, f"apply after step lost events of {move}"
        kept.append((events, list(events)))
    assert all(events == copy for events, copy in kept), "a later step changed a list apply returned"


@settings(max_examples=30, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_a_playout_finishes_the_round_with_every_card_accounted_for(ruleset: Ruleset, players: int, seed: int) -> None:
    game = Game(ruleset, players, random.Random(seed), dealer=seed % players)
    try:
        result = playout(game, random.Random(seed + 1))
    except PlayoutLimit:
        # Random play may never end a round under the harshest rules: russian with 10-card blanks, draw to
        # match, stacking and card penalties, 4 players, seed 0 had all 115 cards in hands after 100,000
        # steps with the seat to act holding 13 plays (hypothesis found it in one run of a dozen, then spent
        # minutes shrinking it). The limit is then the playout's documented answer; the cards still add up.
        assert Counter(game.cards_in_play()) == full_deck(ruleset)
        return
    assert game.is_over and result.winner == game.winner
    rotated_at_the_end = ruleset.russian_scoring and ruleset.seven_o and game.discard[-1].rank is Rank.ZERO
    if not rotated_at_the_end:  # P3: a final 0 rotates the hands before counting
        assert not game.hands[result.winner]
    assert result.points == tuple(round_points(game, result.winner))
    assert result.steps > 0
    assert Counter(game.cards_in_play()) == full_deck(ruleset)


def test_a_playout_is_a_function_of_the_position_and_its_random_stream() -> None:
    game = Game(find_ruleset("house"), 4, random.Random(3))
    first, second = game.copy(), game.copy()
    assert playout(first, random.Random(9)) == playout(second, random.Random(9))
    assert first.fingerprint() == second.fingerprint()


def test_a_given_policy_chooses_every_action_of_the_seat_to_act() -> None:
    game = Game(find_ruleset("standard"), 3, random.Random(4))
    seen: list[int] = []

    def first_listed(position: Game, options: list[Action]) -> Action:
        assert position.to_act is not None and options == legal_actions(position, position.to_act)
        seen.append(len(options))
        return options[0]

    result = playout(game, random.Random(0), first_listed)
    assert len(seen) == result.steps  # standard rules open no blocking window


@settings(max_examples=30, deadline=None)
@given(ruleset=rulesets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_the_policy_picks_among_the_listed_plays_or_else_among_everything_listed(
    ruleset: Ruleset, players: int, seed: int
) -> None:
    game = Game(ruleset, players, random.Random(seed), dealer=seed % players)
    rng = random.Random(seed + 1)
    for _ in range(300):
        if game.is_over:
            break
        seat = game.to_act
        if seat is None:
            settle_blocking(game, rng)
            continue
        listed = legal_actions(game, seat)
        plays = [action for action in listed if isinstance(action, Play)]
        choices = policy_choices(game, seat)
        assert choices == (plays or listed)
        assert legal_plays(game, seat) == plays
        game.step(rng.choice(choices))


def test_a_playout_past_its_budget_raises() -> None:
    with pytest.raises(PlayoutLimit):
        playout(Game(find_ruleset("standard"), 4, random.Random(1)), random.Random(1), max_steps=3)


def test_settle_blocking_answers_a_slap_window_so_only_the_slowest_draws() -> None:
    ruleset = find_ruleset("standard", uno_slap=True)
    r, g = Color.RED, Color.GREEN
    game = Game.from_position(
        ruleset,
        random.Random(0),
        hands=[[Card.of(r, Rank.ONE), Card.of(r, Rank.TWO)], [Card.of(g, Rank.ONE)] * 3, [Card.of(g, Rank.TWO)] * 3],
        draw_pile=[Card.of(g, Rank.THREE)] * 10,
        discard=[Card.of(r, Rank.NINE)],
    )
    game.step(Play(0, (Card.of(r, Rank.ONE),), True))
    assert game.to_act is None
    settle_blocking(game, random.Random(2))
    assert not game.has_blocking_window
    assert sorted(len(game.hands[s]) for s in (1, 2)) == [3, 5]


def _wild_draw_four_position(seed: int) -> Game:
    """Seat 0 just played a Wild Draw Four on a red 5 (red named before), holding the rest; seat 1 owes 4."""
    deck = Counter(full_deck(STANDARD))
    wd4, top = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR), Card.of(Color.RED, Rank.FIVE)
    deck -= Counter([wd4, top])
    rest = list(deck.elements())
    random.Random(seed).shuffle(rest)
    hands = [rest[:5], rest[5:12], rest[12:19]]
    pile = rest[19:]
    bluff = BluffRecord(0, tuple(hands[0]), is_wild_draw_four_fair(hands[0], Color.RED, top, STANDARD.wild_draw_four),
                        wd4, Color.RED)  # fmt: skip
    return Game.from_position(
        STANDARD,
        random.Random(seed),
        hands=hands,
        draw_pile=pile,
        discard=[top, wd4],
        color=Color.BLUE,
        current=1,
        obligation=Obligation(4, Rank.WILD_DRAW_FOUR, 1, 0, True, bluff),
    )


STANDARD = find_ruleset("standard")


@pytest.mark.parametrize("seed", range(8))
def test_determinize_deals_only_the_unseen_cards_and_keeps_what_the_seat_knows(seed: int) -> None:
    game = Game(find_ruleset("house"), 4, random.Random(seed))
    playout_rng = random.Random(seed)
    for _ in range(seed * 3):  # some way into the round
        if game.is_over or game.to_act is None:
            break
        game.step(random.Random(seed).choice(legal_actions(game, game.to_act)))
    if game.is_over:
        return
    known_card = game.hands[2][0]
    banned = frozenset(card for card in set(game.draw_pile) if card.color is Color.GREEN and card not in game.hands[3])
    knowledge = Knowledge(
        1, known=((), (), (known_card,), ()), excluded=(frozenset(), frozenset(), frozenset(), banned)
    )
    before = game.fingerprint()
    dealt = determinize(game, knowledge, playout_rng)
    assert game.fingerprint() == before, "determinizing changed the true game"
    assert dealt.hands[1] == game.hands[1] and dealt.discard == game.discard
    assert [len(hand) for hand in dealt.hands] == [len(hand) for hand in game.hands]
    assert len(dealt.draw_pile) == len(game.draw_pile)
    assert known_card in dealt.hands[2]
    assert not banned & set(dealt.hands[3])
    assert Counter(dealt.cards_in_play()) == Counter(game.cards_in_play())
    for name in ("color", "direction", "current", "phase", "obligation", "windows", "to_act"):
        assert getattr(dealt, name) == getattr(game, name), name
    assert dealt.rng is not game.rng and dealt.rng.getstate() != game.rng.getstate()
    assert determinize(game, knowledge, random.Random(1)).hands != determinize(game, knowledge, random.Random(2)).hands
    playout(dealt, random.Random(seed))  # a determinized position plays on


@pytest.mark.parametrize("seed", range(6))
def test_determinize_judges_the_open_wild_draw_four_again_from_the_dealt_hand(seed: int) -> None:
    game = _wild_draw_four_position(seed)
    dealt = determinize(game, Knowledge(1), random.Random(seed))
    bluff = dealt.obligation.bluff if dealt.obligation is not None else None
    assert bluff is not None
    assert bluff.hand == tuple(dealt.hands[0])
    assert bluff.is_fair == is_wild_draw_four_fair(
        dealt.hands[0], Color.RED, dealt.discard[-2], STANDARD.wild_draw_four
    )


def test_determinize_refuses_knowledge_the_position_contradicts() -> None:
    game = Game(STANDARD, 3, random.Random(5))
    seen = game.hands[0][0]  # seat 0's card, which seat 0 can see, cannot be unseen in seat 1's hand ...
    with pytest.raises(MalformedAction):
        determinize(game, Knowledge(0, known=((), (seen,) * 8, ())), random.Random(0))
    with pytest.raises(MalformedAction):  # ... nor can seat 2's hand avoid every card there is
        determinize(
            game, Knowledge(0, excluded=(frozenset(), frozenset(), frozenset(full_deck(STANDARD)))), random.Random(0)
        )


def test_a_copied_match_plays_on_apart_from_the_original() -> None:
    match = Match(STANDARD, 3, random.Random(8))
    match.start()
    clone = match.copy()
    assert clone.game is not match.game and clone.game.fingerprint() == match.game.fingerprint()
    playout(clone.game, random.Random(0))
    assert not match.game.is_over and clone.totals is not match.totals and clone.rng is not match.rng
