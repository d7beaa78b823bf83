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
