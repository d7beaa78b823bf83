"""Enumerating legal actions (what a seat may do now), for views, bots and random playouts.

Kept apart from `Game`'s modules (`game.py` and the layers under it) because it only reads the state,
through `Game`'s public names. It does not re-make the rules: for each candidate it asks the check
`Game.apply` itself uses (`answer_refusal`, `run_cut_refusal`, `jump_in_refusal`, ...) and lists what
the check lets through, so the two cannot drift apart (tests/engine/test_legality.py). The usual turn's
T1 match is one lookup in `rules.MATCHES`, the table built from `rules.matches`, and a bit test per card.
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
from unonet.engine.cards import CARDS, NUMBER_RANKS, PLAYABLE_COLORS, Card, Color, Rank, color_slot
from unonet.engine.game import Game
from unonet.engine.rules import MATCHES, is_wild_draw_four_fair

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
# lists are built from these instead of new objects. `_PLAYS[seat][card.index << 1 | call_uno]`, for
# seats 0-9 (S1: every seat there is) and every card: a tuple index, no hashing.
_PLAYS: Final = tuple(
    tuple(Play(seat, (card,), call_uno) for card in CARDS for call_uno in (False, True)) for seat in range(10)
)
_DRAWS: Final = tuple(Draw(seat) for seat in range(10))
_PASSES: Final = tuple(Pass(seat) for seat in range(10))
_CHALLENGES: Final = tuple(Challenge(seat) for seat in range(10))
_CALL_UNOS: Final = tuple(CallUno(seat) for seat in range(10))
_CATCHES: Final = tuple(tuple(CatchUno(seat, target) for target in range(10)) for seat in range(10))
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


def legal_plays(game: Game, seat: int) -> list[Action]:
    """The `Play`s among `legal_actions(game, seat)`, in its order: what the built-in playout policy picks
    from (`unonet.engine.search`). On the usual turn it lists them without the rest (no reactions, no
    Draw), so a playout's commonest step builds one list."""
    if game.to_act == seat and game.phase is TURN and game.obligation is None:
        actions: list[Action] = []
        _turn_plays(game, seat, game.hands[seat], actions)
        actions.pop()  # its last action, the Draw
        return actions
    return [action for action in legal_actions(game, seat) if action.__class__ is Play]


def policy_choices(game: Game, seat: int) -> list[Action]:
    """What the built-in playout policy picks among (`unonet.engine.search`): the `Play`s of
    `legal_actions(game, seat)`, in its order, or all of it when it has none. The usual turn's list is
    built once: asking `legal_plays` first and `legal_actions` after listed the hand twice on every turn
    with nothing to play, a third of a 2-player playout's steps."""
    if game.to_act == seat and game.phase is TURN and game.obligation is None:
        actions: list[Action] = []
        _turn_plays(game, seat, game.hands[seat], actions)
        if len(actions) > 1:
            actions.pop()  # its last action, the Draw
        elif game.windows or game.catchable:  # nothing to play: the reactions `legal_actions` lists first
            actions.clear()
            _reactions(game, seat, actions)
            actions.append(_DRAWS[seat])
        return actions
    options = legal_actions(game, seat)
    plays: list[Action] = [action for action in options if action.__class__ is Play]
    return plays if plays else options


def _reactions(game: Game, seat: int, actions: list[Action]) -> None:
    for window in game.windows.values():
        # Only these windows take a React: asking the check about the others would refuse each.
        if window.kind is UNO_SLAP_WINDOW or window.kind is SOUND_WILD_WINDOW:
            if game.react_refusal(seat, window.id) is None:
                actions.append(React(seat, window.id))
    for target in sorted(game.catchable):
        actions.append(_CALL_UNOS[seat] if target == seat else _CATCHES[seat][target])


def _play(seat: int, card: Card, call_uno: bool) -> Play:
    """The one-card `Play(seat, (card,), call_uno)`, from the table."""
    return _PLAYS[seat][card.index << 1 | call_uno]


def _draw(seat: int) -> Draw:
    return _DRAWS[seat]


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

    The T1 test of `Game.playable_refusal` is `rules.MATCHES` (the hot path): the cards that match
    the top card and the colour in force, as one int with a bit per card index; a Wild Draw Four,
    which T2 may refuse, is asked of `playable_refusal` itself.
    """
    ruleset = game.ruleset
    fits = MATCHES[game.discard[-1].index][color_slot(game.color)]
    plays = _PLAYS[seat]
    uno = len(hand) == 2  # U1: each play also with an UNO call
    checks_t2 = not ruleset.bluffing
    groups = ruleset.multi_play or ruleset.runs
    playable: list[Card] = []  # the distinct playable cards in hand order, for the groups
    seen = 0  # the indexes listed so far, a bit each: playability depends on the card alone
    for card in hand:
        bit = 1 << card.index
        if not fits & bit or seen & bit:
            continue
        seen |= bit
        if checks_t2 and card.rank is WILD_DRAW_FOUR and game.playable_refusal(seat, card) is not None:
            continue
        at = card.index << 1
        actions.append(plays[at])
        if uno:
            actions.append(plays[at | 1])
        if groups:
            playable.append(card)
    if groups:
        if ruleset.multi_play:
            _add_multi_plays(game, seat, playable, actions)
        if ruleset.runs:
            _add_runs(game, seat, playable, actions)
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
    """The hand without repeats, in hand order (each card index a bit of `seen`: no hashing)."""
    distinct: list[Card] = []
    seen = 0
    for card in hand:
        bit = 1 << card.index
        if not seen & bit:
            seen |= bit
            distinct.append(card)
    return distinct
