"""BasicBot's choices, from hand-made views: no host, no network."""

from __future__ import annotations

import collections

from unonet.bots.basic_bot import BasicBot
from unonet.bots.policy import BotState, default_command
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, cards_pb2, views_pb2

C = cards_pb2


def card(color, rank):
    return C.Card(color=color, rank=rank)


RED_5 = card(C.COLOR_RED, C.RANK_FIVE)
RED_9 = card(C.COLOR_RED, C.RANK_NINE)
BLUE_2 = card(C.COLOR_BLUE, C.RANK_TWO)
GREEN_7 = card(C.COLOR_GREEN, C.RANK_SEVEN)
WILD = card(C.COLOR_BLACK, C.RANK_WILD)


def view(hand, **legal):
    plays = legal.pop("plays", [])
    result = views_pb2.SeatView(seat=0, phase=views_pb2.PHASE_TURN)
    result.hand.extend(C.CardRef(card=c) for c in hand)
    result.legal_actions.CopyFrom(actions_pb2.LegalActions(required=True, **legal))
    result.legal_actions.plays.extend(plays)
    return result


def option(*cards, kind=actions_pb2.PLAY_KIND_TURN, needs_color=False, window=0):
    return actions_pb2.PlayOption(cards=cards, kind=kind, needs_color=needs_color, reaction_window_id=window)


DRAW = actions_pb2.DrawOption(count=1)
#: What the runner would hand the policy at seat 0 with no window open (`decide` only reads it).
STATE = BotState(seat=0)


def test_it_plays_whenever_it_can():
    bot = BasicBot(seed=0)
    choices = collections.Counter(
        type(bot.decide(view([RED_5, BLUE_2, GREEN_7], plays=[option(RED_5), option(BLUE_2)], draw=DRAW), STATE))
        for _ in range(50)
    )
    assert choices == {cmd.Play: 50}


def test_its_play_choice_is_uniform_among_the_plays():
    bot = BasicBot(seed=1)
    turn = view([RED_5, BLUE_2, GREEN_7], plays=[option(RED_5), option(BLUE_2)], draw=DRAW)
    played = collections.Counter(bot.decide(turn, STATE).cards[0].rank for _ in range(400))
    assert set(played) == {C.RANK_FIVE, C.RANK_TWO}
    assert 150 < played[C.RANK_FIVE] < 250


def test_without_plays_it_chooses_among_the_other_commands():
    bot = BasicBot(seed=2)
    seen = {type(bot.decide(view([RED_5, BLUE_2], draw=DRAW, challenge=True), STATE)) for _ in range(50)}
    assert seen == {cmd.Draw, cmd.Challenge}
    assert isinstance(bot.decide(view([RED_5, BLUE_2], pass_turn=True), STATE), cmd.Pass)


def test_it_never_jumps_in_on_its_own_decision():
    jump = option(RED_5, kind=actions_pb2.PLAY_KIND_JUMP_IN, window=4)
    assert isinstance(BasicBot(seed=3).decide(view([RED_5, BLUE_2], plays=[jump], draw=DRAW), STATE), cmd.Draw)


def test_it_names_the_colour_it_holds_most_of_after_the_play():
    bot = BasicBot(seed=4)
    hand = [WILD, RED_5, RED_9, BLUE_2, GREEN_7]
    play = bot.decide(view(hand, plays=[option(WILD, needs_color=True)]), STATE)
    assert play == cmd.Play((WILD,), color=C.COLOR_RED)
    assert bot.decide(view(hand, choose_color=True), STATE) == cmd.ChooseColor(C.COLOR_RED)
    # Playing a red card away leaves the colours tied; only a tied colour is named.
    colors = {bot.favourite_color([RED_5, BLUE_2]) for _ in range(40)}
    assert colors == {C.COLOR_RED, C.COLOR_BLUE}
    assert bot.favourite_color([WILD]) in (C.COLOR_RED, C.COLOR_YELLOW, C.COLOR_GREEN, C.COLOR_BLUE)


def test_it_calls_uno_with_its_second_to_last_card():
    bot = BasicBot(seed=5)
    assert bot.decide(view([RED_5, BLUE_2], plays=[option(RED_5)]), STATE).call_uno
    assert not bot.decide(view([RED_5, BLUE_2, GREEN_7], plays=[option(RED_5)]), STATE).call_uno
    assert not bot.decide(view([RED_5], plays=[option(RED_5)]), STATE).call_uno
    # A multi-play that leaves one card calls too.
    assert bot.decide(view([RED_5, RED_5, BLUE_2], plays=[option(RED_5, RED_5)]), STATE).call_uno


def test_it_answers_every_kind_of_required_choice():
    bot = BasicBot(seed=6)
    assert bot.decide(view([RED_5], react_window_ids=[8]), STATE) == cmd.React(8)
    assert bot.decide(view([RED_5], swap_target_seats=[2]), STATE) == cmd.ChooseSwapTarget(2)
    five = actions_pb2.FiveSwapOption(target_seats=[3], cards=[BLUE_2])
    assert bot.decide(view([RED_5, BLUE_2], five_swap=five), STATE) == cmd.FiveSwap(3, BLUE_2)
    assert bot.decide(view([RED_5, BLUE_2], give_cards=[RED_5]), STATE) == cmd.GiveCard(RED_5)
    assert bot.decide(view([RED_5]), STATE) is None


def test_it_catches_reacts_and_calls_uno_when_it_may():
    bot = BasicBot(seed=7)
    state = BotState(seat=0)
    window = views_pb2.ReactionWindow(id=12, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH, subject_seat=2)
    state.open_windows[12] = window
    assert bot.respond(actions_pb2.LegalActions(catch_uno_targets=[2]), state) == cmd.CatchUno(2, 12)
    state.answered_windows.add(12)
    assert bot.respond(actions_pb2.LegalActions(catch_uno_targets=[2]), state) is None  # never twice
    assert bot.respond(actions_pb2.LegalActions(react_window_ids=[5]), state) == cmd.React(5)
    assert bot.respond(actions_pb2.LegalActions(call_uno=True), state) == cmd.CallUno()
    assert (
        bot.respond(actions_pb2.LegalActions(plays=[option(RED_5, kind=actions_pb2.PLAY_KIND_JUMP_IN)]), state) is None
    )


def test_the_same_seed_makes_the_same_choices():
    def choices(seed):
        bot = BasicBot(seed=seed)
        return [
            bot.decide(view([RED_5, BLUE_2, GREEN_7], plays=[option(RED_5), option(BLUE_2), option(GREEN_7)]), STATE)
            for _ in range(20)
        ]

    assert choices(11) == choices(11)
    assert choices(11) != choices(12)


def test_the_default_command_is_the_hosts_timeout_default():
    assert default_command(actions_pb2.LegalActions(draw=DRAW, pass_turn=True)) == cmd.Draw()
    assert default_command(actions_pb2.LegalActions(pass_turn=True)) == cmd.Pass()
    assert default_command(actions_pb2.LegalActions(choose_color=True)) is None


def test_bot_state_follows_windows_and_hand_sizes():
    from unonet.v1 import events_pb2

    state = BotState(seat=1)
    window = views_pb2.ReactionWindow(id=3, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH, subject_seat=0)
    state.update(events_pb2.Event(number=4, reaction_window_opened=events_pb2.ReactionWindowOpened(window=window)))
    assert state.catch_window(0) == 3 and state.catch_window(2) == 0
    state.update(events_pb2.Event(number=5, cards_drawn=events_pb2.CardsDrawn(seat=0, count=2, hand_size=3)))
    state.update(events_pb2.Event(number=6, turn_started=events_pb2.TurnStarted(seat=1)))
    assert state.open_windows == {} and state.hand_sizes == {0: 3} and state.last_event_number == 6
