"""The lobby's create-a-table form: every field CreateTableRequest takes, grouped, as rows of a list.

The rows are, in order: the table (preset, seats, target score, bots and their kind, starting only on
S, spectators' delay), the clock (turn time, time bank, strikes, what a struck-out seat becomes), then
every option of the `Ruleset` message grouped as RULES.md groups them (deck, turns, UNO, scoring,
house rules), each labelled with its rule ID. Options are read from the message's descriptor, so an
option this module does not name yet still gets a row (under "other"): the form never hides a rule the
protocol offers. Each option shows the chosen preset's value until the player changes it; only the
changes are sent, as `CreateTableRequest.overrides`.

`NewTable` reacts to keys without I/O (Up/Down `move`, Left/Right `change`, Space `toggle`), and
`render_form` shows the rows that fit the screen around the cursor, so the form scrolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from google.protobuf.descriptor import FieldDescriptor
from prompt_toolkit.formatted_text import StyleAndTextTuples

from unonet.client.tui.rules_text import OPTIONS, meaning_of
from unonet.v1 import rules_pb2, table_pb2

__all__ = ["GROUPS", "NewTable", "Row", "render_form"]

#: Ruleset options by group: (field, rule ID, plain name), in `rules_text`'s words (the game screen's rules
#: overlay and the lobby's table details say the same). `target_score` is a row of the table part.
GROUPS: Final[tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...]] = tuple(
    (title, tuple((words.field, words.rule, words.name) for words in group if words.field != "target_score"))
    for title, group in OPTIONS
)
#: An option that only matters when another is on: (option, the option it needs).
NEEDS: Final = {
    "blank_effect": "blank_cards", "blank_draw": "blank_cards", "bluff_penalty": "bluffing",
    "stacking_cumulative": "stacking", "stacking_mixed": "stacking", "super_jump_in": "jump_in",
    "jump_in_wilds": "jump_in", "jump_in_penalty": "jump_in",
}
#: The ranges the Ruleset's comments give its counts.
RANGES: Final = {"blank_draw": (1, 20), "uno_penalty": (0, 10)}
SEAT_COUNTS: Final = tuple(range(2, 11))
TARGETS: Final = (0, 50, 100, 150, 200, 300, 500, 1000)  # 0: the preset's
TURN_TIMES: Final = (-1, 0, 10, 15, 30, 60, 120)  # -1: the host's default clock; 0: no clock
TIME_BANKS: Final = (0, 30, 60, 120, 300)
STRIKES: Final = (0, 1, 2, 3, 5)
DELAYS: Final = (0, 5, 30, 60)
_HIDDEN: Final = frozenset({"preset", "target_score"})
_RULESET: Final = rules_pb2.Ruleset.DESCRIPTOR


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the form: a group's title (`key` ""), a table or clock field, or a ruleset option."""

    key: str
    label: str
    rule: str = ""

    @property
    def is_title(self) -> bool:
        return not self.key


def _rows() -> tuple[Row, ...]:
    rows = [Row("", "table"), Row("preset", "preset"), Row("seats", "seats"), Row("target", "target score", "P2"),
            Row("bots", "bots (you take a seat)"), Row("bot_kind", "kind of bot"),
            Row("manual", "start only on S"), Row("delay", "spectators see it later by"),
            Row("", "clock"), Row("turn", "turn clock"), Row("bank", "time bank"),
            Row("strikes", "timeouts before takeover"), Row("takeover", "a struck-out seat")]
    named = set(_HIDDEN)
    for title, options in GROUPS:
        rows.append(Row("", title))
        for name, rule, words in options:
            rows.append(Row(name, words, rule))
            named.add(name)
    others = [f.name for f in _RULESET.fields if f.name not in named]
    if others:  # an option newer than this form: offered under its own name
        rows.append(Row("", "other"))
        rows += [Row(name, name.replace("_", " ")) for name in others]
    return tuple(rows)


ROWS: Final = _rows()
_CHOICES: Final = tuple(i for i, row in enumerate(ROWS) if not row.is_title)


def _has(message: rules_pb2.Ruleset, name: str) -> bool:
    return any(present.name == name for present, _ in message.ListFields())


def _enum_words(field_: FieldDescriptor, number: int) -> str:
    """An enum value in words: WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR is "no matching color"."""
    enum = field_.enum_type
    value = enum.values_by_number.get(number) if enum is not None else None
    if value is None:
        return str(number)
    prefix = "".join(part + "_" for part in _snake(enum.name)) if enum is not None else ""
    return value.name.removeprefix(prefix.upper()).lower().replace("_", " ")


def _snake(name: str) -> list[str]:
    parts, word = [], ""
    for char in name:
        if char.isupper() and word:
            parts.append(word)
            word = ""
        word += char
    return [*parts, word]


@dataclass(slots=True)
class NewTable:
    """The create-a-table form: every field has a value to send.

    `presets` are the host's (ListPresets, complete rulesets) and `bot_kinds` its kinds from the
    strongest (ListBotKinds, ranked); with none known the form still works (preset "standard", the
    host's default bot) and the options show "preset's" until changed.
    """

    presets: list[rules_pb2.RulesetPreset] = field(default_factory=list)
    bot_kinds: list[str] = field(default_factory=list)
    preset: int = 0
    seats: int = 4
    target: int = 0
    bots: int = 3
    bot_kind: int = 0
    manual_start: bool = False
    delay: int = 0
    turn_time: int = 0
    time_bank: int = 0
    strikes: int = 3
    forfeit: bool = False
    overrides: dict[str, int | bool] = field(default_factory=dict)
    #: The index of the chosen row among the rows that can be chosen (group titles cannot).
    row: int = 0

    # --------------------------------------------------------------------------------- reading

    @property
    def current(self) -> Row:
        return ROWS[_CHOICES[self.row]]

    @property
    def preset_name(self) -> str:
        return self.presets[self.preset % len(self.presets)].name if self.presets else "standard"

    def base(self) -> rules_pb2.Ruleset | None:
        """The chosen preset's complete ruleset, when the host listed it."""
        return self.presets[self.preset % len(self.presets)].ruleset if self.presets else None

    def option(self, name: str) -> int | bool | None:
        """An option's value as the table would get it (None: the preset's, not known here)."""
        if name in self.overrides:
            return self.overrides[name]
        base = self.base()
        if base is None or not _has(base, name):
            return None
        value: int | bool = getattr(base, name)
        return value

    # ------------------------------------------------------------------------------------ keys

    def move(self, step: int) -> None:
        """Up/Down: the previous or next row that can be chosen."""
        self.row = max(0, min(len(_CHOICES) - 1, self.row + step))

    def toggle(self) -> None:
        """Space: switch an on/off row (other rows step forward, as Right does)."""
        self.change(1)

    def change(self, step: int) -> None:
        """Left/Right on the current row."""
        key = self.current.key
        match key:
            case "preset":
                self.preset = (self.preset + step) % max(1, len(self.presets))
            case "seats":
                self.seats = min(SEAT_COUNTS[-1], max(SEAT_COUNTS[0], self.seats + step))
                self.bots = min(self.bots, self.seats - 1)
            case "target":
                self.target = (self.target + step) % len(TARGETS)
            case "bots":
                self.bots = min(self.seats - 1, max(0, self.bots + step))
            case "bot_kind":
                self.bot_kind = (self.bot_kind + step) % max(1, len(self.bot_kinds))
            case "manual":
                self.manual_start = not self.manual_start
            case "delay":
                self.delay = (self.delay + step) % len(DELAYS)
            case "turn":
                self.turn_time = (self.turn_time + step) % len(TURN_TIMES)
            case "bank":
                self.time_bank = (self.time_bank + step) % len(TIME_BANKS)
            case "strikes":
                self.strikes = (self.strikes + step) % len(STRIKES)
            case "takeover":
                self.forfeit = not self.forfeit
            case _:
                self._change_option(key, step)

    def _change_option(self, name: str, step: int) -> None:
        field_ = _RULESET.fields_by_name[name]
        value = self.option(name)
        if field_.type == FieldDescriptor.TYPE_BOOL:
            self.overrides[name] = not bool(value)
        elif field_.type == FieldDescriptor.TYPE_ENUM and field_.enum_type is not None:
            numbers = [v.number for v in field_.enum_type.values if v.number]
            at = numbers.index(int(value)) if value is not None and value in numbers else (-1 if step > 0 else 0)
            self.overrides[name] = numbers[(at + step) % len(numbers)]
        else:
            low, high = RANGES.get(name, (0, 100))
            start = int(value) if value is not None else low
            self.overrides[name] = min(high, max(low, start + step))

    # ------------------------------------------------------------------------- kept between runs

    def remember(self) -> dict[str, object]:
        """The form's values to keep in the config file (`config.Config.new_table`), by name not index."""
        return {"preset": self.preset_name, "seats": self.seats, "target": TARGETS[self.target], "bots": self.bots,
                "bot_kind": self.kind, "manual_start": self.manual_start, "spectator_delay": DELAYS[self.delay],
                "turn_time": TURN_TIMES[self.turn_time], "time_bank": TIME_BANKS[self.time_bank],
                "strikes": STRIKES[self.strikes], "forfeit": self.forfeit, "overrides": dict(self.overrides)}

    def restore(self, kept: dict[str, object]) -> None:
        """Take back values `remember` kept; anything unknown, out of range or of the wrong type is skipped."""
        def index(choices: Sequence[object], key: str, current: int) -> int:
            value = kept.get(key)
            return next((i for i, choice in enumerate(choices) if choice == value and type(choice) is type(value)),
                        current)

        names = [preset.name for preset in self.presets]
        self.preset = index(names, "preset", self.preset)
        seats = kept.get("seats")
        if isinstance(seats, int) and seats in SEAT_COUNTS:
            self.seats = seats
        bots = kept.get("bots")
        if isinstance(bots, int) and 0 <= bots < self.seats:
            self.bots = bots
        self.bot_kind = index(self.bot_kinds, "bot_kind", self.bot_kind)
        self.target = index(TARGETS, "target", self.target)
        self.delay = index(DELAYS, "spectator_delay", self.delay)
        self.turn_time = index(TURN_TIMES, "turn_time", self.turn_time)
        self.time_bank = index(TIME_BANKS, "time_bank", self.time_bank)
        self.strikes = index(STRIKES, "strikes", self.strikes)
        for flag in ("manual_start", "forfeit"):
            if isinstance(kept.get(flag), bool):
                setattr(self, flag, kept[flag])
        overrides = kept.get("overrides")
        if isinstance(overrides, dict):
            for name, value in overrides.items():
                field_ = _RULESET.fields_by_name.get(name)
                if field_ is not None and name not in _HIDDEN and isinstance(value, (bool, int)):
                    if (field_.type == FieldDescriptor.TYPE_BOOL) == isinstance(value, bool):
                        self.overrides[name] = value

    # ----------------------------------------------------------------------------- the request

    def ruleset(self) -> rules_pb2.Ruleset:
        """The overrides to send: the target score (when chosen) and each option changed from the preset."""
        ruleset = rules_pb2.Ruleset()
        if TARGETS[self.target]:
            ruleset.target_score = TARGETS[self.target]
        base = self.base()
        for name, value in self.overrides.items():
            if base is None or not _has(base, name) or getattr(base, name) != value:
                setattr(ruleset, name, value)
        return ruleset

    def clock(self) -> table_pb2.ClockSettings | None:
        """The clock to send; None leaves the host's default clock."""
        seconds = TURN_TIMES[self.turn_time]
        if seconds < 0:
            return None
        clock = table_pb2.ClockSettings()
        clock.turn_time.FromSeconds(seconds)
        if seconds:
            clock.time_bank.FromSeconds(TIME_BANKS[self.time_bank])
            clock.strikes_before_takeover = STRIKES[self.strikes]
            clock.takeover_policy = table_pb2.TAKEOVER_POLICY_FORFEIT if self.forfeit else table_pb2.TAKEOVER_POLICY_BOT
            if not self.forfeit and self.bot_kinds:
                clock.takeover_bot_kind = self.kind
        return clock

    @property
    def kind(self) -> str:
        """The bot kind chosen ("" for the host's default)."""
        return self.bot_kinds[self.bot_kind % len(self.bot_kinds)] if self.bot_kinds else ""

    @property
    def spectator_delay(self) -> float | None:
        return float(DELAYS[self.delay]) or None

    # ------------------------------------------------------------------------------- showing

    def value_text(self, row: Row) -> str:
        """What a row shows as its value."""
        clocked = TURN_TIMES[self.turn_time] > 0
        match row.key:
            case "preset":
                return self.preset_name
            case "seats":
                return str(self.seats)
            case "target":
                chosen = TARGETS[self.target]
                base = self.base()
                return str(chosen) if chosen else (f"{base.target_score} (preset's)" if base else "preset's")
            case "bots":
                return str(self.bots)
            case "bot_kind":
                return self.kind or "the host's default"
            case "manual":
                return "yes" if self.manual_start else "no: when every seat is taken"
            case "delay":
                return f"{DELAYS[self.delay]} s" if DELAYS[self.delay] else "no delay"
            case "turn":
                seconds = TURN_TIMES[self.turn_time]
                return "the host's default" if seconds < 0 else "none" if seconds == 0 else f"{seconds} s a decision"
            case "bank":
                return f"{TIME_BANKS[self.time_bank]} s" if clocked else "—"
            case "strikes":
                return (str(STRIKES[self.strikes]) if STRIKES[self.strikes] else "never taken over") if clocked else "—"
            case "takeover":
                return ("is forfeited" if self.forfeit else "goes to a bot") if clocked else "—"
        value = self.option(row.key)
        if value is None:
            return "preset's"
        field_ = _RULESET.fields_by_name[row.key]
        if field_.type == FieldDescriptor.TYPE_BOOL:
            return "on" if value else "off"
        if field_.type == FieldDescriptor.TYPE_ENUM:
            return _enum_words(field_, int(value))
        return str(value)

    def note(self, row: Row) -> str:
        """Why a row does not matter now ("needs stacking"), or ""."""
        needed = NEEDS.get(row.key)
        if needed is not None and self.option(needed) is False:
            return f"needs {needed.replace('_', ' ')}"
        return ""


def render_form(form: NewTable, height: int) -> StyleAndTextTuples:
    """The form in `height` lines: the rows around the cursor (‹more› above and below), then the keys."""
    room = max(3, height - 5)
    chosen = _CHOICES[form.row]
    first = max(0, min(chosen - room // 2, len(ROWS) - room))
    last = min(len(ROWS), first + room)
    out: StyleAndTextTuples = [("class:score", " NEW TABLE" + ("   ↑ more" if first else "") + "\n")]
    for index in range(first, last):
        row = ROWS[index]
        if row.is_title:
            out.append(("class:dim", f"  ── {row.label} ──\n"))
            continue
        arrows = f"‹ {form.value_text(row)} ›"
        note = form.note(row)
        text = f"  {row.label:<30} {arrows}" + (f"  ({note})" if note else "")
        out.append(("class:cursor" if index == chosen else ("class:dim" if note else ""), text))
        out.append(("class:dim", f"  {row.rule}\n" if row.rule else "\n"))
    more = "   ↓ more" if last < len(ROWS) else ""
    meaning = meaning_of(ROWS[chosen].key) or _TABLE_MEANINGS.get(ROWS[chosen].key, "")
    out.append(("class:hint", f"  {meaning}\n"))
    out.append(("class:dim", f" ↑↓ field · ←→ change · Enter create and sit · Esc back{more}"))
    return out


#: One line of meaning for each row of the table and clock parts (the options' come from `rules_text`).
_TABLE_MEANINGS: Final = {
    "preset": "the rules to start from; every option below can change them",
    "seats": "how many players, you included (2 to 10)",
    "target": "the score that ends the match",
    "bots": "how many host bots sit down at once; friends take the other seats",
    "bot_kind": "how the bots play, the strongest first",
    "manual": "start only when you press S (bots take the empty seats), or when the last seat is taken",
    "delay": "how far behind the game spectators see it",
    "turn": "how long each decision may take before the host plays a default move",
    "bank": "extra time each seat has for the whole match",
    "strikes": "timeouts a seat may have before what the next row says happens",
    "takeover": "what happens to a seat out of strikes, or whose player left",
}

