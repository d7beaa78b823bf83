"""The fixed action space: every distinct action a seat can take in any ruleset, each at a stable index.

A learner's policy outputs one integer; this module says which engine action it is. The table is the
same for every preset, option and player count (rules that are off simply never unmask their indices),
so a policy trained under one ruleset reads the same indices under another. Seats named by an action
(a catch, a 7-0 target, a 5-swap target) are named relative to the acting seat, as the observation
names them: offset 1 is the next seat clockwise (seat + 1 mod N), up to offset 9 (S1: 10 players).

| indices | action | count |
| --- | --- | --- |
| 0-115 | `Play` of one card: `2 * card.index + call_uno` (`unonet.engine.cards.CARDS`, 58 cards) | 116 |
| 116 | `Draw` (a turn's draw, or accepting a draw obligation) | 1 |
| 117 | `Pass` (keep the drawn card, or decline a 5-swap) | 1 |
| 118 | `Challenge` (a Wild Draw Four, B1) | 1 |
| 119 | `CallUno` | 1 |
| 120-123 | `ChooseColor`: red, yellow, green, blue | 4 |
| 124-132 | `CatchUno` of the seat at offset 1-9 | 9 |
| 133-141 | `ChooseSwapTarget` (H10 seven) at offset 1-9 | 9 |
| 142 | `React` to the open UNO slap window (U5) | 1 |
| 143 | `React` to the open Sound Wild window (H12) | 1 |
| 144 | `DECLINE`: let an offered out-of-turn chance go (no engine action; see docs/rl.md, races) | 1 |
| 145-202 | `GiveCard` (H11, the 5-swap's target gives a card back): by card index | 58 |
| 203-724 | `FiveSwap` (H11): `203 + 58 * (offset - 1) + card.index` | 522 |
| 725-1444 | a run (H4): colour, first and last number (ascending or descending), each with and without UNO | 720 |
| 1445-13420 | a multi-play (H5): rank, how many of each colour, the first card's colour and the last's | 11,976 |

A run is fixed by its colour, first and last number (`2 * run + call_uno`, runs in colour order, then
first, then last). A multi-play's cards have one rank; its effects depend on how many there are, which
card matches the pile (the first) and which one lands last (its colour is then in force): the order of
the cards between them changes nothing, so one index stands for each (rank, count of each colour,
first colour, last colour), with and without the UNO call, and the env plays the middle cards in
colour order. The engine lists each group once in hand order (`legal_actions`); every choice of the
last card among the group's colours is the same group in an order the rules equally accept (H5: the
first card matches, all share a rank), so each is unmasked.

`ACTION_NAMES[i]` names index i in words; `action_count()` is the size (13,421). Under rules without
runs, multi-play and five-swaps (H4, H5, H11) every legal index is below `BASIC_ACTION_COUNT` (145), so a
learner that trains on such rules may cut its output layer to the first 145 indices (examples/rl does).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, cast

from unonet.engine import (
    PLAYABLE_COLORS,
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
    Rank,
    React,
    Window,
    WindowKind,
)
from unonet.engine.cards import CARDS, NUMBER_RANKS, Card, color_slot

__all__ = [
    "ACTION_COUNT",
    "ACTION_NAMES",
    "BASIC_ACTION_COUNT",
    "CALL_UNO",
    "CHALLENGE",
    "DECLINE",
    "DRAW",
    "MAX_OFFSET",
    "PASS",
    "action_count",
    "legal_indices",
    "mask_of",
    "play_for",
]

MAX_OFFSET: Final = 9  # S1: up to 10 players, so up to 9 other seats

SINGLE_PLAYS: Final = 0
DRAW: Final = 116
PASS: Final = 117
CHALLENGE: Final = 118
CALL_UNO: Final = 119
CHOOSE_COLOR: Final = 120
CATCH: Final = 124
SWAP_TARGET: Final = 133
REACT_SLAP: Final = 142
REACT_SOUND_WILD: Final = 143
DECLINE: Final = 144
GIVE_CARD: Final = 145
FIVE_SWAP: Final = 203
RUNS: Final = FIVE_SWAP + MAX_OFFSET * len(CARDS)  # 725
BASIC_ACTION_COUNT: Final = GIVE_CARD  # 145: every index a ruleset without H4, H5 and H11 can unmask

_SOUND_WILD_WINDOW: Final = WindowKind.SOUND_WILD
_MULTI_RANKS: Final = (*NUMBER_RANKS, Rank.SKIP, Rank.REVERSE)  # H5: coloured, and never a Draw Two


def _runs() -> list[tuple[Card, ...]]:
    """Every run (H4): colour, then first number, then last number (ascending or descending)."""
    runs: list[tuple[Card, ...]] = []
    for color in PLAYABLE_COLORS:
        for first in range(10):
            for last in range(10):
                if first == last:
                    continue
                step = 1 if last > first else -1
                runs.append(tuple(Card.of(color, NUMBER_RANKS[v]) for v in range(first, last + step, step)))
    return runs


def _multi_plays() -> list[tuple[Card, ...]]:
    """Every multi-play (H5) by rank, then count of each colour, first colour and last colour; the cards
    between the first and the last in colour order."""
    plays: list[tuple[Card, ...]] = []
    for rank in _MULTI_RANKS:
        copies = 1 if rank is Rank.ZERO else 2  # C1: one 0 of each colour, two of the rest
        for counts in itertools.product(range(copies + 1), repeat=4):
            if sum(counts) < 2:
                continue
            for first, last in itertools.product(range(4), repeat=2):
                if counts[first] < 1 + (first == last) or counts[last] < 1:
                    continue
                middle = list(counts)
                middle[first] -= 1
                middle[last] -= 1
                cards = [Card.of(PLAYABLE_COLORS[first], rank)]
                cards += [Card.of(PLAYABLE_COLORS[c], rank) for c in range(4) for _ in range(middle[c])]
                cards.append(Card.of(PLAYABLE_COLORS[last], rank))
                plays.append(tuple(cards))
    return plays


_RUN_CARDS: Final = _runs()
MULTI_PLAYS: Final = RUNS + 2 * len(_RUN_CARDS)  # 1445
_MULTI_CARDS: Final = _multi_plays()
ACTION_COUNT: Final = MULTI_PLAYS + 2 * len(_MULTI_CARDS)

# The cards and UNO call of every play index (one-card plays, runs and multi-plays), for `play_for`.
_PLAY_AT: Final[dict[int, tuple[tuple[Card, ...], bool]]] = {
    **{SINGLE_PLAYS + 2 * card.index + uno: ((card,), bool(uno)) for card in CARDS for uno in (0, 1)},
    **{RUNS + 2 * i + uno: (cards, bool(uno)) for i, cards in enumerate(_RUN_CARDS) for uno in (0, 1)},
    **{MULTI_PLAYS + 2 * i + uno: (cards, bool(uno)) for i, cards in enumerate(_MULTI_CARDS) for uno in (0, 1)},
}
# A run by its card indices; a multi-play by (first card, last card, every card's index sorted).
_RUN_INDEX: Final = {tuple(c.index for c in cards): RUNS + 2 * i for i, cards in enumerate(_RUN_CARDS)}
_MULTI_INDEX: Final = {
    (cards[0].index, cards[-1].index, tuple(sorted(c.index for c in cards))): MULTI_PLAYS + 2 * i
    for i, cards in enumerate(_MULTI_CARDS)
}


def action_count() -> int:
    """The size of the action space (13,421)."""
    return ACTION_COUNT


# By card index: a number card. `Rank.is_number` is an enum property, a Python call from compiled code.
_IS_NUMBER: Final = tuple(card.rank.is_number for card in CARDS)
_NO_ACTIONS: Final = bytearray(ACTION_COUNT)  # `mask_of` copies it: never written


def mask_of(indices: Iterable[int]) -> bytearray:
    """The action mask of `indices` (a `legal_indices` result, say): 1 at each, 0 elsewhere, as bytes that
    `numpy.frombuffer` reads without a copy."""
    mask = _NO_ACTIONS.copy()  # a copy: cheaper than making a bytearray of a size
    for index in indices:
        mask[index] = 1
    return mask


def play_for(index: int, seat: int) -> Play:
    """The `Play` a play index stands for, by `seat`. Raises KeyError for an index that is no play."""
    cards, uno = _PLAY_AT[index]
    return Play(seat, cards, uno)


def legal_indices(legal: Sequence[Action], seat: int, players: int, windows: Mapping[int, Window]) -> dict[int, Action]:
    """The indices `legal` (the engine's `legal_actions` for `seat`, with `windows` the game's open ones)
    unmasks, each with the engine action it stands for. A multi-play unmasks one index per colour its
    last card may have (module docstring); a React, the index of its window's kind (the oldest such
    window the seat may answer, when two are open).
    """
    out: dict[int, Action] = {}
    for action in legal:
        kind = type(action)
        if kind is Play:
            play = cast(Play, action)
            cards = play.cards
            uno = 1 if play.call_uno else 0
            if len(cards) == 1:
                out[2 * cards[0].index + uno] = action
            elif _IS_NUMBER[cards[0].index] and cards[1].rank is not cards[0].rank:
                out[_RUN_INDEX[tuple([c.index for c in cards])] + uno] = action
            else:
                _multi(out, play, seat, uno)
        elif kind is Draw:
            out[DRAW] = action
        elif kind is ChooseColor:
            out[CHOOSE_COLOR + color_slot(cast(ChooseColor, action).color)] = action
        elif kind is Pass:
            out[PASS] = action
        elif kind is CatchUno:
            out[CATCH + (cast(CatchUno, action).target - seat) % players - 1] = action
        elif kind is CallUno:
            out[CALL_UNO] = action
        elif kind is Challenge:
            out[CHALLENGE] = action
        elif kind is React:
            window = windows[cast(React, action).window]
            out.setdefault(REACT_SOUND_WILD if window.kind is _SOUND_WILD_WINDOW else REACT_SLAP, action)
        elif kind is ChooseSwapTarget:
            out[SWAP_TARGET + (cast(ChooseSwapTarget, action).target - seat) % players - 1] = action
        elif kind is FiveSwap:
            five = cast(FiveSwap, action)
            out[FIVE_SWAP + len(CARDS) * ((five.target - seat) % players - 1) + five.card.index] = action
        elif kind is GiveCard:
            out[GIVE_CARD + cast(GiveCard, action).card.index] = action
        else:  # pragma: no cover - legal_actions lists no other kind
            raise TypeError(f"no index for {action!r}")
    return out


def _multi(out: dict[int, Action], play: Play, seat: int, uno: int) -> None:
    cards = play.cards
    key = tuple(sorted([c.index for c in cards]))
    first = cards[0]
    seen: set[int] = set()
    for i, last in enumerate(cards):
        if i == 0 or last.index in seen:
            continue
        seen.add(last.index)
        index = _MULTI_INDEX[(first.index, last.index, key)] + uno
        out[index] = play if last is cards[-1] else play_for(index, seat)


def _name(index: int) -> str:
    if index in _PLAY_AT:
        cards, uno = _PLAY_AT[index]
        text = "play " + ", ".join(map(str, cards))
        return text + " and call UNO" if uno else text
    named = {DRAW: "draw", PASS: "pass", CHALLENGE: "challenge", CALL_UNO: "call UNO", DECLINE: "decline"}
    if index in named:
        return named[index]
    if CHOOSE_COLOR <= index < CATCH:
        return f"choose {PLAYABLE_COLORS[index - CHOOSE_COLOR].value}"
    if CATCH <= index < SWAP_TARGET:
        return f"catch the seat at offset {index - CATCH + 1}"
    if SWAP_TARGET <= index < REACT_SLAP:
        return f"swap hands with the seat at offset {index - SWAP_TARGET + 1}"
    if index == REACT_SLAP:
        return "slap (react to the UNO slap window)"
    if index == REACT_SOUND_WILD:
        return "react to the Sound Wild window"
    if GIVE_CARD <= index < FIVE_SWAP:
        return f"give back {CARDS[index - GIVE_CARD]}"
    offset, card = divmod(index - FIVE_SWAP, len(CARDS))
    return f"five-swap {CARDS[card]} to the seat at offset {offset + 1}"


ACTION_NAMES: Final[tuple[str, ...]] = tuple(_name(i) for i in range(ACTION_COUNT))
"""Every index's action in words (`ACTION_NAMES[116] == "draw"`)."""

assert ACTION_COUNT == 13_421
