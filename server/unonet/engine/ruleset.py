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


# The range of every count option, both ends included (documented in rules.proto): a count outside it is
# refused, so that no table plays a penalty of four billion cards or a match that can never end.
COUNT_RANGES: Mapping[str, tuple[int, int]] = {
    "blank_draw": (1, 20),  # C2: 10 is the one example the sources give
    "uno_penalty": (0, 10),  # U2: the sources say 2 or 4; 0 makes a catch cost nothing
    "target_score": (1, 100_000),  # P2: 500, 1000 or 1500 are common; 100 in the French text
}


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
        """Raises RulesetError (BAD_RULESET) naming every problem, with metadata `field`: the first option at fault."""
        problems = self._problems()
        if problems:
            raise RulesetError(
                f"ruleset {self.name!r} cannot be played: " + "; ".join(text for _, text in problems),
                metadata={"field": problems[0][0]},
            )

    def _problems(self) -> list[tuple[str, str]]:
        """Each problem as (the option at fault, what is wrong with it)."""
        found = []
        for name, (low, high) in COUNT_RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                found.append((name, f"{name} must be {low} to {high}, not {value}"))
        if self.stacking_mixed and not self.stacking:
            found.append(("stacking_mixed", "stacking_mixed needs stacking"))
        if self.super_jump_in and not self.jump_in:
            found.append(("super_jump_in", "super_jump_in extends jump_in, which is off"))
        if self.jump_in_wilds and not self.jump_in:
            found.append(("jump_in_wilds", "jump_in_wilds extends jump_in, which is off"))
        if self.russian_scoring and self.scoring is Scoring.WINNER_TAKES:
            text = "russian_scoring counts each player's own hand: it needs lowest_wins or elimination"
            found.append(("russian_scoring", text))
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
    # One preset per seed text, turning on everything that text describes, optional variants included
    # (a variant replaces the text's base rule for the same option). Where two rules of equal standing
    # in one text contradict, the one the text presents as its main rule wins. Every choice, with the
    # sentence it rests on, is in docs/presets.md; tests/engine/test_presets.py pins each option.
    # seeds/000 (Serbian): the base rules plus every one of its "additional variants".
    "serbian": STANDARD.replace(
        name="serbian",
        sound_wilds=True,  # "we add 8 Sound Wild cards"; the slowest to press B draws 2
        wild_draw_four=WildDrawFourRule.NO_OTHER_PLAY,  # bluffing variant: "play +4 only when you have no other choice"
        uno_penalty=4,  # forgot UNO and was noticed: "draw 4 penalty cards"
        bluff_penalty=BluffPenalty.DRAW_SIX,  # caught bluffing: "4 cards plus two more for bluffing"
        scoring=Scoring.LOWEST_WINS,  # "every player still holding cards scores"; "fewest points" wins
        stacking=True,  # "Answers": +2 on +2, +4 on +4, the next "draws the total"; no +2 on +4
        deflecting=True,  # "Advanced answers": "Skip, Reverse or Wild" passes the draw on
        runs=True,  # "Runs": "yellow 2, 3 and 4" in one turn; the next player may cut in
        jump_in=True,  # "Interceptions": "the same card as the top one", out of turn
        super_jump_in=True,  # "Super interceptions": same number or symbol "regardless of colour"
        jump_in_penalty=JumpInPenalty.POINTS,  # too slow or the wrong card: "3 penalty points"
        seven_o=True,  # "0/7 rule": "cards 0 and 7 get special effects"
    ),
    # seeds/001 (French): the traditional rules, their scoring method 2 and their penalties.
    "french": STANDARD.replace(
        name="french",
        wild_draw_four=WildDrawFourRule.ANY_TIME,  # +4 "at any time", even "while holding the right card"; no challenge
        scoring=Scoring.LOWEST_WINS,  # "Method 2": "points are scored by the losers", fewest wins
        target_score=100,  # method 2's example: "you agreed to play up to 100"
        stacking=True,  # Draw Twos passed on: "a player may have to take 8 cards or more!"
        illegal_play_penalty=True,  # "the player who lays the wrong card must also take two cards"
    ),
    # seeds/002 (Russian forum): both posts, their "additional rules" and their "house rules".
    "russian": STANDARD.replace(
        name="russian",
        blank_cards=True,  # 4 Blank cards for extra rules, e.g. "Blank = Draw 10"
        h2o_wilds=True,  # "Uno H2O": black "+1" and "+2"; "all the other players" draw
        false_call_penalty=True,  # extra rule: a "false shout" costs two cards
        uno_slap=True,  # hands on top of the UNO caller's hand: "the last one takes 2"
        scoring=Scoring.LOWEST_WINS,  # "points are written to each player"; the first to the total loses
        russian_scoring=True,  # a lone 0 "counts 50", going out on +4 "takes 50 off", a last 0 swaps first
        stacking=True,  # Draw Two on Draw Two, +4 on +4: "the next must take eight cards"
        deflecting=True,  # a Reverse "returns the action" of a draw card; a Draw Two answers +4
        multi_play=True,  # "several cards of equal value", e.g. "three nines", at once
        jump_in=True,  # "Interception": "exactly the same card", out of turn
        jump_in_wilds=True,  # "the same ... black change-colour card" (never the +4)
        jump_in_penalty=JumpInPenalty.CARDS,  # "any wrongly laid card": two cards
        skip_escape=True,  # a Skip is escaped "only by laying exactly the same card"
        seven_o=True,  # "Seven-zero": 0 passes hands on, 7 swaps with a chosen player
        five_swap=True,  # a 5 swaps "one card with any player", each choosing what to give
        silent_two=True,  # after a 2 "everyone must keep silent"; whoever speaks takes 2
        illegal_play_penalty=True,  # "played an unsuitable card": take 2 cards
    ),
    # seeds/003 (Polish): strict Wild Draw Four, draw until playable, four-card UNO penalty, elimination.
    "polish": STANDARD.replace(
        name="polish",
        first_wild=FirstWild.REDRAW,  # set-up: a Wild turned first "goes into the middle of the draw pile"
        wild_draw_four=WildDrawFourRule.NO_MATCH_AT_ALL,  # not if holding a card "of the same colour and/or number"
        bluffing=False,  # an unfair +4 "cannot be played"; the text has no challenge
        draw_to_match=True,  # keep drawing "until they can play a card"
        uno_penalty=4,  # caught without UNO: "draw four new cards"
        scoring=Scoring.ELIMINATION,  # casino rule: "eliminate" players at 500 until one is left
    ),
}


# What each preset is for, in a sentence or two, for people choosing one (LobbyService.ListPresets).
PRESET_DESCRIPTIONS: dict[str, str] = {
    "standard": "The standard published rules: every option at its default.",
    "house": "The house rules people play at home: stacking Draw Twos and Wild Draw Fours, jumping in, "
    "0 and 7 swapping hands, and runs.",
    "serbian": "Every rule of the Serbian text: Sound Wilds, stacking and deflecting, runs, jump-ins of any "
    "colour, seven-0, lowest score wins.",
    "french": "The French text's traditional rules: a Wild Draw Four at any time, stacked Draw Twos, a "
    "penalty for a wrong card, lowest score to 100 wins.",
    "russian": "Every rule of the Russian forum: Blank and H2O cards, slaps, jump-ins, skip escapes, seven-0, "
    "five swaps, silent twos, Russian scoring.",
    "polish": "The Polish text: a strict Wild Draw Four with no bluffing, draw until playable, a four-card "
    "UNO penalty, elimination at 500.",
}


def find_ruleset(name: str, **overrides: Any) -> Ruleset:
    """The preset called `name`, with some options changed. Raises RulesetError for an unknown name."""
    try:
        preset = PRESETS[name]
    except KeyError:
        raise RulesetError(f"unknown ruleset {name!r}; presets: {', '.join(PRESETS)}") from None
    return preset.replace(**overrides) if overrides else preset
