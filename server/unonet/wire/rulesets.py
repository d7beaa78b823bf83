"""Rulesets on the wire: the engine's `Ruleset` as a complete message, and a preset with a request's
overrides back into one, refusing any option it cannot honour rather than ignoring it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from unonet.engine.errors import RulesetError
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
from unonet.v1 import (
    rules_pb2,
)
from unonet.wire.lookup import lookup

_WILD_DRAW_FOUR_TO_PB: dict[WildDrawFourRule, rules_pb2.WildDrawFourRule.ValueType] = {
    WildDrawFourRule.NO_MATCHING_COLOUR: rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR,
    WildDrawFourRule.NO_MATCH_AT_ALL: rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCH_AT_ALL,
    WildDrawFourRule.NO_OTHER_PLAY: rules_pb2.WILD_DRAW_FOUR_RULE_NO_OTHER_PLAY,
    WildDrawFourRule.ANY_TIME: rules_pb2.WILD_DRAW_FOUR_RULE_ANY_TIME,
}
BLUFF_PENALTY_TO_PB: dict[BluffPenalty, rules_pb2.BluffPenalty.ValueType] = {
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
    "bluff_penalty": BLUFF_PENALTY_TO_PB,
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


def ruleset_to_pb(ruleset: Ruleset) -> rules_pb2.Ruleset:
    """A complete ruleset, every field set, for settings, presets and views; `preset` is its name."""
    msg = rules_pb2.Ruleset(preset=ruleset.name)
    for name in _RULESET_OPTIONS:
        value = getattr(ruleset, name)
        if name in _RULESET_ENUMS:
            value = lookup(_RULESET_ENUMS[name], value, name)
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
        raise RulesetError(
            f"unknown ruleset fields {numbers}: this host does not know them", metadata={"field": "overrides"}
        )
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
                raise RulesetError(
                    f"option {name} cannot be {shown}",
                    reason="UNSPECIFIED_ENUM",
                    metadata={"field": f"overrides.{name}"},
                )
            value = option
        changes[name] = value
    try:
        return base.replace(**changes) if changes else base
    except RulesetError as exc:  # the engine names the option; the request's field is inside `overrides`
        option = exc.metadata.get("field")
        raise RulesetError(
            str(exc), reason=exc.reason, metadata={"field": f"overrides.{option}"} if option else None
        ) from None
