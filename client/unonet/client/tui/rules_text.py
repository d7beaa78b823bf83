"""A table's rules in plain words: every option's name, its rule ID, one line of meaning, its value.

RULES.md gives each option of the `Ruleset` a rule ID and a meaning; this module is the one place the
client says them to a player, so the game screen's rules overlay (I), the lobby's table details and
the new-table form all read alike: the plain name first, the rule ID beside it. `stakes` says what a
match is played for ("first to 500"), for the game screen's header.

Pure functions of a `Ruleset` message: no I/O, nothing of the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from google.protobuf.descriptor import FieldDescriptor
from prompt_toolkit.formatted_text import StyleAndTextTuples

from unonet.v1 import rules_pb2, table_pb2

__all__ = [
    "OPTIONS", "RuleWords", "clock_lines", "meaning_of", "option_value", "rules_lines", "stakes", "strikes_words",
]


@dataclass(frozen=True, slots=True)
class RuleWords:
    """One option: its field in `Ruleset`, a plain name, the RULES.md rule ID and one line of meaning."""

    field: str
    name: str
    rule: str
    meaning: str


#: Every option of the Ruleset, grouped as RULES.md groups them: (group, options).
OPTIONS: Final[tuple[tuple[str, tuple[RuleWords, ...]], ...]] = (
    ("scoring", (
        RuleWords("scoring", "Scoring", "P2", "who scores what: the winner takes the others' cards, or each "
                                              "player counts their own and the lowest total wins"),
        RuleWords("target_score", "Target score", "P2", "the score that ends the match"),
        RuleWords("russian_scoring", "Russian scoring", "P3", "a lone 0 left in hand counts 50; going out "
                                                              "on a Wild Draw Four takes 50 off"),
    )),
    ("deck", (
        RuleWords("blank_cards", "Blank cards", "C2", "4 Blank cards in the deck, played like a Wild"),
        RuleWords("blank_effect", "A Blank card", "C2", "what a Blank does: the next player draws and is "
                                                        "skipped, or it acts as a Wild"),
        RuleWords("blank_draw", "Cards a Blank makes draw", "C2", "how many cards the next player draws"),
        RuleWords("sound_wilds", "Sound Wilds", "H12", "8 Sound Wilds: no colour named, anything may follow, "
                                                      "and everyone reacts (B); the slowest draws 2"),
        RuleWords("h2o_wilds", "H2O wilds", "C2", "+1 and +2 wilds: every other player draws 1 or 2"),
    )),
    ("turns", (
        RuleWords("first_wild", "A Wild turned first", "S4", "the first player names the colour, or it is "
                                                             "returned and another card turned"),
        RuleWords("wild_draw_four", "When a Wild Draw Four is fair", "T2", "which hands may play it fairly"),
        RuleWords("bluffing", "Bluffing", "T2", "an unfair Wild Draw Four may still be played, and the next "
                                                "player may challenge it (C)"),
        RuleWords("bluff_penalty", "A caught bluff costs", "B3", "what a guilty player pays when challenged"),
        RuleWords("draw_to_match", "Draw to match", "T4", "keep drawing until a card can be played"),
        RuleWords("draw_penalty_skips_turn", "A draw penalty also skips", "T8",
                  "whoever draws 2 or 4 as a penalty also loses the turn"),
        RuleWords("illegal_play_penalty", "A wrong card costs 2", "H15",
                  "a card that does not match goes back and costs 2 cards, instead of being refused"),
    )),
    ("UNO", (
        RuleWords("uno_penalty", "Cards for a missed UNO", "U2",
                  "what a player caught holding one card without calling UNO draws"),
        RuleWords("false_call_penalty", "A false catch costs 2", "U4",
                  "catching a player who did call (or holds more cards) costs the catcher 2 cards"),
        RuleWords("uno_slap", "UNO slap", "U5", "when someone calls UNO everyone slaps (B); the slowest draws 2"),
    )),
    ("house rules", (
        RuleWords("stacking", "Stacking", "H1", "answer a Draw Two with a Draw Two (a Four with a Four): the "
                                                "next player owes the sum"),
        RuleWords("stacking_cumulative", "A stack adds up", "H2", "a stack's cards add up; off, the last "
                                                                  "player draws just 2 or 4"),
        RuleWords("stacking_mixed", "+2 and +4 stack together", "H1", "a Draw Two may answer a Wild Draw Four "
                                                                      "and the reverse"),
        RuleWords("deflecting", "Deflecting", "H3", "pass a draw on with a Skip, back with a Reverse, or on with "
                                                    "a Wild"),
        RuleWords("runs", "Runs", "H4", "play consecutive numbers of one colour at once (M marks them); others "
                                        "may cut the run short"),
        RuleWords("multi_play", "Several equal cards", "H5", "play several cards of one number or symbol at "
                                                             "once (M marks them)"),
        RuleWords("jump_in", "Jump-ins", "H6", "play a card identical to the top card out of turn, at once"),
        RuleWords("super_jump_in", "Super jump-ins", "H7", "jump in with the same number or symbol of any colour"),
        RuleWords("jump_in_wilds", "Jump in on Wilds", "H6", "a Wild may be jumped in on with a Wild"),
        RuleWords("jump_in_penalty", "A wrong jump-in costs", "H6", "what a jump-in the rules do not allow costs"),
        RuleWords("skip_escape", "Skip escape", "H8", "escape a Skip by jumping in with the identical Skip"),
        RuleWords("seven_o", "7-0", "H10", "a 0 passes every hand on; a 7 swaps hands with a player you choose"),
        RuleWords("five_swap", "5 swap", "H11", "a 5 swaps one card with any player"),
        RuleWords("silent_two", "Silent 2", "H14", "after a 2 nobody may chat until its player plays again; "
                                                   "whoever writes draws 2"),
    )),
)

_RULESET: Final = rules_pb2.Ruleset.DESCRIPTOR
_BY_FIELD: Final = {words.field: words for _, group in OPTIONS for words in group}


def _enum_words(field: FieldDescriptor, number: int) -> str:
    """An enum value in words: WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR is "no matching color"."""
    enum = field.enum_type
    value = enum.values_by_number.get(number) if enum is not None else None
    if value is None or enum is None:
        return str(number)
    prefix = "".join(f"_{c}" if c.isupper() else c.upper() for c in enum.name).lstrip("_") + "_"
    return value.name.removeprefix(prefix).lower().replace("_", " ")


def meaning_of(field: str) -> str:
    """An option's one line of meaning ("" for a field that is no option)."""
    words = _BY_FIELD.get(field)
    return words.meaning if words is not None else ""


def option_value(ruleset: rules_pb2.Ruleset, name: str) -> str:
    """An option's value as a player reads it ("on", "off", "4", "winner takes")."""
    field = _RULESET.fields_by_name[name]
    value = getattr(ruleset, name)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "on" if value else "off"
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum_words(field, int(value))
    return str(value)


def stakes(ruleset: rules_pb2.Ruleset) -> str:
    """What the match is played for, in a few words: "first to 500", "lowest wins at 500", ..."""
    target = ruleset.target_score
    match ruleset.scoring:
        case rules_pb2.SCORING_RULE_LOWEST_WINS:
            return f"lowest total wins when one reaches {target}" if target else "lowest total wins"
        case rules_pb2.SCORING_RULE_ELIMINATION:
            return f"out at {target}, last one in wins" if target else "elimination"
    return f"first to {target}" if target else "winner takes all"


def rules_lines(ruleset: rules_pb2.Ruleset) -> list[StyleAndTextTuples]:
    """The rules, a line each: every group's title, then each option as its plain name, its value and
    its rule ID, and on the next line (indented) its meaning."""
    out: list[StyleAndTextTuples] = []
    for title, group in OPTIONS:
        out.append([("class:score", title)])
        for words in group:
            out.append([("", f"  {words.name}: "), ("class:you", option_value(ruleset, words.field)),
                        ("class:dim", f"   {words.rule}")])
            out.append([("class:dim", f"      {words.meaning}")])
    others = [f.name for f in _RULESET.fields if f.name not in _BY_FIELD and f.name != "preset"]
    for name in others:  # an option newer than this list: its own name and value
        out.append([("", f"  {name.replace('_', ' ')}: "), ("class:you", option_value(ruleset, name))])
    return out


def strikes_words(strikes: int, clock: table_pb2.ClockSettings) -> str:
    """A seat's strikes, explained: "2 strikes (timeouts; at 3 a bot takes over)"."""
    noun = "strike" if strikes == 1 else "strikes"
    limit = clock.strikes_before_takeover
    if not limit:
        return f"{strikes} {noun} (timeouts)"
    fate = "is forfeited" if clock.takeover_policy == table_pb2.TAKEOVER_POLICY_FORFEIT else "goes to a bot"
    return f"{strikes} {noun} (timeouts; at {limit} the seat {fate})"


def clock_lines(clock: table_pb2.ClockSettings) -> list[str]:
    """The table's clock in words: the turn time, the time bank, strikes and what they lead to."""
    turn = clock.turn_time.seconds + clock.turn_time.nanos / 1e9
    if turn <= 0:
        return ["no turn clock: nobody is timed out"]
    lines = [f"{turn:.0f} s for each decision"]
    bank = clock.time_bank.seconds
    if bank:
        lines.append(f"plus a time bank of {bank} s for the whole match")
    if clock.strikes_before_takeover:
        fate = ("the seat is forfeited" if clock.takeover_policy == table_pb2.TAKEOVER_POLICY_FORFEIT
                else "a bot takes the seat over")
        lines.append(f"a timeout is a strike; after {clock.strikes_before_takeover}, {fate}")
    else:
        lines.append("a timeout is a strike: the host plays a default move, nobody is taken over")
    return lines
