"""Enumerating legal actions (what a seat may do now), for views, bots and random playouts.

Kept apart from `game.py` because it only reads the state, through `Game`'s public names. It does not
re-make the rules: for each candidate it asks the check `Game.apply` itself uses (`answer_refusal`,
`run_cut_refusal`, `jump_in_refusal`, ...) and lists what the check lets through, so the two cannot
drift apart (tests/engine/test_legality.py). The usual turn's T1 match is inlined for speed.
Plays that the rules would punish rather than refuse (a wrong jump-in, an illegal play under H15) are
allowed but never listed: the list is what a careful player would consider.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from unonet.engine._members import (
    AFTER_DRAW,
    BLACK,
    CHOOSE_COLOR,
    CHOOSE_SWAP_TARGET,
    DRAW_TWO,
    FIVE_SWAP,
    GIVE_CARD,
    ROUND_OVER,
    SOUND_WILD_WINDOW,
    TURN,
    UNO_SLAP_WINDOW,
    WILD_DRAW_FOUR,
)
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
from unonet.engine.cards import NUMBER_RANKS, PLAYABLE_COLORS, Card, Color, Rank, standard_deck
from unonet.engine.game import Game
from unonet.engine.rules import is_wild_draw_four_fair

# H4: for each coloured number card (by `Card.key`), the cards one above and one below it in its colour.
_RUN_NEIGHBOURS: Final[dict[int, tuple[Card | None, Card | None]]] = {
    Card.of(color, rank).key: (
        Card.of(color, NUMBER_RANKS[value + 1]) if value < 9 else None,
        Card.of(color, NUMBER_RANKS[value - 1]) if value > 0 else None,
    )
    for color in PLAYABLE_COLORS
    for value, rank in enumerate(NUMBER_RANKS)
}

# One-card plays are values: the same (seat, card, call_uno) is always the same frozen `Play`, so the
# lists are built from these instead of new objects. Keyed by ints (seat, card key, call), so the
# table's order never depends on a hash seed. Filled up front for seats 0-9 (S1) and every card, so the
# seat to act always finds its plays; `_play` adds any other seat an out-of-turn query names.
_ALL_CARDS: Final = tuple(dict.fromkeys(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)))
_PLAYS: dict[int, Play] = {
    (seat << 7 | card.key) << 1 | call_uno: Play(seat, (card,), call_uno)
    for seat in range(10)
    for card in _ALL_CARDS
    for call_uno in (False, True)
}
_DRAWS: dict[int, Draw] = {seat: Draw(seat) for seat in range(10)}
_PASSES: Final = tuple(Pass(seat) for seat in range(10))
_CHALLENGES: Final = tuple(Challenge(seat) for seat in range(10))
_CHOOSE_COLORS: Final = tuple(tuple(ChooseColor(seat, color) for color in PLAYABLE_COLORS) for seat in range(10))


_A_WILD_DRAW_FOUR: Final = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)


def is_bluff(game: Game, seat: int) -> bool:
    """T2, B3: would a Wild Draw Four that `seat` plays now be unfair, so that a challenge finds it guilty?

    Every Wild Draw Four is the same card and leaves the same other cards in the hand, so the answer
    holds for any play of one; False when the seat holds none (or nothing is on the pile yet).
    """
    hand = game.hands[seat]
    if not game.discard or _A_WILD_DRAW_FOUR not in hand:
        return False
    rest = list(hand)
    rest.remove(_A_WILD_DRAW_FOUR)
    return not is_wild_draw_four_fair(rest, game.color, game.discard[-1], game.ruleset.wild_draw_four)


def legal_actions(game: Game, seat: int) -> list[Action]:
    """Every action `seat` may take now, in a stable order. Empty once the round is over."""
    to_act = game.to_act  # None once the round is over, and while a blocking window is open
    phase = game.phase
    if phase is ROUND_OVER or (to_act != seat and not game.in_play[seat]):  # the seat to act is in play
        return []
    actions: list[Action] = []
    if game.windows or game.catchable:
        _reactions(game, seat, actions)
    if to_act != seat:
        if phase is CHOOSE_COLOR and game.color_refusal(seat) is None:
            # Naming the colour is part of the play: a blocking window opened by that play (an UNO
            # slap) does not hold it, as it does not hold the turn passing on after any other card.
            actions += _CHOOSE_COLORS[seat]
        _out_of_turn(game, seat, actions)
    elif phase is TURN and game.obligation is None:  # the usual turn
        _turn_plays(game, seat, game.hands[seat], actions)
    else:
        _own_turn(game, seat, actions)
    return actions


def _reactions(game: Game, seat: int, actions: list[Action]) -> None:
    for window in game.windows.values():
        # Only these windows take a React: asking the check about the others would refuse each.
        if window.kind is UNO_SLAP_WINDOW or window.kind is SOUND_WILD_WINDOW:
            if game.react_refusal(seat, window.id) is None:
                actions.append(React(seat, window.id))
    for target in sorted(game.catchable):
        actions.append(CallUno(seat) if target == seat else CatchUno(seat, target))


def _play(seat: int, card: Card, call_uno: bool) -> Play:
    """The one-card `Play(seat, (card,), call_uno)`, from the table."""
    key = (seat << 7 | card.key) << 1 | call_uno
    play = _PLAYS.get(key)
    if play is None:
        play = _PLAYS[key] = Play(seat, (card,), call_uno)
    return play


def _draw(seat: int) -> Draw:
    draw = _DRAWS.get(seat)
    if draw is None:
        draw = _DRAWS[seat] = Draw(seat)
    return draw


def _own_turn(game: Game, seat: int, actions: list[Action]) -> None:
    phase = game.phase
    hand = game.hands[seat]
    if phase is TURN and game.obligation is None:  # the usual turn: T1, T2
        _turn_plays(game, seat, hand, actions)
    elif phase is CHOOSE_COLOR:
        actions += _CHOOSE_COLORS[seat]  # the seat to act: 0-9
    elif phase is AFTER_DRAW:
        assert game.drawn is not None
        actions.append(_play(seat, game.drawn, False))
        if len(hand) == 2:
            actions.append(_play(seat, game.drawn, True))
        actions.append(_PASSES[seat])
    elif phase is CHOOSE_SWAP_TARGET:
        actions.extend(ChooseSwapTarget(seat, other) for other in _others(game, seat))
    elif phase is FIVE_SWAP:
        cards = _distinct(hand)
        actions += [FiveSwap(seat, other, card) for other in _others(game, seat) for card in cards]
        actions.append(Pass(seat))  # H11: the swap may be declined
    elif phase is GIVE_CARD:
        actions.extend(GiveCard(seat, card) for card in _distinct(hand))
    else:  # an open draw obligation
        actions.append(_draw(seat))
        if game.challenge_refusal(seat) is None:
            actions.append(_CHALLENGES[seat])
        ruleset = game.ruleset
        if ruleset.stacking or ruleset.deflecting:  # else nothing answers it (H1, H3)
            uno = len(hand) == 2
            for card in _distinct(hand):
                if game.answer_refusal(seat, card) is None:
                    actions.append(_play(seat, card, False))
                    if uno:
                        actions.append(_play(seat, card, True))


def _turn_plays(game: Game, seat: int, hand: list[Card], actions: list[Action]) -> None:
    """T1, T2 with no obligation open: every distinct playable card (H4/H5 groups too), then Draw.

    The T1 test of `Game.playable_refusal`, inlined (the hot path): a card matches the colour in
    force or the top card's rank, black cards always do; a Wild Draw Four, which T2 may refuse, is
    asked of `playable_refusal` itself.
    """
    ruleset = game.ruleset
    color = game.color
    base = seat << 8  # the `_PLAYS` key with call_uno False; | 1 for True
    # The distinct playable cards in hand order, keyed by their plays' keys (ints: no `Card.__hash__`).
    # Playability depends on the card alone, so this is `_distinct` of the hand, filtered.
    # Loops rather than comprehensions: in CPython 3.11 a comprehension is a function made and called.
    playable: dict[int, Card] = {}
    if color is None:  # H12: after a Sound Wild anything may follow
        for card in hand:
            playable[base | card.key << 1] = card
    else:
        top_rank = game.discard[-1].rank
        for card in hand:
            if card.color is color or card.rank is top_rank or card.color is BLACK:
                playable[base | card.key << 1] = card
    if not ruleset.bluffing:
        playable = {
            key: card
            for key, card in playable.items()
            if card.rank is not WILD_DRAW_FOUR or game.playable_refusal(seat, card) is None
        }
    plays = _PLAYS  # holds every play of the seat to act (0-9)
    if len(hand) != 2:
        for key in playable:
            actions.append(plays[key])
    else:  # U1: each play also with an UNO call
        for key in playable:
            actions += (plays[key], plays[key | 1])
    if ruleset.multi_play or ruleset.runs:
        cards = list(playable.values())
        if ruleset.multi_play:
            _add_multi_plays(game, seat, cards, actions)
        if ruleset.runs:
            _add_runs(game, seat, cards, actions)
    actions.append(_DRAWS[seat])


def _out_of_turn(game: Game, seat: int, actions: list[Action]) -> None:
    """H4 run cuts and H6-H8 jump-ins: each card the refusal checks let through and the rules allow.

    The early returns are the cases where those checks refuse every card (or, for a jump-in with no
    window to jump in on, where every card would be a wrong jump-in), taken without asking per card.
    """
    hand = game.hands[seat]
    cutter = game.run_cutter
    if cutter is not None:
        if seat == cutter:
            for card in _distinct(hand):
                if game.run_cut_refusal(seat, (card,)) is None:
                    _add_play(actions, seat, (card,), len(hand))
        return
    if game.has_blocking_window or game.first_card_on_top:
        return
    if not game.windows or game.jump_in_refusal(seat, 1) is not None:
        return  # no window to jump in on (no top card's, no skip escape), or refused
    uno = len(hand) == 2
    for card in _distinct(hand):
        if game.is_jump_in_allowed(seat, card) and game.jump_in_obligation_refusal(card) is None:
            actions.append(_play(seat, card, False))
            if uno:
                actions.append(_play(seat, card, True))


def _add_play(actions: list[Action], seat: int, cards: tuple[Card, ...], hand_size: int) -> None:
    actions.append(Play(seat, cards))
    if hand_size - len(cards) == 1:
        actions.append(Play(seat, cards, True))  # call_uno, positional: a keyword costs a third more


def _add_multi_plays(game: Game, seat: int, playable: list[Card], actions: list[Action]) -> None:
    """H5: each playable coloured card (not a Draw Two) with every choice of the others of its rank.

    Listed by size, then in hand order; a group that two identical cards would repeat is listed once.
    """
    hand = game.hands[seat]
    ranks = [card.rank for card in hand]
    for first in playable:
        rank = first.rank
        if first.color is BLACK or rank is DRAW_TWO or ranks.count(rank) < 2:  # < 2: nothing to add
            continue
        same = [card for card in hand if card.rank is rank]  # all coloured, as `first` is
        same.remove(first)
        if len({card.key for card in same}) == len(same):  # no two alike: every combination is new
            for size in range(1, len(same) + 1):
                for combo in combinations(same, size):
                    _add_play(actions, seat, (first, *combo), len(hand))
            continue
        seen: set[tuple[Card, ...]] = set()
        for size in range(1, len(same) + 1):
            for combo in combinations(same, size):
                group = (first, *combo)
                if group not in seen:
                    seen.add(group)
                    _add_play(actions, seat, group, len(hand))


def _add_runs(game: Game, seat: int, playable: list[Card], actions: list[Action]) -> None:
    """H4: every run starting with a playable number card, ascending then descending, shortest first."""
    hand = game.hands[seat]
    held: set[int] | None = None  # the keys in hand, once a number card needs them
    for first in playable:
        neighbours = _RUN_NEIGHBOURS.get(first.key)
        if neighbours is None:  # not a number card
            continue
        if held is None:
            held = {card.key for card in hand}
        for way in (0, 1):  # up, then down
            run = [first]
            nxt = neighbours[way]
            while nxt is not None and nxt.key in held:
                run.append(nxt)
                _add_play(actions, seat, tuple(run), len(hand))  # `is_run` holds by construction
                nxt = _RUN_NEIGHBOURS[nxt.key][way]


def _others(game: Game, seat: int) -> list[int]:
    return [other for other in game.seats() if other != seat and other != game.went_out]


def _distinct(hand: list[Card]) -> list[Card]:
    """The hand without repeats, in hand order (keyed by `Card.key`: ints hash without Python calls)."""
    return list({card.key: card for card in hand}.values())
