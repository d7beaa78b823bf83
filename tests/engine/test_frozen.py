"""`fast_init`: events, windows and actions keep every dataclass behaviour with the faster `__init__`."""

from __future__ import annotations

import ast
import dataclasses
import os
import pickle
import random
import typing
from pathlib import Path

import pytest

from unonet.engine import PRESETS, Match, find_ruleset
from unonet.engine import events as ev
from unonet.engine._frozen import fast_init
from unonet.engine.actions import Play
from unonet.engine.cards import Card, Color, Rank
from unonet.engine.playout import random_step
from unonet.scenarios import declared_field_types

RED_FIVE = Card.of(Color.RED, Rank.FIVE)


def test_fields_defaults_and_keywords_as_the_dataclass_defines_them() -> None:
    assert ev.WindowClosed(3) == ev.WindowClosed(window=3, order=(), penalised=())
    assert Play(1, (RED_FIVE,)).call_uno is False
    assert Play(1, (RED_FIVE,), True) == Play(seat=1, cards=(RED_FIVE,), call_uno=True)
    window = ev.Window(4, ev.WindowKind.JUMP_IN, (0, 1), 0, False)
    assert (window.id, window.kind, window.eligible, window.opened_by, window.is_blocking, window.target) == (
        4,
        ev.WindowKind.JUMP_IN,
        (0, 1),
        0,
        False,
        None,
    )


def test_wrong_calls_are_refused_like_the_dataclass_init() -> None:
    with pytest.raises(TypeError):
        ev.Dealt(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ev.TurnStarted(1, 2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ev.TurnStarted(seat=1, player=2)  # type: ignore[call-arg]


def test_still_frozen_equal_hashable_replaceable_and_picklable() -> None:
    dealt = ev.Dealt(2, 1, (RED_FIVE,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        dealt.seat = 3  # type: ignore[misc]
    assert dealt == ev.Dealt(2, 1, (RED_FIVE,)) and hash(dealt) == hash(ev.Dealt(2, 1, (RED_FIVE,)))
    assert dealt != ev.Dealt(2, 1)
    assert dataclasses.replace(dealt, cards=()) == ev.Dealt(2, 1)
    assert pickle.loads(pickle.dumps(dealt)) == dealt
    assert repr(dealt) == "Dealt(seat=2, count=1, cards=(Card(red 5),), dealer=0, draw_pile=0)"


def test_refuses_classes_it_does_not_fit() -> None:
    @dataclasses.dataclass(slots=True)
    class Mutable:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        x: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class PostInit:
        x: int

        def __post_init__(self) -> None:
            pass

    for cls in (Mutable, Factory, PostInit):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_every_event_a_seeded_match_of_every_preset_sends_pickles_back_equal() -> None:
    """On the compiled build an event is a native frozen class, whose own unpickling would be refused
    field by field: `Event.__reduce__` rebuilds it through its `__init__`. Windows ride inside events."""
    seen: set[type] = set()
    for preset in PRESETS:
        match = Match(find_ruleset(preset, target_score=150), 4, random.Random(7))
        out = list(match.start())
        chooser = random.Random(8)
        for _ in range(3_000):
            for event in out:
                copy = pickle.loads(pickle.dumps(event))
                assert type(copy) is type(event) and copy == event, event
                seen.add(type(event))
            if match.is_over:
                break
            out = random_step(match, chooser)
    assert len(seen) >= 25, f"only {len(seen)} event kinds came up: {sorted(t.__name__ for t in seen)}"
    window = ev.Window(4, ev.WindowKind.JUMP_IN, (0, 1), 0, False, 2, RED_FIVE)
    assert pickle.loads(pickle.dumps(window)) == window


def test_the_scenario_checker_reads_each_field_as_its_source_declares_it() -> None:
    """mypyc keeps a native class's annotations only as runtime classes; the checker reads the source."""
    assert declared_field_types(ev.Drew)["cards"] == tuple[Card, ...]
    assert declared_field_types(ev.CardTakenBack)["top"] == Card | None
    assert declared_field_types(ev.WindowOpened)["window"] is ev.Window
    assert declared_field_types(ev.Window)["kind"] is ev.WindowKind
    assert declared_field_types(ev.WindowClosed)["kind"] == ev.WindowKind | None
    if os.environ.get("UNONET_BUILD", "pure") == "pure":  # there the runtime annotations are whole
        classes: list[type] = [ev.Window, *ev.Event.__subclasses__()]
        for cls in classes:
            assert declared_field_types(cls) == typing.get_type_hints(cls), cls


def _is_dataclass_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Name) and target.id == "dataclass"


def _is_frozen(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True for k in decorator.keywords
    )


def _stores(statement: ast.stmt, name: str, frozen: bool) -> bool:
    """`object.__setattr__(self, "name", name)` in a frozen class, `self.name = name` in another."""
    if frozen:
        return ast.dump(statement) == ast.dump(ast.parse(f'object.__setattr__(self, "{name}", {name})').body[0])
    return ast.dump(statement) == ast.dump(ast.parse(f"self.{name} = {name}").body[0])


def _init_differences(source: str, cls: ast.ClassDef) -> list[str]:
    """How a written-out `__init__` differs from the one `dataclass` would write for the class."""
    decorator = next(d for d in cls.decorator_list if _is_dataclass_decorator(d))
    init = next(s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
    fields = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    names = [f.target.id for f in fields if isinstance(f.target, ast.Name)]
    args = init.args
    taken = [a.arg for a in args.args]
    if args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or taken != ["self", *names]:
        return [f"takes {taken}, the fields are {names}"]
    problems = []
    for field, arg in zip(fields, args.args[1:], strict=True):
        if arg.annotation is None or ast.dump(arg.annotation) != ast.dump(field.annotation):
            problems.append(f"{arg.arg}'s annotation is not the field's")
    defaults = [f.value for f in fields[len(fields) - len(args.defaults) :]]
    if any(f.value is not None for f in fields[: len(fields) - len(args.defaults)]) or [
        ast.dump(d) for d in args.defaults
    ] != [ast.dump(d) if d is not None else None for d in defaults]:
        problems.append("its defaults are not the fields'")
    frozen = _is_frozen(decorator)
    if len(init.body) != len(names) or not all(_stores(s, n, frozen) for s, n in zip(init.body, names, strict=False)):
        problems.append(f"its body is not one store per field, in order: {ast.get_source_segment(source, init)}")
    return problems


def test_every_written_out_init_is_the_one_dataclass_would_write() -> None:
    """Engine dataclasses built on hot paths write their `__init__` so that mypyc compiles it (why:
    `_frozen`'s docstring). The pure build swaps `fast_init`'s in for the frozen ones, so their body
    runs only on the compiled build: here each is read as source and must take the fields in order,
    with their annotations and defaults, and store each parameter in its own field, nothing else."""
    engine = Path(ev.__file__).parent
    checked, problems = 0, []
    for path in sorted(engine.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if not isinstance(node, ast.ClassDef) or not any(_is_dataclass_decorator(d) for d in node.decorator_list):
                continue
            if any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body):
                checked += 1
                problems += [f"{path.name} {node.name}: {p}" for p in _init_differences(source, node)]
    assert problems == []
    assert checked >= 50, f"only {checked} written-out inits found"
