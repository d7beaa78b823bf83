"""Engine actions as plain JSON, for the journal: readable in the database and stable across versions.

Each action is written under the name of the protocol's RPC that sends it, in snake case (`CatchUno`
is `"catch_uno"`, `ChooseSwapTarget` is `"choose_swap_target"`), so the journal, the protocol and
the engine say one name per thing. The journal only grows: the names an earlier host wrote
(`_LEGACY_NAMES`) still decode, so its tables replay.
"""

from __future__ import annotations

from typing import Any

from unonet.engine import (
    Action,
    CallUno,
    Card,
    CatchUno,
    Challenge,
    Chat,
    ChooseColor,
    ChooseSwapTarget,
    Color,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
    standard_deck,
)

_SIMPLE: dict[str, type[Draw | Pass | CallUno | Challenge | Chat]] = {
    "draw": Draw, "pass": Pass, "call_uno": CallUno, "challenge": Challenge, "send_chat": Chat,
}

_LEGACY_NAMES = {"play": "play_cards", "catch": "catch_uno", "swap": "choose_swap_target", "chat": "send_chat"}
"""Names journals written before the protocol's names were taken, mapped to today's."""


def dump_action(action: Action) -> dict[str, Any]:
    if isinstance(action, Play):
        return {"type": "play_cards", "cards": [str(c) for c in action.cards], "call_uno": action.call_uno}
    if isinstance(action, ChooseColor):
        return {"type": "choose_color", "color": action.color.value}
    if isinstance(action, CatchUno):
        return {"type": "catch_uno", "target": action.target}
    if isinstance(action, ChooseSwapTarget):
        return {"type": "choose_swap_target", "target": action.target}
    if isinstance(action, FiveSwap):
        return {"type": "five_swap", "target": action.target, "card": str(action.card)}
    if isinstance(action, GiveCard):
        return {"type": "give_card", "card": str(action.card)}
    if isinstance(action, React):
        return {"type": "react", "window": action.window}
    for name, kind in _SIMPLE.items():
        if type(action) is kind:
            return {"type": name}
    raise TypeError(f"cannot journal {action!r}")


def _card(text: str) -> Card:
    """`Card.parse` of what `dump_action` wrote (`str(card)`), from a table: once per command replayed."""
    card = _CARDS_BY_TEXT.get(text)
    return card if card is not None else Card.parse(text)


_CARDS_BY_TEXT: dict[str, Card] = {
    str(card): card for card in standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)
}


def canonical(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`actions` as today's host writes them: an earlier host's names renamed, so that a command
    retried after a restart compares equal to the one that host journalled."""
    if all(action["type"] not in _LEGACY_NAMES for action in actions):
        return actions
    return [{**action, "type": _LEGACY_NAMES.get(action["type"], action["type"])} for action in actions]


def load_action(seat: int, data: dict[str, Any]) -> Action:
    """The action `dump_action` wrote, today or under an earlier host's name.

    Raises:
        KeyError: `data` names no action kind this host ever wrote.
    """
    kind = data["type"]
    kind = _LEGACY_NAMES.get(kind, kind)
    if kind == "play_cards":
        return Play(seat, tuple(map(_card, data["cards"])), bool(data["call_uno"]))
    if kind == "choose_color":
        return ChooseColor(seat, Color(data["color"]))
    if kind == "catch_uno":
        return CatchUno(seat, int(data["target"]))
    if kind == "choose_swap_target":
        return ChooseSwapTarget(seat, int(data["target"]))
    if kind == "five_swap":
        return FiveSwap(seat, int(data["target"]), _card(data["card"]))
    if kind == "give_card":
        return GiveCard(seat, _card(data["card"]))
    if kind == "react":
        return React(seat, int(data["window"]))
    return _SIMPLE[kind](seat)
