"""`fast_init`: events, windows and actions keep every dataclass behaviour with the faster `__init__`."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from unonet.engine import events as ev
from unonet.engine._frozen import fast_init
from unonet.engine.actions import Play
from unonet.engine.cards import Card, Color, Rank

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
