"""What a seat's tracked knowledge (`unonet.wire.knowledge.SeatTracker`) must agree with: the true game,
on everything the seat may know. Shared by the tracker's tests at a real table and in process."""

from __future__ import annotations

import random
from collections import Counter

from unonet.engine import Game, Knowledge, determinize, legal_actions
from unonet.v1 import views_pb2
from unonet.wire.knowledge import SeatTracker

# The phases `SeatTracker.position` reads a position in; it refuses every other one.
POSITION_PHASES = frozenset({
    views_pb2.PHASE_TURN, views_pb2.PHASE_CHOOSE_COLOR, views_pb2.PHASE_AFTER_DRAW,
    views_pb2.PHASE_CHOOSE_SWAP_TARGET, views_pb2.PHASE_FIVE_SWAP, views_pb2.PHASE_GIVE_CARD,
})  # fmt: skip


def visible(game: Game, seat: int) -> dict[str, object]:
    """Everything `seat` can see of `game`."""
    obligation = game.obligation
    return {
        "hand": Counter(game.hands[seat]),
        "discard": list(game.discard),
        "color": game.color,
        "direction": game.direction,
        "to_act": game.to_act,
        "current": game.current,
        "phase": game.phase,
        "hand_sizes": [len(hand) for hand in game.hands],
        "draw_pile": len(game.draw_pile),
        "obligation": None
        if obligation is None
        else (obligation.amount, obligation.kind, obligation.target, obligation.setter, obligation.skips),
        # A bluff record is kept under every rule, but only a rule with challenges shows it (T2, B1).
        "challengeable": obligation is not None and obligation.bluff is not None and game.ruleset.can_challenge,
        "windows": sorted((w.id, w.kind, w.eligible, w.target, w.card) for w in game.windows.values()),
        "catchable": set(game.catchable),
        "in_play": game.in_play,
        "went_out": game.went_out,
        "silence": game.silence,
        "skip_next": set(game.skip_next),
        "penalty_points": list(game.penalty_points),
        "first_card_on_top": game.first_card_on_top,
        "pending_swap": None if game.pending_swap is None else game.pending_swap[:2],
        "legal": legal_actions(game, seat),
    }


def same_sight(game: Game, true: Game, seat: int) -> None:
    """`game` shows `seat` what `true` does; the message names each difference."""
    mine, real = visible(game, seat), visible(true, seat)
    differ = {key: (mine[key], real[key]) for key in real if mine[key] != real[key]}
    assert not differ, f"seen differently (read, true): {differ}"


def held_as_said(knowledge: Knowledge, true: Game) -> None:
    """The cards `knowledge` places in other hands are there, and no unknown card of a hand is one it
    excludes."""
    for other, cards in enumerate(knowledge.known):
        assert not Counter(cards) - Counter(true.hands[other]), f"seat {other} does not hold {cards}"
    for other, banned in enumerate(knowledge.excluded):
        unknown = Counter(true.hands[other]) - Counter(knowledge.known[other])
        assert not set(unknown) & banned, f"seat {other} holds {set(unknown) & banned}, said to be excluded"


def check_position(tracker: SeatTracker, view: views_pb2.SeatView, true: Game, *, deal: bool = True) -> Knowledge:
    """`tracker`'s position at `view` (a view of `true`, read at the same event) shows the seat what
    `true` shows it, and its knowledge holds for the true hidden cards; with `deal`, a determinization of
    it does too and deals every card in play. Returns the knowledge."""
    seat = view.seat
    known_game, knowledge = tracker.position(view)
    same_sight(known_game, true, seat)
    held_as_said(knowledge, true)
    if deal:
        dealt = determinize(known_game, knowledge, random.Random(view.event_number))
        same_sight(dealt, true, seat)
        assert Counter(dealt.cards_in_play()) == Counter(true.cards_in_play())
        for other, cards in enumerate(knowledge.known):
            assert not Counter(cards) - Counter(dealt.hands[other])
    return knowledge
