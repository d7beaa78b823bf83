"""GreedyBot's choices on hand-built positions: no host, no network. Each test is one heuristic."""

from __future__ import annotations

from seat_views import (
    BLUE_2,
    BLUE_5,
    BLUE_9,
    DRAW,
    GREEN_7,
    RED_2,
    RED_5,
    RED_7,
    RED_8,
    RED_9,
    RED_DRAW_TWO,
    WILD,
    WILD_DRAW_FOUR,
    YELLOW_3,
    C,
    card,
    option,
    view,
)

from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.policy import BotState
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, events_pb2, views_pb2

STATE = BotState(seat=0)


def played(seat: int, *cards: C.Card, hand_size: int = 5) -> events_pb2.Event:
    return events_pb2.Event(cards_played=events_pb2.CardsPlayed(
        seat=seat, cards=[C.CardRef(card=c) for c in cards], hand_size=hand_size))


def test_it_keeps_the_colour_it_holds_most_in_force_over_a_higher_card():
    # The blue 9 sheds more points, but the red 2 leaves two reds to follow with.
    hand = [RED_2, RED_7, RED_8, BLUE_9]
    assert GreedyBot().decide(view(hand, plays=[option(RED_2), option(BLUE_9)], draw=DRAW), STATE).cards == (RED_2,)


def test_it_holds_a_wild_while_a_coloured_card_plays():
    hand = [RED_5, WILD, BLUE_2, GREEN_7]
    chosen = GreedyBot().decide(view(hand, plays=[option(RED_5), option(WILD, needs_color=True)], draw=DRAW), STATE)
    assert chosen.cards == (RED_5,)


def test_it_hits_a_player_on_one_card_with_an_action_card():
    blue_skip = card(C.COLOR_BLUE, C.RANK_SKIP)
    hand = [RED_9, RED_7, RED_8, RED_2, blue_skip]
    plays = [option(RED_9), option(blue_skip)]
    # Far from out, the next player gets the red 9: red stays in force with three reds to follow.
    assert GreedyBot().decide(view(hand, sizes=(5, 7), plays=plays, draw=DRAW), STATE).cards == (RED_9,)
    # On one card, they are skipped.
    assert GreedyBot().decide(view(hand, sizes=(5, 1), plays=plays, draw=DRAW), STATE).cards == (blue_skip,)


def test_it_plays_a_fair_wild_draw_four_at_a_threatened_player_and_never_bluffs():
    hand = [WILD_DRAW_FOUR, BLUE_2, GREEN_7, YELLOW_3]
    fair = GreedyBot().decide(view(hand, sizes=(4, 1), plays=[option(WILD_DRAW_FOUR, needs_color=True)], draw=DRAW),
                              STATE)
    assert fair.cards == (WILD_DRAW_FOUR,) and fair.color is not None
    bluff = option(WILD_DRAW_FOUR, needs_color=True, is_bluff=True)
    assert GreedyBot().decide(view(hand, sizes=(4, 1), plays=[bluff], draw=DRAW), STATE) == cmd.Draw()


def test_it_names_the_colour_it_holds_most_and_one_the_threatened_player_drew_on():
    hand = [BLUE_2, BLUE_5, RED_5]
    assert GreedyBot().decide(view(hand, choose_color=True), STATE) == cmd.ChooseColor(C.COLOR_BLUE)
    bot = GreedyBot()
    bot.on_event(played(1, RED_9))
    bot.on_event(events_pb2.Event(cards_drawn=events_pb2.CardsDrawn(seat=1, count=1,
                                                                   reason=events_pb2.DRAW_REASON_TURN)))
    # Seat 1 drew on red and holds one card: red now, though blue is held more.
    assert bot.decide(view(hand, sizes=(3, 1), choose_color=True), STATE) == cmd.ChooseColor(C.COLOR_RED)


def test_it_calls_uno_with_its_second_to_last_card():
    assert GreedyBot().decide(view([RED_5, BLUE_2], plays=[option(RED_5)]), STATE).call_uno
    assert not GreedyBot().decide(view([RED_5, BLUE_2, RED_7], plays=[option(RED_5)]), STATE).call_uno


def _wild_draw_four_on(bot: GreedyBot, before: C.Card, accused_cards: int) -> views_pb2.SeatView:
    bot.on_event(played(1, before))
    bot.on_event(played(1, WILD_DRAW_FOUR, hand_size=accused_cards))
    obligation = views_pb2.DrawObligation(amount=4, target_seat=0, setter_seat=1, challengeable=True)
    return view([BLUE_2, GREEN_7], sizes=(2, accused_cards), obligation=obligation,
                draw=actions_pb2.DrawOption(count=4, accepts_obligation=True), challenge=True)


def test_it_challenges_when_the_accused_very_likely_held_the_colour():
    bot = GreedyBot()
    assert bot.decide(_wild_draw_four_on(bot, RED_5, accused_cards=9), STATE) == cmd.Challenge()


def test_it_takes_the_four_when_the_odds_say_the_card_was_fair():
    bot = GreedyBot()
    for _ in range(23):  # nearly every red card is already in the pile: the accused very likely had none
        bot.on_event(played(1, RED_7))
    assert bot.decide(_wild_draw_four_on(bot, RED_5, accused_cards=1), STATE) == cmd.Draw()


def test_an_accused_found_innocent_again_and_again_is_challenged_no_more():
    bot = GreedyBot()
    for _ in range(6):
        bot.on_event(events_pb2.Event(challenge_resolved=events_pb2.ChallengeResolved(accused_seat=1, guilty=False)))
    assert bot.decide(_wild_draw_four_on(bot, RED_5, accused_cards=3), STATE) == cmd.Draw()


def test_it_stacks_rather_than_draws():
    obligation = views_pb2.DrawObligation(amount=2, target_seat=0, setter_seat=1)
    turn = view([RED_DRAW_TWO, BLUE_2, GREEN_7], obligation=obligation, plays=[option(RED_DRAW_TWO)],
                draw=actions_pb2.DrawOption(count=2, accepts_obligation=True))
    assert GreedyBot().decide(turn, STATE).cards == (RED_DRAW_TWO,)


def test_it_keeps_a_drawn_wild_while_it_holds_many_cards():
    hand = [WILD, RED_5, BLUE_2, GREEN_7, YELLOW_3]
    turn = view(hand, plays=[option(WILD, needs_color=True)], pass_turn=True)
    assert GreedyBot().decide(turn, STATE) == cmd.Pass()


def test_house_rule_choices():
    bot = GreedyBot()
    assert bot.decide(view([RED_5], sizes=(1, 5, 2, 9), swap_target_seats=[1, 2, 3]), STATE) == cmd.ChooseSwapTarget(2)
    five = actions_pb2.FiveSwapOption(target_seats=[1, 2], cards=[WILD, RED_9, BLUE_2, BLUE_5])
    # It gives the high card of the colour it holds least, and never a wild; to the smallest hand.
    assert bot.decide(view([WILD, RED_9, BLUE_2, BLUE_5], sizes=(4, 6, 3), five_swap=five), STATE) == cmd.FiveSwap(
        2, RED_9)
    assert bot.decide(view([WILD, RED_9, BLUE_2, BLUE_5], give_cards=[WILD, BLUE_2]), STATE) == cmd.GiveCard(BLUE_2)
    assert bot.decide(view([RED_5], react_window_ids=[8]), STATE) == cmd.React(8)


def test_it_catches_calls_and_jumps_in_at_once():
    bot = GreedyBot()
    state = BotState(seat=0, hand_sizes={0: 2})
    catch = actions_pb2.LegalActions(catch_uno_targets=[1], catch_uno=[actions_pb2.CatchOption(target_seat=1,
                                                                                               reaction_window_id=12)])
    assert bot.respond(catch, state) == cmd.CatchUno(1, 12)
    state.answered_windows.add(12)
    assert bot.respond(catch, state) is None
    assert bot.respond(actions_pb2.LegalActions(call_uno=True), state) == cmd.CallUno()
    jumps = actions_pb2.LegalActions(plays=[option(RED_5, kind=actions_pb2.PLAY_KIND_JUMP_IN, window=4),
                                            option(WILD, kind=actions_pb2.PLAY_KIND_JUMP_IN, window=4)])
    assert bot.respond(jumps, state) == cmd.Play((RED_5,), call_uno=True, reaction_window_id=4)


def test_going_out_beats_every_other_play():
    hand = [card(C.COLOR_RED, C.RANK_ONE)]
    assert GreedyBot().decide(view(hand, plays=[option(hand[0])]), STATE).cards == (hand[0],)
