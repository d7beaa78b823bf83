"""The game screen as pure functions: the model and the screen state in, the canvas a terminal would show out.

Every test draws the whole screen (`layout.draw_screen`) at the sizes a person plays at (80x24, 100x30,
160x48) and reads it as text, as a player reads it: where the seats sit, the top card, the hand, the
banners that come and go, the overlays that never clip, the match's end.
"""

from __future__ import annotations

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from unonet.client.tui.banners import PILE, Banner
from unonet.client.tui.controller import Prompt, UiState
from unonet.client.tui.layout import draw_screen, opponent_places
from unonet.client.tui.model import (
    CardFace,
    ConnectionState,
    GameModel,
    LastPlay,
    RoundResult,
    Scoreboard,
    ScoreLine,
    SeatModel,
)
from unonet.client.tui.render import card_glyph, card_label, render_status, render_windows
from unonet.client.tui.rules_text import OPTIONS, rules_lines, stakes
from unonet.v1 import actions_pb2, cards_pb2, rules_pb2, views_pb2

SIZES = [(80, 24), (100, 30), (160, 48)]
R5 = CardFace(cards_pb2.COLOR_RED, cards_pb2.RANK_FIVE)
G7 = CardFace(cards_pb2.COLOR_GREEN, cards_pb2.RANK_SEVEN)
W4 = CardFace(cards_pb2.COLOR_BLACK, cards_pb2.RANK_WILD_DRAW_FOUR)
B_SKIP = CardFace(cards_pb2.COLOR_BLUE, cards_pb2.RANK_SKIP)


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(piece for _, piece, *_ in fragments)


def table(players: int = 4, *, seat: int | None = 0) -> GameModel:
    """A dealt table: `players` seats named p0, p1, ..., this client at `seat`, p2 to act."""
    model = GameModel(seat=seat, connection=ConnectionState.CONNECTED, table_name="ann's table", table_id="t-123")
    model.settings.seat_count = players
    model.settings.ruleset.CopyFrom(rules_pb2.Ruleset(preset="house", target_score=500, scoring=1))
    model.seats = [SeatModel(s, name=f"p{s}", occupied=True, hand_size=5 + s, is_bot=s % 2 == 1, score=10 * s)
                   for s in range(players)]
    model.round_number, model.phase = 3, views_pb2.PHASE_TURN
    model.top_card, model.current_color = G7, cards_pb2.COLOR_GREEN
    model.hand = [R5, G7, W4, B_SKIP]
    model.seat_to_act = 2 % players
    model.seats[model.seat_to_act].deadline = 42.0
    model.draw_pile_size = 61
    model.fairness_on, model.fairness_checks = True, 99
    return model


def screen(model: GameModel, ui: UiState | None = None, size: tuple[int, int] = (80, 24), now: float = 10.0,
           panel: list[tuple[str, str]] | None = None) -> str:
    canvas, _ = draw_screen(model, ui or UiState(), now, size[0], size[1], panel)
    assert len(canvas.chars) == size[1] and all(len(row) == size[0] for row in canvas.chars)
    return canvas.text()


def my_turn(model: GameModel, *plays: CardFace) -> GameModel:
    model.seat_to_act = model.seat
    model.seats[model.seat or 0].deadline = 30.0
    model.legal = actions_pb2.LegalActions(plays=[actions_pb2.PlayOption(cards=[face.to_proto()]) for face in plays],
                                           draw=actions_pb2.DrawOption(count=1))
    model.legal_number += 1
    return model


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("players", [2, 4, 10])
def test_every_seat_is_at_the_table_at_every_size(size: tuple[int, int], players: int) -> None:
    shown = screen(table(players), size=size)
    for seat in range(1, players):
        assert f"p{seat} " in shown, (seat, shown)
    assert "p0 (you)" in shown  # this seat on the ring's bottom edge
    assert "first to 500" in shown and "house" in shown and "round 3" in shown and "✓ fair" in shown
    assert "61 left" in shown  # the draw pile
    assert "GREEN" in shown  # the top card says its colour in words: readable without colour


def test_opponents_sit_in_the_order_of_play_from_the_left() -> None:
    """RULES.md: seat k+1 sits on seat k's left; play goes clockwise: left, across, then right."""
    assert opponent_places(table(4, seat=1)) == (1, [2], [3], [0])
    assert opponent_places(table(2)) == (0, [], [1], [])
    me, left, across, right = opponent_places(table(10, seat=7))
    assert me == 7 and left == [8, 9] and across == [0, 1, 2, 3, 4] and right == [5, 6]
    assert opponent_places(table(3, seat=None))[0] == 0  # a spectator sees seat 0 at the bottom
    shown = screen(table(4, seat=1)).splitlines()
    row_of = {name: next(i for i, line in enumerate(shown) if f" {name} " in line) for name in ("p0", "p2", "p3")}
    col_of = {name: shown[row_of[name]].index(f" {name} ") for name in ("p0", "p2", "p3")}
    assert row_of["p3"] < row_of["p2"] and col_of["p2"] < col_of["p0"]  # across above, left to the left


def test_the_seat_to_act_carries_the_only_clock_on_screen() -> None:
    model = table(4)
    shown = screen(model, now=10.0)
    assert shown.count("32s") == 1 and "▶ p2" in shown
    my_turn(model, R5)
    shown = screen(model, now=10.0)
    assert shown.count("20s") == 1 and "YOUR TURN" in shown and "32s" not in shown


def test_playable_cards_are_raised_and_the_chosen_one_drawn_heavy() -> None:
    model = my_turn(table(4), R5)
    lines = screen(model, UiState(colour_blind=True)).splitlines()
    top = next(i for i, line in enumerate(lines) if "┏━━━┓" in line)  # the chosen card: R5, the playable one
    assert "┃R5 ┃" in lines[top + 1] or "┃ R5┃" in lines[top + 1] or "R5" in lines[top + 1]
    assert "╭───╮" in lines[top + 1]  # the other cards sit a row lower
    assert "G7" in lines[top + 2] and "+4" in lines[top + 2] and "B⊘" in lines[top + 2]
    model.connection = ConnectionState.RECONNECTING  # nothing stale offered as playable
    lines = screen(model, UiState(colour_blind=True)).splitlines()
    assert not any("R5" in line for line in lines[:top + 2] if "┃" in line or ("│" in line and "R5" in line))


def test_colour_blind_glyphs_carry_their_colour_letter() -> None:
    assert card_glyph(R5, letters=True) == "R5" and card_glyph(R5, letters=False) == "5"
    assert card_glyph(W4, letters=True) == "+4" and card_glyph(B_SKIP, letters=True) == "B⊘"
    assert card_label(R5, letters=True) == "R5" and card_label(W4, letters=True) == "W+4"


def test_a_long_hand_scrolls_to_keep_the_chosen_card_in_view() -> None:
    model = table(4)
    model.hand = [CardFace(c, r) for c in (1, 2, 3, 4) for r in range(1, 14)]
    ui = UiState(colour_blind=True, cursor=len(model.hand) - 1)
    shown = screen(model, ui)
    assert "›" not in shown.splitlines()[-6] and "‹" in shown and "B+2" in shown and "R0" not in shown


def test_the_pile_says_who_played_the_last_card_and_what_is_owed() -> None:
    model = table(4)
    model.last_play = LastPlay(3, (G7,))
    model.obligation = views_pb2.DrawObligation(amount=4, target_seat=0, setter_seat=3, challengeable=True)
    shown = screen(model)
    assert "p3 played" in shown and "+4 on you" in shown and "challengeable (C)" in shown
    assert "colour  green" in shown


def test_banners_land_where_it_happened_then_go() -> None:
    model = table(4)
    model.banners.append(Banner(1, "⊘ skipped", "alert", at=10.0))
    model.banners.append(Banner(PILE, "⇄ play reverses", at=10.0))
    model.banners.append(Banner(0, "UNO!", "uno", at=10.0))
    shown = screen(model, now=11.0)
    skipped = next(line for line in shown.splitlines() if "skipped" in line)
    assert "⇄ play reverses" in shown and "UNO!" in shown
    assert abs(skipped.index("skipped") - shown.splitlines()[next(i for i, line in enumerate(shown.splitlines())
                                                              if " p1 " in line)].index("p1")) < 16
    later = screen(model, now=14.0)  # 4 s on: every banner is gone
    assert "skipped" not in later and "reverses" not in later and "UNO!" not in later


def test_an_open_window_is_loud_with_its_countdown_and_key() -> None:
    model = table(2)
    model.windows[3] = views_pb2.ReactionWindow(id=3, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH,
                                                eligible_seats=[0], subject_seat=1, deadline=Timestamp(seconds=12))
    assert text(render_windows(model, 10.5)) == " UNO CATCH p1 1.5s — C to catch!  "
    assert "UNO CATCH p1 1.5s — C to catch!" in screen(model, now=10.5)
    model.connection = ConnectionState.RECONNECTING
    assert render_windows(model, 10.5) == []


def test_reconnecting_is_said_while_it_lasts_and_not_a_moment_longer() -> None:
    model = table(4)
    model.set_connection(ConnectionState.RECONNECTING, "the host is unreachable: reconnecting…")
    shown = screen(model)
    assert shown.startswith(" RECONNECTING") and "the host is unreachable" in shown
    assert "reconnecting to the host" in text(render_status(model, UiState(), 0.0))
    model.set_connection(ConnectionState.CONNECTED)
    shown = screen(model)
    assert "reconnect" not in shown.lower() and "unreachable" not in shown


def test_the_main_hint_names_u_and_c_when_they_apply() -> None:
    model = my_turn(table(4), R5)
    model.hand = [R5, G7]
    assert "2 cards: U calls UNO with your play" in text(render_status(model, UiState(), 0.0))
    assert "UNO goes with your play" in text(render_status(model, UiState(uno_armed=True), 0.0))
    model.hand = [R5]
    model.legal.call_uno = True
    assert "1 card: U calls UNO" in text(render_status(model, UiState(), 0.0))
    model.seat_to_act = 1
    model.legal = actions_pb2.LegalActions(catch_uno_targets=[1])
    assert text(render_status(model, UiState(), 0.0)) == " p1 did not call UNO: C catches!"
    model.seats[1].hand_size = 1
    assert "1 card " in screen(model) and "1 cards" not in screen(model)


def test_a_command_on_its_way_says_so_instead_of_offering_the_options_it_used() -> None:
    model = my_turn(table(2), R5)
    assert "sent — waiting for the host" in text(render_status(model, UiState(pending=True), 0.0))
    assert "YOUR TURN" in text(render_status(model, UiState(), 0.0))


@pytest.mark.parametrize("size", SIZES)
def test_the_round_scores_never_clip_a_line_and_keep_the_status_line(size: tuple[int, int]) -> None:
    model = my_turn(table(10), R5)
    model.scoreboard = Scoreboard(3, (4,), tuple(ScoreLine(s, 10 + s, 0, s * 3, s == 9) for s in range(10)),
                                  final=False, hands=tuple((s, (R5, G7, W4)) for s in range(10)))
    shown = screen(model, size=size, now=10.0)
    assert "SCORES AFTER ROUND 3" in shown and "p4 went out" in shown and "Space closes the scores" in shown
    for seat in range(10):
        assert f"{seat} p{seat}" in shown or (seat == 0 and "0 you" in shown), seat
    assert "↓ more" not in shown
    assert "YOUR TURN (20s)" in shown  # the next round's clock, on the status line while the scores cover it


def test_the_match_end_is_a_screen_of_its_own() -> None:
    model = table(4)
    lines = (ScoreLine(0, 0, 0, 512, False), ScoreLine(1, 30, 0, 120, False), ScoreLine(2, 5, 0, 300, False),
             ScoreLine(3, 9, 0, 40, False))
    model.rounds = [RoundResult(1, 2, tuple(ScoreLine(s, 0, 300 if s == 2 else 0, 0, False) for s in range(4))),
                    RoundResult(2, 0, tuple(ScoreLine(s, 0, 512 if s == 0 else 0, 0, False) for s in range(4)))]
    model.scoreboard = Scoreboard(2, (0,), lines, final=True)
    model.match_over, model.phase = True, views_pb2.PHASE_MATCH_OVER
    shown = screen(model, size=(100, 30))
    assert "YOU WIN THE MATCH" in shown and "2 rounds" in shown
    rows = [line for line in shown.splitlines() if "512" in line or "300" in line]
    assert rows[0].split()[1] == "you"  # the winner first
    assert "round 1: p2 went out" in shown and "N rematch · S saves the replay · Q quits" in shown
    assert "╭───╮" not in shown  # no hand, no table: the screen is the match's
    model.rematch = (2, "t-456")  # p2 set up a rematch and invited the table in its chat
    assert "p2 invites you to a rematch: N joins" in screen(model, size=(100, 30))


def test_the_header_says_the_stakes_and_a_failed_check_loudly() -> None:
    assert stakes(rules_pb2.Ruleset(target_score=500, scoring=rules_pb2.SCORING_RULE_WINNER_TAKES)) == "first to 500"
    assert "lowest" in stakes(rules_pb2.Ruleset(target_score=200, scoring=rules_pb2.SCORING_RULE_LOWEST_WINS))
    model = table(4)
    model.fairness_failure = "SEED_MISMATCH: the deck is not the one committed to"
    shown = screen(model)
    assert "FAIRNESS CHECK FAILED" in shown.splitlines()[0] and "✓ fair" not in shown
    model.fairness_failure, model.fairness_on = "", False
    model.settings.league_seeded = True
    assert "league deal" in screen(model).splitlines()[0]


def test_details_live_behind_d_and_keep_the_jargon_off_the_table() -> None:
    model = table(4)
    model.log_head = "42:" + "ab" * 32
    model.seats[1].latency_ms, model.seats[1].strikes = 87, 2
    model.settings.clock.strikes_before_takeover = 3
    calm = screen(model)
    assert "ab" * 32 not in calm and "87 ms" not in calm and "t-123" not in calm
    assert "2 of 3 strikes" in screen(model, size=(100, 30))  # a strike says where it leads, where it shows
    shown = screen(model, UiState(prompt=Prompt("details")), size=(100, 30))
    assert "table id: t-123" in shown and "99 checks passed" in shown and "87 ms" in shown
    assert "log head at event 42" in shown and "2 strikes (timeouts; at 3 the seat goes to" in shown


def test_the_rules_overlay_names_every_option_in_plain_words_with_its_rule_id() -> None:
    named = {words.field for _, group in OPTIONS for words in group}
    assert named == {f.name for f in rules_pb2.Ruleset.DESCRIPTOR.fields} - {"preset"}
    lines = [text(line) for line in rules_lines(rules_pb2.Ruleset(stacking=True, uno_penalty=2))]
    assert "  Stacking: on   H1" in lines and "  Cards for a missed UNO: 2   U2" in lines
    model = table(4)
    first = screen(model, UiState(prompt=Prompt("rules")))
    assert "RULES OF THIS TABLE" in first and "↓ more" in first and "Scoring: winner takes" in first
    last = screen(model, UiState(prompt=Prompt("rules"), panel_scroll=1000))
    assert "Silent 2: off" in last and "↑ more" in last and "↓ more" not in last


def test_the_log_panel_shows_the_latest_lines_and_h_opens_the_whole_log() -> None:
    from unonet.client.tui.model import LogLine

    model = table(4)
    for number in range(40):
        model.log.append(LogLine(number, f"line {number}"))
    shown = screen(model)
    assert "line 39" in shown and "line 38" in shown and "line 30" not in shown
    whole = screen(model, UiState(prompt=Prompt("log")))
    assert "line 39" in whole and "line 25" in whole and "↑ more" in whole
    back = screen(model, UiState(prompt=Prompt("log"), panel_scroll=30))
    assert "line 9" in back and back.count("line 39") == 1  # the panel's, not the overlay's


def test_a_replay_panel_gets_its_rows_and_the_status_line_its_counter() -> None:
    model = table(10, seat=None)
    ui = UiState(status="move 3/40 · every hand open", read_only=True)
    panel = [("", "".join(f"  {s} p{s} R5 G7\n" for s in range(10)))]
    shown = screen(model, ui, panel=panel)
    assert "move 3/40 · every hand open" in shown and all(f"{s} p{s} R5 G7" in shown for s in range(10))
    assert "waiting for the host" not in shown


def test_this_seats_label_keeps_to_the_ring_giving_up_the_score_first() -> None:
    model = my_turn(table(4), R5)
    model.seats[0].name, model.seats[0].strikes = "annabelle-longname", 2
    model.settings.clock.strikes_before_takeover = 3
    label = next(line for line in screen(model).splitlines() if "(you)" in line)
    assert "╰" in label and "╯" in label and "20s" in label  # inside the ring's corners, the clock kept
    assert "2 of 3 strikes" in label or "2✗" in label
    roomy = next(line for line in screen(model, size=(160, 48)).splitlines() if "(you)" in line)
    assert "annabelle-longname (you)" in roomy and "2 of 3 strikes" in roomy  # the whole name, the words


def test_before_the_deal_the_table_says_who_sits_and_the_address_friends_dial_whole() -> None:
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, table_name="ann's table")
    model.settings.seat_count = 4
    model.seats = [SeatModel(0, name="ann", occupied=True), SeatModel(1, name="bob", occupied=True),
                   SeatModel(2), SeatModel(3)]
    model.invite = "friends join with: unonet play 192.168.1.20:50051 · S starts with bots"
    shown = screen(model, UiState(is_owner=True))
    assert "192.168.1.20:50051" in shown and "2 of 4 seats taken" in shown and "seated" in shown
    assert "free seat" in shown and "0 cards" not in shown and "S starts now with bots" in shown


def test_a_narrow_header_gives_up_the_tables_name_before_the_stakes_and_the_round() -> None:
    model = table(4)
    model.table_name, model.round_number = "a long table name (rematch)", 12
    model.settings.ruleset.scoring = rules_pb2.SCORING_RULE_LOWEST_WINS
    model.set_connection(ConnectionState.RECONNECTING)
    header = screen(model).splitlines()[0]
    assert "lowest total wins when one reaches 500" in header and "round 12" in header, header
    assert header.startswith(" RECONNECTING") and "✓ fair" in header and len(header) <= 80
