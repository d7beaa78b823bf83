"""Named presets (issue 2): each one builds, plays, and holds exactly the options docs/presets.md documents.

Each seed preset's expected options are written out in full here, every non-default option and nothing
else, so a later change to a preset has to be deliberate: change the preset, docs/presets.md (with
the sentence of the seed text it follows) and this table together.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from unonet.engine import PRESET_DESCRIPTIONS, PRESETS, Match, Ruleset, RulesetError, find_ruleset
from unonet.engine.playout import random_step

DOCS = Path(__file__).resolve().parents[2] / "docs" / "presets.md"

# Every option that differs from the standard default, per preset (plain values, as `options()` gives them).
EXPECTED: dict[str, dict[str, object]] = {
    "standard": {},
    "house": {"stacking": True, "jump_in": True, "seven_o": True, "runs": True},
    # seeds/000 (Serbian)
    "serbian": {
        "sound_wilds": True,
        "wild_draw_four": "no_other_play",
        "uno_penalty": 4,
        "bluff_penalty": "draw_six",
        "scoring": "lowest_wins",
        "stacking": True,
        "deflecting": True,
        "runs": True,
        "jump_in": True,
        "super_jump_in": True,
        "seven_o": True,
    },
    # seeds/001 (French)
    "french": {
        "wild_draw_four": "any_time",
        "scoring": "lowest_wins",
        "target_score": 100,
        "stacking": True,
        "illegal_play_penalty": True,
    },
    # seeds/002 (Russian forum)
    "russian": {
        "blank_cards": True,
        "h2o_wilds": True,
        "false_call_penalty": True,
        "uno_slap": True,
        "scoring": "lowest_wins",
        "russian_scoring": True,
        "stacking": True,
        "deflecting": True,
        "multi_play": True,
        "jump_in": True,
        "jump_in_wilds": True,
        "jump_in_penalty": "cards",
        "skip_escape": True,
        "seven_o": True,
        "five_swap": True,
        "silent_two": True,
        "illegal_play_penalty": True,
    },
    # seeds/003 (Polish)
    "polish": {
        "first_wild": "redraw",
        "wild_draw_four": "no_match_at_all",
        "bluffing": False,
        "draw_to_match": True,
        "uno_penalty": 4,
        "scoring": "elimination",
    },
}

# Options a seed text describes whose value is also the standard default: pinned too, so a change
# of the defaults cannot silently change what a seed preset plays.
DESCRIBED_DEFAULTS: dict[str, dict[str, object]] = {
    "serbian": {
        "draw_penalty_skips_turn": True,
        "bluffing": True,
        "stacking_cumulative": True,
        "stacking_mixed": False,
        "jump_in_wilds": False,
        "jump_in_penalty": "points",
        "target_score": 500,
    },
    "french": {"first_wild": "choose", "draw_penalty_skips_turn": True, "uno_penalty": 2, "stacking_cumulative": True},
    "russian": {
        "first_wild": "choose",
        "wild_draw_four": "no_matching_colour",
        "bluffing": True,
        "bluff_penalty": "draw_four",
        "draw_penalty_skips_turn": True,
        "uno_penalty": 2,
        "stacking_cumulative": True,
        "stacking_mixed": False,
        "blank_effect": "draw",
        "blank_draw": 10,
        "target_score": 500,
    },
    "polish": {"draw_penalty_skips_turn": True, "target_score": 500},
}


def non_default(ruleset: Ruleset) -> dict[str, object]:
    standard = Ruleset().options()
    return {key: value for key, value in ruleset.options().items() if value != standard[key]}


def test_every_preset_is_expected() -> None:
    assert list(PRESETS) == list(EXPECTED)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_constructs_and_is_found_by_name(name: str) -> None:
    ruleset = find_ruleset(name)
    assert ruleset is PRESETS[name]
    assert ruleset.name == name
    assert Ruleset(**{"name": name, **{k: getattr(ruleset, k) for k in ruleset.options()}}) == ruleset


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_options_are_exactly_the_documented_ones(name: str) -> None:
    assert non_default(find_ruleset(name)) == EXPECTED[name]


@pytest.mark.parametrize("name", list(DESCRIBED_DEFAULTS))
def test_seed_preset_keeps_the_defaults_its_text_describes(name: str) -> None:
    options = find_ruleset(name).options()
    assert {key: options[key] for key in DESCRIBED_DEFAULTS[name]} == DESCRIBED_DEFAULTS[name]


def test_french_wild_draw_four_cannot_be_challenged() -> None:
    """seeds/001 lets a Wild Draw Four be played at any time and describes no challenge."""
    assert not find_ruleset("french").can_challenge


def test_polish_wild_draw_four_cannot_be_challenged() -> None:
    """seeds/003 forbids an unfair Wild Draw Four outright and describes no challenge."""
    polish = find_ruleset("polish")
    assert not polish.bluffing and not polish.can_challenge


def test_serbian_and_russian_wild_draw_four_can_be_challenged() -> None:
    assert find_ruleset("serbian").can_challenge
    assert find_ruleset("russian").can_challenge


@pytest.mark.parametrize("name", list(EXPECTED))
def test_docs_table_lists_exactly_the_non_default_options(name: str) -> None:
    """docs/presets.md has one section per preset whose table names each non-default option once."""
    text = DOCS.read_text(encoding="utf-8")
    section = re.search(rf"^## `{name}`\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert section, f"docs/presets.md has no section for {name!r}"
    rows = re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", section.group(1), re.MULTILINE)
    assert {option for option, _ in rows} == set(EXPECTED[name])
    for option, value in rows:
        assert value == str(EXPECTED[name][option]).lower(), f"{name}.{option} is documented as {value}"


def test_unknown_preset_is_refused_with_the_known_names() -> None:
    with pytest.raises(RulesetError, match=r"unknown ruleset 'spanish'; presets: standard, house, serbian"):
        find_ruleset("spanish")


def test_preset_names_are_exact() -> None:
    with pytest.raises(RulesetError, match="unknown ruleset 'Russian'"):
        find_ruleset("Russian")


@pytest.mark.parametrize(
    ("name", "overrides", "message"),
    [
        ("standard", {"stacking_mixed": True}, r"ruleset 'standard' cannot be played: stacking_mixed needs stacking"),
        ("serbian", {"jump_in": False}, r"'serbian' cannot be played: super_jump_in extends jump_in, which is off"),
        ("russian", {"jump_in": False}, r"jump_in_wilds extends jump_in, which is off"),
        ("russian", {"scoring": "winner_takes"}, r"russian_scoring counts each player's own hand"),
        ("french", {"target_score": 0}, r"target_score must be 1 to 100000, not 0"),
        ("french", {"target_score": 100_001}, r"target_score must be 1 to 100000, not 100001"),
        ("polish", {"uno_penalty": -1}, r"uno_penalty must be 0 to 10, not -1"),
        ("polish", {"uno_penalty": 4294967295}, r"uno_penalty must be 0 to 10, not 4294967295"),
        ("russian", {"blank_draw": 0}, r"blank_draw must be 1 to 20, not 0"),
        ("russian", {"blank_draw": 21}, r"blank_draw must be 1 to 20, not 21"),
    ],
)
def test_impossible_combinations_are_refused(name: str, overrides: dict[str, object], message: str) -> None:
    with pytest.raises(RulesetError, match=message):
        find_ruleset(name, **overrides)


def test_every_problem_is_named_at_once() -> None:
    message = r"target_score must be 1 to 100000, not 0; super_jump_in extends jump_in"
    with pytest.raises(RulesetError, match=message) as caught:
        find_ruleset("serbian", target_score=0, jump_in=False)
    assert caught.value.metadata == {"field": "target_score"}  # the first option at fault


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"stackin": True}, r"unknown rule option 'stackin'; known options: "),
        ({"scoring": "highest_wins"}, r"option scoring cannot be 'highest_wins'; choose one of winner_takes, "),
        ({"stacking": "yes"}, r"option stacking is true or false, not 'yes'"),
        ({"target_score": True}, r"option target_score is a whole number, not True"),
    ],
)
def test_malformed_overrides_are_refused(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(RulesetError, match=message):
        find_ruleset("french", **overrides)


def test_overrides_leave_the_preset_alone() -> None:
    take_back = find_ruleset("russian", bluff_penalty="take_back")
    assert take_back.bluff_penalty.value == "take_back" and take_back.name == "russian"
    assert find_ruleset("russian").bluff_penalty.value == "draw_four"


@pytest.mark.parametrize("name", list(EXPECTED))
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4), (10, 5)])
def test_random_round_of_preset_plays_to_the_end(name: str, players: int, seed: int) -> None:
    match = Match(find_ruleset(name), players, random.Random(seed))
    match.start()
    chooser = random.Random(seed * 31 + players)
    for _ in range(20_000):
        if match.round_no != 1 or match.is_over:
            break
        random_step(match, chooser)
    else:
        pytest.fail(f"{name}: a round with {players} players (seed {seed}) did not end in 20000 steps")
    assert match.round_no > 1 or match.is_over


@pytest.mark.parametrize("name", list(EXPECTED))
def test_random_match_of_preset_plays_to_a_winner(name: str) -> None:
    match = Match(find_ruleset(name, target_score=100), 3, random.Random(7))
    match.start()
    chooser = random.Random(8)
    for _ in range(200_000):
        if match.is_over:
            break
        random_step(match, chooser)
    assert match.is_over and match.winners


def test_every_preset_has_a_description_for_the_lobby() -> None:
    """ListPresets shows RulesetPreset.description: one sentence or two per preset, none missing."""
    assert set(PRESET_DESCRIPTIONS) == set(PRESETS)
    assert all(10 < len(text) < 200 and text.endswith(".") for text in PRESET_DESCRIPTIONS.values())
