"""`Game.from_position(..., mid_play=MidPlay(...))`: a position set up mid-play, as a search bot reads it
from its view. Each set-up plays on by the rules; each impossible one is refused and says why."""

from __future__ import annotations

import random

import pytest

from unonet.engine import (
    Card,
    CatchUno,
    ChooseColor,
    Color,
    Game,
    GiveCard,
    MalformedAction,
    MidPlay,
    Obligation,
    Pass,
    Phase,
    Play,
    Rank,
    Window,
    WindowKind,
    find_ruleset,
    legal_actions,
)

R, G, B, Y = Color.RED, Color.GREEN, Color.BLUE, Color.YELLOW
RULES = find_ruleset("standard", five_swap=True)


def card(color: Color, rank: Rank) -> Card:
    return Card.of(color, rank)


def position(mid: MidPlay, *, top: Card | None = None, hands: list[list[Card]] | None = None) -> Game:
    return Game.from_position(
        RULES,
        random.Random(0),
        hands=hands or [[card(R, Rank.ONE), card(R, Rank.TWO)], [card(G, Rank.ONE)] * 3, [card(B, Rank.ONE)] * 2],
        draw_pile=[card(Y, Rank.THREE)] * 10,
        discard=[card(R, Rank.NINE), top or card(R, Rank.FIVE)],
        color=R,
        mid_play=mid,
    )


def test_after_a_draw_the_drawn_card_may_be_played_or_kept() -> None:
    game = position(MidPlay(phase=Phase.AFTER_DRAW, drawn=card(R, Rank.TWO)))
    assert game.phase is Phase.AFTER_DRAW and game.drawn == card(R, Rank.TWO)
    assert legal_actions(game, 0) == [Play(0, (card(R, Rank.TWO),)), Play(0, (card(R, Rank.TWO),), True), Pass(0)]


def test_a_black_card_on_top_waits_for_its_colour() -> None:
    game = position(MidPlay(phase=Phase.CHOOSE_COLOR), top=card(Color.BLACK, Rank.WILD))
    assert legal_actions(game, 0) == [ChooseColor(0, c) for c in (R, Y, G, B)]
    game.apply(ChooseColor(0, G))
    assert game.color is G and game.to_act == 1


def test_a_five_swap_waits_for_its_target_to_give_a_card_back() -> None:
    held = card(R, Rank.TWO)
    hands = [[card(R, Rank.ONE)], [card(G, Rank.ONE)] * 3, [card(B, Rank.ONE)] * 2]
    game = position(MidPlay(phase=Phase.GIVE_CARD, pending_swap=(0, 2, held)), hands=hands)
    assert game.to_act == 2 and game.pending_swap == (0, 2, held)
    game.apply(GiveCard(2, card(B, Rank.ONE)))
    assert sorted(map(str, game.hands[0])) == sorted(map(str, [card(R, Rank.ONE), card(B, Rank.ONE)]))
    assert held in game.hands[2]


def test_an_open_catch_window_lets_the_others_catch() -> None:
    catch = Window(7, WindowKind.UNO_CATCH, (0, 2), 1, False, 1)
    game = position(
        MidPlay(windows=(catch,), next_window_id=8),
        hands=[[card(R, Rank.ONE)] * 2, [card(G, Rank.ONE)], [card(B, Rank.ONE)] * 2],
    )
    assert game.catchable == {1} and CatchUno(0, 1) in legal_actions(game, 0)
    game.apply(CatchUno(0, 1))
    assert len(game.hands[1]) == 1 + RULES.uno_penalty and game.next_window_id == 8


@pytest.mark.parametrize(
    ("mid", "top", "says"),
    [
        (MidPlay(phase=Phase.ROUND_OVER), None, "round in play"),
        (MidPlay(phase=Phase.AFTER_DRAW), None, "drawn card"),
        (MidPlay(phase=Phase.AFTER_DRAW, drawn=card(B, Rank.NINE)), None, "drawn card"),
        (MidPlay(drawn=card(R, Rank.TWO)), None, "drawn card"),
        (MidPlay(phase=Phase.GIVE_CARD), None, "5-swap"),
        (MidPlay(pending_swap=(0, 1, card(R, Rank.TWO))), None, "5-swap"),
        (MidPlay(phase=Phase.GIVE_CARD, pending_swap=(0, 0, card(R, Rank.TWO))), None, "two seats"),
        (MidPlay(phase=Phase.CHOOSE_COLOR), card(R, Rank.FIVE), "black card"),
        (MidPlay(silence=5), None, "not in play"),
        (MidPlay(went_out=1), None, "holds cards"),
        (MidPlay(penalty_points=(1, 2)), None, "penalty totals"),
        (MidPlay(windows=(Window(1, WindowKind.UNO_SLAP, (1, 2), 0, True),), next_window_id=2), None, "blocks play"),
        (MidPlay(windows=(Window(3, WindowKind.JUMP_IN, (0, 1, 2), 2, False),), next_window_id=3), None, "below 3"),
    ],
)
def test_an_impossible_mid_play_set_up_is_refused(mid: MidPlay, top: Card | None, says: str) -> None:
    with pytest.raises(MalformedAction, match=says) as refused:
        position(mid, top=top)
    assert refused.value.reason == "BAD_POSITION"


def test_a_mid_play_obligation_may_be_back_at_its_setter() -> None:
    back = Obligation(2, Rank.DRAW_TWO, 0, 0, True)  # H3: seat 0's Draw Two, sent back by a Reverse
    game = Game.from_position(
        RULES, random.Random(0), hands=[[card(R, Rank.ONE)] * 2, [card(G, Rank.ONE)] * 3],
        draw_pile=[card(Y, Rank.THREE)] * 10, discard=[card(R, Rank.REVERSE)], obligation=back, mid_play=MidPlay(),
    )  # fmt: skip
    assert game.obligation is not None and game.obligation.setter == 0
    with pytest.raises(MalformedAction, match="not another seat"):  # a plain position: set just before, by another
        Game.from_position(
            RULES, random.Random(0), hands=[[card(R, Rank.ONE)] * 2, [card(G, Rank.ONE)] * 3],
            draw_pile=[card(Y, Rank.THREE)] * 10, discard=[card(R, Rank.REVERSE)], obligation=back,
        )  # fmt: skip
