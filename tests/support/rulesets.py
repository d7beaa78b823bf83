"""Rulesets drawn from every option, not only the presets: the engine's property tests share them."""

from __future__ import annotations

from dataclasses import fields
from enum import Enum
from typing import Any

from hypothesis import strategies as st

from unonet.engine import Ruleset, RulesetError

_DEFAULT = Ruleset()
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
