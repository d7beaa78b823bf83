"""What the screen's regions say, from the model: ten players fit 80x24, colour-blind letters, windows,
reconnecting, the scoreboard."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp

from unonet.client.tui.controller import UiState
from unonet.client.tui.model import CardFace, ConnectionState, GameModel, Scoreboard, ScoreLine, SeatModel
from unonet.client.tui.render import (
    card_label,
    render_hand,
    render_header,
    render_help,
    render_players,
    render_scoreboard,
    render_status,
    render_windows,
)
from unonet.v1 import actions_pb2, cards_pb2, views_pb2


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(piece for _, piece, *_ in fragments)


def ten_players() -> GameModel:
    model = GameModel(seat=4, connection=ConnectionState.CONNECTED, table_name="a long table name, longer")
    model.seats = [SeatModel(s, name=f"player-with-a-long-name-{s}", occupied=True, hand_size=12, called_uno=s == 3,
                             score=-120 + s, strikes=2, latency_ms=999, is_bot=s % 2 == 0, taken_over=s == 7,
                             deadline=100.0 if s == 4 else None, time_bank=30.0)
                   for s in range(10)]
    model.seat_to_act = 4
    model.fairness_on, model.fairness_checks, model.round_trip = True, 12345, 0.25
    return model


def test_ten_players_fit_80_columns_and_24_rows() -> None:
    model = ten_players()
    lines = text(render_players(model, 0.0)).split("\n")
    assert len(lines) == 10 and all(len(line) <= 80 for line in lines), max(map(len, lines))
    assert len(text(render_header(model, 0.0))) <= 80
    model.direction, model.round_number = views_pb2.DIRECTION_COUNTERCLOCKWISE, 10
    assert len(text(render_header(model, 0.0))) <= 80
    assert "UNO" in lines[3] and "▶" in lines[4] and " 100s" in lines[4]
    # The table part is a line per seat plus seven; the log keeps the rest of 24 rows.
    assert 10 + 7 <= 24 - 3


def test_colour_blind_cards_carry_their_colour_letter() -> None:
    red_five, wild = CardFace(cards_pb2.COLOR_RED, cards_pb2.RANK_FIVE), CardFace(cards_pb2.COLOR_BLACK,
                                                                                  cards_pb2.RANK_WILD_DRAW_FOUR)
    assert card_label(red_five, letters=True) == "R5" and card_label(red_five, letters=False) == "5"
    assert card_label(wild, letters=True) == "W+4"
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, hand=[red_five, wild])
    model.legal = actions_pb2.LegalActions(plays=[actions_pb2.PlayOption(cards=[red_five.to_proto()])])
    hand = text(render_hand(model, UiState(colour_blind=True), 80))
    assert ">[R5]<" in hand and " W+4 " in hand  # chosen and playable; not playable


def test_a_long_hand_scrolls_to_keep_the_chosen_card_in_view() -> None:
    faces = [CardFace(c, r) for c in (1, 2, 3, 4) for r in range(1, 14)]
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, hand=faces)
    ui = UiState(colour_blind=True, cursor=len(faces) - 1)
    hand = text(render_hand(model, ui, 80))
    assert len(hand) <= 80 and "‹" in hand and "> B+2 <" in hand and "R0" not in hand


def test_an_open_window_is_loud_with_its_countdown_and_key() -> None:
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED)
    model.seats = [SeatModel(0, name="me"), SeatModel(1, name="bob")]
    model.windows[3] = views_pb2.ReactionWindow(id=3, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH,
                                                eligible_seats=[0], subject_seat=1, deadline=Timestamp(seconds=12))
    assert text(render_windows(model, 10.5)) == " ⚡ UNO CATCH bob 1.5s — C to catch!  "
    model.connection = ConnectionState.RECONNECTING
    assert render_windows(model, 10.5) == []


def test_reconnecting_offers_nothing_stale() -> None:
    model = GameModel(seat=0, connection=ConnectionState.RECONNECTING, seat_to_act=0,
                      hand=[CardFace(cards_pb2.COLOR_RED, cards_pb2.RANK_FIVE)])
    model.legal = actions_pb2.LegalActions(plays=[actions_pb2.PlayOption(cards=[model.hand[0].to_proto()])])
    assert "reconnecting" in text(render_status(model, UiState(), 0.0))
    assert "[" not in text(render_hand(model, UiState(), 80))
    assert text(render_header(model, 0.0)).startswith(" RECONNECTING")


def test_the_scoreboard_lists_every_seat() -> None:
    model = ten_players()
    board = Scoreboard(2, (4,), tuple(ScoreLine(s, 10, 0, s * 3, s == 9) for s in range(10)), final=True)
    shown = text(render_scoreboard(model, board))
    assert "FINAL SCORES — you won the match" in shown and shown.count("\n") >= 11 and "out" in shown


def test_the_status_line_calls_for_a_reaction_or_a_catch() -> None:
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, seat_to_act=1)
    model.seats = [SeatModel(0, name="me"), SeatModel(1, name="bob")]
    model.legal = actions_pb2.LegalActions(react_window_ids=[5])
    assert "press B" in text(render_status(model, UiState(), 0.0))
    model.legal = actions_pb2.LegalActions(catch_uno_targets=[1])
    assert text(render_status(model, UiState(), 0.0)) == " bob did not call UNO: C catches!"


def test_the_help_overlay_shows_the_log_head_to_compare() -> None:
    model = ten_players()
    model.log_head = "42:" + "ab" * 32
    shown = text(render_help(model, UiState()))
    assert "log head at event 42: " + "ab" * 32 in shown


def test_our_turn_with_nothing_offered_yet_says_what_it_waits_for() -> None:
    from unonet.v1 import views_pb2

    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, seat_to_act=0)
    model.seats = [SeatModel(0, name="me"), SeatModel(1, name="bob")]
    assert "waiting for the host's options" in text(render_status(model, UiState(), 0.0))  # not "Enter plays"
    model.windows = {3: views_pb2.ReactionWindow(id=3, blocks_play=True)}
    assert "once the race above is decided" in text(render_status(model, UiState(), 0.0))
    model.legal = actions_pb2.LegalActions(draw=actions_pb2.DrawOption(count=1))
    assert "YOUR TURN" in text(render_status(model, UiState(), 0.0))


def test_a_command_on_its_way_says_so_instead_of_offering_the_options_it_used() -> None:
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, seat_to_act=0)
    model.seats = [SeatModel(0, name="me"), SeatModel(1, name="bob")]
    model.legal = actions_pb2.LegalActions(draw=actions_pb2.DrawOption(count=1))
    assert "sent — waiting for the host" in text(render_status(model, UiState(pending=True), 0.0))
    assert "YOUR TURN" in text(render_status(model, UiState(), 0.0))


def test_the_header_says_a_league_seeded_deal_is_seeded_on_purpose() -> None:
    """A league game's deal comes from the league's seed, with no shuffle to verify: not a failure."""
    model = GameModel(seat=0, connection=ConnectionState.CONNECTED, round_number=1)
    assert "shuffle not verifiable" in text(render_header(model, 0.0))
    model.settings.league_seeded = True
    header = text(render_header(model, 0.0))
    assert "league-seeded deal" in header and "not verifiable" not in header
