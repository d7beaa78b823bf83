"""Scenario files: rule disputes settled with a file (docs/scenarios.md).

A scenario sets up a game (a stacked deck or an explicit position), lists actions by seat, and states
what must hold after any step, or which error a step must raise. `run_scenario` returns a readable
report; `unonet rules check PATH...` runs files and exits non-zero on any failure.

Two kinds of bad outcome are kept apart: a *rules failure* (the engine did something the file says it
must not) and a *scenario error* (the file cannot be run as written: a typo, an unknown card, event,
field or reason). Everything the file names is read strictly, so a typo can never pass silently.
"""

from __future__ import annotations

import ast
import difflib
import functools
import json
import random
import sys
import tomllib
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from unonet.engine import (
    REASONS,
    Action,
    BluffRecord,
    CallUno,
    Card,
    CatchUno,
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
    Obligation,
    Pass,
    Phase,
    Play,
    Rank,
    React,
    RefusedReaction,
    Ruleset,
    UnoError,
    WindowKind,
    find_ruleset,
)
from unonet.engine.rules import is_wild_draw_four_fair


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
    def status(self) -> str:
        """`"pass"`, `"fail"` (a rules failure) or `"error"` (a scenario error: the file cannot run)."""
        if self.error is not None:
            return "error"
        return "fail" if any(step.problems for step in self.steps) else "pass"

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def report(self) -> str:
        lines = [f"{self.status.upper()} {self.path} [{self.rule}] {self.title}"]
        for step in self.steps:
            for problem in step.problems:
                lines.append(f"    step {step.index} ({step.description}): {problem}")
        if self.error:
            lines.append(f"    scenario error: {self.error}")
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
    """Play a scenario and compare every expectation. Never raises: rules failures are listed per step,
    and a file that cannot be run sets `error`."""
    result = ScenarioResult(name, str(data.get("rule", "?")), str(data.get("title", "")), [])
    try:
        match = _start(data, result)
        if match is not None:
            for index, step in enumerate(data.get("steps", []), start=1):
                _run_step(match, step, result, index)
    except ScenarioError as error:
        result.error = str(error)
    return result


# ------------------------------------------------------------------------------------- reading


def card(text: object) -> Card:
    """A card written as in set-up (`"red 5"`, `"wild"`). Raises ScenarioError for anything else."""
    if not isinstance(text, str):
        raise ScenarioError(f"a card is written as text such as 'red 5', not {text!r}")
    try:
        return Card.parse(text)
    except ValueError as error:
        raise ScenarioError(str(error)) from error


def cards(texts: object) -> list[Card]:
    if not isinstance(texts, list):
        raise ScenarioError(f"expected a list of cards, not {texts!r}")
    return [card(text) for text in texts]


def _color(text: object) -> Color | None:
    if text is None or text == "none":
        return None
    try:
        return Color(text)
    except ValueError:
        raise ScenarioError(f"unknown colour {text!r}") from None


def _reason(value: object, where: str) -> str:
    """A refusal reason the engine can give (`REASONS`): a misspelt one would otherwise fail forever."""
    if not isinstance(value, str) or value not in REASONS:
        close = difflib.get_close_matches(str(value), sorted(REASONS), n=1)
        hint = f"; did you mean {close[0]}?" if close else f"; the engine's reasons: {', '.join(sorted(REASONS))}"
        raise ScenarioError(f"{where}: unknown reason {value!r}{hint}")
    return value


def _table(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(f"{where} must be a table, not {value!r}")
    return value


def _seat_number(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScenarioError(f"{where} must be a seat number, not {value!r}")
    return value


# ------------------------------------------------------------------------------------- building

_TOP_KEYS = {
    "rule", "title", "description", "players", "ruleset", "options", "setup", "steps", "expect_start",
    "setup_error",
}
_SETUP_KEYS = {
    "seed", "totals", "dealer", "dealer_draws", "decks", "deck", "hands", "draw_pile", "discard", "color",
    "current", "direction", "seats_in_play", "obligation",
}
# Keys that only an explicit position (`hands`) reads: elsewhere they would be silently ignored.
_POSITION_KEYS = {"draw_pile", "discard", "color", "current", "direction", "seats_in_play", "obligation"}


def _start(data: Mapping[str, Any], result: ScenarioResult) -> Match | None:
    """Build and start the match (dealing the first round), and check `expect_start`.

    Returns None when the scenario ends at its set-up: `setup_error` names the refusal the engine must
    give, and the result records whether it did. Without `setup_error`, a refused set-up means the file
    cannot be run: a ScenarioError.
    """
    _check_top_level(data)
    wanted = data.get("setup_error")
    record = StepResult(0, "set-up")
    result.steps.append(record)
    try:
        match = _build_match(data)
        events = match.start()
        if match.is_awaiting_deal:
            events += match.deal()
    except UnoError as error:
        if wanted is None:
            raise ScenarioError(f"bad set-up: {error}") from error
        if error.reason != wanted:
            record.problems.append(f"expected the set-up to be refused with {wanted}, got {error.reason}: {error}")
        return None
    if wanted is not None:
        record.problems.append(f"expected the set-up to be refused with {wanted}, but it was accepted")
        return None
    _check(match, events, _table(data.get("expect_start", {}), "expect_start"), record, 0)
    return match


def _check_top_level(data: Mapping[str, Any]) -> None:
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ScenarioError(f"unknown top-level keys: {sorted(unknown)}")
    for key in ("options", "setup", "expect_start"):
        _table(data.get(key, {}), key)
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
        raise ScenarioError("steps must be a list of tables ([[steps]])")
    if "setup_error" in data:
        _reason(data["setup_error"], "setup_error")
        if steps or "expect_start" in data:
            raise ScenarioError("a scenario whose set-up must be refused has no steps and no expect_start")
    setup = set(data.get("setup", {}))
    unknown = setup - _SETUP_KEYS
    if unknown:
        raise ScenarioError(f"unknown setup keys: {sorted(unknown)}; set-up keys: {sorted(_SETUP_KEYS)}")
    if "hands" in setup and "deck" in setup:
        raise ScenarioError("setup has hands (a position) or deck (a deal), not both; decks stacks later rounds")
    stray = setup & _POSITION_KEYS if "hands" not in setup else set()
    if stray:
        raise ScenarioError(f"setup keys {sorted(stray)} describe a position and need hands")


def _build_match(data: Mapping[str, Any]) -> Match:
    """The match the file describes, not started. The engine's own refusals (UnoError) pass through;
    a file the runner cannot read raises ScenarioError."""
    ruleset = find_ruleset(str(data.get("ruleset", "standard")), **dict(data.get("options", {})))
    players = data.get("players", 2)
    if not isinstance(players, int) or isinstance(players, bool):
        raise ScenarioError(f"players must be a whole number from 2 to 10, not {players!r}")
    setup = dict(data.get("setup", {}))
    rng = random.Random(setup.get("seed", 0))
    dealer = setup.get("dealer")
    decks = [cards(deck) for deck in setup.get("decks", [])]
    if "deck" in setup:
        decks.insert(0, cards(setup["deck"]))
    first_round = _position(setup, ruleset, rng, players) if "hands" in setup else None
    # Rounds are dealt by the runner (the first at set-up, the others by `next_round` steps), so a
    # round-ending step leaves the finished round in view instead of the next one's deal.
    return Match(
        ruleset, players, rng, dealer=dealer, decks=decks, totals=setup.get("totals"),
        dealer_pile=cards(setup.get("dealer_draws", [])), first_round=first_round, auto_deal=False,
    )


def _position(setup: Mapping[str, Any], ruleset: Ruleset, rng: random.Random, players: int) -> Game:
    """An explicit position (`hands`, `discard`, ...). Raises ScenarioError or the engine's UnoError."""
    for key in ("current", "dealer"):
        value = setup.get(key)
        if value is not None and value not in range(players):
            raise ScenarioError(f"bad position: {key} must be a seat from 0 to {players - 1}, not {value!r}")
    if "discard" not in setup:
        raise ScenarioError("bad position: setup needs 'discard'")
    discard = cards(setup["discard"])
    obligation = None
    if "obligation" in setup:
        obligation = _obligation(setup["obligation"], setup, ruleset, discard, players)
    current = setup.get("current", obligation.target if obligation is not None else 0)
    try:
        game = Game.from_position(
            ruleset,
            rng,
            hands=[cards(hand) for hand in setup["hands"]],
            draw_pile=cards(setup.get("draw_pile", [])),
            discard=discard,
            color=_color(setup.get("color")),
            current=int(current),
            direction=int(setup.get("direction", 1)),
            dealer=int(setup.get("dealer") or 0),
            seats_in_play=setup.get("seats_in_play"),
            obligation=obligation,
        )
    except UnoError:
        raise
    except (IndexError, TypeError, ValueError) as error:
        raise ScenarioError(f"bad position: {error}") from error
    if len(game.hands) != players:
        raise ScenarioError(f"{players} players but {len(game.hands)} hands")
    return game


_OBLIGATION_KEYS = {"target", "amount", "setter", "kind", "bluff"}
_OBLIGATION_KINDS = {"draw_two": Rank.DRAW_TWO, "wild_draw_four": Rank.WILD_DRAW_FOUR, "blank": Rank.BLANK}


def _obligation(
    value: object, setup: Mapping[str, Any], ruleset: Ruleset, discard: list[Card], players: int
) -> Obligation:
    """`setup.obligation`: a draw obligation open on the seat to act, as just after its card was played."""
    spec = _table(value, "setup.obligation")
    unknown = set(spec) - _OBLIGATION_KEYS
    if unknown or "target" not in spec:
        raise ScenarioError(f"setup.obligation has target and optionally {sorted(_OBLIGATION_KEYS - {'target'})}")
    target = _seat_number(spec["target"], "setup.obligation.target")
    top = discard[-1] if discard else None
    kind_name = spec.get("kind", top.rank.value if top is not None else None)
    if kind_name not in _OBLIGATION_KINDS:
        source = f"kind = {kind_name!r}" if "kind" in spec else f"the top card {top}"
        kinds = sorted(_OBLIGATION_KINDS)
        raise ScenarioError(f"setup.obligation: {source} sets no obligation; kind is one of {kinds}")
    kind = _OBLIGATION_KINDS[kind_name]
    default_amount = {Rank.DRAW_TWO: 2, Rank.WILD_DRAW_FOUR: 4, Rank.BLANK: ruleset.blank_draw}[kind]
    amount = spec.get("amount", default_amount)
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise ScenarioError(f"setup.obligation.amount is a whole number of cards, not {amount!r}")
    setter = _seat_number(spec.get("setter", (target - int(setup.get("direction", 1))) % players), "setter")
    skips = kind is Rank.BLANK or ruleset.draw_penalty_skips_turn
    bluff = _bluff(spec["bluff"], ruleset, discard, setter) if "bluff" in spec else None
    return Obligation(amount, kind, target, setter, skips, bluff)


def _bluff(value: object, ruleset: Ruleset, discard: list[Card], setter: int) -> BluffRecord:
    """`setup.obligation.bluff`: the setter's other cards and the colour in force when the Wild Draw Four
    landed, judged fair or not by T2 as the engine judges a play."""
    spec = _table(value, "setup.obligation.bluff")
    if set(spec) != {"hand", "color"}:
        raise ScenarioError("setup.obligation.bluff has exactly hand (the setter's other cards) and color")
    if len(discard) < 2:
        raise ScenarioError("setup.obligation.bluff needs the card below the Wild Draw Four in discard")
    hand, color = tuple(cards(spec["hand"])), _color(spec["color"])
    fair = is_wild_draw_four_fair(hand, color, discard[-2], ruleset.wild_draw_four)
    return BluffRecord(setter, hand, fair, discard[-1], color)


# ------------------------------------------------------------------------------------- steps

_SEAT_ACTIONS = {
    "play", "choose_color", "draw", "pass", "call_uno", "catch_uno", "challenge", "choose_swap_target",
    "five_swap", "give_card", "react", "chat",
}
# Names a step once used, renamed after the protocol's RPC: refused, with the name to use.
_RENAMED = {"catch": "catch_uno", "swap": "choose_swap_target"}
_HOST_ACTIONS = {"close_window", "resolve_window", "next_round"}
_ACTIONS = _SEAT_ACTIONS | _HOST_ACTIONS

# The keys a step may have; anything else is a typo that would otherwise assert nothing.
_STEP_KEYS = {
    "action", "seat", "card", "cards", "call_uno", "color", "target", "window", "reactions", "error", "expect",
}
# The arguments each action may take; any other argument would be silently ignored, so it is refused.
_ARGUMENTS: dict[str, frozenset[str]] = {
    "play": frozenset({"card", "cards", "call_uno"}), "choose_color": frozenset({"color"}),
    "catch_uno": frozenset({"target"}), "choose_swap_target": frozenset({"target"}),
    "five_swap": frozenset({"target", "card"}),
    "give_card": frozenset({"card"}), "react": frozenset({"window"}), "close_window": frozenset({"window"}),
    "resolve_window": frozenset({"window", "reactions"}),
}
# The arguments each action needs (besides `seat`, which every seat action needs).
_NEEDS = {
    "play": (), "choose_color": ("color",), "catch_uno": ("target",), "choose_swap_target": ("target",),
    "five_swap": ("target", "card"), "give_card": ("card",), "react": ("window",), "close_window": ("window",),
    "resolve_window": ("window",),
}


def _validate_step(step: Mapping[str, Any], where: str) -> None:
    """Refuse a step the runner would misread: unknown keys, missing or mistyped arguments or reasons."""
    kind = step.get("action")
    if kind in _RENAMED:
        raise ScenarioError(f"{where}: the action {kind!r} is now {_RENAMED[kind]!r}, the protocol's name")
    if kind not in _ACTIONS:
        raise ScenarioError(f"{where}: unknown action {kind!r}; known: {sorted(_ACTIONS)}")
    unknown = set(step) - _STEP_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}; a step may have {sorted(_STEP_KEYS)}")
    allowed = _ARGUMENTS.get(kind, frozenset()) | {"action", "error", "expect"}
    if kind in _SEAT_ACTIONS:
        allowed |= {"seat"}
    stray = set(step) - allowed
    if stray:
        raise ScenarioError(f"{where}: {kind} takes no {', '.join(sorted(stray))}")
    missing = [key for key in _NEEDS.get(kind, ()) if key not in step]
    if kind == "play" and "card" not in step and "cards" not in step:
        missing.append("card (or cards)")
    if kind in _SEAT_ACTIONS and "seat" not in step:
        missing.append("seat")
    if missing:
        raise ScenarioError(f"{where}: {kind} needs {', '.join(missing)}")
    for key in ("seat", "target"):
        if key in step:
            _seat_number(step[key], f"{where}: {key}")
    if "cards" in step and not (isinstance(step["cards"], list) and step["cards"]):
        raise ScenarioError(f"{where}: cards must be a non-empty list of cards")
    if "card" in step and "cards" in step:
        raise ScenarioError(f"{where}: a play has card or cards, not both")
    if not isinstance(step.get("call_uno", False), bool):
        raise ScenarioError(f"{where}: call_uno is true or false, not {step['call_uno']!r}")
    if "error" in step:
        _reason(step["error"], where)
    if "expect" in step:
        _table(step["expect"], f"{where}: expect")
    _validate_reactions(step, where)


def _validate_reactions(step: Mapping[str, Any], where: str) -> None:
    reactions = step.get("reactions", [])
    if not isinstance(reactions, list) or not all(isinstance(reaction, dict) for reaction in reactions):
        raise ScenarioError(f"{where}: reactions must be a list of step tables")
    for number, reaction in enumerate(reactions, start=1):
        place = f"{where}, reaction {number}"
        _validate_step(reaction, place)
        if reaction["action"] not in _SEAT_ACTIONS:
            raise ScenarioError(f"{place}: a reaction is a seat's action, not {reaction['action']!r}")
        if "expect" in reaction:
            raise ScenarioError(f"{place}: expect belongs to the resolve_window step, after every reaction")


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
    if kind == "catch_uno":
        return CatchUno(seat, int(step["target"]))
    if kind == "choose_swap_target":
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


def _run_step(match: Match, step: Mapping[str, Any], result: ScenarioResult, index: int) -> None:
    _validate_step(step, f"step {index}")
    kind = step["action"]
    description = f"{kind}" + (f" by seat {step['seat']}" if "seat" in step else "")
    record = StepResult(index, description)
    result.steps.append(record)
    expected_error = step.get("error")
    before = match.game.fingerprint()
    round_before = match.round_no
    reactions = [_action(match, reaction) for reaction in step.get("reactions", [])]
    try:
        events, refused = _perform(match, step, reactions)
    except UnoError as error:
        if expected_error is None:
            hint = " (the round is over: a next_round step deals the next)" if match.is_awaiting_deal else ""
            record.problems.append(f"refused with {error.reason}: {error}{hint}")
        elif error.reason != expected_error:
            record.problems.append(f"expected error {expected_error}, got {error.reason}: {error}")
        if match.round_no == round_before and match.game.fingerprint() != before:
            record.problems.append("a refused action changed the state")
        _check(match, [], step.get("expect", {}), record, index)
        return
    if expected_error is not None:
        record.problems.append(f"expected error {expected_error}, but the action was applied")
    record.problems += _reaction_problems(step.get("reactions", []), reactions, refused)
    _check(match, events, step.get("expect", {}), record, index)


def _perform(
    match: Match, step: Mapping[str, Any], reactions: list[Action]
) -> tuple[list[Event], tuple[RefusedReaction, ...]]:
    """Apply one step; the events it caused and the reactions the engine refused inside it."""
    kind = step["action"]
    if kind == "close_window":
        return match.close_window(_window_id(match, step["window"])), ()
    if kind == "resolve_window":
        outcome = match.resolve_window_outcome(_window_id(match, step["window"]), reactions)
        return outcome.events, outcome.refused
    if kind == "next_round":
        return match.deal(), ()
    return match.apply(_action(match, step)), ()


def _reaction_problems(
    specs: Sequence[Mapping[str, Any]], reactions: Sequence[Action], refused: Sequence[RefusedReaction]
) -> list[str]:
    """A reaction the engine refused must say `error = "REASON"`, and one that says so must be refused."""
    by_action = {id(refusal.action): refusal for refusal in refused}
    problems = []
    for number, (spec, reaction) in enumerate(zip(specs, reactions, strict=True), start=1):
        refusal, wanted = by_action.get(id(reaction)), spec.get("error")
        label = f"reaction {number} ({spec['action']} by seat {spec['seat']})"
        if refusal is None and wanted is not None:
            problems.append(f"{label}: expected error {wanted}, but it was not refused")
        elif refusal is not None and wanted is None:
            problems.append(f"{label}: refused with {refusal.reason}: {refusal.message}")
        elif refusal is not None and refusal.reason != wanted:
            problems.append(f"{label}: expected error {wanted}, got {refusal.reason}: {refusal.message}")
    return problems


# ------------------------------------------------------------------------------------- checking


def _hand_multiset(hand: Iterable[Card]) -> list[str]:
    return sorted(str(c) for c in hand)


def _nullable(value: object) -> object:
    """TOML has no null: `"none"` stands for it (no winner, nobody to act, no silence)."""
    return None if value == "none" else value


def _known(values: Iterable[str], what: str) -> Callable[[object], object]:
    allowed = set(values)

    def read(value: object) -> object:
        if value not in allowed:
            raise ScenarioError(f"unknown {what} {value!r}; one of {', '.join(sorted(allowed))}")
        return value

    return read


def _color_name(value: object) -> object:
    _color(value)  # raises ScenarioError for an unknown colour
    return value


def _windows(value: object) -> object:
    if not isinstance(value, list):
        raise ScenarioError(f"windows is a list of window kinds, not {value!r}")
    return sorted(str(_known([k.value for k in WindowKind], "window kind")(kind)) for kind in value)


def _obligation_wanted(value: object) -> object:
    if value == "none":
        return value
    if not (isinstance(value, dict) and set(value) == {"target", "amount"}):
        raise ScenarioError(f'obligation is {{target = SEAT, amount = N}} or "none", not {value!r}')
    return value


# Each checkable key: what the game shows now, and how the file's value is read (strictly: a typo in a
# card, colour, phase or window kind is a scenario error, not a failed comparison).
_STATE: dict[str, tuple[Callable[[Match], object], Callable[[object], object]]] = {
    "hands": (
        lambda m: [_hand_multiset(hand) for hand in m.game.hands],
        lambda v: [_hand_multiset(cards(hand)) for hand in v] if isinstance(v, list) else cards(v),
    ),
    "hand_sizes": (lambda m: [len(hand) for hand in m.game.hands], lambda v: v),
    "top": (lambda m: str(m.game.top), lambda v: str(card(v))),
    "draw_pile": (lambda m: [str(c) for c in reversed(m.game.draw_pile)], lambda v: [str(c) for c in cards(v)]),
    "discard": (lambda m: [str(c) for c in m.game.discard], lambda v: [str(c) for c in cards(v)]),
    "color": (lambda m: m.game.color.value if m.game.color else "none", lambda v: _color_name(v)),
    "direction": (lambda m: m.game.direction, lambda v: v),
    "current": (lambda m: m.game.current, lambda v: v),
    "to_act": (lambda m: m.game.to_act, _nullable),
    "phase": (lambda m: m.game.phase.value, _known([p.value for p in Phase], "phase")),
    "obligation": (
        lambda m: "none" if m.game.obligation is None else {
            "target": m.game.obligation.target, "amount": m.game.obligation.amount,
        },
        _obligation_wanted,
    ),
    "totals": (lambda m: list(m.totals), lambda v: v),
    "winner": (lambda m: m.game.winner, _nullable),
    "match_winners": (lambda m: list(m.winners), lambda v: v),
    "round_no": (lambda m: m.round_no, lambda v: v),
    "dealer": (lambda m: m.game.dealer, lambda v: v),
    "draw_pile_size": (lambda m: len(m.game.draw_pile), lambda v: v),
    "discard_size": (lambda m: len(m.game.discard), lambda v: v),
    "catchable": (lambda m: sorted(m.game.catchable), lambda v: v),
    "windows": (lambda m: sorted(w.kind.value for w in m.game.windows.values()), _windows),
    "penalty_points": (lambda m: list(m.game.penalty_points), lambda v: v),
    "silence": (lambda m: m.game.silence, _nullable),
    "eliminated": (lambda m: sorted(m.eliminated), lambda v: v),
}


def _show(value: object) -> object:
    """A value as a scenario file writes it: cards as text, enums by value, None as "none"."""
    if value is None:
        return "none"
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [_show(item) for item in value]
    if isinstance(value, _AnyOrder):
        return {"any_order": _show(value.items)}
    if isinstance(value, _Fields):
        return {name: _show(item) for name, item in value.wanted.items()}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _show(getattr(value, f.name)) for f in fields(value)}
    return value


def _check(match: Match, events: list[Event], expect: Mapping[str, Any], record: StepResult, index: int) -> None:
    """Compare every key of `expect` with the game after a step; each mismatch is a problem of `record`."""
    for key, wanted in expect.items():
        if key == "events":
            record.problems += _missing_events(events, _event_specs(wanted, index))
        elif key == "no_events":
            for spec in _event_specs(wanted, index):
                if any(spec.matches(event) for event in events):
                    record.problems.append(f"event {spec.text} happened but must not")
        elif key == "hand":
            record.problems += _hand_problems(match, wanted, index)
        elif key in _STATE:
            actual, read = _STATE[key]
            got, expected = actual(match), read(wanted)
            if got != expected:
                record.problems.append(f"{key}: expected {_show(expected)!r}, got {_show(got)!r}")
        else:
            raise ScenarioError(f"step {index}: cannot check unknown key {key!r}; known: {sorted(_STATE)}")


def _hand_problems(match: Match, wanted: object, index: int) -> list[str]:
    """`hand = {seat = n, cards = [...]}`: one hand as a multiset."""
    seats = range(len(match.game.hands))
    if not (isinstance(wanted, dict) and set(wanted) == {"seat", "cards"} and wanted["seat"] in seats):
        raise ScenarioError(f"step {index}: hand must be {{seat = 0..{len(seats) - 1}, cards = [...]}}")
    expected = _hand_multiset(cards(wanted["cards"]))
    got = _hand_multiset(match.game.hands[int(wanted["seat"])])
    return [] if got == expected else [f"hand of seat {wanted['seat']}: expected {expected}, got {got}"]


# ------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class _AnyOrder:
    """`{any_order = [...]}`: a list field compared as a multiset (each item may itself be a pattern)."""

    items: tuple[Any, ...]

    def matches(self, actual: object) -> bool:
        if not isinstance(actual, tuple) or len(actual) != len(self.items):
            return False
        left = list(actual)
        for item in self.items:
            found = next((i for i, candidate in enumerate(left) if _field_matches(candidate, item)), None)
            if found is None:
                return False
            del left[found]
        return True


@dataclass(frozen=True)
class _Fields:
    """A table of some fields of a nested value (a `Window`); the fields not named may be anything."""

    wanted: dict[str, Any]

    def matches(self, actual: object) -> bool:
        return all(_field_matches(getattr(actual, name), value) for name, value in self.wanted.items())


def _field_matches(actual: object, expected: object) -> bool:
    """Whether an event's value matches what the file asked, patterns (`any_order`, a table of fields)
    included at any depth, such as one hand of `RoundEnded.hands` in any order."""
    if isinstance(expected, (_AnyOrder, _Fields)):
        return expected.matches(actual)
    if isinstance(expected, tuple):
        return (
            isinstance(actual, tuple)
            and len(actual) == len(expected)
            and all(_field_matches(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return actual == expected


@dataclass(frozen=True)
class _EventSpec:
    """One entry of `events` / `no_events`: an event type and the fields it must have, read as engine values."""

    name: str
    wanted: dict[str, Any]

    @property
    def text(self) -> str:
        if not self.wanted:
            return self.name
        return f"{self.name} {{{', '.join(f'{k} = {_show(v)!r}' for k, v in self.wanted.items())}}}"

    def matches(self, event: Event) -> bool:
        return type(event).__name__ == self.name and not self.differences(event)

    def differences(self, event: Event) -> list[str]:
        return [
            f"{name}: expected {_show(value)!r}, got {_show(getattr(event, name))!r}"
            for name, value in self.wanted.items()
            if not _field_matches(getattr(event, name), value)
        ]


def _event_hints() -> dict[str, dict[str, Any]]:
    """Each event type's fields and their types, from the engine's own declarations."""
    found: dict[str, dict[str, Any]] = {}
    for cls in Event.__subclasses__():
        if is_dataclass(cls):
            hints = declared_field_types(cls)
            found[cls.__name__] = {f.name: hints[f.name] for f in fields(cls)}
    return found


def declared_field_types(cls: type) -> dict[str, Any]:
    """A class's field types as its source declares them, evaluated in its module.

    Not `typing.get_type_hints`: a class the compiled build made native keeps each annotation only as
    its runtime class (`tuple[Card, ...]` as `tuple`, `int | None` as `type`), and a scenario file's
    values are read by the declared type. Both builds ship the source beside the module.
    """
    module = sys.modules[cls.__module__]
    tree = _module_tree(cls.__module__)
    declared = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == cls.__name__)
    return {
        node.target.id: eval(compile(ast.Expression(node.annotation), module.__name__, "eval"), vars(module))
        for node in declared.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }


@functools.cache
def _module_tree(name: str) -> ast.Module:
    module_file = sys.modules[name].__file__
    assert module_file is not None, f"{name} has no file"
    return ast.parse((Path(module_file).parent / f"{name.rpartition('.')[2]}.py").read_text(encoding="utf-8"))


_EVENT_HINTS = _event_hints()


def _event_specs(wanted: object, index: int) -> list[_EventSpec]:
    """Read `events` or `no_events`. Every event must exist with the fields given, and every value must
    read as that field's type: a misspelt name in `no_events` would otherwise always pass."""
    if not isinstance(wanted, list):
        raise ScenarioError(f"step {index}: events and no_events are lists, not {wanted!r}")
    specs = []
    for entry in wanted:
        name = entry if isinstance(entry, str) else entry.get("type") if isinstance(entry, dict) else None
        if name not in _EVENT_HINTS:
            raise ScenarioError(f"step {index}: unknown event {entry!r}; events: {', '.join(sorted(_EVENT_HINTS))}")
        hints = _EVENT_HINTS[name]
        given = {k: v for k, v in entry.items() if k != "type"} if isinstance(entry, dict) else {}
        unknown = set(given) - set(hints)
        if unknown:
            raise ScenarioError(
                f"step {index}: {name} has no field {', '.join(sorted(unknown))}; its fields: {', '.join(hints)}"
            )
        read = {k: _read_value(v, hints[k], f"step {index}: {name}.{k}") for k, v in given.items()}
        specs.append(_EventSpec(name, read))
    return specs


def _read_value(value: object, hint: Any, where: str) -> Any:
    """Read a file's value as an engine value of type `hint`: cards as in set-up, enums by value, lists
    as tuples (or `{any_order = [...]}` for a multiset), a nested value as a table of its fields."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if value == "none" and type(None) in args:
            return None
        return _read_value(value, next(arg for arg in args if arg is not type(None)), where)
    if origin is tuple:
        return _read_tuple(value, args, where)
    if hint is Card:
        return card(value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _read_enum(value, hint, where)
    if hint is bool or hint is int:
        if type(value) is not hint:
            raise ScenarioError(f"{where} is {'true or false' if hint is bool else 'a whole number'}, not {value!r}")
        return value
    if is_dataclass(hint) and isinstance(hint, type):
        return _read_fields(value, hint, where)
    raise ScenarioError(f"{where} cannot be checked from a scenario file")


def _read_tuple(value: object, args: tuple[Any, ...], where: str) -> Any:
    if isinstance(value, dict) and set(value) == {"any_order"} and len(args) == 2 and args[1] is Ellipsis:
        return _AnyOrder(_read_tuple(value["any_order"], args, where))
    if not isinstance(value, list):
        raise ScenarioError(f"{where} is a list (or {{any_order = [...]}}), not {value!r}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_read_value(item, args[0], where) for item in value)
    if len(value) != len(args):
        raise ScenarioError(f"{where} is a list of {len(args)} values, not {value!r}")
    return tuple(_read_value(item, hint, where) for item, hint in zip(value, args, strict=True))


def _read_enum(value: object, hint: type[Enum], where: str) -> Enum:
    try:
        return hint(value)
    except ValueError:
        known = ", ".join(str(member.value) for member in hint)
        raise ScenarioError(f"{where}: unknown value {value!r}; one of {known}") from None


def _read_fields(value: object, hint: type, where: str) -> _Fields:
    """A nested value (a `Window`) as a table of some of its fields; a bare text names its `kind`."""
    hints = declared_field_types(hint)
    if isinstance(value, str) and "kind" in hints:
        value = {"kind": value}
    if not isinstance(value, dict) or set(value) - set(hints):
        raise ScenarioError(f"{where} is a table of some of {', '.join(hints)}, not {value!r}")
    return _Fields({k: _read_value(v, hints[k], f"{where}.{k}") for k, v in value.items()})


def _missing_events(events: list[Event], specs: list[_EventSpec]) -> list[str]:
    """Each spec must match an event, in this order (others may come between). On the first that does
    not, say what the step's events of that type held instead, field by field."""
    position = 0
    for spec in specs:
        found = next((i for i in range(position, len(events)) if spec.matches(events[i])), None)
        if found is None:
            return [_explain_missing(spec, events, position)]
        position = found + 1
    return []


def _explain_missing(spec: _EventSpec, events: list[Event], position: int) -> str:
    listed = ", ".join(f"{i + 1} {type(e).__name__}" for i, e in enumerate(events)) or "none"
    same = [(i, e) for i, e in enumerate(events) if type(e).__name__ == spec.name]
    if not same:
        return f"expected event {spec.text} (in order): this step has no {spec.name}; its events: {listed}"
    notes = []
    for i, event in same:
        differences = spec.differences(event)
        if differences:
            notes.append(f"event {i + 1} differs in {'; '.join(differences)}")
        elif i < position:
            notes.append(f"event {i + 1} matches but comes before the previous expected event")
    return f"expected event {spec.text} (in order): {'; '.join(notes)}; the step's events: {listed}"
