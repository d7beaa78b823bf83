"""Scenario files: rule disputes settled with a file (docs/scenarios.md).

A scenario sets up a game (a stacked deck or an explicit position), lists actions by seat, and states
what must hold after any step, or which error a step must raise. `run_scenario` returns a readable
report; `unonet rules check PATH...` runs files and exits non-zero on any failure.
"""

from __future__ import annotations

import json
import random
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from unonet.engine import (
    Action,
    CallUno,
    Card,
    Catch,
    Challenge,
    Chat,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    Event,
    FiveSwap,
    Game,
    GiveCard,
    Match,
    Pass,
    Play,
    React,
    UnoError,
    WindowKind,
    find_ruleset,
)


class ScenarioError(ValueError):
    """The scenario file itself is wrong (unknown key, unreadable card): not a rules failure."""


@dataclass
class StepResult:
    index: int
    description: str
    problems: list[str] = field(default_factory=list)


@dataclass
class ScenarioResult:
    path: str
    rule: str
    title: str
    steps: list[StepResult]
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(not step.problems for step in self.steps)

    def report(self) -> str:
        head = f"{'PASS' if self.passed else 'FAIL'} {self.path} [{self.rule}] {self.title}"
        lines = [head]
        if self.error:
            lines.append(f"    scenario error: {self.error}")
        for step in self.steps:
            for problem in step.problems:
                lines.append(f"    step {step.index} ({step.description}): {problem}")
        return "\n".join(lines)


def load(path: Path) -> dict[str, Any]:
    """Read a TOML or JSON scenario file. Raises ScenarioError if it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
        data: dict[str, Any] = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as error:
        raise ScenarioError(f"cannot read {path}: {error}") from error
    return data


def scenario_files(paths: Iterable[str]) -> list[Path]:
    """Expand directories into the scenario files below them, sorted."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in (".toml", ".json"))
        else:
            found.append(path)
    return found


def run_file(path: Path) -> ScenarioResult:
    try:
        data = load(path)
    except ScenarioError as error:
        return ScenarioResult(str(path), "?", "?", [], str(error))
    return run_scenario(data, name=str(path))


def run_scenario(data: Mapping[str, Any], *, name: str = "<scenario>") -> ScenarioResult:
    """Play a scenario and compare every expectation. Never raises for rule failures: it reports them."""
    rule = str(data.get("rule", "?"))
    result = ScenarioResult(name, rule, str(data.get("title", "")), [])
    try:
        match = _build_match(data)
        try:
            log = list(match.start())
        except UnoError as error:
            raise ScenarioError(f"bad set-up: {error}") from error
        _check(match, log, data.get("expect_start", {}), result, 0, "set-up")
        for index, step in enumerate(data.get("steps", []), start=1):
            _run_step(match, log, step, result, index)
    except ScenarioError as error:
        result.error = str(error)
    return result


# ------------------------------------------------------------------------------------- building


def card(text: str) -> Card:
    try:
        return Card.parse(text)
    except ValueError as error:
        raise ScenarioError(str(error)) from error


def cards(texts: Sequence[str]) -> list[Card]:
    return [card(text) for text in texts]


def _color(text: str | None) -> Color | None:
    if text is None or text == "none":
        return None
    try:
        return Color(text)
    except ValueError:
        raise ScenarioError(f"unknown colour {text!r}") from None


def _build_match(data: Mapping[str, Any]) -> Match:
    known = {"rule", "title", "description", "players", "ruleset", "options", "setup", "steps", "expect_start"}
    unknown = set(data) - known
    if unknown:
        raise ScenarioError(f"unknown top-level keys: {sorted(unknown)}")
    for key in ("options", "setup", "expect_start"):
        _table(data.get(key, {}), key)
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
        raise ScenarioError("steps must be a list of tables ([[steps]])")
    try:
        ruleset = find_ruleset(str(data.get("ruleset", "standard")), **dict(data.get("options", {})))
    except UnoError as error:
        raise ScenarioError(str(error)) from error
    players = data.get("players", 2)
    if not isinstance(players, int) or isinstance(players, bool):
        raise ScenarioError(f"players must be a whole number from 2 to 10, not {players!r}")
    setup = dict(data.get("setup", {}))
    rng = random.Random(setup.pop("seed", 0))
    totals = setup.pop("totals", None)
    dealer = setup.pop("dealer", None)
    dealer_pile = cards(setup.pop("dealer_draws", []))
    decks = [cards(deck) for deck in setup.pop("decks", [])]
    if "deck" in setup:
        decks.insert(0, cards(setup.pop("deck")))
    first_round: Game | None = None
    if "hands" in setup:
        for key in ("current", "dealer"):
            value = setup.get(key) if key == "current" else dealer
            if value is not None and value not in range(players):
                raise ScenarioError(f"bad position: {key} must be a seat from 0 to {players - 1}, not {value!r}")
        try:
            first_round = Game.from_position(
                ruleset,
                rng,
                hands=[cards(hand) for hand in setup.pop("hands")],
                draw_pile=cards(setup.pop("draw_pile", [])),
                discard=cards(setup.pop("discard")),
                color=_color(setup.pop("color", None)),
                current=int(setup.pop("current", 0)),
                direction=int(setup.pop("direction", 1)),
                dealer=int(dealer if dealer is not None else 0),
                seats_in_play=setup.pop("seats_in_play", None),
            )
        except KeyError as error:
            raise ScenarioError(f"bad position: setup needs {error}") from error
        except (UnoError, IndexError, TypeError, ValueError) as error:
            raise ScenarioError(f"bad position: {error}") from error
        if len(first_round.hands) != players:
            raise ScenarioError(f"{players} players but {len(first_round.hands)} hands")
    if setup:
        raise ScenarioError(f"unknown setup keys: {sorted(setup)}")
    try:
        return Match(
            ruleset, players, rng, dealer=dealer, decks=decks, totals=totals, dealer_pile=dealer_pile,
            first_round=first_round,
        )
    except UnoError as error:
        raise ScenarioError(f"bad set-up: {error}") from error


def _table(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where} must be a table, not {value!r}")
    return value


_ACTIONS = {
    "play", "choose_color", "draw", "pass", "call_uno", "catch", "challenge", "swap", "five_swap",
    "give_card", "react", "chat", "close_window", "resolve_window",
}


# The keys a step may have; anything else is a typo that would otherwise assert nothing.
_STEP_KEYS = {
    "action", "seat", "card", "cards", "call_uno", "color", "target", "window", "reactions", "error", "expect",
}
# The arguments each action needs (besides `seat`, which every action but the host's needs).
_NEEDS = {
    "play": (), "choose_color": ("color",), "catch": ("target",), "swap": ("target",),
    "five_swap": ("target", "card"), "give_card": ("card",), "react": ("window",), "close_window": ("window",),
    "resolve_window": ("window",),
}


def _validate_step(step: Mapping[str, Any], where: str) -> None:
    """Refuse a step the runner would misread: unknown keys, missing or mistyped arguments."""
    kind = step.get("action")
    if kind not in _ACTIONS:
        raise ScenarioError(f"{where}: unknown action {kind!r}; known: {sorted(_ACTIONS)}")
    unknown = set(step) - _STEP_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}; a step may have {sorted(_STEP_KEYS)}")
    missing = [key for key in _NEEDS.get(kind, ()) if key not in step]
    if kind == "play" and "card" not in step and "cards" not in step:
        missing.append("card (or cards)")
    if kind not in ("close_window", "resolve_window") and "seat" not in step:
        missing.append("seat")
    if missing:
        raise ScenarioError(f"{where}: {kind} needs {', '.join(missing)}")
    for key in ("seat", "target"):
        if key in step and (not isinstance(step[key], int) or isinstance(step[key], bool)):
            raise ScenarioError(f"{where}: {key} must be a seat number, not {step[key]!r}")
    if "cards" in step and not (isinstance(step["cards"], list) and step["cards"]):
        raise ScenarioError(f"{where}: cards must be a non-empty list of cards")
    if "expect" in step:
        _table(step["expect"], f"{where}: expect")
    reactions = step.get("reactions", [])
    if not isinstance(reactions, list) or not all(isinstance(reaction, dict) for reaction in reactions):
        raise ScenarioError(f"{where}: reactions must be a list of step tables")
    for number, reaction in enumerate(reactions, start=1):
        _validate_step(reaction, f"{where}, reaction {number}")


def _action(match: Match, step: Mapping[str, Any]) -> Action:
    kind = step["action"]
    seat = int(step.get("seat", -1))
    if kind == "play":
        played = step.get("cards") or [step["card"]]
        return Play(seat, tuple(cards(played)), bool(step.get("call_uno", False)))
    if kind == "choose_color":
        color = _color(step["color"])
        if color is None:
            raise ScenarioError("choose_color needs a colour")
        return ChooseColor(seat, color)
    simple: dict[str, type[Draw | Pass | CallUno | Challenge | Chat]] = {
        "draw": Draw, "pass": Pass, "call_uno": CallUno, "challenge": Challenge, "chat": Chat,
    }
    if kind in simple:
        return simple[kind](seat)
    if kind == "catch":
        return Catch(seat, int(step["target"]))
    if kind == "swap":
        return ChooseSwapTarget(seat, int(step["target"]))
    if kind == "five_swap":
        return FiveSwap(seat, int(step["target"]), card(step["card"]))
    if kind == "give_card":
        return GiveCard(seat, card(step["card"]))
    if kind == "react":
        return React(seat, _window_id(match, step["window"]))
    raise ScenarioError(f"unknown action {kind!r}; known: {sorted(_ACTIONS)}")


def _window_id(match: Match, ref: int | str) -> int:
    """A window by id, or by kind name (the one open window of that kind)."""
    if isinstance(ref, int):
        return ref
    try:
        kind = WindowKind(ref)
    except ValueError:
        raise ScenarioError(f"unknown window kind {ref!r}") from None
    for window in match.game.windows.values():
        if window.kind is kind:
            return window.id
    return -1


def _run_step(match: Match, log: list[Event], step: Mapping[str, Any], result: ScenarioResult, index: int) -> None:
    _validate_step(step, f"step {index}")
    kind = step["action"]
    description = f"{kind}" + (f" by seat {step['seat']}" if "seat" in step else "")
    record = StepResult(index, description)
    result.steps.append(record)
    expected_error = step.get("error")
    before = match.game.fingerprint()
    round_before = match.round_no
    try:
        if kind == "close_window":
            events = match.close_window(_window_id(match, step["window"]))
        elif kind == "resolve_window":
            reactions = [_action(match, reaction) for reaction in step.get("reactions", [])]
            events = match.resolve_window(_window_id(match, step["window"]), reactions)
        else:
            events = match.apply(_action(match, step))
    except UnoError as error:
        if expected_error is None:
            record.problems.append(f"refused with {error.reason}: {error}")
        elif error.reason != expected_error:
            record.problems.append(f"expected error {expected_error}, got {error.reason}: {error}")
        if match.round_no == round_before and match.game.fingerprint() != before:
            record.problems.append("a refused action changed the state")
        _check(match, [], step.get("expect", {}), result, index, description, record)
        return
    if expected_error is not None:
        record.problems.append(f"expected error {expected_error}, but the action was applied")
    log += events
    _check(match, events, step.get("expect", {}), result, index, description, record)


# ------------------------------------------------------------------------------------- checking


def _check(
    match: Match,
    events: list[Event],
    expect: Mapping[str, Any],
    result: ScenarioResult,
    index: int,
    description: str,
    record: StepResult | None = None,
) -> None:
    if record is None:
        record = StepResult(index, description)
        result.steps.append(record)
    game = match.game
    actual: dict[str, Callable[[], Any]] = {
        "hands": lambda: [[str(c) for c in hand] for hand in game.hands],
        "hand_sizes": lambda: [len(hand) for hand in game.hands],
        "top": lambda: str(game.top),
        "color": lambda: game.color.value if game.color else "none",
        "direction": lambda: game.direction,
        "current": lambda: game.current,
        "to_act": lambda: game.to_act,
        "phase": lambda: game.phase.value,
        "obligation": lambda: "none" if game.obligation is None else {
            "target": game.obligation.target, "amount": game.obligation.amount,
        },
        "totals": lambda: list(match.totals),
        "winner": lambda: game.winner,
        "match_winners": lambda: list(match.winners),
        "round_no": lambda: match.round_no,
        "dealer": lambda: game.dealer,
        "draw_pile_size": lambda: len(game.draw_pile),
        "discard_size": lambda: len(game.discard),
        "catchable": lambda: sorted(game.catchable),
        "windows": lambda: sorted(w.kind.value for w in game.windows.values()),
        "penalty_points": lambda: list(game.penalty_points),
        "silence": lambda: game.silence,
        "eliminated": lambda: sorted(match.eliminated),
    }
    for key, wanted in expect.items():
        if key == "events":
            _known_events(wanted, index)
            _check_events(events, wanted, record)
            continue
        if key == "no_events":
            _known_events(wanted, index)
            names = {type(event).__name__ for event in events}
            for name in wanted:
                if name in names:
                    record.problems.append(f"event {name} happened but must not")
            continue
        if key == "hand":  # {"seat": n, "cards": [...]} as a multiset
            if not (isinstance(wanted, dict) and wanted.get("seat") in range(len(game.hands)) and "cards" in wanted):
                raise ScenarioError(f"step {index}: hand must be {{seat = 0..{len(game.hands) - 1}, cards = [...]}}")
            seat_hand = sorted(str(c) for c in game.hands[int(wanted["seat"])])
            if seat_hand != sorted(wanted["cards"]):
                record.problems.append(
                    f"hand of seat {wanted['seat']}: expected {sorted(wanted['cards'])}, got {seat_hand}"
                )
            continue
        if key not in actual:
            raise ScenarioError(f"step {index}: cannot check unknown key {key!r}; known: {sorted(actual)}")
        got = actual[key]()
        if key == "hands":
            got = [sorted(hand) for hand in got]
            wanted = [sorted(hand) for hand in wanted]
        if got != wanted:
            record.problems.append(f"{key}: expected {wanted!r}, got {got!r}")


def _event_fields() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for cls in Event.__subclasses__():
        kind: object = cls
        if isinstance(kind, type) and is_dataclass(kind):
            found[kind.__name__] = {f.name for f in fields(kind)}
    return found


_EVENT_FIELDS = _event_fields()


def _known_events(wanted: object, index: int) -> None:
    """Every event named in `events` or `no_events` must exist, with the fields given: a misspelt name
    in `no_events` would otherwise always pass."""
    if not isinstance(wanted, list):
        raise ScenarioError(f"step {index}: events and no_events are lists, not {wanted!r}")
    for spec in wanted:
        name = spec if isinstance(spec, str) else spec.get("type") if isinstance(spec, dict) else None
        if name not in _EVENT_FIELDS:
            raise ScenarioError(f"step {index}: unknown event {spec!r}; events: {', '.join(sorted(_EVENT_FIELDS))}")
        unknown = set(spec) - {"type"} - _EVENT_FIELDS[name] if isinstance(spec, dict) else set()
        if unknown:
            raise ScenarioError(
                f"step {index}: {name} has no field {', '.join(sorted(unknown))}; "
                f"its fields: {', '.join(sorted(_EVENT_FIELDS[name]))}"
            )


def _check_events(events: list[Event], wanted: Sequence[str | Mapping[str, Any]], record: StepResult) -> None:
    """Each wanted event (a type name, or a table with `type` and fields) must appear, in this order."""
    position = 0
    for spec in wanted:
        name = spec if isinstance(spec, str) else spec["type"]
        fields = {} if isinstance(spec, str) else {k: v for k, v in spec.items() if k != "type"}
        while position < len(events):
            event = events[position]
            position += 1
            if type(event).__name__ == name and all(_field(event, k) == v for k, v in fields.items()):
                break
        else:
            got = ", ".join(type(event).__name__ for event in events)
            record.problems.append(f"expected event {spec!r} (in order); events were: {got}")
            return


def _field(event: Event, name: str) -> Any:
    value = getattr(event, name)
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple):
        return [str(v) if isinstance(v, Card) else v for v in value]
    if hasattr(value, "value"):
        return value.value
    return value
