"""Enum members under module names, for the engine's hot paths: one list that `Game`'s modules and `legal.py` share.

In CPython 3.11 `Phase.TURN` is a descriptor lookup on the enum class, about ten times what a module
global costs, so the hot paths import these names (each is the enum member itself: `TURN is Phase.TURN`).
"""

from __future__ import annotations

from typing import Final

from unonet.engine.cards import Color, Rank
from unonet.engine.events import DrawReason, WindowKind
from unonet.engine.phase import Phase

TURN: Final = Phase.TURN
CHOOSE_COLOR: Final = Phase.CHOOSE_COLOR
AFTER_DRAW: Final = Phase.AFTER_DRAW
CHOOSE_SWAP_TARGET: Final = Phase.CHOOSE_SWAP_TARGET
FIVE_SWAP: Final = Phase.FIVE_SWAP
GIVE_CARD: Final = Phase.GIVE_CARD
ROUND_OVER: Final = Phase.ROUND_OVER
ZERO: Final = Rank.ZERO
TWO: Final = Rank.TWO
FIVE: Final = Rank.FIVE
SEVEN: Final = Rank.SEVEN
SKIP: Final = Rank.SKIP
REVERSE: Final = Rank.REVERSE
DRAW_TWO: Final = Rank.DRAW_TWO
WILD: Final = Rank.WILD
WILD_DRAW_FOUR: Final = Rank.WILD_DRAW_FOUR
BLANK: Final = Rank.BLANK
SOUND_WILD: Final = Rank.SOUND_WILD
PLUS_ONE: Final = Rank.PLUS_ONE
PLUS_TWO: Final = Rank.PLUS_TWO
BLACK: Final = Color.BLACK
UNO_CATCH_WINDOW: Final = WindowKind.UNO_CATCH
JUMP_IN_WINDOW: Final = WindowKind.JUMP_IN
RUN_CUT_WINDOW: Final = WindowKind.RUN_CUT
UNO_SLAP_WINDOW: Final = WindowKind.UNO_SLAP
SOUND_WILD_WINDOW: Final = WindowKind.SOUND_WILD
SKIP_ESCAPE_WINDOW: Final = WindowKind.SKIP_ESCAPE
TURN_DRAW: Final = DrawReason.TURN
