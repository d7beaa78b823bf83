"""What a round of UNO waits for (`Game.phase`), apart from `game.py` so the hot-path names can share it."""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    """What the game waits for from `to_act`."""

    TURN = "turn"
    CHOOSE_COLOR = "choose_color"
    AFTER_DRAW = "after_draw"
    CHOOSE_SWAP_TARGET = "choose_swap_target"
    FIVE_SWAP = "five_swap"
    GIVE_CARD = "give_card"
    ROUND_OVER = "round_over"


DUTIES: dict[Phase, str] = {
    Phase.TURN: "play or draw",
    Phase.CHOOSE_COLOR: "name a colour",
    Phase.AFTER_DRAW: "play or keep the card it drew",
    Phase.CHOOSE_SWAP_TARGET: "choose whom to swap hands with",
    Phase.FIVE_SWAP: "give a card away for its five swap",
    Phase.GIVE_CARD: "give a card back",
    Phase.ROUND_OVER: "wait for the next round",
}
"""What the seat a phase waits for must do, as a verb phrase, for messages: "seat 2 must name a colour"."""
