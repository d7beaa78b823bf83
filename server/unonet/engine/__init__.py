"""unonet.engine: the pure, deterministic UNO rules engine (no I/O, no clocks, no global random).

Everything chance-driven takes an injected `random.Random`; the same seed and actions give the same
game, event for event. Start with `Match(find_ruleset("standard"), 4, random.Random(seed)).start()`.
"""

from __future__ import annotations

from unonet.engine.actions import (
    Action,
    CallUno,
    CatchUno,
    Challenge,
    Chat,
    ChooseColor,
    ChooseSwapTarget,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.engine.cards import PLAYABLE_COLORS, Card, Color, Rank, standard_deck
from unonet.engine.errors import (
    REASONS,
    GameOver,
    IllegalAction,
    MalformedAction,
    NotYourTurn,
    RoundOver,
    RulesetError,
    UnoError,
)
from unonet.engine.events import DrawReason, Event, Window, WindowKind
from unonet.engine.game import BluffRecord, Game, MidPlay, Obligation, Phase, RefusedReaction, WindowOutcome
from unonet.engine.legal import is_bluff, legal_actions
from unonet.engine.match import Match, choose_dealer
from unonet.engine.playout import PlayoutLimit
from unonet.engine.ruleset import (
    PRESET_DESCRIPTIONS,
    PRESETS,
    STANDARD,
    BlankEffect,
    BluffPenalty,
    FirstWild,
    JumpInPenalty,
    Ruleset,
    Scoring,
    WildDrawFourRule,
    find_ruleset,
)
from unonet.engine.scoring import round_points
from unonet.engine.search import Knowledge, PlayoutResult, Policy, determinize, playout, random_action, settle_blocking
from unonet.engine.views import ObligationView, SeatView

__all__ = [
    "PLAYABLE_COLORS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "REASONS",
    "STANDARD",
    "Action",
    "BlankEffect",
    "BluffPenalty",
    "BluffRecord",
    "CallUno",
    "Card",
    "CatchUno",
    "Challenge",
    "Chat",
    "ChooseColor",
    "ChooseSwapTarget",
    "Color",
    "Draw",
    "DrawReason",
    "Event",
    "FirstWild",
    "FiveSwap",
    "Game",
    "GameOver",
    "GiveCard",
    "IllegalAction",
    "JumpInPenalty",
    "Knowledge",
    "MalformedAction",
    "Match",
    "MidPlay",
    "NotYourTurn",
    "Obligation",
    "ObligationView",
    "Pass",
    "Phase",
    "Play",
    "PlayoutLimit",
    "PlayoutResult",
    "Policy",
    "Rank",
    "React",
    "RefusedReaction",
    "RoundOver",
    "Ruleset",
    "RulesetError",
    "Scoring",
    "SeatView",
    "UnoError",
    "WildDrawFourRule",
    "Window",
    "WindowKind",
    "WindowOutcome",
    "choose_dealer",
    "determinize",
    "find_ruleset",
    "is_bluff",
    "legal_actions",
    "playout",
    "random_action",
    "round_points",
    "settle_blocking",
    "standard_deck",
]
