"""A faster `__init__` for the engine's frozen, slotted dataclasses (events, windows, actions).

A frozen dataclass's generated `__init__` stores each field with `object.__setattr__(self, name, value)`,
which costs about 80 ns a field in CPython 3.11: the engine builds windows, window events and multi-card
plays on every house-rule turn, so that is most of their cost. The slot's own descriptor stores the same
value for about half as much. `fast_init` swaps in an `__init__` that does only that; everything else
the dataclass made stays: frozen (`__setattr__` still refuses), `__eq__`, `__hash__`, `__repr__`,
`__match_args__`, pickling and `dataclasses.replace`.

It is called on the finished classes at the end of their module, never as a class decorator: mypyc
compiles a dataclass with no other decorator into a native class, and a decorator it does not know
would make every event a plain Python class under the native `Event` base, which it refuses. On a
compiled class `fast_init` changes nothing. There the `__init__` that `dataclass` writes still runs
interpreted (a Python call per object, seen with `sys.setprofile`: about 520 ns for three fields, where
a compiled one takes 36), so every event and action, and the game's own records built on hot paths,
write their `__init__` in their body, which `dataclass` keeps and mypyc compiles; a frozen one stores
through `object.__setattr__` there (compiled to a plain store) and takes `fast_init`'s on the pure
build. tests/engine/test_frozen.py reads each as source against the fields it stores.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast


def fast_init(*classes: type) -> None:
    """Give each frozen, slotted dataclass of `classes` an `__init__` with the same parameters, order and
    defaults that stores each field through its slot descriptor; leave a class mypyc compiled as it is.

    Raises TypeError for a class this does not fit: not a frozen slotted dataclass, or one with a
    field outside `__init__`, a default factory or a `__post_init__` (the generated code would skip them).
    """
    for cls in classes:
        if "__mypyc_attrs__" not in cls.__dict__:  # a native class of the compiled build: left as it is
            _fast_init(cls)


def _fast_init(cls: type) -> None:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    namespace: dict[str, Any] = {}
    args: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cast(Any, cls)):
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: only plain init fields are supported")
        if f.default is dataclasses.MISSING:
            args.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, {', '.join(args)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # how dataclasses builds its own __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(cls.__dict__["__init__"].__annotations__)
    setattr(cls, "__init__", init)  # noqa: B010 (mypy refuses assigning a method)
