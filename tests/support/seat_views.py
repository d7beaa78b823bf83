"""Hand-built seat views for policy tests: a hand, the legal actions, and the table around the seat."""

from __future__ import annotations

from typing import Any

from unonet.v1 import actions_pb2, cards_pb2, table_pb2, views_pb2

C = cards_pb2


def card(color: int, rank: int) -> cards_pb2.Card:
    return C.Card(color=color, rank=rank)


RED_2 = card(C.COLOR_RED, C.RANK_TWO)
RED_5 = card(C.COLOR_RED, C.RANK_FIVE)
RED_7 = card(C.COLOR_RED, C.RANK_SEVEN)
RED_8 = card(C.COLOR_RED, C.RANK_EIGHT)
RED_9 = card(C.COLOR_RED, C.RANK_NINE)
RED_SKIP = card(C.COLOR_RED, C.RANK_SKIP)
RED_DRAW_TWO = card(C.COLOR_RED, C.RANK_DRAW_TWO)
BLUE_2 = card(C.COLOR_BLUE, C.RANK_TWO)
BLUE_5 = card(C.COLOR_BLUE, C.RANK_FIVE)
BLUE_9 = card(C.COLOR_BLUE, C.RANK_NINE)
GREEN_7 = card(C.COLOR_GREEN, C.RANK_SEVEN)
YELLOW_3 = card(C.COLOR_YELLOW, C.RANK_THREE)
WILD = card(C.COLOR_BLACK, C.RANK_WILD)
WILD_DRAW_FOUR = card(C.COLOR_BLACK, C.RANK_WILD_DRAW_FOUR)
DRAW = actions_pb2.DrawOption(count=1)


def option(*cards: cards_pb2.Card, kind: int = actions_pb2.PLAY_KIND_TURN, needs_color: bool = False,
           window: int = 0, is_bluff: bool = False) -> actions_pb2.PlayOption:
    return actions_pb2.PlayOption(cards=cards, kind=kind, needs_color=needs_color, reaction_window_id=window,
                                  is_bluff=is_bluff)


def view(hand: list[cards_pb2.Card], *, sizes: tuple[int, ...] | None = None, seat: int = 0,
         draw_pile: int = 60, **legal: Any) -> views_pb2.SeatView:
    """Seat `seat` holding `hand`, each seat's hand size from `sizes` (default: 7 for the others)."""
    plays = legal.pop("plays", [])
    obligation = legal.pop("obligation", None)
    sizes = sizes or tuple(len(hand) if s == seat else 7 for s in range(2))
    result = views_pb2.SeatView(seat=seat, phase=views_pb2.PHASE_TURN, draw_pile_size=draw_pile,
                                direction=views_pb2.DIRECTION_CLOCKWISE)
    result.seats.extend(table_pb2.SeatState(seat=s, occupied=True, hand_size=n) for s, n in enumerate(sizes))
    result.hand.extend(C.CardRef(card=c) for c in hand)
    result.legal_actions.CopyFrom(actions_pb2.LegalActions(required=True, **legal))
    result.legal_actions.plays.extend(plays)
    if obligation is not None:
        result.draw_obligation.CopyFrom(obligation)
    return result
