"""Rulesets on the wire (`unonet.wire.rulesets`): every preset round-trips, overrides by presence, refusals
with reasons.
"""

from __future__ import annotations

import dataclasses

import pytest

from unonet.engine import (
    PRESETS,
    Ruleset,
    RulesetError,
    find_ruleset,
)
from unonet.v1 import rules_pb2
from unonet.wire import convert


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
