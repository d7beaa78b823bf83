"""Enumerating legal actions (what a seat may do now), for views, bots and random playouts.

Kept apart from `game.py` because it only reads the state. Plays that the rules would punish rather
than refuse (a wrong jump-in, an illegal play under H15) are allowed but never listed: the list is
what a careful player would consider.
"""

from __future__ import annotations

from itertools import combinations

from unonet.engine.actions import (
    Action,
    CallUno,
    Catch,
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
from unonet.engine.cards import PLAYABLE_COLORS, Card, Rank
from unonet.engine.errors import UnoError
from unonet.engine.events import WindowKind
from unonet.engine.game import Game, Phase
from unonet.engine.rules import is_run


def legal_actions(game: Game, seat: int) -> list[Action]:
    """Every action `seat` may take now, in a stable order. Empty once the round is over."""
    if game.phase is Phase.ROUND_OVER or not game.in_play[seat]:
        return []
    actions: list[Action] = []
    _reactions(game, seat, actions)
    if game.to_act == seat:
        _own_turn(game, seat, actions)
    else:
        _out_of_turn(game, seat, actions)
    return actions


def _reactions(game: Game, seat: int, actions: list[Action]) -> None:
    for window in game.windows.values():
        if window.kind in (WindowKind.UNO_SLAP, WindowKind.SOUND_WILD):
            if seat in window.eligible and seat not in game.reacted(window.id):
                actions.append(React(seat, window.id))
    for target in sorted(game.catchable):
        actions.append(CallUno(seat) if target == seat else Catch(seat, target))


def _own_turn(game: Game, seat: int, actions: list[Action]) -> None:
    phase = game.phase
    hand = game.hands[seat]
    if phase is Phase.CHOOSE_COLOR:
        actions.extend(ChooseColor(seat, color) for color in PLAYABLE_COLORS)
    elif phase is Phase.AFTER_DRAW:
        assert game.drawn is not None
        _add_play(actions, seat, (game.drawn,), len(hand))
        actions.append(Pass(seat))
    elif phase is Phase.CHOOSE_SWAP_TARGET:
        actions.extend(ChooseSwapTarget(seat, other) for other in _others(game, seat))
    elif phase is Phase.FIVE_SWAP:
        actions.extend(FiveSwap(seat, other, card) for other in _others(game, seat) for card in _distinct(hand))
        actions.append(Pass(seat))  # H11: the swap may be declined
    elif phase is Phase.GIVE_CARD:
        actions.extend(GiveCard(seat, card) for card in _distinct(hand))
    elif game.obligation is not None:
        actions.append(Draw(seat))
        if game.obligation.bluff is not None and game.ruleset.can_challenge:
            actions.append(Challenge(seat))
        for card in _distinct(hand):
            if _answers(game, seat, card):
                _add_play(actions, seat, (card,), len(hand))
    else:
        playable = [card for card in _distinct(hand) if game._is_playable(seat, card)]
        for card in playable:
            _add_play(actions, seat, (card,), len(hand))
        if game.ruleset.multi_play:
            _add_multi_plays(game, seat, playable, actions)
        if game.ruleset.runs:
            _add_runs(game, seat, playable, actions)
        actions.append(Draw(seat))


def _out_of_turn(game: Game, seat: int, actions: list[Action]) -> None:
    hand = game.hands[seat]
    run = game.pending_run
    if run is not None:
        if seat == game._next(run[0]):
            for card in _distinct(hand):
                if game._is_playable(seat, card):
                    _add_play(actions, seat, (card,), len(hand))
        return
    if game.has_blocking_window or game.phase not in (Phase.TURN, Phase.AFTER_DRAW) or game.first_card_on_top:
        return
    escape = game._escape_window_for(seat)
    for card in _distinct(hand):
        if (escape is not None or game.jump_window is not None) and game._is_jump_allowed(seat, card, escape):
            if game.obligation is None or card.rank is Rank.DRAW_TWO:
                _add_play(actions, seat, (card,), len(hand))


def _answers(game: Game, seat: int, card: Card) -> bool:
    try:
        game._check_answer(seat, card)
    except UnoError:  # the check raises exactly when the card cannot answer
        return False
    return True


def _add_play(actions: list[Action], seat: int, cards: tuple[Card, ...], hand_size: int) -> None:
    actions.append(Play(seat, cards))
    if hand_size - len(cards) == 1:
        actions.append(Play(seat, cards, call_uno=True))


def _add_multi_plays(game: Game, seat: int, playable: list[Card], actions: list[Action]) -> None:
    hand = game.hands[seat]
    for first in playable:
        if first.is_black or first.rank is Rank.DRAW_TWO:
            continue
        rest = list(hand)
        rest.remove(first)
        same = [card for card in rest if card.rank is first.rank and not card.is_black]
        seen: set[tuple[Card, ...]] = set()
        for size in range(1, len(same) + 1):
            for combo in combinations(same, size):
                group = (first, *combo)
                if group not in seen:
                    seen.add(group)
                    _add_play(actions, seat, group, len(hand))


def _add_runs(game: Game, seat: int, playable: list[Card], actions: list[Action]) -> None:
    hand = set(game.hands[seat])
    for first in playable:
        if not first.rank.is_number or first.is_black:
            continue
        for step in (1, -1):
            run = [first]
            value = first.rank.number + step
            while 0 <= value <= 9:
                nxt = Card.of(first.color, Rank(str(value)))
                if nxt not in hand:
                    break
                run.append(nxt)
                if is_run(tuple(run)):
                    _add_play(actions, seat, tuple(run), len(game.hands[seat]))
                value += step


def _others(game: Game, seat: int) -> list[int]:
    return [other for other in game.seats() if other != seat and other != game.went_out]


def _distinct(hand: list[Card]) -> list[Card]:
    return list(dict.fromkeys(hand))
