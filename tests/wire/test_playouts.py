"""Seeded random playouts under every preset whose every event and view is converted for every seat and a
spectator (`unonet.wire.events`, `views`, `legal`, `requests`): no face leaks, and every listed command converts
back to an action the engine lists.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from wire_faces import (
    SEATS,
    VIEWERS,
    check_event,
    pb_faces,
    requests_for,
    seat_states,
    settings_for,
)

from unonet.engine import (
    PRESETS,
    CatchUno,
    Match,
    Play,
    UnoError,
    find_ruleset,
)
from unonet.engine import events as ev
from unonet.engine.playout import random_step
from unonet.v1 import actions_pb2, table_pb2
from unonet.wire import convert


def playout(preset: str, seed: int, steps: int) -> Iterator[tuple[Match, list[ev.Event]]]:
    """A seeded random match under `preset`: yields the match and the events of each step."""
    match = Match(find_ruleset(preset).replace(target_score=150), SEATS, random.Random(seed))
    chooser = random.Random(seed * 7919)
    yield match, match.start()
    for _ in range(steps):
        if match.is_over:
            return
        yield match, random_step(match, chooser)


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
