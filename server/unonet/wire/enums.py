"""The round's small enums on the wire (direction, phase, draw reason, draw obligation kind, match end
reason) and reaction windows, both ways: what events, views and the bots' knowledge share.
"""

from __future__ import annotations

from unonet.engine import events as ev
from unonet.engine.cards import Rank
from unonet.engine.errors import MalformedAction
from unonet.engine.events import DrawReason, Window, WindowKind
from unonet.engine.game import Phase
from unonet.v1 import (
    events_pb2,
    views_pb2,
)
from unonet.wire.cards import card_from_pb, card_to_pb
from unonet.wire.lookup import enum_name, lookup

_DRAW_REASON_TO_PB: dict[DrawReason, events_pb2.DrawReason.ValueType] = {
    DrawReason.TURN: events_pb2.DRAW_REASON_TURN,
    DrawReason.OBLIGATION: events_pb2.DRAW_REASON_OBLIGATION,
    DrawReason.UNO_PENALTY: events_pb2.DRAW_REASON_UNO_PENALTY,
    DrawReason.FALSE_CATCH: events_pb2.DRAW_REASON_FALSE_CATCH,
    DrawReason.CHALLENGE_LOST: events_pb2.DRAW_REASON_CHALLENGE_LOST,
    DrawReason.BLUFF_CAUGHT: events_pb2.DRAW_REASON_BLUFF_CAUGHT,
    DrawReason.SLOWEST: events_pb2.DRAW_REASON_SLOWEST,
    DrawReason.WRONG_JUMP_IN: events_pb2.DRAW_REASON_WRONG_JUMP_IN,
    DrawReason.ILLEGAL_PLAY: events_pb2.DRAW_REASON_ILLEGAL_PLAY,
    DrawReason.BROKE_SILENCE: events_pb2.DRAW_REASON_BROKE_SILENCE,
    DrawReason.H2O: events_pb2.DRAW_REASON_H2O,
}

_WINDOW_KIND_TO_PB: dict[WindowKind, views_pb2.ReactionWindowKind.ValueType] = {
    WindowKind.UNO_CATCH: views_pb2.REACTION_WINDOW_KIND_UNO_CATCH,
    WindowKind.JUMP_IN: views_pb2.REACTION_WINDOW_KIND_JUMP_IN,
    WindowKind.RUN_CUT: views_pb2.REACTION_WINDOW_KIND_RUN_CUT,
    WindowKind.UNO_SLAP: views_pb2.REACTION_WINDOW_KIND_UNO_SLAP,
    WindowKind.SOUND_WILD: views_pb2.REACTION_WINDOW_KIND_SOUND_WILD,
    WindowKind.SKIP_ESCAPE: views_pb2.REACTION_WINDOW_KIND_SKIP_ESCAPE,
}
# The windows whose `target` is the seat they are about (the one to catch, the one being skipped); for
# the others the subject is the seat that opened them (played the card, called UNO, started the run).
_WINDOWS_ABOUT_TARGET = frozenset({WindowKind.UNO_CATCH, WindowKind.SKIP_ESCAPE})

_PHASE_TO_PB: dict[Phase, views_pb2.Phase.ValueType] = {
    Phase.TURN: views_pb2.PHASE_TURN,
    Phase.CHOOSE_COLOR: views_pb2.PHASE_CHOOSE_COLOR,
    Phase.AFTER_DRAW: views_pb2.PHASE_AFTER_DRAW,
    Phase.CHOOSE_SWAP_TARGET: views_pb2.PHASE_CHOOSE_SWAP_TARGET,
    Phase.FIVE_SWAP: views_pb2.PHASE_FIVE_SWAP,
    Phase.GIVE_CARD: views_pb2.PHASE_GIVE_CARD,
    Phase.ROUND_OVER: views_pb2.PHASE_ROUND_OVER,
}

# The rank of the card that set or last raised a draw obligation, as the protocol names its kind.
DRAW_OBLIGATION_KIND: dict[Rank, views_pb2.DrawObligationKind.ValueType] = {
    Rank.DRAW_TWO: views_pb2.DRAW_OBLIGATION_KIND_DRAW_TWO,
    Rank.WILD_DRAW_FOUR: views_pb2.DRAW_OBLIGATION_KIND_WILD_DRAW_FOUR,
    Rank.BLANK: views_pb2.DRAW_OBLIGATION_KIND_BLANK,
    Rank.PLUS_ONE: views_pb2.DRAW_OBLIGATION_KIND_PLUS_ONE,
    Rank.PLUS_TWO: views_pb2.DRAW_OBLIGATION_KIND_PLUS_TWO,
}
MATCH_END_REASON_TO_PB: dict[ev.MatchEndReason, events_pb2.MatchEndReason.ValueType] = {
    ev.MatchEndReason.TARGET_SCORE: events_pb2.MATCH_END_REASON_TARGET_SCORE,
    ev.MatchEndReason.LAST_SEAT_STANDING: events_pb2.MATCH_END_REASON_LAST_SEAT_STANDING,
}


def obligation_pb(
    *, amount: int, kind: Rank, target: int, setter: int, challengeable: bool
) -> views_pb2.DrawObligation:
    """An open draw obligation (views' `draw_obligation`, the DrawObligationChanged event's payload)."""
    return views_pb2.DrawObligation(
        amount=amount,
        kind=lookup(DRAW_OBLIGATION_KIND, kind, "obligation kind"),
        target_seat=target,
        setter_seat=setter,
        challengeable=challengeable,
    )


def direction_to_pb(direction: int) -> views_pb2.Direction.ValueType:
    """The engine's direction of play (1 or -1) as the protocol names it."""
    if direction == 1:
        return views_pb2.DIRECTION_CLOCKWISE
    if direction == -1:
        return views_pb2.DIRECTION_COUNTERCLOCKWISE
    raise ValueError(f"direction is 1 or -1, not {direction!r}")


def phase_to_pb(phase: Phase) -> views_pb2.Phase.ValueType:
    """The engine's round phase as the protocol names it.

    The protocol's table-level phases (waiting, shuffle, window, match over) are not round phases:
    `view_to_pb` adds PHASE_WINDOW and PHASE_MATCH_OVER, the host the others.
    """
    return lookup(_PHASE_TO_PB, phase, "phase")


def phase_from_pb(value: int) -> Phase:
    """The engine phase a SeatView's `phase` names. Raises MalformedAction (reason BAD_POSITION) for the
    phases that are no round's state in play: waiting, shuffling, a blocking window, the match over."""
    for phase, number in _PHASE_TO_PB.items():
        if number == value:
            return phase
    raise MalformedAction(f"phase {enum_name(views_pb2.Phase, value)} is no phase of a round", reason="BAD_POSITION")


def direction_from_pb(value: int) -> int:
    """1 (clockwise) or -1 from a Direction. Raises MalformedAction (UNSPECIFIED_ENUM) otherwise."""
    if value == views_pb2.DIRECTION_CLOCKWISE:
        return 1
    if value == views_pb2.DIRECTION_COUNTERCLOCKWISE:
        return -1
    raise MalformedAction(f"direction {value} is no Direction the protocol defines", reason="UNSPECIFIED_ENUM")


def obligation_kind_from_pb(value: int) -> Rank:
    """The rank that set a draw obligation, from its DrawObligationKind. Raises MalformedAction."""
    for rank, number in DRAW_OBLIGATION_KIND.items():
        if number == value:
            return rank
    raise MalformedAction(f"draw obligation kind {value} is not defined", reason="UNSPECIFIED_ENUM")


def window_from_pb(msg: views_pb2.ReactionWindow, *, opened_by: int) -> Window:
    """An engine window from a ReactionWindow (`window_to_pb` read back). `opened_by` is used where the
    protocol does not say who opened it: a skip escape names the skipped seat, not the Skip's player.
    Raises MalformedAction for an undefined kind or card."""
    kind = next((k for k, number in _WINDOW_KIND_TO_PB.items() if number == msg.kind), None)
    if kind is None:
        raise MalformedAction(f"window kind {msg.kind} is not defined", reason="UNSPECIFIED_ENUM")
    subject = msg.subject_seat if msg.HasField("subject_seat") else None
    target: int | None = None
    opener = subject if subject is not None else opened_by
    if kind is WindowKind.SKIP_ESCAPE:  # about the skipped seat, opened by the Skip's player
        target, opener = subject, opened_by
    elif kind is WindowKind.UNO_CATCH:  # about, and opened by, the seat down to one card
        target = subject
    elif kind is WindowKind.RUN_CUT and msg.eligible_seats:  # the one seat that may cut
        target = msg.eligible_seats[0]
    card = card_from_pb(msg.card.card) if msg.card.HasField("card") else None
    return Window(msg.id, kind, tuple(msg.eligible_seats), opener, msg.blocks_play, target, card)


def draw_reason_to_pb(reason: DrawReason) -> events_pb2.DrawReason.ValueType:
    """Why cards were drawn, as the protocol names it."""
    return lookup(_DRAW_REASON_TO_PB, reason, "draw reason")


def window_kind_to_pb(kind: WindowKind) -> views_pb2.ReactionWindowKind.ValueType:
    """The race a reaction window decides, as the protocol names it."""
    return lookup(_WINDOW_KIND_TO_PB, kind, "window kind")


def window_to_pb(window: Window) -> views_pb2.ReactionWindow:
    """An open reaction window, without the host's timing (open time, deadline, latency allowance)."""
    subject = window.target if window.kind in _WINDOWS_ABOUT_TARGET else window.opened_by
    msg = views_pb2.ReactionWindow(
        id=window.id,
        kind=window_kind_to_pb(window.kind),
        eligible_seats=window.eligible,
        blocks_play=window.is_blocking,
    )
    if window.card is not None:
        msg.card.card.CopyFrom(card_to_pb(window.card))
    if subject is not None:
        msg.subject_seat = subject
    return msg
