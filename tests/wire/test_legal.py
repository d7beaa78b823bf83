"""Legal actions on the wire (`unonet.wire.legal`): the engine's flat list grouped into the protocol's summary."""

from __future__ import annotations

from wire_faces import (
    B3,
    G2,
    R5,
    SOUND,
    WD4,
    WILD,
    card,
)

from unonet.engine import (
    CallUno,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.v1 import actions_pb2
from unonet.wire import convert


def test_legal_actions_on_ones_turn() -> None:
    actions = [
        React(1, 7),
        CatchUno(1, 2),
        CatchUno(1, 3),
        CallUno(1),
        Play(1, (R5,)),
        Play(1, (R5,), call_uno=True),
        Play(1, (R5, card("yellow 5"))),
        Play(1, (WILD,)),
        Play(1, (SOUND,)),
        Play(1, (WD4,)),
        Draw(1),
    ]
    msg = convert.legal_actions_to_pb(actions, required=True, current_seat=1)
    assert msg.required and msg.call_uno and not msg.challenge and not msg.pass_turn
    assert [[convert.card_from_pb(c) for c in option.cards] for option in msg.plays] == [
        [R5],
        [R5, card("yellow 5")],
        [WILD],
        [SOUND],
        [WD4],
    ]
    assert [option.needs_color for option in msg.plays] == [False, False, True, False, True]
    assert {option.kind for option in msg.plays} == {actions_pb2.PLAY_KIND_TURN}
    assert list(msg.catch_uno_targets) == [2, 3] and list(msg.react_window_ids) == [7]
    assert (msg.draw.count, msg.draw.accepts_obligation, msg.draw.until_playable) == (1, False, False)


def test_legal_actions_under_an_obligation() -> None:
    actions = [Draw(2), Challenge(2), Play(2, (WD4,))]
    msg = convert.legal_actions_to_pb(
        actions, required=True, current_seat=2, obligation_target=2, obligation_amount=8, draw_to_match=True
    )
    assert (msg.draw.count, msg.draw.accepts_obligation, msg.draw.until_playable) == (8, True, False)
    assert msg.challenge
    drawing = convert.legal_actions_to_pb([Draw(2)], required=True, current_seat=2, draw_to_match=True)
    assert drawing.draw.until_playable and not drawing.draw.accepts_obligation


def test_out_of_turn_plays_are_jump_ins_or_run_cuts() -> None:
    jump = convert.legal_actions_to_pb([Play(3, (R5,))], required=False, current_seat=1, jump_in_window=12)
    assert (jump.plays[0].kind, jump.plays[0].reaction_window_id, jump.required) == (
        actions_pb2.PLAY_KIND_JUMP_IN,
        12,
        False,
    )
    cut = convert.legal_actions_to_pb([Play(2, (R5,))], required=False, current_seat=1, run_cut_window=4)
    assert (cut.plays[0].kind, cut.plays[0].reaction_window_id) == (actions_pb2.PLAY_KIND_RUN_CUT, 4)


def test_choices_after_a_card() -> None:
    colours = convert.legal_actions_to_pb(
        [ChooseColor(0, c) for c in Color if c is not Color.BLACK], required=True, current_seat=0
    )
    assert colours.choose_color and not colours.plays
    swap = convert.legal_actions_to_pb([ChooseSwapTarget(0, 1), ChooseSwapTarget(0, 3)], required=True, current_seat=0)
    assert list(swap.swap_target_seats) == [1, 3]
    five = convert.legal_actions_to_pb(
        [FiveSwap(0, t, c) for t in (1, 2) for c in (R5, B3)], required=True, current_seat=0
    )
    assert list(five.five_swap.target_seats) == [1, 2]
    assert [convert.card_from_pb(c) for c in five.five_swap.cards] == [R5, B3]
    give = convert.legal_actions_to_pb([GiveCard(2, R5), GiveCard(2, G2)], required=True, current_seat=0)
    assert [convert.card_from_pb(c) for c in give.give_cards] == [R5, G2]
    after_draw = convert.legal_actions_to_pb([Play(0, (R5,)), Pass(0)], required=True, current_seat=0)
    assert after_draw.pass_turn and len(after_draw.plays) == 1
    assert convert.legal_actions_to_pb([], required=False, current_seat=0) == actions_pb2.LegalActions()
