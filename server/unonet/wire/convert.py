"""The one module that knows both engine objects and protobuf messages (STYLE.md).

Everything that crosses the wire passes through here: cards, rulesets, events, views and legal actions
go out; requests come in as engine actions. Keeping the translation in one place means the engine never
imports protobuf, the rest of the host never spells a proto enum, and a change to either side is fixed
once.

Two rules hold throughout:

- Output never leaks. Events are redacted with the engine's own `Event.visible_to` before anything is
  copied, and hand counts come from the unredacted event only where the protocol makes counts public.
- Input is refused precisely. A request that cannot mean anything (an `*_UNSPECIFIED` enum, a black five,
  no cards) raises `MalformedAction` with a machine-readable reason, before the engine sees it.

Enum spellings differ between the two sides in places (engine `NO_MATCHING_COLOUR`, proto
`WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR`), so every enum is mapped with an explicit table, never by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from google.protobuf import duration_pb2
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from unonet.engine import events as ev
from unonet.engine.actions import (
    Action,
    CallUno,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.engine.cards import Card, Color, Rank
from unonet.engine.errors import IllegalAction, MalformedAction, RulesetError
from unonet.engine.events import DrawReason, Window, WindowKind
from unonet.engine.game import ILLEGAL_PLAY_PENALTY, Phase
from unonet.engine.ruleset import (
    BlankEffect,
    BluffPenalty,
    FirstWild,
    JumpInPenalty,
    Ruleset,
    Scoring,
    WildDrawFourRule,
    find_ruleset,
)
from unonet.engine.views import ObligationView, SeatView
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    events_pb2,
    play_service_pb2,
    rules_pb2,
    table_pb2,
    views_pb2,
)
from unonet.wire.refs import EventRefs, Ref

__all__ = [
    "RuledReaction",
    "action_from_request",
    "bot_fallback",
    "bot_seated",
    "card_from_pb",
    "card_ref",
    "card_to_pb",
    "chat_message",
    "chat_penalty",
    "color_from_pb",
    "color_to_pb",
    "deck_committed",
    "direction_from_pb",
    "direction_to_pb",
    "draw_reason_to_pb",
    "event_to_pb",
    "host_event",
    "legal_actions_to_pb",
    "match_started",
    "obligation_kind_from_pb",
    "phase_from_pb",
    "phase_to_pb",
    "player_joined",
    "player_left",
    "rank_to_pb",
    "ref_to_pb",
    "ruleset_from_pb",
    "ruleset_to_pb",
    "seat_connection_changed",
    "seat_entropy_committed",
    "seat_entropy_revealed",
    "seat_taken_over",
    "shuffle_committed",
    "shuffle_legal_actions",
    "shuffle_revealed",
    "shuffle_timed_out",
    "turn_timed_out",
    "view_to_pb",
    "window_from_pb",
    "window_kind_to_pb",
    "window_opened_pb",
    "window_ruled_pb",
    "window_to_pb",
]

_E = TypeVar("_E")
_V = TypeVar("_V")

# ------------------------------------------------------------------------------------------ enum tables

_COLOR_TO_PB: dict[Color, cards_pb2.Color.ValueType] = {
    Color.RED: cards_pb2.COLOR_RED,
    Color.YELLOW: cards_pb2.COLOR_YELLOW,
    Color.GREEN: cards_pb2.COLOR_GREEN,
    Color.BLUE: cards_pb2.COLOR_BLUE,
    Color.BLACK: cards_pb2.COLOR_BLACK,
}
_COLOR_FROM_PB: dict[int, Color] = {v: k for k, v in _COLOR_TO_PB.items()}

_RANK_TO_PB: dict[Rank, cards_pb2.Rank.ValueType] = {
    Rank.ZERO: cards_pb2.RANK_ZERO,
    Rank.ONE: cards_pb2.RANK_ONE,
    Rank.TWO: cards_pb2.RANK_TWO,
    Rank.THREE: cards_pb2.RANK_THREE,
    Rank.FOUR: cards_pb2.RANK_FOUR,
    Rank.FIVE: cards_pb2.RANK_FIVE,
    Rank.SIX: cards_pb2.RANK_SIX,
    Rank.SEVEN: cards_pb2.RANK_SEVEN,
    Rank.EIGHT: cards_pb2.RANK_EIGHT,
    Rank.NINE: cards_pb2.RANK_NINE,
    Rank.SKIP: cards_pb2.RANK_SKIP,
    Rank.REVERSE: cards_pb2.RANK_REVERSE,
    Rank.DRAW_TWO: cards_pb2.RANK_DRAW_TWO,
    Rank.WILD: cards_pb2.RANK_WILD,
    Rank.WILD_DRAW_FOUR: cards_pb2.RANK_WILD_DRAW_FOUR,
    Rank.BLANK: cards_pb2.RANK_BLANK,
    Rank.SOUND_WILD: cards_pb2.RANK_SOUND_WILD,
    Rank.PLUS_ONE: cards_pb2.RANK_PLUS_ONE,
    Rank.PLUS_TWO: cards_pb2.RANK_PLUS_TWO,
}
_RANK_FROM_PB: dict[int, Rank] = {v: k for k, v in _RANK_TO_PB.items()}

_WILD_DRAW_FOUR_TO_PB: dict[WildDrawFourRule, rules_pb2.WildDrawFourRule.ValueType] = {
    WildDrawFourRule.NO_MATCHING_COLOUR: rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR,
    WildDrawFourRule.NO_MATCH_AT_ALL: rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCH_AT_ALL,
    WildDrawFourRule.NO_OTHER_PLAY: rules_pb2.WILD_DRAW_FOUR_RULE_NO_OTHER_PLAY,
    WildDrawFourRule.ANY_TIME: rules_pb2.WILD_DRAW_FOUR_RULE_ANY_TIME,
}
_BLUFF_PENALTY_TO_PB: dict[BluffPenalty, rules_pb2.BluffPenalty.ValueType] = {
    BluffPenalty.DRAW_FOUR: rules_pb2.BLUFF_PENALTY_DRAW_FOUR,
    BluffPenalty.DRAW_SIX: rules_pb2.BLUFF_PENALTY_DRAW_SIX,
    BluffPenalty.TAKE_BACK: rules_pb2.BLUFF_PENALTY_TAKE_BACK,
}
_SCORING_TO_PB: dict[Scoring, rules_pb2.ScoringRule.ValueType] = {
    Scoring.WINNER_TAKES: rules_pb2.SCORING_RULE_WINNER_TAKES,
    Scoring.LOWEST_WINS: rules_pb2.SCORING_RULE_LOWEST_WINS,
    Scoring.ELIMINATION: rules_pb2.SCORING_RULE_ELIMINATION,
}
_FIRST_WILD_TO_PB: dict[FirstWild, rules_pb2.FirstWildRule.ValueType] = {
    FirstWild.CHOOSE: rules_pb2.FIRST_WILD_RULE_CHOOSE,
    FirstWild.REDRAW: rules_pb2.FIRST_WILD_RULE_REDRAW,
}
_JUMP_IN_PENALTY_TO_PB: dict[JumpInPenalty, rules_pb2.JumpInPenalty.ValueType] = {
    JumpInPenalty.POINTS: rules_pb2.JUMP_IN_PENALTY_POINTS,
    JumpInPenalty.CARDS: rules_pb2.JUMP_IN_PENALTY_CARDS,
}
_BLANK_EFFECT_TO_PB: dict[BlankEffect, rules_pb2.BlankEffect.ValueType] = {
    BlankEffect.DRAW: rules_pb2.BLANK_EFFECT_DRAW,
    BlankEffect.WILD: rules_pb2.BLANK_EFFECT_WILD,
}

# Every enum option of the Ruleset, by its field name (the same on both sides), with its table.
_RULESET_ENUMS: dict[str, Mapping[Any, int]] = {
    "wild_draw_four": _WILD_DRAW_FOUR_TO_PB,
    "bluff_penalty": _BLUFF_PENALTY_TO_PB,
    "scoring": _SCORING_TO_PB,
    "first_wild": _FIRST_WILD_TO_PB,
    "jump_in_penalty": _JUMP_IN_PENALTY_TO_PB,
    "blank_effect": _BLANK_EFFECT_TO_PB,
}
_RULESET_ENUMS_FROM_PB: dict[str, dict[int, Any]] = {
    name: {v: k for k, v in table.items()} for name, table in _RULESET_ENUMS.items()
}
# The engine's options, by name; `name` is the preset, carried as the proto's `preset`.
_RULESET_OPTIONS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Ruleset) if f.name != "name")

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
_OBLIGATION_KIND: dict[Rank, views_pb2.DrawObligationKind.ValueType] = {
    Rank.DRAW_TWO: views_pb2.DRAW_OBLIGATION_KIND_DRAW_TWO,
    Rank.WILD_DRAW_FOUR: views_pb2.DRAW_OBLIGATION_KIND_WILD_DRAW_FOUR,
    Rank.BLANK: views_pb2.DRAW_OBLIGATION_KIND_BLANK,
    Rank.PLUS_ONE: views_pb2.DRAW_OBLIGATION_KIND_PLUS_ONE,
    Rank.PLUS_TWO: views_pb2.DRAW_OBLIGATION_KIND_PLUS_TWO,
}
_MATCH_END_REASON_TO_PB: dict[ev.MatchEndReason, events_pb2.MatchEndReason.ValueType] = {
    ev.MatchEndReason.TARGET_SCORE: events_pb2.MATCH_END_REASON_TARGET_SCORE,
    ev.MatchEndReason.LAST_SEAT_STANDING: events_pb2.MATCH_END_REASON_LAST_SEAT_STANDING,
}


def _lookup(table: Mapping[_E, _V], value: _E, what: str) -> _V:
    """One enum table lookup that names the table when a value was forgotten (a programming error)."""
    try:
        return table[value]
    except KeyError:
        raise ValueError(f"no protocol value for {what} {value!r}") from None


# ---------------------------------------------------------------------------------------------- cards


def color_to_pb(color: Color | None) -> cards_pb2.Color.ValueType:
    """A colour as the protocol numbers it; None (no colour in force, after a Sound Wild) is UNSPECIFIED."""
    if color is None:
        return cards_pb2.COLOR_UNSPECIFIED
    return _COLOR_TO_PB[color]


def rank_to_pb(rank: Rank) -> cards_pb2.Rank.ValueType:
    """A rank as the protocol numbers it (number cards are face value plus one)."""
    return _RANK_TO_PB[rank]


def card_to_pb(card: Card) -> cards_pb2.Card:
    """The face of an engine card, as the protocol shows it."""
    return cards_pb2.Card(color=_COLOR_TO_PB[card.color], rank=_RANK_TO_PB[card.rank])


def card_ref(card: Card | None) -> cards_pb2.CardRef:
    """A card as one receiver sees it: the face when given, else an empty reference (a hidden card).

    Only the face for now: commitments and salts come with provably fair shuffles (issue 4), and this is
    where they will be added, so every caller that shows a card keeps doing it through here.
    """
    if card is None:
        return cards_pb2.CardRef()
    return cards_pb2.CardRef(card=card_to_pb(card))


def color_from_pb(value: int) -> Color:
    """A colour a player names (ChooseColor, PlayCardsRequest.color): red, yellow, green or blue.

    Raises MalformedAction: reason UNSPECIFIED_ENUM for COLOR_UNSPECIFIED, BAD_COLOR for COLOR_BLACK
    (never a colour in force) or a number the protocol does not define.
    """
    if value == cards_pb2.COLOR_UNSPECIFIED:
        raise MalformedAction("a colour must be named: COLOR_UNSPECIFIED is not one", reason="UNSPECIFIED_ENUM")
    color = _COLOR_FROM_PB.get(value)
    if color is None or color is Color.BLACK:
        raise MalformedAction(
            f"colour {_enum_name(cards_pb2.Color, value)} cannot be named; name red, yellow, green or blue",
            reason="BAD_COLOR",
        )
    return color


def card_from_pb(msg: cards_pb2.Card) -> Card:
    """The engine card a request names by its face.

    Raises MalformedAction: reason UNSPECIFIED_ENUM for an unset colour or rank or a number the
    protocol does not define (errors.proto: either is no value of the enum), NO_SUCH_CARD for a pairing
    of real colours and ranks that does not exist (a black five, a red Wild).
    """
    color = _COLOR_FROM_PB.get(msg.color)
    if color is None:
        raise MalformedAction(f"card {_card_text(msg)} has no colour the protocol defines", reason="UNSPECIFIED_ENUM")
    rank = _RANK_FROM_PB.get(msg.rank)
    if rank is None:
        raise MalformedAction(f"card {_card_text(msg)} has no rank the protocol defines", reason="UNSPECIFIED_ENUM")
    try:
        return Card.of(color, rank)
    except ValueError:
        raise MalformedAction(f"no such card: {_card_text(msg)}", reason="NO_SUCH_CARD") from None


def _enum_name(enum: Any, value: int) -> str:
    try:
        return str(enum.Name(value))
    except ValueError:
        return str(value)


def _card_text(msg: cards_pb2.Card) -> str:
    return f"({_enum_name(cards_pb2.Color, msg.color)}, {_enum_name(cards_pb2.Rank, msg.rank)})"


def _seat_hand(seat: int, count: int, cards: Sequence[Card], *, show: bool) -> cards_pb2.SeatHand:
    """A hand as one receiver sees it: always the count, the faces only when `show` (SeatHand's rule)."""
    hand = cards_pb2.SeatHand(seat=seat, count=count)
    if show:
        hand.cards.extend(card_ref(card) for card in cards)
    return hand


# ------------------------------------------------------------------------------------------- rulesets


def ruleset_to_pb(ruleset: Ruleset) -> rules_pb2.Ruleset:
    """A complete ruleset, every field set, for settings, presets and views; `preset` is its name."""
    msg = rules_pb2.Ruleset(preset=ruleset.name)
    for name in _RULESET_OPTIONS:
        value = getattr(ruleset, name)
        if name in _RULESET_ENUMS:
            value = _lookup(_RULESET_ENUMS[name], value, name)
        setattr(msg, name, value)
    return msg


def ruleset_from_pb(preset: str, overrides: rules_pb2.Ruleset) -> Ruleset:
    """The preset `preset` (empty means `standard`) with the options present in `overrides` changed.

    Presence, not value, says "change this" (every field is proto3 `optional`); `overrides.preset` is
    ignored, as the protocol says. A field this host does not know is refused rather than ignored, so a
    client never plays under rules it did not ask for.

    Raises RulesetError: reason UNKNOWN_PRESET for an unknown preset, UNSPECIFIED_ENUM for an enum option
    present with its `*_UNSPECIFIED` value (or a number the protocol does not define), BAD_RULESET for a
    field this host does not know and for options that cannot be combined or are out of range (the
    engine's `COUNT_RANGES`). Metadata `field` names the request field at fault (`overrides.uno_penalty`).
    """
    name = preset or "standard"
    try:
        base = find_ruleset(name)
    except RulesetError as exc:
        raise RulesetError(str(exc), reason="UNKNOWN_PRESET", metadata={"field": "preset"}) from None
    unknown = UnknownFieldSet(overrides)
    if len(unknown):
        numbers = sorted({unknown[i].field_number for i in range(len(unknown))})
        raise RulesetError(f"unknown ruleset fields {numbers}: this host does not know them",
                           metadata={"field": "overrides"})
    message: Message = overrides  # HasField by a name from the engine's list of options
    changes: dict[str, Any] = {}
    for name in _RULESET_OPTIONS:
        if not message.HasField(name):
            continue
        value = getattr(overrides, name)
        if name in _RULESET_ENUMS:
            option = _RULESET_ENUMS_FROM_PB[name].get(value)
            if option is None:
                enum = rules_pb2.Ruleset.DESCRIPTOR.fields_by_name[name].enum_type
                known = enum.values_by_number if enum is not None else {}
                shown = known[value].name if value in known else str(value)
                raise RulesetError(f"option {name} cannot be {shown}", reason="UNSPECIFIED_ENUM",
                                   metadata={"field": f"overrides.{name}"})
            value = option
        changes[name] = value
    try:
        return base.replace(**changes) if changes else base
    except RulesetError as exc:  # the engine names the option; the request's field is inside `overrides`
        option = exc.metadata.get("field")
        raise RulesetError(str(exc), reason=exc.reason,
                           metadata={"field": f"overrides.{option}"} if option else None) from None


# --------------------------------------------------------------------------------- small public enums


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
    return _lookup(_PHASE_TO_PB, phase, "phase")


def phase_from_pb(value: int) -> Phase:
    """The engine phase a SeatView's `phase` names. Raises MalformedAction (reason BAD_POSITION) for the
    phases that are no round's state in play: waiting, shuffling, a blocking window, the match over."""
    for phase, number in _PHASE_TO_PB.items():
        if number == value:
            return phase
    raise MalformedAction(f"phase {_enum_name(views_pb2.Phase, value)} is no phase of a round", reason="BAD_POSITION")


def direction_from_pb(value: int) -> int:
    """1 (clockwise) or -1 from a Direction. Raises MalformedAction (UNSPECIFIED_ENUM) otherwise."""
    if value == views_pb2.DIRECTION_CLOCKWISE:
        return 1
    if value == views_pb2.DIRECTION_COUNTERCLOCKWISE:
        return -1
    raise MalformedAction(f"direction {value} is no Direction the protocol defines", reason="UNSPECIFIED_ENUM")


def obligation_kind_from_pb(value: int) -> Rank:
    """The rank that set a draw obligation, from its DrawObligationKind. Raises MalformedAction."""
    for rank, number in _OBLIGATION_KIND.items():
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
    return _lookup(_DRAW_REASON_TO_PB, reason, "draw reason")


def window_kind_to_pb(kind: WindowKind) -> views_pb2.ReactionWindowKind.ValueType:
    """The race a reaction window decides, as the protocol names it."""
    return _lookup(_WINDOW_KIND_TO_PB, kind, "window kind")


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


# --------------------------------------------------------------------------------------------- events


def event_to_pb(event: ev.Event, seat: int | None, *, refs: EventRefs | None = None) -> events_pb2.Event:
    """The payload of one engine event as `seat` (None: a spectator) may see it.

    With `refs` (the host runs provably fair shuffles, `unonet.host.shuffles`, `unonet.wire.refs`), every
    card of the event carries its commitment, pile and position for everyone, and its salt wherever its
    face is shown, so a shown card is an opening anyone can check (docs/fairness.md). Hidden hands then list one CardRef
    per card (SeatHand's rule), with the commitment only. A revealed hand (B2) carries the
    commitments for the challenger only: everyone else learns the verdict and the count.

    The engine decides what is hidden (`Event.visible_to`); this only copies what survives. When the
    engine says an event is not the receiver's to see at all (a HandRevealed for anyone but the
    challenger), an event of the same kind still goes out with the hidden parts removed, because the
    protocol promises every subscriber every event number.

    Only the payload is set: the caller sets `number`, `time` and `your_legal_actions`, and the facts
    only the host knows: a TurnStarted's clock, a revealed hand's `played_event_number` (from `refs`),
    a ruled window's measurements (racebook.py). Everything else comes from the engine event.

    Raises TypeError for an event class this module does not know (a new engine event must be added).
    """
    converter = _EVENT_CONVERTERS.get(type(event))
    if converter is None:
        raise TypeError(f"no protocol event for {type(event).__name__}: add it to unonet.wire.convert")
    visible = event.visible_to(seat)
    msg = converter(event, visible, seat)
    if refs is not None:
        attach = _REF_ATTACHERS.get(type(event))
        if attach is not None:
            attach(msg, refs)
        if isinstance(event, ev.HandRevealed):
            msg.hand_revealed.played_event_number = refs.played_event
    return msg


def set_timestamp(target: Any, ns: int) -> None:
    """`target.FromNanoseconds(ns)` for a non-negative time, without its Python-level checks: every
    rendered event has one."""
    target.seconds, target.nanos = divmod(ns, 1_000_000_000)


def ref_to_pb(ref: Ref, *, show: bool) -> cards_pb2.CardRef:
    """One committed card: commitment, pile and position always; face and salt (the opening) if `show`."""
    msg = cards_pb2.CardRef(commitment=ref.commitment, deck_number=ref.deck_no, position=ref.position)
    if show:
        msg.card.CopyFrom(card_to_pb(ref.card))
        msg.salt = ref.salt
    return msg


def _fill_refs(target: Any, group: Sequence[Ref], *, hidden_too: bool = True) -> None:
    """Complete a repeated CardRef field from its group: the shown ones get their openings, and a hidden
    list (left empty by the converter) gets one commitment per card."""
    if len(target) == 0:
        if hidden_too:
            add = target.add
            for ref in group:
                add(commitment=ref.commitment, deck_number=ref.deck_no, position=ref.position)
        return
    for msg, ref in zip(target, group, strict=True):  # set in place: what ref_to_pb would give
        msg.commitment, msg.deck_number, msg.position = ref.commitment, ref.deck_no, ref.position
        if msg.HasField("card"):
            msg.card.color, msg.card.rank = _COLOR_TO_PB[ref.card.color], _RANK_TO_PB[ref.card.rank]
            msg.salt = ref.salt
        else:
            msg.ClearField("salt")


def _fill_ref(target: cards_pb2.CardRef, group: Sequence[Ref], *, show: bool | None = None) -> None:
    if group:
        target.CopyFrom(ref_to_pb(group[0], show=target.HasField("card") if show is None else show))


def _refs_hands(hands: Any, groups: Sequence[Sequence[Ref]]) -> None:
    for hand in hands:
        if hand.seat < len(groups):
            _fill_refs(hand.cards, groups[hand.seat])


def _refs_taken_back(msg: events_pb2.CardTakenBack, refs: EventRefs) -> None:
    _fill_ref(msg.card, refs.groups[0])
    _fill_ref(msg.top_card, refs.groups[1], show=True)


def _refs_exchanged(msg: events_pb2.CardsExchanged, refs: EventRefs) -> None:
    _fill_ref(msg.given, refs.groups[0])
    _fill_ref(msg.received, refs.groups[1])


def _refs_swapped(msg: events_pb2.HandsSwapped, refs: EventRefs) -> None:
    _fill_refs(msg.seat_hand.cards, refs.groups[0])
    _fill_refs(msg.target_hand.cards, refs.groups[1])


_REF_ATTACHERS: dict[type[ev.Event], Callable[[events_pb2.Event, EventRefs], None]] = {
    ev.Dealt: lambda m, r: _fill_refs(m.cards_dealt.hands[0].cards, r.groups[0]),
    ev.Drew: lambda m, r: _fill_refs(m.cards_drawn.cards, r.groups[0]),
    ev.Played: lambda m, r: _fill_refs(m.cards_played.cards, r.groups[0]),
    ev.WrongJumpIn: lambda m, r: _fill_refs(m.wrong_jump_in.cards, r.groups[0]),
    ev.IllegalPlay: lambda m, r: _fill_refs(m.illegal_play.cards, r.groups[0]),
    ev.FirstCardTurned: lambda m, r: _fill_ref(m.first_card_turned.card, r.groups[0]),
    ev.FirstCardReturned: lambda m, r: _fill_ref(m.first_card_returned.card, r.groups[0]),
    ev.SwapOffered: lambda m, r: _fill_ref(m.five_swap_offered.card, r.groups[0]),
    ev.CardTakenBack: lambda m, r: _refs_taken_back(m.card_taken_back, r),
    ev.CardsExchanged: lambda m, r: _refs_exchanged(m.cards_exchanged, r),
    ev.HandsSwapped: lambda m, r: _refs_swapped(m.hands_swapped, r),
    ev.HandsRotated: lambda m, r: _refs_hands(m.hands_rotated.hands, r.groups),
    ev.RoundEnded: lambda m, r: _refs_hands(m.round_ended.hands, r.groups),
    ev.HandRevealed: lambda m, r: _fill_refs(m.hand_revealed.hand.cards, r.groups[0], hidden_too=False),
    ev.PlayerEliminated: lambda m, r: _fill_refs(m.player_eliminated.returned_cards, r.groups[0]),
}


_Converter = Callable[[Any, Any, "int | None"], events_pb2.Event]
_EVENT_CONVERTERS: dict[type[ev.Event], _Converter] = {}


def _converts(cls: type[ev.Event]) -> Callable[[_Converter], _Converter]:
    def register(fn: _Converter) -> _Converter:
        _EVENT_CONVERTERS[cls] = fn
        return fn

    return register


@_converts(ev.DealerChosen)
def _dealer_chosen(event: ev.DealerChosen, _visible: ev.DealerChosen, _seat: int | None) -> events_pb2.Event:
    # S2: within one pass each contender draws until it shows a number; a seat that already showed a
    # number in this pass drawing again means the tied seats have started the next pass.
    draws = []
    pass_no = 0
    counted: set[int] = set()
    for drawer, card in event.draws:
        if drawer in counted:
            pass_no += 1
            counted.clear()
        counts = card.rank.is_number
        if counts:
            counted.add(drawer)
        draws.append(events_pb2.DealerDraw(seat=drawer, card=card_ref(card), counts=counts, **{"pass": pass_no}))
    return events_pb2.Event(dealer_chosen=events_pb2.DealerChosen(draws=draws, dealer_seat=event.dealer))


@_converts(ev.RoundStarted)
def _round_started(event: ev.RoundStarted, _visible: ev.RoundStarted, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        round_started=events_pb2.RoundStarted(
            round_number=event.round_no, dealer_seat=event.dealer, seats_in_play=event.seats
        )
    )


@_converts(ev.Dealt)
def _dealt(event: ev.Dealt, visible: ev.Dealt | None, _seat: int | None) -> events_pb2.Event:
    cards = visible.cards if visible is not None else ()
    hand = _seat_hand(event.seat, event.count, cards, show=bool(cards))
    return events_pb2.Event(
        cards_dealt=events_pb2.CardsDealt(dealer_seat=event.dealer, hands=[hand], draw_pile_size=event.draw_pile)
    )


@_converts(ev.FirstCardTurned)
def _first_card_turned(event: ev.FirstCardTurned, _v: ev.FirstCardTurned, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(first_card_turned=events_pb2.FirstCardTurned(card=card_ref(event.card)))


@_converts(ev.FirstCardReturned)
def _first_card_returned(event: ev.FirstCardReturned, _v: ev.FirstCardReturned, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(first_card_returned=events_pb2.FirstCardReturned(card=card_ref(event.card)))


@_converts(ev.Played)
def _played(event: ev.Played, _visible: ev.Played, _seat: int | None) -> events_pb2.Event:
    if event.run_cut:
        kind = actions_pb2.PLAY_KIND_RUN_CUT
    elif event.jump_in:
        kind = actions_pb2.PLAY_KIND_JUMP_IN
    else:
        kind = actions_pb2.PLAY_KIND_TURN
    return events_pb2.Event(
        cards_played=events_pb2.CardsPlayed(
            seat=event.seat,
            cards=[card_ref(card) for card in event.cards],
            kind=kind,
            reaction_window_id=event.window,
            hand_size=event.hand_size,
            called_uno=event.called_uno,
        )
    )


@_converts(ev.ColorChosen)
def _color_chosen(event: ev.ColorChosen, _visible: ev.ColorChosen, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(color_chosen=events_pb2.ColorChosen(seat=event.seat, color=color_to_pb(event.color)))


@_converts(ev.Drew)
def _drew(event: ev.Drew, visible: ev.Drew | None, _seat: int | None) -> events_pb2.Event:
    cards = visible.cards if visible is not None else ()
    return events_pb2.Event(
        cards_drawn=events_pb2.CardsDrawn(
            seat=event.seat,
            count=event.count,
            reason=draw_reason_to_pb(event.reason),
            cards=[card_ref(card) for card in cards],
            hand_size=event.hand_size,
            forgiven=event.forgiven,
        )
    )


@_converts(ev.DrawnCardKept)
def _drawn_card_kept(event: ev.DrawnCardKept, _visible: ev.DrawnCardKept, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(drawn_card_kept=events_pb2.DrawnCardKept(seat=event.seat))


@_converts(ev.Reshuffled)
def _reshuffled(event: ev.Reshuffled, _visible: ev.Reshuffled, _seat: int | None) -> events_pb2.Event:
    # T5: the pile is rebuilt only once it is empty, so the new pile is exactly the cards shuffled in.
    return events_pb2.Event(pile_reshuffled=events_pb2.PileReshuffled(draw_pile_size=event.count))


@_converts(ev.Skipped)
def _skipped(event: ev.Skipped, _visible: ev.Skipped, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(turn_skipped=events_pb2.TurnSkipped(seat=event.seat))


@_converts(ev.DirectionChanged)
def _direction_changed(event: ev.DirectionChanged, _v: ev.DirectionChanged, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(direction_reversed=events_pb2.DirectionReversed(direction=direction_to_pb(event.direction)))


@_converts(ev.TurnStarted)
def _turn_started(event: ev.TurnStarted, _visible: ev.TurnStarted, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(turn_started=events_pb2.TurnStarted(seat=event.seat))


@_converts(ev.DrawObligation)
def _draw_obligation(event: ev.DrawObligation, _visible: ev.DrawObligation, _seat: int | None) -> events_pb2.Event:
    obligation = views_pb2.DrawObligation(
        amount=event.amount,
        kind=_lookup(_OBLIGATION_KIND, event.kind, "obligation kind"),
        target_seat=event.target,
        setter_seat=event.setter,
        challengeable=event.challengeable,
    )
    return events_pb2.Event(draw_obligation_changed=events_pb2.DrawObligationChanged(obligation=obligation))


@_converts(ev.UnoCalled)
def _uno_called(event: ev.UnoCalled, _visible: ev.UnoCalled, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(uno_called=events_pb2.UnoCalled(seat=event.seat))


@_converts(ev.UnoCaught)
def _uno_caught(event: ev.UnoCaught, _visible: ev.UnoCaught, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        uno_caught=events_pb2.UnoCaught(
            catcher_seat=event.catcher, target_seat=event.target, penalty_cards=event.penalty
        )
    )


@_converts(ev.FalseCatch)
def _false_catch(event: ev.FalseCatch, _visible: ev.FalseCatch, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        false_catch=events_pb2.FalseCatch(
            catcher_seat=event.catcher, target_seat=event.target, penalty_cards=event.penalty
        )
    )


@_converts(ev.Challenged)
def _challenged(event: ev.Challenged, _visible: ev.Challenged, _seat: int | None) -> events_pb2.Event:
    penalized = event.accused if event.guilty else event.challenger
    return events_pb2.Event(
        challenge_resolved=events_pb2.ChallengeResolved(
            challenger_seat=event.challenger,
            accused_seat=event.accused,
            guilty=event.guilty,
            penalized_seat=penalized,
            penalty_cards=event.penalty,
            bluff_penalty=_lookup(_BLUFF_PENALTY_TO_PB, event.bluff_penalty, "bluff penalty"),
        )
    )


@_converts(ev.HandRevealed)
def _hand_revealed(event: ev.HandRevealed, visible: ev.HandRevealed | None, _seat: int | None) -> events_pb2.Event:
    # Everyone learns that the hand was shown and its size; only the challenger sees the faces.
    cards = visible.cards if visible is not None else ()
    hand = _seat_hand(event.seat, len(event.cards), cards, show=visible is not None)
    return events_pb2.Event(hand_revealed=events_pb2.HandRevealed(challenger_seat=event.to_seat, hand=hand))


@_converts(ev.CardTakenBack)
def _card_taken_back(event: ev.CardTakenBack, _visible: ev.CardTakenBack, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        card_taken_back=events_pb2.CardTakenBack(
            seat=event.seat, card=card_ref(event.card), top_card=card_ref(event.top), color=color_to_pb(event.color)
        )
    )


@_converts(ev.HandsRotated)
def _hands_rotated(event: ev.HandsRotated, visible: ev.HandsRotated | None, _seat: int | None) -> events_pb2.Event:
    # Counts are public (they come from the unredacted event); faces only where the engine left them.
    shown = visible.hands if visible is not None else tuple(() for _ in event.hands)
    hands = [
        _seat_hand(owner, len(hand), shown[owner], show=bool(shown[owner])) for owner, hand in enumerate(event.hands)
    ]
    return events_pb2.Event(
        hands_rotated=events_pb2.HandsRotated(direction=direction_to_pb(event.direction), hands=hands)
    )


@_converts(ev.HandsSwapped)
def _hands_swapped(event: ev.HandsSwapped, visible: ev.HandsSwapped | None, _seat: int | None) -> events_pb2.Event:
    seat_cards = visible.seat_hand if visible is not None else ()
    target_cards = visible.target_hand if visible is not None else ()
    return events_pb2.Event(
        hands_swapped=events_pb2.HandsSwapped(
            seat=event.seat,
            target_seat=event.target,
            seat_hand=_seat_hand(event.seat, len(event.seat_hand), seat_cards, show=bool(seat_cards)),
            target_hand=_seat_hand(event.target, len(event.target_hand), target_cards, show=bool(target_cards)),
        )
    )


@_converts(ev.SwapOffered)
def _swap_offered(event: ev.SwapOffered, visible: ev.SwapOffered | None, _seat: int | None) -> events_pb2.Event:
    card = visible.card if visible is not None else None
    return events_pb2.Event(
        five_swap_offered=events_pb2.FiveSwapOffered(seat=event.seat, target_seat=event.target, card=card_ref(card))
    )


@_converts(ev.CardsExchanged)
def _cards_exchanged(event: ev.CardsExchanged, visible: ev.CardsExchanged | None, _s: int | None) -> events_pb2.Event:
    given = visible.given if visible is not None else None
    received = visible.received if visible is not None else None
    return events_pb2.Event(
        cards_exchanged=events_pb2.CardsExchanged(
            seat=event.seat, target_seat=event.target, given=card_ref(given), received=card_ref(received)
        )
    )


@_converts(ev.WindowOpened)
def _window_opened(event: ev.WindowOpened, _visible: ev.WindowOpened, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(reaction_window_opened=events_pb2.ReactionWindowOpened(window=window_to_pb(event.window)))


@_converts(ev.WindowClosed)
def _window_closed(event: ev.WindowClosed, _visible: ev.WindowClosed, _seat: int | None) -> events_pb2.Event:
    closed = events_pb2.ReactionWindowClosed(
        window_id=event.window,
        kind=window_kind_to_pb(event.kind) if event.kind is not None else views_pb2.REACTION_WINDOW_KIND_UNSPECIFIED,
        reactions=[events_pb2.Reaction(seat=seat) for seat in event.order],
        penalized_seats=event.penalised,
    )
    # The engine rules a window in one of two ways: a race that everyone must answer (slap, Sound Wild)
    # always makes someone pay, and a race won by one answer (a run cut) lists that answer and nobody
    # pays. So a ruling with answers and no penalty names its winner.
    if event.order and not event.penalised:
        closed.winner_seat = event.order[0]
    return events_pb2.Event(reaction_window_closed=closed)


@_converts(ev.RaceLost)
def _race_lost(event: ev.RaceLost, _visible: ev.RaceLost, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(race_lost=events_pb2.RaceLost(seat=event.seat, window_id=event.window))


@_converts(ev.WrongJumpIn)
def _wrong_jump_in(event: ev.WrongJumpIn, _visible: ev.WrongJumpIn, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        wrong_jump_in=events_pb2.WrongJumpIn(
            seat=event.seat,
            cards=[card_ref(event.card)],
            penalty_cards=event.penalty_cards,
            penalty_points=event.penalty_points,
        )
    )


@_converts(ev.IllegalPlay)
def _illegal_play(event: ev.IllegalPlay, _visible: ev.IllegalPlay, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        illegal_play=events_pb2.IllegalPlay(
            seat=event.seat, cards=[card_ref(event.card)], penalty_cards=ILLEGAL_PLAY_PENALTY
        )
    )


@_converts(ev.PenaltyPoints)
def _penalty_points(event: ev.PenaltyPoints, _visible: ev.PenaltyPoints, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        penalty_points=events_pb2.PenaltyPoints(seat=event.seat, points=event.points, total=event.total)
    )


@_converts(ev.SilenceStarted)
def _silence_started(event: ev.SilenceStarted, _visible: ev.SilenceStarted, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(silence_started=events_pb2.SilenceStarted(seat=event.seat))


@_converts(ev.RoundEnded)
def _round_ended(event: ev.RoundEnded, _visible: ev.RoundEnded, _seat: int | None) -> events_pb2.Event:
    # Every hand is public at the end of a round (P1). hand_points are the printed values (C3); the P3
    # single-zero rule needs the ruleset, which the caller applies when it is on.
    scores = [
        events_pb2.SeatScore(
            seat=owner,
            hand_points=sum(card.points for card in event.hands[owner]) if owner < len(event.hands) else 0,
            round_points=points,
            total=total,
            eliminated=owner in event.eliminated,
        )
        for owner, (points, total) in enumerate(zip(event.points, event.totals, strict=True))
    ]
    hands = [_seat_hand(owner, len(hand), hand, show=True) for owner, hand in enumerate(event.hands)]
    return events_pb2.Event(
        round_ended=events_pb2.RoundEnded(
            round_number=event.round_no, winner_seat=event.winner, scores=scores, hands=hands
        )
    )


@_converts(ev.PlayerEliminated)
def _player_eliminated(event: ev.PlayerEliminated, _v: ev.PlayerEliminated, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(player_eliminated=events_pb2.PlayerEliminated(seat=event.seat, total=event.total))


@_converts(ev.MatchEnded)
def _match_ended(event: ev.MatchEnded, _visible: ev.MatchEnded, _seat: int | None) -> events_pb2.Event:
    scores = [
        events_pb2.SeatScore(seat=owner, total=total, eliminated=owner in event.eliminated)
        for owner, total in enumerate(event.totals)
    ]
    return events_pb2.Event(
        match_ended=events_pb2.MatchEnded(
            winner_seats=event.winners,
            scores=scores,
            reason=_lookup(_MATCH_END_REASON_TO_PB, event.reason, "match end reason"),
        )
    )


# -------------------------------------------------------------------------------------- legal actions


def _needs_color(card: Card) -> bool:
    """Every black card but the Sound Wild asks its player for a colour (T9, T10, C2, H12)."""
    return card.is_black and card.rank is not Rank.SOUND_WILD


def _distinct(items: Iterable[_E]) -> list[_E]:
    return list(dict.fromkeys(items))


def legal_actions_to_pb(
    actions: Sequence[Action],
    *,
    required: bool,
    current_seat: int,
    run_cut_window: int | None = None,
    jump_in_window: int | None = None,
    obligation_target: int | None = None,
    obligation_amount: int = 0,
    draw_to_match: bool = False,
    bluff: bool = False,
    catch_windows: Mapping[int, int] | None = None,
) -> actions_pb2.LegalActions:
    """Group the engine's flat list of one seat's legal actions into the protocol's summary.

    The engine lists every action; the protocol lists each command once with its allowed cards and
    targets. The engine does not say in what capacity a play is made, so the caller says what it knows:
    `current_seat` (whose turn it is: a play by anyone else is a jump-in), `run_cut_window` (the open
    run-cut window, whose plays are cuts), `jump_in_window` (the window a jump-in by this seat answers:
    its skip-escape window, else the jump-in window), and the open obligation's `obligation_target` and
    `obligation_amount` (a Draw by its target accepts it). `draw_to_match` is the table's T4 option.
    `bluff` says a Wild Draw Four this seat played now would be unfair (the engine's `is_bluff`): every
    option holding one is then marked `is_bluff`. `catch_windows` maps each catchable seat to its open
    UNO catch window, so a listed catch names the window it answers (`CatchOption`).

    A play listed with and without `call_uno` is one option: the client sets the flag on its request.
    """
    msg = actions_pb2.LegalActions(required=required)
    plays: dict[tuple[Card, ...], Play] = {}
    catch_targets: list[int] = []
    react_windows: list[int] = []
    swap_targets: list[int] = []
    five_targets: list[int] = []
    five_cards: list[Card] = []
    give_cards: list[Card] = []
    for action in actions:
        if isinstance(action, Play):
            plays.setdefault(action.cards, action)
        elif isinstance(action, ChooseColor):
            msg.choose_color = True
        elif isinstance(action, Draw):
            accepts = obligation_target is not None and obligation_target == action.seat
            draw = msg.draw
            draw.SetInParent()  # present even with every field at its default
            draw.count = obligation_amount if accepts else 1
            draw.accepts_obligation = accepts
            draw.until_playable = draw_to_match and not accepts
        elif isinstance(action, Pass):
            msg.pass_turn = True
        elif isinstance(action, CallUno):
            msg.call_uno = True
        elif isinstance(action, CatchUno):
            catch_targets.append(action.target)
        elif isinstance(action, Challenge):
            msg.challenge = True
        elif isinstance(action, React):
            react_windows.append(action.window)
        elif isinstance(action, ChooseSwapTarget):
            swap_targets.append(action.target)
        elif isinstance(action, FiveSwap):
            five_targets.append(action.target)
            five_cards.append(action.card)
        elif isinstance(action, GiveCard):
            give_cards.append(action.card)
    add_play = msg.plays.add  # options built in place: no message built, then copied in
    for play in plays.values():
        if play.seat == current_seat:
            kind, window = actions_pb2.PLAY_KIND_TURN, 0
        elif run_cut_window is not None:
            kind, window = actions_pb2.PLAY_KIND_RUN_CUT, run_cut_window
        else:
            kind, window = actions_pb2.PLAY_KIND_JUMP_IN, jump_in_window or 0
        option = add_play(kind=kind, reaction_window_id=window, needs_color=_needs_color(play.cards[-1]))
        if bluff and any(card.rank is Rank.WILD_DRAW_FOUR for card in play.cards):
            option.is_bluff = True
        add_card = option.cards.add
        for card in play.cards:
            add_card(color=_COLOR_TO_PB[card.color], rank=_RANK_TO_PB[card.rank])
    if catch_targets:
        targets = _distinct(catch_targets)
        msg.catch_uno_targets.extend(targets)
        windows = catch_windows or {}
        add_catch = msg.catch_uno.add
        for target in targets:
            add_catch(target_seat=target, reaction_window_id=windows.get(target, 0))
    if react_windows:
        msg.react_window_ids.extend(_distinct(react_windows))
    if swap_targets:
        msg.swap_target_seats.extend(_distinct(swap_targets))
    if five_targets:
        msg.five_swap.CopyFrom(
            actions_pb2.FiveSwapOption(
                target_seats=_distinct(five_targets), cards=[card_to_pb(card) for card in _distinct(five_cards)]
            )
        )
    if give_cards:
        msg.give_cards.extend(card_to_pb(card) for card in _distinct(give_cards))
    return msg


# ---------------------------------------------------------------------------------------------- views


def _obligation_to_pb(obligation: ObligationView) -> views_pb2.DrawObligation:
    return views_pb2.DrawObligation(
        amount=obligation.amount,
        kind=_lookup(_OBLIGATION_KIND, obligation.kind, "obligation kind"),
        target_seat=obligation.target,
        setter_seat=obligation.setter,
        challengeable=obligation.can_challenge,
    )


def view_to_pb(
    view: SeatView,
    *,
    table_id: str,
    event_number: int,
    seats: Sequence[table_pb2.SeatState],
    settings: table_pb2.TableSettings,
    status: table_pb2.TableStatus.ValueType,
) -> views_pb2.SeatView:
    """One seat's (or a spectator's) view of the table, as GetView and Snapshot send it.

    The engine's view is already per seat; this adds the table's facts the engine does not know
    (`table_id`, `event_number`, `seats`, `settings`, `status`). Each seat's `hand_size` is taken from
    the engine, which is authoritative; the rest of each SeatState is the caller's. A spectator
    (`view.seat is None`) gets `is_spectator`, no hand and no legal actions. The host's clocks (view
    time, deadlines) are left for the caller.
    """
    is_spectator = view.seat is None
    msg = views_pb2.SeatView(
        table_id=table_id,
        event_number=event_number,
        is_spectator=is_spectator,
        seat=view.seat or 0,
        settings=settings,
        status=status,
        round_number=view.round_no,
        dealer=view.dealer,
        top_card=card_ref(view.top),
        current_color=color_to_pb(view.color),
        direction=direction_to_pb(view.direction),
        draw_pile_size=view.draw_pile_size,
        discard_pile_size=view.discard_size,
        winners=view.match_winners,
        open_windows=[window_to_pb(window) for window in view.windows],
    )
    for state in seats:
        copy = msg.seats.add()
        copy.CopyFrom(state)
        if state.seat < len(view.hand_sizes):
            copy.hand_size = view.hand_sizes[state.seat]
    if view.match_winners:
        msg.phase = views_pb2.PHASE_MATCH_OVER
    elif view.to_act is None and view.phase is not Phase.ROUND_OVER:
        msg.phase = views_pb2.PHASE_WINDOW
    else:
        msg.phase = phase_to_pb(view.phase)
    if view.to_act is not None and not view.match_winners:
        msg.seat_to_act = view.to_act
    if view.obligation is not None:
        msg.draw_obligation.CopyFrom(_obligation_to_pb(view.obligation))
    if view.silence is not None:
        msg.silence_seat = view.silence
    if view.phase is Phase.GIVE_CARD and view.to_act is not None:
        # H11: the giver is the player whose turn it is; the card itself is not in the engine's view.
        msg.five_swap.CopyFrom(
            views_pb2.PendingFiveSwap(seat=view.current, target_seat=view.to_act, card=card_ref(view.swap_card))
        )
    if view.seat is not None:
        msg.hand.extend(card_ref(card) for card in view.hand)
        msg.legal_actions.CopyFrom(_view_legal_actions(view, view.seat, settings))
    return msg


def _view_legal_actions(view: SeatView, seat: int, settings: table_pb2.TableSettings) -> actions_pb2.LegalActions:
    """The seat's legal actions, with the context `legal_actions_to_pb` needs taken from the view."""
    run_cut = next((w.id for w in view.windows if w.kind is WindowKind.RUN_CUT), None)
    escape = next((w.id for w in view.windows if w.kind is WindowKind.SKIP_ESCAPE and w.target == seat), None)
    jump = next((w.id for w in view.windows if w.kind is WindowKind.JUMP_IN), None)
    obligation = view.obligation
    required = view.to_act == seat or any(isinstance(action, React) for action in view.legal_actions)
    return legal_actions_to_pb(
        view.legal_actions,
        required=required and bool(view.legal_actions),
        current_seat=view.current,
        run_cut_window=run_cut,
        jump_in_window=escape if escape is not None else jump,
        obligation_target=obligation.target if obligation is not None else None,
        obligation_amount=obligation.amount if obligation is not None else 0,
        draw_to_match=settings.ruleset.draw_to_match,
        bluff=view.bluff,
        catch_windows={w.target: w.id for w in view.windows if w.kind is WindowKind.UNO_CATCH and w.target is not None},
    )


# ------------------------------------------------------------------------------------------- requests


def action_from_request(seat: int, request: Message) -> tuple[Action, ...]:
    """The engine actions a PlayService request from `seat` asks for, in the order to apply them.

    Usually one action. A PlayCards that names the colour with its black card is two: the Play, then the
    ChooseColor, which the caller applies together (refusing both if either is refused). The token, table
    and command id are the caller's business; so is `reaction_window_id` on a play, which the engine
    does not need (it knows which window a jump-in or cut answers).

    Raises MalformedAction for input that can never be valid (reasons NO_CARDS, MISSING_FIELD and those of
    `card_from_pb` and `color_from_pb`), IllegalAction with reason COLOR_NOT_NEEDED for a colour sent with
    cards that name none, and TypeError for a message that is not a PlayService command (CommitEntropy
    and RevealEntropy are the host's, not the engine's).
    """
    if isinstance(request, play_service_pb2.PlayCardsRequest):
        return _play_from_request(seat, request)
    if isinstance(request, play_service_pb2.ChooseColorRequest):
        return (ChooseColor(seat, color_from_pb(request.color)),)
    if isinstance(request, play_service_pb2.DrawRequest):
        return (Draw(seat),)
    if isinstance(request, play_service_pb2.PassRequest):
        return (Pass(seat),)
    if isinstance(request, play_service_pb2.CallUnoRequest):
        return (CallUno(seat),)
    if isinstance(request, play_service_pb2.CatchUnoRequest):
        return (CatchUno(seat, request.target_seat),)
    if isinstance(request, play_service_pb2.ChallengeRequest):
        return (Challenge(seat),)
    if isinstance(request, play_service_pb2.ReactRequest):
        if request.reaction_window_id == 0:
            raise MalformedAction("a reaction must name its window (reaction_window_id)", reason="MISSING_FIELD")
        return (React(seat, request.reaction_window_id),)
    if isinstance(request, play_service_pb2.ChooseSwapTargetRequest):
        return (ChooseSwapTarget(seat, request.target_seat),)
    if isinstance(request, play_service_pb2.FiveSwapRequest):
        return (FiveSwap(seat, request.target_seat, _required_card(request, "card")),)
    if isinstance(request, play_service_pb2.GiveCardRequest):
        return (GiveCard(seat, _required_card(request, "card")),)
    raise TypeError(f"not a PlayService command: {type(request).__name__}")


def _required_card(request: Message, field: str) -> Card:
    if not request.HasField(field):
        raise MalformedAction(f"{type(request).__name__}.{field} must name a card", reason="MISSING_FIELD")
    card: cards_pb2.Card = getattr(request, field)
    return card_from_pb(card)


def _play_from_request(seat: int, request: play_service_pb2.PlayCardsRequest) -> tuple[Action, ...]:
    if not request.cards:
        raise MalformedAction("PlayCards needs at least one card", reason="NO_CARDS")
    cards = tuple(card_from_pb(card) for card in request.cards)
    play = Play(seat, cards, call_uno=request.call_uno)
    if not request.HasField("color"):
        return (play,)
    color = color_from_pb(request.color)
    if len(cards) != 1 or not _needs_color(cards[0]):
        raise IllegalAction(
            f"{', '.join(map(str, cards))} names no colour; send PlayCards without `color`",
            reason="COLOR_NOT_NEEDED",
        )
    return (play, ChooseColor(seat, color))


# ----------------------------------------------------------------------------------------- host events
# The events the host adds to the engine's (seats, clocks, chat, race rulings), built here from the
# table's plain values, so no other module of the host builds a protocol event.


def host_event(**payload: Any) -> events_pb2.Event:
    """A host event: `payload` names the Event oneof's field and its message, as built below."""
    return events_pb2.Event(**payload)


def player_joined(seat: int, name: str) -> events_pb2.Event:
    return host_event(player_joined=events_pb2.PlayerJoined(seat=seat, name=name))


def player_left(seat: int, name: str) -> events_pb2.Event:
    return host_event(player_left=events_pb2.PlayerLeft(seat=seat, name=name))


def seat_connection_changed(seat: int, connected: bool) -> events_pb2.Event:
    return host_event(seat_connection_changed=events_pb2.SeatConnectionChanged(seat=seat, connected=connected))


def bot_seated(seat: int, name: str, bot_kind: str) -> events_pb2.Event:
    return host_event(bot_seated=events_pb2.BotSeated(seat=seat, name=name, bot_kind=bot_kind))


def seat_taken_over(seat: int, *, forfeits: bool, bot_kind: str, strikes: bool) -> events_pb2.Event:
    """A seat handed to a bot of `bot_kind`, or forfeited (`forfeits`), because its player left or, with
    `strikes`, ran out of time too often."""
    return host_event(seat_taken_over=events_pb2.SeatTakenOver(
        seat=seat, policy=table_pb2.TAKEOVER_POLICY_FORFEIT if forfeits else table_pb2.TAKEOVER_POLICY_BOT,
        bot_kind="" if forfeits else bot_kind,
        reason=events_pb2.TAKEOVER_REASON_STRIKES if strikes else events_pb2.TAKEOVER_REASON_LEFT))


def match_started(settings: table_pb2.TableSettings, seats: Sequence[table_pb2.SeatState]) -> events_pb2.Event:
    return host_event(match_started=events_pb2.MatchStarted(settings=settings, seats=seats))


def turn_timed_out(seat: int, strikes: int, strikes_before_takeover: int) -> events_pb2.Event:
    return host_event(turn_timed_out=events_pb2.TurnTimedOut(
        seat=seat, strikes=strikes, strikes_before_takeover=strikes_before_takeover))


def chat_message(seat: int | None, name: str, text: str) -> events_pb2.Event:
    return host_event(chat_message=events_pb2.ChatMessage(seat=seat, name=name, text=text))


def events_lost(first: int, last: int) -> events_pb2.Event:
    """The marker for an event number the host sent and its store then lost (one per lost number)."""
    return host_event(events_lost=events_pb2.EventsLost(first_number=first, last_number=last))


def chat_penalty(seat: int, penalty_cards: int) -> events_pb2.Event:
    return host_event(chat_penalty=events_pb2.ChatPenalty(seat=seat, penalty_cards=penalty_cards))


def shuffle_timed_out(round_no: int, seats: Sequence[int], *, revealing: bool) -> events_pb2.Event:
    return host_event(shuffle_timed_out=events_pb2.ShuffleTimedOut(
        round_number=round_no, seats=seats, revealing=revealing))


def window_opened_pb(window: Window, *, opened_ns: int, deadline_ns: int | None, allowance_ns: int) -> events_pb2.Event:
    """A race window as the host opens it: the engine's window with the host's timing."""
    out = event_to_pb(ev.WindowOpened(window), None)
    sent = out.reaction_window_opened.window
    sent.open_time.FromNanoseconds(opened_ns)
    if deadline_ns is not None:
        sent.deadline.FromNanoseconds(deadline_ns)
    sent.latency_allowance.FromNanoseconds(allowance_ns)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class RuledReaction:
    """One answer of a ruled race, with the measurements the ruling used (racebook.py)."""

    seat: int
    late: bool
    tie_group: int
    receive_ns: int
    forgiven_s: float  # the round-trip latency forgiven; half of it is each way's
    reaction_time_s: float
    rtt_s: float
    claimed_reaction_s: float | None
    send_ns: int | None = None  # when the seat's copy left (None: a ruling recorded before it was published)


@dataclasses.dataclass(frozen=True, slots=True)
class RulingTerms:
    """The figures a whole ruling used (docs/fairness.md 10.6), published from ruling version 3 on."""

    duration_s: float | None
    max_forgiven_s: float
    tie_tolerance_s: float


def window_ruled_pb(
    closed: ev.WindowClosed, reactions: Sequence[RuledReaction], *, tie_seed: bytes, compensated: bool,
    winner: int | None, terms: RulingTerms | None = None,
) -> events_pb2.Event:
    """The WindowClosed of a ruled race, with every answer's measurements and the winner (None: none),
    and, given `terms`, the window's duration, the forgiveness cap and the tie tolerance."""
    out = event_to_pb(closed, None)
    msg = out.reaction_window_closed
    del msg.reactions[:]
    for ruled in reactions:
        reaction = msg.reactions.add(seat=ruled.seat, tie_group=max(ruled.tie_group, 0), late=ruled.late)
        reaction.receive_time.FromNanoseconds(ruled.receive_ns)
        reaction.latency_forgiven.FromNanoseconds(round(ruled.forgiven_s / 2 * 1e9))
        reaction.reaction_time.FromNanoseconds(round(ruled.reaction_time_s * 1e9))
        reaction.round_trip.FromNanoseconds(round(ruled.rtt_s * 1e9))
        if ruled.claimed_reaction_s is not None:
            reaction.client_reaction_time.FromNanoseconds(round(ruled.claimed_reaction_s * 1e9))
        if ruled.send_ns is not None:
            reaction.send_time.FromNanoseconds(ruled.send_ns)
    if terms is not None:
        if terms.duration_s is not None:
            msg.duration.FromNanoseconds(round(terms.duration_s * 1e9))
            msg.duration.SetInParent()
        msg.max_latency_forgiven.FromNanoseconds(round(terms.max_forgiven_s * 1e9))
        msg.max_latency_forgiven.SetInParent()
        msg.tie_tolerance.FromNanoseconds(round(terms.tie_tolerance_s * 1e9))
        msg.tie_tolerance.SetInParent()
    msg.tie_seed = tie_seed
    msg.latency_compensated = compensated
    msg.ClearField("winner_seat")
    if winner is not None:
        msg.winner_seat = winner
    return out


def shuffle_committed(
    round_no: int, seed_commitment: bytes, scheme: str, entropy_seats: Sequence[int]
) -> events_pb2.Event:
    return host_event(shuffle_committed=events_pb2.ShuffleCommitted(
        round_number=round_no, seed_commitment=seed_commitment, scheme=scheme, entropy_seats=entropy_seats))


def seat_entropy_committed(seat: int, commitment: bytes) -> events_pb2.Event:
    return host_event(seat_entropy_committed=events_pb2.SeatEntropyCommitted(seat=seat, commitment=commitment))


def seat_entropy_revealed(seat: int, value: bytes) -> events_pb2.Event:
    return host_event(seat_entropy_revealed=events_pb2.SeatEntropyRevealed(seat=seat, entropy=value))


def deck_committed(
    round_no: int, *, merkle_root: bytes, deck_size: int, card_commitments: Sequence[bytes], deck_no: int,
    contributing_seats: Sequence[int], source_commitments: Sequence[bytes],
) -> events_pb2.Event:
    """A committed pile's announcement, before any card of it is used (shuffles.py)."""
    return host_event(deck_committed=events_pb2.DeckCommitted(
        round_number=round_no, merkle_root=merkle_root, deck_size=deck_size, card_commitments=card_commitments,
        deck_number=deck_no, contributing_seats=contributing_seats, source_commitments=source_commitments))


def shuffle_revealed(round_no: int, host_seed: bytes) -> events_pb2.Event:
    return host_event(shuffle_revealed=events_pb2.ShuffleRevealed(round_number=round_no, seed=host_seed))


def shuffle_legal_actions(
    seats: int, waiting_for: Iterable[int], *, revealing: bool, deadline_ns: int | None,
) -> dict[int, actions_pb2.LegalActions]:
    """Each seat's legal actions during a shuffle: commit (or, `revealing`, reveal) for the seats the
    phase waits for, by its deadline; nothing for the others."""
    out = {seat: actions_pb2.LegalActions() for seat in range(seats)}
    for seat in waiting_for:
        legal = out[seat]
        legal.commit_entropy = not revealing
        legal.reveal_entropy = revealing
        legal.required = True
        if deadline_ns is not None:
            legal.deadline.FromNanoseconds(deadline_ns)
    return out


# ------------------------------------------------------------------ host bot seats' worker watch (issue 29)
# A block of its own, to move with the host events' family when this module is split.

_FALLBACK_REASONS = {
    "silent": events_pb2.BOT_FALLBACK_REASON_WORKER_SILENT,
    "down": events_pb2.BOT_FALLBACK_REASON_WORKER_DOWN,
}


def bot_fallback(seat: int, *, bot_kind: str, fallback_kind: str, reason: str, allowed_ns: int,
                 rest_of_match: bool) -> events_pb2.Event:
    """A bot seat's decision made by its fallback kind, its worker having failed (`host.bot_watch`);
    `reason` is "silent" (the worker ran) or "down" (it did not)."""
    allowed = duration_pb2.Duration()
    allowed.FromNanoseconds(allowed_ns)
    return host_event(bot_fallback=events_pb2.BotFallback(
        seat=seat, bot_kind=bot_kind, fallback_kind=fallback_kind, reason=_FALLBACK_REASONS[reason],
        allowed=allowed, rest_of_match=rest_of_match))
