"""Engine events on the wire (`unonet.wire.events`): every engine event class converted for its owner, another
seat and a spectator (found by introspection, so a new engine event cannot be forgotten), without leaking a face.
"""

from __future__ import annotations

import pytest
from wire_faces import (
    B3,
    G2,
    R5,
    R7,
    VIEWERS,
    WD4,
    WILD,
    card,
    check_event,
    engine_event_classes,
)

from unonet.engine import (
    Color,
    Window,
    WindowKind,
)
from unonet.engine import events as ev
from unonet.engine.events import DrawReason
from unonet.v1 import actions_pb2, events_pb2, views_pb2
from unonet.wire import convert

HAND = (R5, B3, WILD)

PAYLOADS: dict[type[ev.Event], tuple[ev.Event, str]] = {
    ev.DealerChosen: (
        ev.DealerChosen(((0, card("red skip")), (0, R5), (1, R7), (2, R7), (1, B3), (2, G2)), 1),
        "dealer_chosen",
    ),
    ev.RoundStarted: (ev.RoundStarted(1, 0, (0, 1, 2, 3)), "round_started"),
    ev.Dealt: (ev.Dealt(2, 3, HAND), "cards_dealt"),
    ev.FirstCardTurned: (ev.FirstCardTurned(R5), "first_card_turned"),
    ev.FirstCardReturned: (ev.FirstCardReturned(WD4), "first_card_returned"),
    ev.Played: (ev.Played(2, (R5, card("yellow 5"))), "cards_played"),
    ev.ColorChosen: (ev.ColorChosen(2, Color.GREEN), "color_chosen"),
    ev.Drew: (ev.Drew(2, 2, DrawReason.UNO_PENALTY, (R5, B3)), "cards_drawn"),
    ev.DrawnCardKept: (ev.DrawnCardKept(2), "drawn_card_kept"),
    ev.Reshuffled: (ev.Reshuffled(40), "pile_reshuffled"),
    ev.Skipped: (ev.Skipped(3), "turn_skipped"),
    ev.DirectionChanged: (ev.DirectionChanged(-1), "direction_reversed"),
    ev.TurnStarted: (ev.TurnStarted(1), "turn_started"),
    ev.DrawObligation: (ev.DrawObligation(3, 4, 2), "draw_obligation_changed"),
    ev.UnoCalled: (ev.UnoCalled(2), "uno_called"),
    ev.UnoCaught: (ev.UnoCaught(1, 2, 4), "uno_caught"),
    ev.FalseCatch: (ev.FalseCatch(1, 2, 2), "false_catch"),
    ev.Challenged: (ev.Challenged(3, 2, True), "challenge_resolved"),
    ev.HandRevealed: (ev.HandRevealed(3, 2, HAND), "hand_revealed"),
    ev.CardTakenBack: (ev.CardTakenBack(2, WD4), "card_taken_back"),
    ev.HandsRotated: (ev.HandsRotated(1, ((R5,), (B3, G2), HAND, ())), "hands_rotated"),
    ev.HandsSwapped: (ev.HandsSwapped(0, 2, HAND, (G2,)), "hands_swapped"),
    ev.SwapOffered: (ev.SwapOffered(0, 2, R5), "five_swap_offered"),
    ev.CardsExchanged: (ev.CardsExchanged(0, 2, R5, B3), "cards_exchanged"),
    ev.WindowOpened: (
        ev.WindowOpened(Window(7, WindowKind.UNO_CATCH, (0, 1, 3), 2, False, 2)),
        "reaction_window_opened",
    ),
    ev.WindowClosed: (ev.WindowClosed(7, (1, 3, 0), (0,)), "reaction_window_closed"),
    ev.RaceLost: (ev.RaceLost(1, 7), "race_lost"),
    ev.WrongJumpIn: (ev.WrongJumpIn(1, R7), "wrong_jump_in"),
    ev.IllegalPlay: (ev.IllegalPlay(1, R7), "illegal_play"),
    ev.PenaltyPoints: (ev.PenaltyPoints(1, 3), "penalty_points"),
    ev.SilenceStarted: (ev.SilenceStarted(1), "silence_started"),
    ev.RoundEnded: (ev.RoundEnded(1, 2, (12, 0, 0, 70), (12, 0, 0, 70), ((R5, R7), (), (), (WILD, G2))), "round_ended"),
    ev.PlayerEliminated: (ev.PlayerEliminated(3), "player_eliminated"),
    ev.MatchEnded: (ev.MatchEnded((1, 2), (612, 80, 80, 300)), "match_ended"),
}


def test_every_engine_event_class_has_a_sample_here() -> None:
    """A new engine event fails here until it is converted (and given a sample below)."""
    assert set(engine_event_classes()) == set(PAYLOADS)


@pytest.mark.parametrize("cls", engine_event_classes(), ids=lambda cls: cls.__name__)
def test_every_event_class_converts_for_owner_others_and_spectators(cls: type[ev.Event]) -> None:
    event, payload = PAYLOADS[cls]
    for viewer in VIEWERS:
        msg = check_event(event, viewer)
        assert msg.WhichOneof("payload") == payload


def test_unknown_event_class_is_a_type_error() -> None:
    class Invented(ev.Event):
        __slots__ = ()

    try:
        invented = Invented()
    except TypeError:  # the compiled build: its events are native classes, which Python cannot extend
        pytest.skip("interpreted classes cannot inherit from compiled ones")
    with pytest.raises(TypeError, match="Invented"):
        convert.event_to_pb(invented, 0)


def test_a_draw_shows_its_faces_to_the_drawer_only() -> None:
    drew = ev.Drew(2, 2, DrawReason.TURN, (R5, B3))
    own = convert.event_to_pb(drew, 2).cards_drawn
    assert [convert.card_from_pb(ref.card) for ref in own.cards] == [R5, B3]
    for viewer in (0, 1, 3, None):
        other = convert.event_to_pb(drew, viewer).cards_drawn
        assert (other.seat, other.count, other.reason) == (2, 2, events_pb2.DRAW_REASON_TURN)
        assert not any(ref.HasField("card") for ref in other.cards)


def test_a_deal_is_one_hand_with_a_public_count() -> None:
    dealt = ev.Dealt(2, 3, HAND)
    assert [convert.card_from_pb(r.card) for r in convert.event_to_pb(dealt, 2).cards_dealt.hands[0].cards] == list(
        HAND
    )
    other = convert.event_to_pb(dealt, 0).cards_dealt
    assert len(other.hands) == 1
    assert (other.hands[0].seat, other.hands[0].count, len(other.hands[0].cards)) == (2, 3, 0)


def test_a_revealed_hand_still_reaches_everyone_without_faces() -> None:
    revealed = ev.HandRevealed(3, 2, HAND)
    assert revealed.visible_to(1) is None
    for viewer in (0, 1, 2, None):
        msg = convert.event_to_pb(revealed, viewer).hand_revealed
        assert (msg.challenger_seat, msg.hand.seat, msg.hand.count, len(msg.hand.cards)) == (3, 2, 3, 0)
    assert len(convert.event_to_pb(revealed, 3).hand_revealed.hand.cards) == 3


def test_rotated_and_swapped_hands_keep_public_counts() -> None:
    rotated = convert.event_to_pb(PAYLOADS[ev.HandsRotated][0], 1).hands_rotated
    assert [h.count for h in rotated.hands] == [1, 2, 3, 0]
    assert [len(h.cards) for h in rotated.hands] == [0, 2, 0, 0]
    swapped = convert.event_to_pb(PAYLOADS[ev.HandsSwapped][0], None).hands_swapped
    assert (swapped.seat_hand.count, swapped.target_hand.count) == (3, 1)
    assert not swapped.seat_hand.cards and not swapped.target_hand.cards


def test_five_swap_cards_are_seen_by_the_two_seats_only() -> None:
    for viewer in VIEWERS:
        offered = convert.event_to_pb(ev.SwapOffered(0, 2, R5), viewer).five_swap_offered
        exchanged = convert.event_to_pb(ev.CardsExchanged(0, 2, R5, B3), viewer).cards_exchanged
        sees = viewer in (0, 2)
        assert offered.card.HasField("card") == sees
        assert exchanged.given.HasField("card") == exchanged.received.HasField("card") == sees


def test_dealer_draws_are_numbered_by_pass() -> None:
    msg = convert.event_to_pb(PAYLOADS[ev.DealerChosen][0], None).dealer_chosen
    assert [(d.seat, getattr(d, "pass"), d.counts) for d in msg.draws] == [
        (0, 0, False),
        (0, 0, True),
        (1, 0, True),
        (2, 0, True),
        (1, 1, True),
        (2, 1, True),
    ]
    assert msg.dealer_seat == 1


def test_played_kinds() -> None:
    def kind(event: ev.Played) -> int:
        return convert.event_to_pb(event, None).cards_played.kind

    assert kind(ev.Played(1, (R5,))) == actions_pb2.PLAY_KIND_TURN
    assert kind(ev.Played(1, (R5,), jump_in=True)) == actions_pb2.PLAY_KIND_JUMP_IN
    assert kind(ev.Played(1, (R5,), run_cut=True)) == actions_pb2.PLAY_KIND_RUN_CUT


def test_windows() -> None:
    catch = convert.event_to_pb(PAYLOADS[ev.WindowOpened][0], 0).reaction_window_opened.window
    assert (catch.id, catch.kind, list(catch.eligible_seats), catch.subject_seat, catch.blocks_play) == (
        7,
        views_pb2.REACTION_WINDOW_KIND_UNO_CATCH,
        [0, 1, 3],
        2,
        False,
    )
    slap = convert.window_to_pb(Window(8, WindowKind.UNO_SLAP, (0, 1, 3), 2, True))
    assert (slap.subject_seat, slap.blocks_play) == (2, True)
    escape = convert.window_to_pb(Window(9, WindowKind.SKIP_ESCAPE, (3,), 2, False, 3))
    assert escape.subject_seat == 3
    slap_closed = convert.event_to_pb(ev.WindowClosed(8, (1, 3, 0), (0,)), None).reaction_window_closed
    assert [r.seat for r in slap_closed.reactions] == [1, 3, 0]
    assert list(slap_closed.penalized_seats) == [0] and not slap_closed.HasField("winner_seat")
    cut = convert.event_to_pb(ev.WindowClosed(4, (2,)), None).reaction_window_closed
    assert cut.winner_seat == 2 and not cut.penalized_seats
    quiet = convert.event_to_pb(ev.WindowClosed(5), None).reaction_window_closed
    assert not quiet.HasField("winner_seat") and not quiet.reactions


def test_round_and_match_scores() -> None:
    ended = convert.event_to_pb(PAYLOADS[ev.RoundEnded][0], 3).round_ended
    assert [(s.seat, s.hand_points, s.round_points, s.total) for s in ended.scores] == [
        (0, 12, 12, 12),
        (1, 0, 0, 0),
        (2, 0, 0, 0),
        (3, 52, 70, 70),
    ]
    assert [h.count for h in ended.hands] == [2, 0, 0, 2]
    match = convert.event_to_pb(PAYLOADS[ev.MatchEnded][0], None).match_ended
    assert list(match.winner_seats) == [1, 2] and [s.total for s in match.scores] == [612, 80, 80, 300]
    assert match.reason == events_pb2.MATCH_END_REASON_TARGET_SCORE
