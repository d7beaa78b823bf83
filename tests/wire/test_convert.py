"""unonet.wire.convert: engine objects to protobuf messages and back, without leaking a hidden card.

Round-trips for every card and preset; every engine event class converted for its owner, another seat
and a spectator (found by introspection, so a new engine event cannot be forgotten); seeded random
playouts under every preset whose every event and view is converted for every seat and a spectator;
refusals with their reasons; the grouping of legal actions.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message

from unonet.engine import (
    PRESETS,
    CallUno,
    Card,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    FiveSwap,
    GiveCard,
    IllegalAction,
    MalformedAction,
    Match,
    Pass,
    Play,
    Rank,
    React,
    Ruleset,
    RulesetError,
    UnoError,
    Window,
    WindowKind,
    find_ruleset,
    standard_deck,
)
from unonet.engine import events as ev
from unonet.engine.events import DrawReason
from unonet.engine.playout import random_step
from unonet.v1 import actions_pb2, cards_pb2, events_pb2, play_service_pb2, rules_pb2, table_pb2, views_pb2
from unonet.wire import convert

SEATS = 4
VIEWERS: tuple[int | None, ...] = (*range(SEATS), None)


def card(text: str) -> Card:
    return Card.parse(text)


R5, R7, B3, G2 = card("red 5"), card("red 7"), card("blue 3"), card("green 2")
WILD, WD4, SOUND = card("wild"), card("wild_draw_four"), card("sound_wild")


def every_card() -> list[Card]:
    return list(dict.fromkeys(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)))


def engine_event_classes() -> list[type[ev.Event]]:
    return [
        cls
        for _, cls in inspect.getmembers(ev, inspect.isclass)
        if issubclass(cls, ev.Event) and cls is not ev.Event and cls.__module__ == ev.__name__
    ]


# ------------------------------------------------------------------------------------ face accounting


def engine_faces(obj: object) -> Counter[Card]:
    """Every card face an engine event (or part of one) carries."""
    if obj is None:
        return Counter()
    if isinstance(obj, Card):
        return Counter([obj])
    if isinstance(obj, tuple):
        return sum((engine_faces(item) for item in obj), Counter())
    if dataclasses.is_dataclass(obj):
        return sum((engine_faces(getattr(obj, f.name)) for f in dataclasses.fields(obj)), Counter())
    return Counter()


def pb_faces(msg: Message) -> Counter[Card]:
    """Every card face anywhere in a protobuf message."""
    if isinstance(msg, cards_pb2.Card):
        return Counter([convert.card_from_pb(msg)])
    found: Counter[Card] = Counter()
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        items = [value] if isinstance(value, Message) else value
        for item in items:
            found += pb_faces(item)
    return found


def check_event(event: ev.Event, viewer: int | None) -> events_pb2.Event:
    """Convert for one viewer: exactly the faces the engine lets that viewer see, and nothing else."""
    msg = convert.event_to_pb(event, viewer)
    assert msg.WhichOneof("payload") is not None
    assert not msg.HasField("your_legal_actions") and msg.number == 0, "the caller sets these"
    visible = event.visible_to(viewer)
    assert pb_faces(msg) == engine_faces(visible), f"{event!r} for {viewer}: {msg}"
    return msg


# ------------------------------------------------------------------------------------------------ cards


@pytest.mark.parametrize("engine_card", every_card(), ids=str)
def test_every_card_round_trips(engine_card: Card) -> None:
    msg = convert.card_to_pb(engine_card)
    assert convert.card_from_pb(msg) is engine_card
    assert convert.card_ref(engine_card).card == msg
    assert cards_pb2.Color.Name(msg.color).removeprefix("COLOR_").lower() == engine_card.color.value


def test_number_ranks_are_face_value_plus_one() -> None:
    for value in range(10):
        assert convert.rank_to_pb(Rank(str(value))) == value + 1


def test_card_ref_without_a_card_is_hidden() -> None:
    assert not convert.card_ref(None).HasField("card")


@pytest.mark.parametrize(
    ("color", "rank", "reason"),
    [
        (cards_pb2.COLOR_UNSPECIFIED, cards_pb2.RANK_FIVE, "UNSPECIFIED_ENUM"),
        (cards_pb2.COLOR_RED, cards_pb2.RANK_UNSPECIFIED, "UNSPECIFIED_ENUM"),
        (cards_pb2.COLOR_UNSPECIFIED, cards_pb2.RANK_UNSPECIFIED, "UNSPECIFIED_ENUM"),
        (cards_pb2.COLOR_BLACK, cards_pb2.RANK_FIVE, "NO_SUCH_CARD"),
        (cards_pb2.COLOR_RED, cards_pb2.RANK_WILD, "NO_SUCH_CARD"),
        (cards_pb2.COLOR_BLUE, cards_pb2.RANK_WILD_DRAW_FOUR, "NO_SUCH_CARD"),
        (99, cards_pb2.RANK_FIVE, "UNSPECIFIED_ENUM"),  # a number Color does not define: no colour
        (cards_pb2.COLOR_RED, 99, "UNSPECIFIED_ENUM"),
    ],
)
def test_impossible_cards_are_refused(color: int, rank: int, reason: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        convert.card_from_pb(cards_pb2.Card(color=color, rank=rank))  # type: ignore[arg-type]
    assert caught.value.reason == reason


def test_named_colours() -> None:
    assert [convert.color_from_pb(convert.color_to_pb(c)) for c in (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)]
    assert convert.color_to_pb(None) == cards_pb2.COLOR_UNSPECIFIED


@pytest.mark.parametrize(
    ("value", "reason"),
    [(cards_pb2.COLOR_UNSPECIFIED, "UNSPECIFIED_ENUM"), (cards_pb2.COLOR_BLACK, "BAD_COLOR"), (42, "BAD_COLOR")],
)
def test_colour_that_cannot_be_named_is_refused(value: int, reason: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        convert.color_from_pb(value)
    assert caught.value.reason == reason


# --------------------------------------------------------------------------------------------- rulesets


def test_proto_ruleset_has_exactly_the_engine_options() -> None:
    proto = {f.name for f in rules_pb2.Ruleset.DESCRIPTOR.fields} - {"preset"}
    engine = {f.name for f in dataclasses.fields(Ruleset)} - {"name"}
    assert proto == engine


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_with_every_field_set(name: str) -> None:
    msg = convert.ruleset_to_pb(PRESETS[name])
    assert msg.preset == name
    assert all(msg.HasField(f.name) for f in rules_pb2.Ruleset.DESCRIPTOR.fields)
    assert convert.ruleset_from_pb(name, msg) == PRESETS[name]
    # A complete ruleset sent as overrides of another preset reproduces it (bar the preset's name).
    assert dataclasses.replace(convert.ruleset_from_pb("standard", msg), name=name) == PRESETS[name]


def test_enum_spellings_are_mapped_not_guessed() -> None:
    msg = convert.ruleset_to_pb(find_ruleset("standard"))
    assert msg.wild_draw_four == rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR
    for option in ("no_matching_colour", "no_match_at_all", "no_other_play", "any_time"):
        ruleset = find_ruleset("standard", wild_draw_four=option)
        assert convert.ruleset_from_pb("", convert.ruleset_to_pb(ruleset)).wild_draw_four is ruleset.wild_draw_four


def test_empty_preset_means_standard_and_only_present_fields_override() -> None:
    assert convert.ruleset_from_pb("", rules_pb2.Ruleset()) is find_ruleset("standard")
    # Present with the zero value still overrides (bluffing defaults to on, uno_penalty to 2).
    ruleset = convert.ruleset_from_pb("", rules_pb2.Ruleset(bluffing=False, uno_penalty=0))
    assert ruleset == find_ruleset("standard", bluffing=False, uno_penalty=0)
    # Unset fields keep the preset's values; `preset` inside the overrides is ignored.
    house = convert.ruleset_from_pb("house", rules_pb2.Ruleset(preset="polish", stacking_mixed=True))
    assert house == find_ruleset("house", stacking_mixed=True)
    assert convert.ruleset_to_pb(house).preset == "house"


@pytest.mark.parametrize(
    "field", ["wild_draw_four", "bluff_penalty", "scoring", "first_wild", "jump_in_penalty", "blank_effect"]
)
def test_unspecified_enum_in_overrides_is_refused(field: str) -> None:
    overrides = rules_pb2.Ruleset()
    setattr(overrides, field, 0)
    assert overrides.HasField(field)
    with pytest.raises(RulesetError) as caught:
        convert.ruleset_from_pb("standard", overrides)
    assert caught.value.reason == "UNSPECIFIED_ENUM"


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(RulesetError) as caught:
        convert.ruleset_from_pb("klingon", rules_pb2.Ruleset())
    assert caught.value.reason == "UNKNOWN_PRESET"


@pytest.mark.parametrize(
    "overrides",
    [rules_pb2.Ruleset(stacking_mixed=True), rules_pb2.Ruleset(blank_draw=0), rules_pb2.Ruleset(target_score=0)],
)
def test_impossible_options_are_refused(overrides: rules_pb2.Ruleset) -> None:
    with pytest.raises(RulesetError) as caught:
        convert.ruleset_from_pb("standard", overrides)
    assert caught.value.reason == "BAD_RULESET"


def test_unknown_ruleset_field_is_refused_not_ignored() -> None:
    overrides = rules_pb2.Ruleset()
    overrides.ParseFromString(bytes([0x98, 0x06, 0x01]))  # field 99 = varint 1: from a newer client
    with pytest.raises(RulesetError):
        convert.ruleset_from_pb("standard", overrides)


# ------------------------------------------------------------------------------------------- events

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

    with pytest.raises(TypeError, match="Invented"):
        convert.event_to_pb(Invented(), 0)


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


# ------------------------------------------------------------------------------------ seeded playouts


def playout(preset: str, seed: int, steps: int) -> Iterator[tuple[Match, list[ev.Event]]]:
    """A seeded random match under `preset`: yields the match and the events of each step."""
    match = Match(find_ruleset(preset).replace(target_score=150), SEATS, random.Random(seed))
    chooser = random.Random(seed * 7919)
    yield match, match.start()
    for _ in range(steps):
        if match.is_over:
            return
        yield match, random_step(match, chooser)


def settings_for(match: Match) -> table_pb2.TableSettings:
    return table_pb2.TableSettings(name="t", seat_count=SEATS, ruleset=convert.ruleset_to_pb(match.ruleset))


def seat_states() -> list[table_pb2.SeatState]:
    return [table_pb2.SeatState(seat=seat, occupied=True, name=f"p{seat}") for seat in range(SEATS)]


def requests_for(seat: int, legal: actions_pb2.LegalActions) -> Iterator[Message]:
    """Every request a client could build from its LegalActions, one per listed option."""
    for option in legal.plays:
        yield play_service_pb2.PlayCardsRequest(cards=option.cards, reaction_window_id=option.reaction_window_id)
    if legal.choose_color:
        yield play_service_pb2.ChooseColorRequest(color=cards_pb2.COLOR_BLUE)
    if legal.HasField("draw"):
        yield play_service_pb2.DrawRequest()
    if legal.pass_turn:
        yield play_service_pb2.PassRequest()
    if legal.call_uno:
        yield play_service_pb2.CallUnoRequest()
    for target in legal.catch_uno_targets:
        yield play_service_pb2.CatchUnoRequest(target_seat=target)
    if legal.challenge:
        yield play_service_pb2.ChallengeRequest()
    for window in legal.react_window_ids:
        yield play_service_pb2.ReactRequest(reaction_window_id=window)
    for target in legal.swap_target_seats:
        yield play_service_pb2.ChooseSwapTargetRequest(target_seat=target)
    for target in legal.five_swap.target_seats:
        for given in legal.five_swap.cards:
            yield play_service_pb2.FiveSwapRequest(target_seat=target, card=given)
    for given in legal.give_cards:
        yield play_service_pb2.GiveCardRequest(card=given)


def check_view(match: Match, viewer: int | None) -> None:
    view = match.view_for(viewer)
    msg = convert.view_to_pb(
        view,
        table_id="t",
        event_number=9,
        seats=seat_states(),
        settings=settings_for(match),
        status=table_pb2.TABLE_STATUS_PLAYING,
    )
    assert [s.hand_size for s in msg.seats] == list(view.hand_sizes)
    assert [s.name for s in msg.seats] == [f"p{seat}" for seat in range(SEATS)]
    assert convert.card_from_pb(msg.top_card.card) == view.top
    # A window shows the public card it is about (a played card, the top card or one under it).
    window_faces = Counter(convert.card_from_pb(w.card.card) for w in msg.open_windows if w.HasField("card"))
    assert set(window_faces) <= set(match.game.discard)
    # A pending five swap's card, shown to its two seats only (H11).
    if msg.five_swap.card.HasField("card"):
        assert viewer in (msg.five_swap.seat, msg.five_swap.target_seat)
        window_faces[convert.card_from_pb(msg.five_swap.card.card)] += 1
    if viewer is None:
        assert msg.is_spectator and not msg.hand and not msg.HasField("legal_actions")
        assert pb_faces(msg) - window_faces == Counter([view.top])
        return
    assert not msg.is_spectator and msg.seat == viewer
    assert [convert.card_from_pb(ref.card) for ref in msg.hand] == list(view.hand)
    # The only faces: the seat's own hand, the top card, and cards of its hand named in its options.
    assert pb_faces(msg) - pb_faces(msg.legal_actions) - window_faces == Counter(view.hand) + Counter([view.top])
    assert set(pb_faces(msg.legal_actions)) <= set(view.hand)
    legal = msg.legal_actions
    engine = set(view.legal_actions)
    assert bool(engine) == bool(legal.ListFields()), "an empty LegalActions means: wait"
    if view.to_act == viewer and not view.match_winners:
        assert legal.required
    # Every listed command converts back to an action the engine lists (plays up to the call_uno flag).
    for request in requests_for(viewer, legal):
        for action in convert.action_from_request(viewer, request):
            assert action in engine or (
                isinstance(action, Play) and dataclasses.replace(action, call_uno=True) in engine
            )
    # And every engine action is offered.
    plays = {tuple(convert.card_from_pb(c) for c in option.cards) for option in legal.plays}
    assert plays == {action.cards for action in engine if isinstance(action, Play)}
    for option in legal.plays:
        if option.kind == actions_pb2.PLAY_KIND_TURN:
            assert viewer == view.current and option.reaction_window_id == 0
        else:
            assert option.reaction_window_id in {w.id for w in view.windows}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playouts_convert_every_event_and_view_without_leaks(preset: str, seed: int) -> None:
    seen: set[type[ev.Event]] = set()
    for step, (match, events) in enumerate(playout(preset, seed, 500)):
        for event in events:
            seen.add(type(event))
            kinds = {check_event(event, viewer).WhichOneof("payload") for viewer in VIEWERS}
            assert len(kinds) == 1, "every viewer gets the same kind of event"
            if isinstance(event, ev.Drew) and event.cards:
                assert not any(
                    r.HasField("card") for r in convert.event_to_pb(event, (event.seat + 1) % SEATS).cards_drawn.cards
                )
        if step % 5 == 0 and not match.is_over:
            for viewer in VIEWERS:
                check_view(match, viewer)
    assert {ev.Dealt, ev.Played, ev.Drew, ev.TurnStarted} <= seen


@pytest.mark.parametrize("preset", ["russian", "serbian"])
def test_house_rule_playouts_reach_the_private_events(preset: str) -> None:
    """The heavy presets, over more seeds, produce the events that hide cards, and none of them leaks."""
    seen: set[type[ev.Event]] = set()
    for seed in range(3, 9):
        for _match, events in playout(preset, seed, 400):
            for event in events:
                seen.add(type(event))
                for viewer in VIEWERS:
                    check_event(event, viewer)
    expected = {ev.HandsRotated, ev.HandsSwapped, ev.WindowOpened, ev.WindowClosed}
    if preset == "russian":
        expected |= {ev.SwapOffered, ev.CardsExchanged, ev.SilenceStarted}
    assert expected <= seen


def test_punished_mistakes_convert_too() -> None:
    """Mistakes the engine punishes rather than refuses (never in its legal list) convert like the rest."""
    seen: set[type[ev.Event]] = set()
    for preset in ("russian", "serbian"):
        ruleset = find_ruleset(preset).replace(bluff_penalty="take_back", target_score=150)
        for seed in range(4):
            match = Match(ruleset, SEATS, random.Random(seed))
            chooser = random.Random(seed + 100)
            events = match.start()
            for _ in range(300):
                for event in events:
                    seen.add(type(event))
                    for viewer in VIEWERS:
                        check_event(event, viewer)
                if match.is_over:
                    break
                seat = chooser.randrange(SEATS)
                hand = match.game.hands[seat]
                if chooser.random() < 0.2 and hand:
                    mistake: Play | CatchUno = Play(seat, (chooser.choice(hand),))
                    if chooser.random() < 0.3:
                        mistake = CatchUno(seat, chooser.randrange(SEATS))
                    try:
                        events = match.apply(mistake)
                    except UnoError:
                        events = []
                else:
                    events = random_step(match, chooser)
    assert {ev.WrongJumpIn, ev.IllegalPlay, ev.FalseCatch, ev.PenaltyPoints, ev.CardTakenBack} <= seen


# ------------------------------------------------------------------------------------- legal actions


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


# ------------------------------------------------------------------------------------------ requests


def pb(c: Card) -> cards_pb2.Card:
    return convert.card_to_pb(c)


def test_each_request_becomes_its_action() -> None:
    ps = play_service_pb2
    cases: list[tuple[Message, tuple[object, ...]]] = [
        (ps.PlayCardsRequest(cards=[pb(R5), pb(card("yellow 5"))]), (Play(1, (R5, card("yellow 5"))),)),
        (ps.PlayCardsRequest(cards=[pb(R5)], call_uno=True), (Play(1, (R5,), call_uno=True),)),
        (ps.PlayCardsRequest(cards=[pb(WILD)]), (Play(1, (WILD,)),)),
        (
            ps.PlayCardsRequest(cards=[pb(WD4)], color=cards_pb2.COLOR_GREEN),
            (Play(1, (WD4,)), ChooseColor(1, Color.GREEN)),
        ),
        (ps.ChooseColorRequest(color=cards_pb2.COLOR_YELLOW), (ChooseColor(1, Color.YELLOW),)),
        (ps.DrawRequest(), (Draw(1),)),
        (ps.PassRequest(), (Pass(1),)),
        (ps.CallUnoRequest(), (CallUno(1),)),
        (ps.CatchUnoRequest(target_seat=3), (CatchUno(1, 3),)),
        (ps.ChallengeRequest(), (Challenge(1),)),
        (ps.ReactRequest(reaction_window_id=7), (React(1, 7),)),
        (ps.ChooseSwapTargetRequest(target_seat=0), (ChooseSwapTarget(1, 0),)),
        (ps.FiveSwapRequest(target_seat=2, card=pb(B3)), (FiveSwap(1, 2, B3),)),
        (ps.GiveCardRequest(card=pb(G2)), (GiveCard(1, G2),)),
    ]
    for request, expected in cases:
        assert convert.action_from_request(1, request) == expected


@pytest.mark.parametrize(
    ("request_msg", "reason"),
    [
        (play_service_pb2.PlayCardsRequest(), "NO_CARDS"),
        (play_service_pb2.PlayCardsRequest(cards=[cards_pb2.Card(color=cards_pb2.COLOR_RED)]), "UNSPECIFIED_ENUM"),
        (play_service_pb2.PlayCardsRequest(cards=[cards_pb2.Card(rank=cards_pb2.RANK_SKIP)]), "UNSPECIFIED_ENUM"),
        (play_service_pb2.PlayCardsRequest(cards=[pb(R5), cards_pb2.Card(color=5, rank=6)]), "NO_SUCH_CARD"),
        (play_service_pb2.PlayCardsRequest(cards=[pb(WILD)], color=cards_pb2.COLOR_UNSPECIFIED), "UNSPECIFIED_ENUM"),
        (play_service_pb2.PlayCardsRequest(cards=[pb(WILD)], color=cards_pb2.COLOR_BLACK), "BAD_COLOR"),
        (play_service_pb2.ChooseColorRequest(), "UNSPECIFIED_ENUM"),
        (play_service_pb2.ChooseColorRequest(color=cards_pb2.COLOR_BLACK), "BAD_COLOR"),
        (play_service_pb2.ReactRequest(), "MISSING_FIELD"),
        (play_service_pb2.FiveSwapRequest(target_seat=2), "MISSING_FIELD"),
        (play_service_pb2.FiveSwapRequest(target_seat=2, card=cards_pb2.Card()), "UNSPECIFIED_ENUM"),
        (play_service_pb2.GiveCardRequest(), "MISSING_FIELD"),
        (play_service_pb2.GiveCardRequest(card=cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=1)), "NO_SUCH_CARD"),
    ],
)
def test_malformed_requests_are_refused_with_a_reason(request_msg: Message, reason: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        convert.action_from_request(0, request_msg)
    assert caught.value.reason == reason


@pytest.mark.parametrize("cards", [[R5], [SOUND], [R5, card("yellow 5")]], ids=str)
def test_colour_sent_with_cards_that_name_none_is_refused(cards: list[Card]) -> None:
    request = play_service_pb2.PlayCardsRequest(cards=[pb(c) for c in cards], color=cards_pb2.COLOR_RED)
    with pytest.raises(IllegalAction) as caught:
        convert.action_from_request(0, request)
    assert caught.value.reason == "COLOR_NOT_NEEDED"


def test_non_engine_requests_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        convert.action_from_request(0, play_service_pb2.CommitEntropyRequest())


# ---------------------------------------------------------------------------------------------- views


def test_phase_and_direction_tables_cover_the_engine() -> None:
    from unonet.engine import Phase

    assert len({convert.phase_to_pb(phase) for phase in Phase}) == len(Phase)
    assert {convert.direction_to_pb(1), convert.direction_to_pb(-1)} == {
        views_pb2.DIRECTION_CLOCKWISE,
        views_pb2.DIRECTION_COUNTERCLOCKWISE,
    }
    assert {convert.window_kind_to_pb(kind) for kind in WindowKind} == set(views_pb2.ReactionWindowKind.values()) - {0}
    assert {convert.draw_reason_to_pb(reason) for reason in DrawReason} == set(events_pb2.DrawReason.values()) - {0}
    with pytest.raises(ValueError):
        convert.direction_to_pb(0)


def test_spectator_view_has_no_hand_and_no_actions() -> None:
    match = Match(find_ruleset("standard"), SEATS, random.Random(4))
    match.start()
    spectator = convert.view_to_pb(
        match.view_for(None),
        table_id="t",
        event_number=3,
        seats=seat_states(),
        settings=settings_for(match),
        status=table_pb2.TABLE_STATUS_PLAYING,
    )
    assert spectator.is_spectator and not spectator.hand and not spectator.HasField("legal_actions")
    assert (spectator.table_id, spectator.event_number, spectator.status) == ("t", 3, table_pb2.TABLE_STATUS_PLAYING)
    assert spectator.settings.ruleset.preset == "standard"
    to_act = match.game.to_act
    assert to_act is not None
    player = convert.view_to_pb(
        match.view_for(to_act),
        table_id="t",
        event_number=3,
        seats=seat_states(),
        settings=settings_for(match),
        status=table_pb2.TABLE_STATUS_PLAYING,
    )
    assert not player.is_spectator and player.seat == to_act and len(player.hand) == len(match.game.hands[to_act])
    assert player.seat_to_act == to_act and player.legal_actions.required
    assert player.phase in (views_pb2.PHASE_TURN, views_pb2.PHASE_CHOOSE_COLOR)
