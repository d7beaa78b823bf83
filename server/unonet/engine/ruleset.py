"""Rule variants as flags on one frozen `Ruleset` (RULES.md options), with named presets.

Flags, not subclasses, so house rules combine. Defaults are the standard published rules. Presets are
looked up with `find_ruleset`, which fails loudly on an unknown name (python-chess `variant.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from unonet.engine.errors import RulesetError


class WildDrawFourRule(Enum):
    """T2: when a Wild Draw Four is fair."""

    NO_MATCHING_COLOUR = "no_matching_colour"
    NO_MATCH_AT_ALL = "no_match_at_all"
    NO_OTHER_PLAY = "no_other_play"
    ANY_TIME = "any_time"


class FirstWild(Enum):
    """S4: what a Wild turned as the first card does."""

    CHOOSE = "choose"
    REDRAW = "redraw"


class BluffPenalty(Enum):
    """B3: what a player caught bluffing with a Wild Draw Four pays."""

    DRAW_FOUR = "draw_four"
    DRAW_SIX = "draw_six"
    TAKE_BACK = "take_back"


class Scoring(Enum):
    """P2: how rounds are scored and who wins the match."""

    WINNER_TAKES = "winner_takes"
    LOWEST_WINS = "lowest_wins"
    ELIMINATION = "elimination"


class JumpInPenalty(Enum):
    """H6: what a wrong jump-in costs: 3 penalty points or 2 cards."""

    POINTS = "points"
    CARDS = "cards"


class BlankEffect(Enum):
    """C2: what a Blank card does at this table."""

    DRAW = "draw"
    WILD = "wild"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every option of RULES.md, defaulting to the standard rules. Build variants with `replace`."""

    name: str = "custom"
    # Cards (C2)
    blank_cards: bool = False
    blank_effect: BlankEffect = BlankEffect.DRAW
    blank_draw: int = 10
    sound_wilds: bool = False
    h2o_wilds: bool = False
    # Set-up (S4) and turns (T)
    first_wild: FirstWild = FirstWild.CHOOSE
    wild_draw_four: WildDrawFourRule = WildDrawFourRule.NO_MATCHING_COLOUR
    bluffing: bool = True
    draw_to_match: bool = False
    draw_penalty_skips_turn: bool = True
    # UNO (U)
    uno_penalty: int = 2
    false_call_penalty: bool = False
    uno_slap: bool = False
    # Challenges (B)
    bluff_penalty: BluffPenalty = BluffPenalty.DRAW_FOUR
    # Scoring (P)
    scoring: Scoring = Scoring.WINNER_TAKES
    target_score: int = 500
    russian_scoring: bool = False
    # House rules (H)
    stacking: bool = False
    stacking_cumulative: bool = True
    stacking_mixed: bool = False
    deflecting: bool = False
    runs: bool = False
    multi_play: bool = False
    jump_in: bool = False
    super_jump_in: bool = False
    jump_in_wilds: bool = False
    jump_in_penalty: JumpInPenalty = JumpInPenalty.POINTS
    skip_escape: bool = False
    seven_o: bool = False
    five_swap: bool = False
    silent_two: bool = False
    illegal_play_penalty: bool = False

    def __post_init__(self) -> None:
        problems = list(self._problems())
        if problems:
            raise RulesetError(f"ruleset {self.name!r} cannot be played: " + "; ".join(problems))

    def _problems(self) -> list[str]:
        found = []
        if self.uno_penalty < 0:
            found.append(f"uno_penalty must be 0 or more, not {self.uno_penalty}")
        if self.target_score <= 0:
            found.append(f"target_score must be positive, not {self.target_score}")
        if self.blank_draw <= 0:
            found.append(f"blank_draw must be positive, not {self.blank_draw}")
        if self.stacking_mixed and not self.stacking:
            found.append("stacking_mixed needs stacking")
        if self.super_jump_in and not self.jump_in:
            found.append("super_jump_in extends jump_in, which is off")
        if self.jump_in_wilds and not self.jump_in:
            found.append("jump_in_wilds extends jump_in, which is off")
        if self.russian_scoring and self.scoring is Scoring.WINNER_TAKES:
            found.append("russian_scoring counts each player's own hand: it needs lowest_wins or elimination")
        return found

    @property
    def has_jump_in(self) -> bool:
        return self.jump_in or self.skip_escape

    @property
    def can_challenge(self) -> bool:
        """B1 exists only when an unfair Wild Draw Four can be played at all."""
        return self.bluffing and self.wild_draw_four is not WildDrawFourRule.ANY_TIME

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some options changed; raises RulesetError for unknown names or bad values."""
        return dataclasses.replace(self, **_coerce(changes))

    def options(self) -> dict[str, object]:
        """Every option as plain data (enums as their string values), for scenario files and protos."""
        return {
            f.name: (v.value if isinstance(v, Enum) else v)
            for f in dataclasses.fields(self)
            if f.name != "name"
            for v in [getattr(self, f.name)]
        }


_FIELDS = {f.name: f for f in dataclasses.fields(Ruleset)}


def _coerce(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Turn plain values (strings for enums) into option values, refusing unknown names."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in _FIELDS:
            raise RulesetError(f"unknown rule option {key!r}; known options: {', '.join(sorted(_FIELDS))}")
        default = getattr(Ruleset(), key)
        if isinstance(default, Enum):
            enum_type = type(default)
            if not isinstance(value, enum_type):
                try:
                    value = enum_type(value)
                except ValueError:
                    allowed = ", ".join(m.value for m in enum_type)
                    raise RulesetError(f"option {key} cannot be {value!r}; choose one of {allowed}") from None
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise RulesetError(f"option {key} is true or false, not {value!r}")
        elif isinstance(default, int) and (not isinstance(value, int) or isinstance(value, bool)):
            raise RulesetError(f"option {key} is a whole number, not {value!r}")
        out[key] = value
    return out


STANDARD = Ruleset(name="standard")

PRESETS: dict[str, Ruleset] = {
    "standard": STANDARD,
    # The common house rules people play at home.
    "house": STANDARD.replace(name="house", stacking=True, jump_in=True, seven_o=True, runs=True),
    # seeds/000 (Serbian): the base rules with every variant the text lists.
    "serbian": STANDARD.replace(
        name="serbian",
        sound_wilds=True,
        wild_draw_four=WildDrawFourRule.NO_OTHER_PLAY,
        uno_penalty=4,
        bluff_penalty=BluffPenalty.DRAW_SIX,
        scoring=Scoring.LOWEST_WINS,
        stacking=True,
        deflecting=True,
        runs=True,
        jump_in=True,
        super_jump_in=True,
        jump_in_penalty=JumpInPenalty.POINTS,
        seven_o=True,
    ),
    # seeds/001 (French): the published rules with the redrawn first Wild and the illegal-play penalty.
    "french": STANDARD.replace(
        name="french",
        first_wild=FirstWild.REDRAW,
        illegal_play_penalty=True,
    ),
    # seeds/002 (Russian forum): the long list of house rules the thread collects.
    "russian": STANDARD.replace(
        name="russian",
        blank_cards=True,
        h2o_wilds=True,
        false_call_penalty=True,
        uno_slap=True,
        scoring=Scoring.LOWEST_WINS,
        russian_scoring=True,
        stacking=True,
        deflecting=True,
        multi_play=True,
        jump_in=True,
        jump_in_penalty=JumpInPenalty.CARDS,
        skip_escape=True,
        seven_o=True,
        five_swap=True,
        silent_two=True,
        illegal_play_penalty=True,
    ),
    # seeds/003 (Polish): strict Wild Draw Four, draw until playable, four-card UNO penalty, elimination.
    "polish": STANDARD.replace(
        name="polish",
        first_wild=FirstWild.REDRAW,
        wild_draw_four=WildDrawFourRule.NO_MATCH_AT_ALL,
        draw_to_match=True,
        uno_penalty=4,
        scoring=Scoring.ELIMINATION,
    ),
}


def find_ruleset(name: str, **overrides: Any) -> Ruleset:
    """The preset called `name`, with some options changed. Raises RulesetError for an unknown name."""
    try:
        preset = PRESETS[name]
    except KeyError:
        raise RulesetError(f"unknown ruleset {name!r}; presets: {', '.join(PRESETS)}") from None
    return preset.replace(**overrides) if overrides else preset
