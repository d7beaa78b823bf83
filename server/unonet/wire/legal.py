"""Legal actions on the wire: the engine's flat list of one seat's legal actions grouped into the protocol's
summary, each command once with its allowed cards, targets and windows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from unonet.engine.actions import (
    Action,
    CallUno,
    CatchUno,
    Challenge,
    ChooseColor,
    ChooseSwapTarget,
    Draw,
    FiveSwap,
    GiveCard,
    Pass,
    Play,
    React,
)
from unonet.engine.cards import Card, Rank
from unonet.v1 import (
    actions_pb2,
)
from unonet.wire.cards import COLOR_TO_PB, RANK_TO_PB, card_to_pb

_E = TypeVar("_E")


def needs_color(card: Card) -> bool:
    """Every black card but the Sound Wild asks its player for a colour (T9, T10, C2, H12)."""
    return card.is_black and card.rank is not Rank.SOUND_WILD


def _distinct(items: Iterable[_E]) -> list[_E]:
    return list(dict.fromkeys(items))


def play_kind(play: Play, current_seat: int, run_cut_window: int | None,
              jump_in_window: int | None) -> tuple[int, int]:
    """A listed play's PlayKind and the window it answers: on its player's turn none, else a run cut
    while a run-cut window is open, else a jump-in (`legal_actions_to_pb` says what each argument is)."""
    if play.seat == current_seat:
        return actions_pb2.PLAY_KIND_TURN, 0
    if run_cut_window is not None:
        return actions_pb2.PLAY_KIND_RUN_CUT, run_cut_window
    return actions_pb2.PLAY_KIND_JUMP_IN, jump_in_window or 0


def legal_actions_to_pb(
    actions: Sequence[Action],
    *,
    required: bool,
    current_seat: int,
    run_cut_window: int | None = None,
    jump_in_window: int | None = None,
    obligation_target: int | None = None,
    obligation_amount: int = 0,
    draw_to_match: bool = False,
    bluff: bool = False,
    catch_windows: Mapping[int, int] | None = None,
) -> actions_pb2.LegalActions:
    """Group the engine's flat list of one seat's legal actions into the protocol's summary.

    The engine lists every action; the protocol lists each command once with its allowed cards and
    targets. The engine does not say in what capacity a play is made, so the caller says what it knows:
    `current_seat` (whose turn it is: a play by anyone else is a jump-in), `run_cut_window` (the open
    run-cut window, whose plays are cuts), `jump_in_window` (the window a jump-in by this seat answers:
    its skip-escape window, else the jump-in window), and the open obligation's `obligation_target` and
    `obligation_amount` (a Draw by its target accepts it). `draw_to_match` is the table's T4 option.
    `bluff` says a Wild Draw Four this seat played now would be unfair (the engine's `is_bluff`): every
    option holding one is then marked `is_bluff`. `catch_windows` maps each catchable seat to its open
    UNO catch window, so a listed catch names the window it answers (`CatchOption`).

    A play listed with and without `call_uno` is one option: the client sets the flag on its request.
    """
    msg = actions_pb2.LegalActions(required=required)
    plays: dict[tuple[Card, ...], Play] = {}
    catch_targets: list[int] = []
    react_windows: list[int] = []
    swap_targets: list[int] = []
    five_targets: list[int] = []
    five_cards: list[Card] = []
    give_cards: list[Card] = []
    for action in actions:
        if isinstance(action, Play):
            plays.setdefault(action.cards, action)
        elif isinstance(action, ChooseColor):
            msg.choose_color = True
        elif isinstance(action, Draw):
            accepts = obligation_target is not None and obligation_target == action.seat
            draw = msg.draw
            draw.SetInParent()  # present even with every field at its default
            draw.count = obligation_amount if accepts else 1
            draw.accepts_obligation = accepts
            draw.until_playable = draw_to_match and not accepts
        elif isinstance(action, Pass):
            msg.pass_turn = True
        elif isinstance(action, CallUno):
            msg.call_uno = True
        elif isinstance(action, CatchUno):
            catch_targets.append(action.target)
        elif isinstance(action, Challenge):
            msg.challenge = True
        elif isinstance(action, React):
            react_windows.append(action.window)
        elif isinstance(action, ChooseSwapTarget):
            swap_targets.append(action.target)
        elif isinstance(action, FiveSwap):
            five_targets.append(action.target)
            five_cards.append(action.card)
        elif isinstance(action, GiveCard):
            give_cards.append(action.card)
    add_play = msg.plays.add  # options built in place: no message built, then copied in
    for play in plays.values():
        kind, window = play_kind(play, current_seat, run_cut_window, jump_in_window)
        option = add_play(kind=kind, reaction_window_id=window, needs_color=needs_color(play.cards[-1]))
        if bluff and any(card.rank is Rank.WILD_DRAW_FOUR for card in play.cards):
            option.is_bluff = True
        add_card = option.cards.add
        for card in play.cards:
            add_card(color=COLOR_TO_PB[card.color], rank=RANK_TO_PB[card.rank])
    if catch_targets:
        targets = _distinct(catch_targets)
        msg.catch_uno_targets.extend(targets)
        windows = catch_windows or {}
        add_catch = msg.catch_uno.add
        for target in targets:
            add_catch(target_seat=target, reaction_window_id=windows.get(target, 0))
    if react_windows:
        msg.react_window_ids.extend(_distinct(react_windows))
    if swap_targets:
        msg.swap_target_seats.extend(_distinct(swap_targets))
    if five_targets:
        msg.five_swap.CopyFrom(
            actions_pb2.FiveSwapOption(
                target_seats=_distinct(five_targets), cards=[card_to_pb(card) for card in _distinct(five_cards)]
            )
        )
    if give_cards:
        msg.give_cards.extend(card_to_pb(card) for card in _distinct(give_cards))
    return msg
