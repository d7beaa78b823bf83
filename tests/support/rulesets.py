"""Rulesets drawn from every option, not only the presets: the engine's property tests share them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import fields
from enum import Enum
from operator import attrgetter
from typing import Any

from hypothesis import strategies as st

from unonet.engine import Card, Ruleset, RulesetError, UnoError, find_ruleset, standard_deck

_DEFAULT = Ruleset()
_INDEX = attrgetter("index")
# Small values keep random matches short; the values themselves are what RULES.md allows.
_NUMBERS = {
    "uno_penalty": st.sampled_from([0, 2, 4]),
    "target_score": st.sampled_from([50, 100, 150]),
    "blank_draw": st.sampled_from([1, 4, 10]),
}


def option_values(name: str) -> st.SearchStrategy[Any]:
    """Every value the option `name` may take (booleans, each enum member, a few numbers)."""
    default = getattr(_DEFAULT, name)
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, Enum):
        return st.sampled_from(list(type(default)))
    return _NUMBERS[name]


OPTIONS = [f.name for f in fields(Ruleset) if f.name != "name"]


@st.composite
def any_ruleset(draw: st.DrawFn) -> Ruleset:
    """Every option drawn independently; impossible combinations are dropped one option at a time."""
    ruleset = Ruleset(name="any-options", target_score=100)
    for name in OPTIONS:
        value = draw(option_values(name))
        try:
            ruleset = ruleset.replace(**{name: value})
        except RulesetError:
            continue
    return ruleset


BOOL_OPTIONS = [f.name for f in fields(Ruleset) if f.type in ("bool", bool) and f.name != "name"]


@st.composite
def preset_rulesets(draw: st.DrawFn) -> Ruleset:
    """A preset with up to eight of its on/off options flipped, where the flip is allowed."""
    preset = draw(st.sampled_from(["standard", "house", "serbian", "french", "russian", "polish"]))
    flips = draw(st.dictionaries(st.sampled_from(BOOL_OPTIONS), st.booleans(), max_size=8))
    ruleset = find_ruleset(preset)
    for name, value in flips.items():
        try:
            ruleset = ruleset.replace(**{name: value})
        except UnoError:
            continue  # an impossible combination: keep the previous one
    return ruleset.replace(target_score=150)


def full_deck(ruleset: Ruleset) -> Counter[Card]:
    return Counter(
        standard_deck(blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds, h2o_wilds=ruleset.h2o_wilds)
    )


def card_indexes(cards: Iterable[Card]) -> list[int]:
    """`cards` as their sorted indexes (one int per distinct card): two piles hold the same cards, each
    as often, when theirs are equal.

    All in C: counting cards in a Counter hashes each in Python, and Counter's own `==` walks every key
    in Python (3.11), which together were most of the time of the property tests that check the deck
    after every step.
    """
    return sorted(map(_INDEX, cards))
