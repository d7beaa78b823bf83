"""The one key map: every key of every moment, as the commands (or the hint) it gives, with no host."""

from __future__ import annotations

import pytest

from unonet.client import commands as cmd
from unonet.client.tui.controller import CloseScores, Controller, LeaveSeat, QuitApp, SendChat, help_lines
from unonet.client.tui.model import ConnectionState, GameModel, face_of
from unonet.v1 import actions_pb2, cards_pb2, rules_pb2, table_pb2, views_pb2

R5 = cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_FIVE)
R6 = cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_SIX)
G5 = cards_pb2.Card(color=cards_pb2.COLOR_GREEN, rank=cards_pb2.RANK_FIVE)
Y9 = cards_pb2.Card(color=cards_pb2.COLOR_YELLOW, rank=cards_pb2.RANK_NINE)
WILD = cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=cards_pb2.RANK_WILD)
Play = actions_pb2.PlayOption


def moment(hand: list[cards_pb2.Card], legal: actions_pb2.LegalActions, *, to_act: int | None = 0,
           **ruleset: bool) -> Controller:
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED)
    model.hand = [face_of(c) for c in hand]
    model.legal = legal
    model.legal_number = 1
    model.seat_to_act = to_act
    model.settings = table_pb2.TableSettings(ruleset=rules_pb2.Ruleset(**ruleset))
    model.seats = []
    model._ensure_seats(4)
    controller = Controller(model)
    controller.follow_model()
    return controller


def test_a_new_turn_puts_the_cursor_on_a_playable_card_and_enter_plays_it() -> None:
    legal = actions_pb2.LegalActions(plays=[Play(cards=[Y9])], draw=actions_pb2.DrawOption(count=1))
    keys = moment([R5, G5, Y9], legal)
    assert [keys.press("enter")] == [[cmd.Play((Y9,))]]


def test_enter_on_a_card_that_cannot_be_played_hints_and_sends_nothing() -> None:
    keys = moment([R5, Y9], actions_pb2.LegalActions(plays=[Play(cards=[Y9])]))
    keys.press("left")
    assert keys.press("enter") == []
    assert "the raised cards can" in keys.ui.hint


def test_a_wild_asks_for_its_colour_and_r_g_b_y_name_it() -> None:
    keys = moment([WILD], actions_pb2.LegalActions(plays=[Play(cards=[WILD], needs_color=True)]))
    assert keys.press("enter") == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == "color"
    assert keys.press("x") == [] and "name a colour" in keys.ui.hint
    assert keys.press("G") == [cmd.Play((WILD,), color=cards_pb2.COLOR_GREEN)]
    assert keys.ui.prompt is None


def test_choose_color_legal_makes_r_g_b_y_colours() -> None:
    keys = moment([R5], actions_pb2.LegalActions(choose_color=True))
    assert keys.press("y") == [cmd.ChooseColor(cards_pb2.COLOR_YELLOW)]
    assert keys.press("b") == [cmd.ChooseColor(cards_pb2.COLOR_BLUE)]


def test_space_draws_or_accepts_and_p_passes_only_when_listed() -> None:
    keys = moment([R5], actions_pb2.LegalActions(draw=actions_pb2.DrawOption(count=4, accepts_obligation=True)))
    assert keys.press(" ") == [cmd.Draw()]
    assert keys.press("p") == [] and "nothing to pass" in keys.ui.hint
    keys.model.legal = actions_pb2.LegalActions(pass_turn=True, plays=[Play(cards=[R5])])
    assert keys.press("P") == [cmd.Pass()]
    assert keys.press(" ") == [] and "cannot draw" in keys.ui.hint


def test_h5_marked_cards_play_as_one_group_in_the_order_marked() -> None:
    legal = actions_pb2.LegalActions(plays=[Play(cards=[R5]), Play(cards=[G5]), Play(cards=[R5, G5])])
    keys = moment([R5, G5, Y9], legal, multi_play=True)
    keys.ui.cursor = 0  # the hand shows R5 Y9 G5 (by colour)
    keys.press("m")
    keys.press("right")
    keys.press("right")
    keys.press("m")
    assert keys.press("enter") == [cmd.Play((R5, G5))]
    assert keys.ui.marks == []


def test_h4_a_run_may_stop_at_any_prefix_but_not_skip_a_card() -> None:
    legal = actions_pb2.LegalActions(plays=[Play(cards=[R5]), Play(cards=[R5, R6, G5])])
    keys = moment([R5, R6, G5], legal, runs=True)
    keys.ui.cursor = 0  # R5
    keys.press("m")
    keys.ui.cursor = 1  # R6
    keys.press("m")
    assert keys.press("enter") == [cmd.Play((R5, R6))]
    keys.ui.cursor, keys.ui.marks = 0, [0, 2]  # R5 then G5: not a prefix of the run
    assert keys.press("enter") == [] and "cannot be played together" in keys.ui.hint


def test_marking_on_a_one_card_table_hints() -> None:
    keys = moment([R5], actions_pb2.LegalActions(plays=[Play(cards=[R5])]))
    assert keys.press("m") == [] and "one card at a time" in keys.ui.hint


def test_a_jump_in_quotes_its_window_out_of_turn() -> None:
    legal = actions_pb2.LegalActions(plays=[Play(cards=[R5], kind=actions_pb2.PLAY_KIND_JUMP_IN, reaction_window_id=9)])
    keys = moment([R5], legal, to_act=2, jump_in=True)
    assert keys.press("enter") == [cmd.Play((R5,), reaction_window_id=9)]


def test_u_calls_uno_or_arms_it_for_the_play_that_leaves_one_card() -> None:
    keys = moment([R5, Y9], actions_pb2.LegalActions(plays=[Play(cards=[R5])]))
    assert keys.press("u") == [] and keys.ui.uno_armed
    keys.ui.cursor = 0
    assert keys.press("enter") == [cmd.Play((R5,), call_uno=True)]
    keys.model.legal = actions_pb2.LegalActions(call_uno=True)
    assert keys.press("U") == [cmd.CallUno()]
    keys.model.legal = actions_pb2.LegalActions()
    assert keys.press("u") == [] and "no UNO to call" in keys.ui.hint


def test_c_catches_the_one_target_with_its_window_or_challenges() -> None:
    keys = moment([R5], actions_pb2.LegalActions(catch_uno_targets=[2]), to_act=3)
    keys.model.windows[7] = views_pb2.ReactionWindow(id=7, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH,
                                                     subject_seat=2)
    assert keys.press("c") == [cmd.CatchUno(2, 7)]
    keys.model.legal = actions_pb2.LegalActions(challenge=True, draw=actions_pb2.DrawOption(count=4))
    assert keys.press("c") == [cmd.Challenge()]
    keys.model.legal = actions_pb2.LegalActions()
    assert keys.press("c") == [] and "nobody to catch" in keys.ui.hint


def test_c_asks_which_when_catching_and_challenging_are_both_open() -> None:
    keys = moment([R5], actions_pb2.LegalActions(catch_uno_targets=[1, 3], challenge=True))
    assert keys.press("c") == [] and keys.ui.prompt is not None
    assert keys.press("3") == [cmd.CatchUno(3, 0)]
    keys.press("c")
    assert keys.press("c") == [cmd.Challenge()]


def test_b_reacts_to_a_slap_or_sound_wild() -> None:
    keys = moment([R5], actions_pb2.LegalActions(react_window_ids=[11]), to_act=None)
    assert keys.press("B") == [cmd.React(11)]
    keys.model.legal = actions_pb2.LegalActions()
    assert keys.press("b") == [] and "nothing to react to" in keys.ui.hint


def test_seven_o_target_by_seat_number() -> None:
    keys = moment([R5], actions_pb2.LegalActions(swap_target_seats=[1, 2, 3]))
    assert keys.press("2") == [cmd.ChooseSwapTarget(2)]
    assert keys.press("0") == [] and "swap hands with one of seats 1, 2, 3" in keys.ui.hint


def test_five_swap_card_then_seat_and_giving_a_card_back() -> None:
    option = actions_pb2.FiveSwapOption(target_seats=[1, 3], cards=[R5, Y9])
    keys = moment([R5, Y9], actions_pb2.LegalActions(five_swap=option, pass_turn=True))
    keys.ui.cursor = 1  # Y9
    assert keys.press("enter") == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == "five_target"
    assert keys.press("2") == [] and "seat 1 or 3" in keys.ui.hint
    assert keys.press("3") == [cmd.FiveSwap(3, Y9)]
    keys.model.legal = actions_pb2.LegalActions(give_cards=[R5])
    keys.ui.cursor = 0
    assert keys.press("enter") == [cmd.GiveCard(R5)]


def test_chat_during_a_silence_asks_first() -> None:
    keys = moment([R5], actions_pb2.LegalActions())
    keys.press("t")
    assert keys.submit_chat("hi") == [SendChat("hi")]
    keys.model.silence_seat = 2
    keys.press("T")
    assert keys.submit_chat("hi") == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == "confirm_chat"
    assert keys.press("n") == [] and keys.ui.hint == "message not sent"
    keys.press("t")
    keys.submit_chat("sorry")
    assert keys.press("y") == [SendChat("sorry")]


def test_q_quits_and_l_leaves_after_asking() -> None:
    keys = moment([R5], actions_pb2.LegalActions())
    assert keys.press("q") == [QuitApp()]
    assert keys.press("l") == [] and keys.ui.prompt is not None
    assert keys.press("n") == [] and keys.ui.hint == "you keep your seat"
    keys.press("L")
    assert keys.press("Y") == [LeaveSeat()]


@pytest.mark.parametrize("key", ["enter", " ", "p", "u", "c", "b"])
def test_no_command_leaves_while_reconnecting_or_watching(key: str) -> None:
    legal = actions_pb2.LegalActions(plays=[Play(cards=[R5])], draw=actions_pb2.DrawOption(count=1), pass_turn=True,
                                     call_uno=True, catch_uno_targets=[1], react_window_ids=[3])
    keys = moment([R5], legal)
    keys.model.connection = ConnectionState.RECONNECTING
    assert keys.press(key) == [] and "reconnecting" in keys.ui.hint
    keys.model.connection, keys.model.seat = ConnectionState.CONNECTED, None
    assert keys.press(key) == [] and "watching" in keys.ui.hint


def test_a_dead_key_hints_and_help_lists_this_moments_keys() -> None:
    keys = moment([R5], actions_pb2.LegalActions(plays=[Play(cards=[R5])], draw=actions_pb2.DrawOption(count=1)))
    assert keys.press("z") == [] and "? lists the keys" in keys.ui.hint
    keys.press("?")
    assert keys.ui.prompt is not None and keys.ui.prompt.kind == "help"
    text = "\n".join(help_lines(keys.model, keys.ui))
    assert "Enter       play the chosen card" in text and "Space       draw a card" in text
    assert "P " not in text.split("T  ")[0]  # nothing to pass now: P is not listed
    keys.press("x")
    assert keys.ui.prompt is None
    keys.press("?")
    assert keys.press("enter") == [cmd.Play((R5,))] and keys.ui.prompt is None  # the key the help named acts
    keys.press("?")
    assert keys.press("?") == [] and keys.press("escape") == [] and keys.ui.prompt is None


def test_no_key_means_two_things_and_keys_are_not_case_sensitive() -> None:
    from unonet.client.tui.controller import _KEYS

    letters = [k for k in _KEYS if len(k) == 1 and k.isalpha()]
    assert all(k == k.lower() for k in letters) and len(letters) == len(set(letters))
    keys = moment([R5], actions_pb2.LegalActions(draw=actions_pb2.DrawOption(count=1)))
    assert keys.press("P") == keys.press("p") == []


def test_a_rounds_scoreboard_stays_until_a_key_closes_it_and_the_final_one_stays() -> None:
    from unonet.client.tui.controller import board_is_open
    from unonet.client.tui.model import Scoreboard, ScoreLine

    keys = moment([R5], actions_pb2.LegalActions(plays=[Play(cards=[R5])]))
    keys.model.scoreboard = Scoreboard(1, (2,), (ScoreLine(0, 5, 0, 0, False),), final=False)
    assert board_is_open(keys.model, keys.ui)
    # Closed, not played; the host hears the scores were read (it holds the next round's first turn).
    assert keys.press("enter") == [CloseScores(1)] and not board_is_open(keys.model, keys.ui)
    assert keys.press("enter") == [cmd.Play((R5,))]
    keys.model.scoreboard = Scoreboard(2, (2,), (), final=True)
    assert keys.press("x") == []
    assert board_is_open(keys.model, keys.ui)


def test_q_asks_first_where_the_game_stops_with_the_client_and_says_what_happens() -> None:
    keys = moment([R5], actions_pb2.LegalActions(plays=[Play(cards=[R5])]))
    assert keys.press("q") == [QuitApp()]  # someone else's host: the seat stays, nothing to ask
    keys.ui.quit_warning = "This stops the host."
    assert keys.press("q") == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == "confirm_quit"
    assert any("This stops the host." in line for line in help_lines(keys.model, keys.ui))
    assert keys.press("n") == [] and keys.ui.prompt is None and keys.ui.hint == "you play on"
    assert keys.press("q") == [] and keys.press("escape") == [] and keys.ui.prompt is None
    assert keys.press("q") == [] and keys.press("y") == [QuitApp()]


def test_an_open_colour_prompt_sends_nothing_while_reconnecting() -> None:
    keys = moment([WILD], actions_pb2.LegalActions(plays=[Play(cards=[WILD], needs_color=True)]))
    keys.press("enter")
    keys.model.connection = ConnectionState.RECONNECTING
    assert keys.press("r") == [] and "reconnecting" in keys.ui.hint and keys.ui.prompt is not None
    keys.model.connection = ConnectionState.CONNECTED
    assert keys.press("r") == [cmd.Play((WILD,), color=cards_pb2.COLOR_RED)]


def test_s_and_a_start_early_and_add_a_bot_for_the_tables_creator_only() -> None:
    from unonet.client.tui.controller import AddBot, StartMatch, UiState

    model = GameModel(seat=0, connection=ConnectionState.CONNECTED)
    model._ensure_seats(4)
    model.seats[0].occupied = True
    guest = Controller(model, UiState())
    assert guest.press("s") == [] and "only the table's creator" in guest.ui.hint
    assert guest.press("A") == [] and "only the table's creator" in guest.ui.hint
    owner = Controller(model, UiState(is_owner=True))
    assert owner.press("a") == [AddBot()]
    assert owner.press("S") == [StartMatch()]
    assert any(line.startswith("  S ") for line in help_lines(model, owner.ui))
    for seat in model.seats:
        seat.occupied = True
    assert owner.press("a") == [] and "every seat is taken" in owner.ui.hint
    model.phase, model.round_number = views_pb2.PHASE_TURN, 1
    assert owner.press("s") == [] and "started already" in owner.ui.hint
    assert not any(line.startswith("  S ") for line in help_lines(model, owner.ui))


def test_help_over_a_question_lists_its_keys_and_the_question_stays() -> None:
    keys = moment([WILD, R5], actions_pb2.LegalActions(plays=[Play(cards=[WILD], needs_color=True)]))
    assert keys.press("enter") == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == "color"
    keys.press("?")
    assert keys.ui.prompt is not None and keys.ui.prompt.kind == "help"
    assert any(line.startswith("  R G B Y     name the colour") for line in help_lines(keys.model, keys.ui))
    assert keys.press("g") == [cmd.Play((WILD,), color=cards_pb2.COLOR_GREEN)]  # the colour, straight from the help
    assert keys.ui.prompt is None
    keys.press("enter")
    keys.press("?")
    keys.press("escape")  # closes the help only: the colour is still asked
    assert keys.ui.prompt is not None and keys.ui.prompt.kind == "color"


# ------------------------------------------------------------------------------ overlays and settings


def test_i_d_h_o_open_their_overlays_and_their_own_key_or_esc_closes_them() -> None:
    legal = actions_pb2.LegalActions(plays=[Play(cards=[R5])], draw=actions_pb2.DrawOption(count=1))
    keys = moment([R5], legal)
    for key, kind in (("i", "rules"), ("d", "details"), ("h", "log"), ("o", "settings"), ("?", "help")):
        assert keys.press(key) == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == kind
        assert keys.press(key) == [] and keys.ui.prompt is None
        keys.press(key)
        assert keys.press("escape") == [] and keys.ui.prompt is None
    keys.press("i")
    assert keys.press("down") == [] and keys.ui.panel_scroll == 1 and keys.ui.prompt is not None  # scrolls
    assert keys.press("d") == [] and keys.ui.prompt is not None and keys.ui.prompt.kind == "details"
    assert keys.press("enter") == [cmd.Play((R5,))] and keys.ui.prompt is None  # closes, and the key acts


def test_an_overlay_over_a_question_keeps_the_question() -> None:
    keys = moment([WILD], actions_pb2.LegalActions(plays=[Play(cards=[WILD], needs_color=True)]))
    keys.press("enter")
    keys.press("i")
    assert keys.ui.prompt is not None and keys.ui.prompt.kind == "rules"
    keys.press("escape")
    assert keys.ui.prompt is not None and keys.ui.prompt.kind == "color"
    assert keys.press("r") == [cmd.Play((WILD,), color=cards_pb2.COLOR_RED)]


def test_the_settings_overlay_changes_each_setting_and_asks_to_keep_it() -> None:
    from unonet.client.tui.controller import SettingsChanged

    keys = moment([R5], actions_pb2.LegalActions())
    keys.press("o")
    assert keys.press("b") == [SettingsChanged()] and keys.ui.bell is False
    assert keys.press("t") == [SettingsChanged()] and keys.ui.title is False
    assert keys.press("k") == [SettingsChanged()] and keys.ui.colour_blind is True
    assert keys.press("right") == [SettingsChanged()] and keys.ui.pace == 0.8
    for _ in range(10):
        keys.press("left")
    assert keys.ui.pace == 0.0 and keys.ui.prompt is not None  # the overlay stays open for more
    keys.press("escape")
    assert keys.press("k") == [SettingsChanged()] and keys.ui.colour_blind is False  # K anywhere


def test_the_scores_close_on_a_key_and_the_overlay_keys_open_over_them() -> None:
    from unonet.client.tui.model import Scoreboard, ScoreLine

    keys = moment([R5], actions_pb2.LegalActions())
    keys.model.scoreboard = Scoreboard(2, (1,), (ScoreLine(0, 5, 0, 5, False),), final=False)
    keys.press("i")
    assert keys.ui.prompt is not None and keys.ui.board_closed_for == 0  # the rules over the open scores
    keys.press("escape")
    assert keys.press("space") == [CloseScores(2)] and keys.ui.board_closed_for == 2  # and the host is told


def test_at_the_match_end_n_asks_for_a_rematch_and_s_saves_the_replay() -> None:
    from unonet.client.tui.controller import Rematch, SaveReplay, StartMatch

    keys = moment([], actions_pb2.LegalActions(), to_act=None)
    assert keys.press("n") == [] and "once the match is over" in keys.ui.hint
    keys.model.match_over = True
    assert keys.press("n") == [Rematch()] and keys.press("s") == [SaveReplay()]
    assert StartMatch() not in keys.press("s")
    keys.model.seat = None
    assert keys.press("n") == [] and "only a player" in keys.ui.hint
    assert any("N           a rematch" in line for line in help_lines(keys.model, keys.ui)) is False


def test_a_hint_goes_when_the_turn_it_was_about_does() -> None:
    keys = moment([R5], actions_pb2.LegalActions(), to_act=1)
    keys.press("x")
    assert "does nothing here" in keys.ui.hint
    keys.follow_model()
    assert keys.ui.hint  # the same turn: it stays
    keys.model.seat_to_act = 2
    keys.follow_model()
    assert keys.ui.hint == ""
