"""The terminal client's view model as pure functions: events in, what the screen shows out.

Scripted events pin each reducer; whole matches of host bots (every preset, house rules included)
check that the model fed one seat's events agrees with the host at every round's end: the same hand,
every seat's card count, and the final scores.
"""

from __future__ import annotations

import pytest
from fair_games import play_match, stream
from google.protobuf.duration_pb2 import Duration

from unonet.client.tui.model import CardFace, ConnectionState, GameModel, face_of
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, table_pb2, views_pb2

R5 = cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_FIVE)
G7 = cards_pb2.Card(color=cards_pb2.COLOR_GREEN, rank=cards_pb2.RANK_SEVEN)
B2 = cards_pb2.Card(color=cards_pb2.COLOR_BLUE, rank=cards_pb2.RANK_TWO)
WILD = cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=cards_pb2.RANK_WILD)


def ref(card: cards_pb2.Card | None = None) -> cards_pb2.CardRef:
    return cards_pb2.CardRef(card=card) if card is not None else cards_pb2.CardRef()


def ev(number: int, **payload: object) -> events_pb2.Event:
    return events_pb2.Event(number=number, **payload)  # type: ignore[arg-type]


def dealt_model() -> GameModel:
    """Seat 0 of three, dealt R5 G7 B2 (the others 3 hidden cards each), a wild turned first."""
    model = GameModel(seat=0)
    for number, seat in enumerate(range(3), start=1):
        model.apply(ev(number, player_joined=events_pb2.PlayerJoined(seat=seat, name=f"p{seat}")))
    model.apply(ev(4, round_started=events_pb2.RoundStarted(round_number=1, dealer_seat=2, seats_in_play=[0, 1, 2])))
    hands = [cards_pb2.SeatHand(seat=0, count=3, cards=[ref(R5), ref(G7), ref(B2)]),
             cards_pb2.SeatHand(seat=1, count=3), cards_pb2.SeatHand(seat=2, count=3)]
    model.apply(ev(5, cards_dealt=events_pb2.CardsDealt(dealer_seat=2, hands=hands, draw_pile_size=99)))
    model.apply(ev(6, first_card_turned=events_pb2.FirstCardTurned(card=ref(WILD))))
    return model


def test_the_deal_gives_the_hand_counts_and_top_card() -> None:
    model = dealt_model()
    assert sorted(model.hand) == sorted([face_of(R5), face_of(G7), face_of(B2)])
    assert [s.hand_size for s in model.seats] == [3, 3, 3]
    assert model.top_card == face_of(WILD) and model.current_color == 0
    assert model.draw_pile_size == 98
    assert model.names == ["p0", "p1", "p2"]


def test_a_play_leaves_the_hand_and_counts_are_derived_when_the_host_leaves_hand_size_unset() -> None:
    model = dealt_model()
    model.apply(ev(7, cards_played=events_pb2.CardsPlayed(seat=0, cards=[ref(R5)], kind=actions_pb2.PLAY_KIND_TURN)))
    assert face_of(R5) not in model.hand and model.seats[0].hand_size == 2
    model.apply(ev(8, cards_played=events_pb2.CardsPlayed(seat=1, cards=[ref(G7)])))
    assert model.seats[1].hand_size == 2  # 3 less the card played: no hand_size sent
    model.apply(ev(9, cards_played=events_pb2.CardsPlayed(seat=2, cards=[ref(B2)], hand_size=7)))
    assert model.seats[2].hand_size == 7  # a hand_size sent wins
    assert model.top_card == face_of(B2) and model.current_color == cards_pb2.COLOR_BLUE


def test_drawn_cards_join_the_own_hand_only_and_settle_the_obligation() -> None:
    model = dealt_model()
    obligation = views_pb2.DrawObligation(amount=2, target_seat=0, setter_seat=2)
    model.apply(ev(7, draw_obligation_changed=events_pb2.DrawObligationChanged(obligation=obligation)))
    assert model.obligation is not None and model.obligation.amount == 2
    model.apply(ev(8, cards_drawn=events_pb2.CardsDrawn(seat=0, count=2, reason=events_pb2.DRAW_REASON_OBLIGATION,
                                                        cards=[ref(WILD), ref(R5)])))
    assert model.hand.count(face_of(R5)) == 2 and model.seats[0].hand_size == 5
    assert model.obligation is None
    model.apply(ev(9, cards_drawn=events_pb2.CardsDrawn(seat=1, count=1, reason=events_pb2.DRAW_REASON_TURN)))
    assert model.seats[1].hand_size == 4 and len(model.hand) == 5


def test_uno_called_lasts_while_one_card_is_held() -> None:
    model = dealt_model()
    model.apply(ev(7, cards_played=events_pb2.CardsPlayed(seat=1, cards=[ref(G7)], hand_size=1, called_uno=True)))
    assert model.seats[1].called_uno
    model.apply(ev(8, cards_drawn=events_pb2.CardsDrawn(seat=1, count=2, hand_size=3)))
    assert not model.seats[1].called_uno


def test_the_latest_legal_actions_replace_the_previous_ones() -> None:
    model = dealt_model()
    legal = actions_pb2.LegalActions(plays=[actions_pb2.PlayOption(cards=[R5])], required=True)
    model.apply(ev(7, turn_started=events_pb2.TurnStarted(seat=0), your_legal_actions=legal))
    assert model.is_my_turn and model.playable_faces() == {face_of(R5)}
    model.apply(ev(8, cards_played=events_pb2.CardsPlayed(seat=0, cards=[ref(R5)])))
    assert model.playable_faces() == {face_of(R5)}  # unset: unchanged
    model.apply(ev(9, turn_started=events_pb2.TurnStarted(seat=1), your_legal_actions=actions_pb2.LegalActions()))
    assert not model.legal.plays and not model.is_my_turn


def test_a_race_result_says_who_won_and_by_how_much() -> None:
    model = dealt_model()
    window = views_pb2.ReactionWindow(id=4, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH, eligible_seats=[0, 2],
                                      subject_seat=1)
    model.apply(ev(7, reaction_window_opened=events_pb2.ReactionWindowOpened(window=window)))
    assert 4 in model.windows
    reactions = [events_pb2.Reaction(seat=2, reaction_time=Duration(nanos=100_000_000)),
                 events_pb2.Reaction(seat=0, reaction_time=Duration(nanos=350_000_000))]
    model.apply(ev(8, reaction_window_closed=events_pb2.ReactionWindowClosed(
        window_id=4, kind=views_pb2.REACTION_WINDOW_KIND_UNO_CATCH, reactions=reactions, winner_seat=2)))
    assert not model.windows
    assert model.last_race is not None and model.last_race.winner == 2
    assert model.last_race.margin == pytest.approx(0.25)
    assert model.log[-1].text == "p2 won the UNO catch by 250 ms"


def test_a_window_closed_unanswered_is_not_reported() -> None:
    model = dealt_model()
    window = views_pb2.ReactionWindow(id=5, kind=views_pb2.REACTION_WINDOW_KIND_JUMP_IN)
    model.apply(ev(7, reaction_window_opened=events_pb2.ReactionWindowOpened(window=window)))
    model.apply(ev(8, reaction_window_closed=events_pb2.ReactionWindowClosed(window_id=5)))
    assert not model.windows and model.last_race is None


def test_hands_swapped_and_a_five_swap_move_the_right_cards() -> None:
    model = dealt_model()
    model.apply(ev(7, hands_swapped=events_pb2.HandsSwapped(
        seat=0, target_seat=1, seat_hand=cards_pb2.SeatHand(seat=0, count=2, cards=[ref(WILD), ref(WILD)]),
        target_hand=cards_pb2.SeatHand(seat=1, count=3))))
    assert model.hand == [face_of(WILD)] * 2 and [s.hand_size for s in model.seats[:2]] == [2, 3]
    model.apply(ev(8, five_swap_offered=events_pb2.FiveSwapOffered(seat=1, target_seat=0, card=ref(G7))))
    assert model.seats[1].hand_size == 2
    model.apply(ev(9, cards_exchanged=events_pb2.CardsExchanged(seat=1, target_seat=0, given=ref(G7),
                                                                received=ref(WILD))))
    assert sorted(model.hand) == sorted([face_of(WILD), face_of(G7)])
    assert [s.hand_size for s in model.seats[:2]] == [2, 3]


def test_round_and_match_end_give_the_scoreboard() -> None:
    model = dealt_model()
    scores = [events_pb2.SeatScore(seat=s, hand_points=5 * s, round_points=10 if s == 0 else 0, total=10 * (s == 0))
              for s in range(3)]
    model.apply(ev(7, round_ended=events_pb2.RoundEnded(round_number=1, winner_seat=0, scores=scores)))
    assert model.scoreboard is not None and not model.scoreboard.final
    assert model.seats[0].score == 10 and model.phase == views_pb2.PHASE_ROUND_OVER
    totals = [events_pb2.SeatScore(seat=s, total=score.total) for s, score in enumerate(scores)]  # no round points
    model.apply(ev(8, match_ended=events_pb2.MatchEnded(winner_seats=[0], scores=totals)))
    assert model.scoreboard is not None and model.scoreboard.final and model.match_over
    assert model.winners == (0,) and [r.winner for r in model.rounds] == [0]
    # The last round's points stay beside the final totals (MatchEnded carries totals only).
    assert [(line.hand_points, line.round_points, line.total) for line in model.scoreboard.lines] == [
        (0, 10, 10), (5, 0, 0), (10, 0, 0)]


def test_a_takeover_of_the_own_seat_is_said_plainly() -> None:
    model = dealt_model()
    model.apply(ev(7, seat_taken_over=events_pb2.SeatTakenOver(seat=0, policy=table_pb2.TAKEOVER_POLICY_BOT,
                                                               reason=events_pb2.TAKEOVER_REASON_STRIKES)))
    assert model.seats[0].is_bot and "taken over by a bot after too many timeouts" in model.notice


def test_a_snapshot_replaces_everything_and_an_unknown_payload_only_counts() -> None:
    model = dealt_model()
    view = views_pb2.SeatView(
        table_id="t", event_number=40, seat=1, hand=[ref(B2)], phase=views_pb2.PHASE_TURN, seat_to_act=1,
        seats=[table_pb2.SeatState(seat=s, name=f"q{s}", hand_size=s + 1) for s in range(3)],
        top_card=ref(G7), current_color=cards_pb2.COLOR_GREEN,
        legal_actions=actions_pb2.LegalActions(plays=[actions_pb2.PlayOption(cards=[B2])]),
    )
    model.apply(ev(40, snapshot=events_pb2.Snapshot(view=view)))
    assert model.seat == 1 and model.hand == [face_of(B2)] and model.names == ["q0", "q1", "q2"]
    assert model.is_my_turn and model.playable_faces() == {face_of(B2)} and model.event_number == 40
    model.apply(events_pb2.Event(number=41))
    assert model.event_number == 41


def test_fetched_table_infos_bring_latencies_and_connections() -> None:
    model = dealt_model()
    info = table_pb2.TableInfo(table_id="t", seats=[
        table_pb2.SeatState(seat=0, name="p0", occupied=True, connected=True, latency_ms=12),
        table_pb2.SeatState(seat=1, name="p1", occupied=True, connected=False, latency_ms=80),
        table_pb2.SeatState(seat=2, name="p2", occupied=True, is_bot=True)])
    model.apply_table(info)
    assert [s.latency_ms for s in model.seats] == [12, 80, 0]
    assert [s.connected for s in model.seats] == [True, False, True]
    model.set_connection(ConnectionState.RECONNECTING, "reconnecting…")
    assert model.connection == ConnectionState.RECONNECTING and model.connection_note == "reconnecting…"
    model.set_connection(ConnectionState.CONNECTED)
    assert model.connection_note == ""  # no "reconnecting" outlives the reconnection


def test_a_fetched_table_info_of_the_table_before_a_rematch_changes_nothing() -> None:
    model = GameModel(table_id="rematch", seat=0)
    model.apply_table(table_pb2.TableInfo(table_id="rematch", seats=[table_pb2.SeatState(seat=0, occupied=True)]))
    finished = table_pb2.TableInfo(table_id="finished", status=table_pb2.TABLE_STATUS_FINISHED,
                                   seats=[table_pb2.SeatState(seat=0, name="old", occupied=True)] * 4)
    model.apply_table(finished)  # the ping's fetch sent before the screen moved, answered after
    assert model.table_id == "rematch" and not model.match_over and len(model.seats) == 1
    fresh = GameModel()
    fresh.apply_table(finished)  # a model with no table yet takes the table it is given
    assert fresh.table_id == "finished" and fresh.match_over


def test_the_draw_pile_counts_a_reshuffle_in_the_middle_of_a_draw_and_ignores_a_returned_first_card() -> None:
    model = dealt_model()  # 98 left after the deal and the first card
    model.apply(ev(7, cards_drawn=events_pb2.CardsDrawn(seat=1, count=97)))
    assert model.draw_pile_size == 1
    # A draw of 3 with 1 card left: the pile is rebuilt from 40 discards in the middle of the draw, and the
    # CardsDrawn after it counts the old pile's last card with the two from the new pile.
    model.apply(ev(8, pile_reshuffled=events_pb2.PileReshuffled(draw_pile_size=40)))
    model.apply(ev(9, cards_drawn=events_pb2.CardsDrawn(seat=2, count=3)))
    assert model.draw_pile_size == 38
    # S4: a first card that goes back goes into the pile it came from: no FirstCardTurned took it off.
    model.apply(ev(10, round_started=events_pb2.RoundStarted(round_number=2, dealer_seat=0, seats_in_play=[0, 1, 2])))
    hands = [cards_pb2.SeatHand(seat=seat, count=7) for seat in range(3)]
    model.apply(ev(11, cards_dealt=events_pb2.CardsDealt(dealer_seat=0, hands=hands, draw_pile_size=87)))
    model.apply(ev(12, first_card_returned=events_pb2.FirstCardReturned(card=ref(WILD))))
    assert model.draw_pile_size == 87 and model.top_card is None
    model.apply(ev(13, first_card_turned=events_pb2.FirstCardTurned(card=ref(R5))))
    assert model.draw_pile_size == 86


def test_card_faces_order_and_convert() -> None:
    assert CardFace(1, 6).to_proto() == R5
    assert sorted([face_of(B2), face_of(R5)])[0] == face_of(R5)


@pytest.mark.parametrize("preset", ["standard", "house", "serbian", "french", "russian", "polish"])
def test_a_whole_match_agrees_with_the_host_at_every_round_end(preset: str) -> None:
    table = play_match(7, seats=4, preset=preset, target_score=150)
    for seat in (0, 2):
        model = GameModel(seat=seat)
        rounds = 0
        for event in stream(table, seat):
            if event.HasField("round_ended"):
                rounds += 1
                hands = {h.seat: h for h in event.round_ended.hands}
                assert sorted(model.hand) == sorted(face_of(r.card) for r in hands[seat].cards), event.number
                for s in model.seats:
                    assert s.hand_size == (hands[s.seat].count if s.seat in hands else 0), (s.seat, event.number)
            model.apply(event)
        assert rounds >= 1 and model.match_over and model.scoreboard is not None and model.scoreboard.final
        final = table.view(seat)
        assert [s.score for s in model.seats] == [s.score for s in final.seats]


def test_a_seat_that_kept_its_shuffle_share_back_is_named_loudly() -> None:
    model = dealt_model()
    model.apply(ev(7, shuffle_timed_out=events_pb2.ShuffleTimedOut(round_number=2, seats=[1], revealing=True)))
    assert model.log[-1].style == "alert" and "p1 committed but did not reveal" in model.log[-1].text
    model.apply(ev(8, shuffle_timed_out=events_pb2.ShuffleTimedOut(round_number=2, seats=[2])))
    assert "p2 sent no shuffle share in time" in model.log[-1].text
