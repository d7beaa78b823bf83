"""Engine actions as plain JSON, for the journal: readable in the database and stable across versions."""

from __future__ import annotations

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
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
    standard_deck,
)

_SIMPLE: dict[str, type[Draw | Pass | CallUno | Challenge | Chat]] = {
    "draw": Draw, "pass": Pass, "call_uno": CallUno, "challenge": Challenge, "chat": Chat,
}


def dump_action(action: Action) -> dict[str, Any]:
    if isinstance(action, Play):
        return {"type": "play", "cards": [str(c) for c in action.cards], "call_uno": action.call_uno}
    if isinstance(action, ChooseColor):
        return {"type": "choose_color", "color": action.color.value}
    if isinstance(action, Catch):
        return {"type": "catch", "target": action.target}
    if isinstance(action, ChooseSwapTarget):
        return {"type": "swap", "target": action.target}
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


def load_action(seat: int, data: dict[str, Any]) -> Action:
    kind = data["type"]
    if kind == "play":
        return Play(seat, tuple(map(_card, data["cards"])), bool(data["call_uno"]))
    if kind == "choose_color":
        return ChooseColor(seat, Color(data["color"]))
    if kind == "catch":
        return Catch(seat, int(data["target"]))
    if kind == "swap":
        return ChooseSwapTarget(seat, int(data["target"]))
    if kind == "five_swap":
        return FiveSwap(seat, int(data["target"]), _card(data["card"]))
    if kind == "give_card":
        return GiveCard(seat, _card(data["card"]))
    if kind == "react":
        return React(seat, int(data["window"]))
    return _SIMPLE[kind](seat)
