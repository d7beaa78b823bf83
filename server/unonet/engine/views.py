"""Per-seat views: the only picture of the game that ever leaves the host (STYLE.md `view_for`).

A view holds the seat's own hand, public facts about everyone and the seat's legal actions. Other
hands appear only as counts; a spectator (`seat=None`) sees no hand at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from unonet.engine.actions import Action
from unonet.engine.cards import Card, Color, Rank
from unonet.engine.events import Window
from unonet.engine.game import Game, Phase
from unonet.engine.legal import is_bluff, legal_actions


@dataclass(frozen=True, slots=True)
class ObligationView:
    target: int
    amount: int
    setter: int
    can_challenge: bool
    kind: Rank = Rank.DRAW_TWO  # the rank of the card that set or last raised it (a deflection keeps it)


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may know right now."""

    seat: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    in_play: tuple[bool, ...]
    top: Card
    color: Color | None
    direction: int
    current: int
    to_act: int | None
    phase: Phase
    obligation: ObligationView | None
    windows: tuple[Window, ...]
    catchable: tuple[int, ...]
    draw_pile_size: int
    discard_size: int
    round_no: int
    dealer: int
    totals: tuple[int, ...]
    penalty_points: tuple[int, ...]
    silence: int | None
    match_winners: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    bluff: bool = False  # a Wild Draw Four the viewer played now would be unfair (T2, B3)
    swap_card: Card | None = None  # H11: the card offered in a pending five swap, for its two seats only


def build_view(game: Game, seat: int | None, totals: tuple[int, ...], match_winners: tuple[int, ...]) -> SeatView:
    """`seat`'s view of the round `game` of a match whose scores are `totals` and whose winners so far are
    `match_winners` (none until it is over: a match over offers no legal action).

    It takes the match's parts rather than the `Match`, which owns the views it hands out: this module
    sits below `unonet.engine.match`, as `game` does.
    """
    obligation = game.obligation
    return SeatView(
        seat=seat,
        hand=tuple(game.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(len(hand) for hand in game.hands),
        in_play=game.in_play,
        top=game.top,
        color=game.color,
        direction=game.direction,
        current=game.current,
        to_act=game.to_act,
        phase=game.phase,
        obligation=None
        if obligation is None
        else ObligationView(
            obligation.target,
            obligation.amount,
            obligation.setter,
            obligation.bluff is not None and game.ruleset.can_challenge,
            obligation.kind,
        ),
        windows=tuple(game.windows.values()),
        catchable=tuple(sorted(game.catchable)),
        draw_pile_size=len(game.draw_pile),
        discard_size=len(game.discard),
        round_no=game.round_no,
        dealer=game.dealer,
        totals=totals,
        penalty_points=tuple(game.penalty_points),
        silence=game.silence,
        match_winners=match_winners,
        legal_actions=tuple(legal_actions(game, seat)) if seat is not None and not match_winners else (),
        bluff=seat is not None and is_bluff(game, seat),
        swap_card=_swap_card_for(game, seat),
    )


def _swap_card_for(game: Game, seat: int | None) -> Card | None:
    """H11: the card a pending five swap offers, which only its giver and its target may see."""
    pending = game.pending_swap
    if pending is None or seat not in pending[:2]:
        return None
    return pending[2]
