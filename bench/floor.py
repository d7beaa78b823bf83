"""The floor: the fastest plain pure-Python two-player UNO random playout we could write.

Issue 2 asks `bench/engine.py` for 5x RLCard's games per second with 2 players. This module exists to
show how much of that target any pure-Python engine can reach on this interpreter: it plays the same
rounds as the bench (deal, then random legal moves until the first player is out) with nothing but the
core rules, written for speed alone. No engine that does more per move can be faster, so if this loop
falls short of 5x RLCard the target is out of reach in pure Python, and if it clears it, its margin
says how little else an engine may do per move and still get there. `floor_ratio_2p` in
`bench/engine.py --json` is this loop against RLCard, measured in the same process and run as the
engine's figures.

What it plays (the official rules, two players):
- 108 cards (C1), shuffled, seven each; the first card turned follows S4 (a Wild Draw Four goes back
  and the pile is reshuffled; a Wild lets the first player name the colour; Skip, Reverse and Draw Two
  act as if the dealer had played them).
- A card matches the colour in force, the number or the symbol, and black cards always fit (T1).
- Skip and Reverse let the player go again (with two players a Reverse is a Skip, T7); Draw Two and
  Wild Draw Four make the opponent draw 2 or 4 and lose their turn; a Wild names a colour.
- A player who cannot play draws one card and plays it at once if it fits, else the turn passes.
- An empty draw pile is rebuilt from the discards under the top card, shuffled (T5).
- The same policy as the bench: uniformly random among the playable cards, a uniformly random colour.

What it leaves out, each a real rule or duty of the engine: keeping a drawn card that fits, UNO calls
and catches, Wild Draw Four bluffing and challenges (a Wild Draw Four may be played at any time, as if
nobody ever challenged), the points of a round and everything after the first player out, house rules,
more than two players, and every check, event and view: actions are never validated, because the loop
only makes legal ones, and nothing is recorded. It is a measuring stick, not an engine.

How it is fast: a card is an int (colour * 16 + rank) and the colour and rank in force are one int of
the same form, so whether a card fits is one lookup in a table built per state; random draws use
`Random.random()` scaled to the length rather than `Random.choice` (the same distribution up to 2**-53),
and the deck is shuffled by sorting on random keys (a uniform permutation, cheaper than
`Random.shuffle` in CPython).

Run on its own: `python bench/floor.py [GAMES]`.
"""

from __future__ import annotations

import random
import sys
import time

from batch import Batch

RED, YELLOW, GREEN, BLUE, BLACK = range(5)
SKIP, REVERSE, DRAW_TWO, WILD, WILD_DRAW_FOUR = 10, 11, 12, 13, 14
HAND_SIZE = 7

# C1: one 0 and two each of 1-9, Skip, Reverse and Draw Two per colour; four Wilds, four Wild Draw Fours.
DECK: tuple[int, ...] = (
    *(color * 16 + rank for color in range(4) for rank in (0, *[r for r in range(1, 13) for _ in (0, 1)])),
    *[BLACK * 16 + WILD] * 4,
    *[BLACK * 16 + WILD_DRAW_FOUR] * 4,
)
# FITS[state][card]: does `card` fit when the colour and rank in force are `state` (colour * 16 + rank)?
FITS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(card >> 4 == BLACK or card >> 4 == state >> 4 or card & 15 == state & 15 for card in range(80))
    for state in range(80)
)


def play_round(rng: random.Random) -> int:
    """Play one two-player round to the first player out.

    Returns the moves made: a play, a draw, or a draw and the play of the drawn card count one each.
    """
    rand = rng.random
    pile = sorted(DECK, key=lambda _: rand())  # the top of the pile is the end of the list
    hands = [pile[-HAND_SIZE:], pile[-2 * HAND_SIZE : -HAND_SIZE]]
    del pile[-2 * HAND_SIZE :]
    top = pile.pop()
    while top == BLACK * 16 + WILD_DRAW_FOUR:  # S4: returned to the pile, which is reshuffled
        pile.append(top)
        pile.sort(key=lambda _: rand())
        top = pile.pop()
    discard = [top]
    turn = 1  # the dealer is seat 0; the player to the dealer's left starts
    rank = top & 15
    state = (int(rand() * 4) << 4 | rank) if rank == WILD else top
    if rank in (SKIP, REVERSE):
        turn = 0
    elif rank == DRAW_TWO:
        hands[1] += [pile.pop(), pile.pop()]
        turn = 0
    actions = 0
    while True:
        actions += 1
        hand = hands[turn]
        fits = FITS[state]
        playable = [card for card in hand if fits[card]]
        if playable:
            card = playable[int(rand() * len(playable))]
            hand.remove(card)
        else:  # T3: draw one, and play it at once if it fits
            if not pile:
                pile = discard[:-1]
                pile.sort(key=lambda _: rand())
                del discard[:-1]
            if not pile:  # every card is in a hand: the turn passes
                turn ^= 1
                continue
            card = pile.pop()
            if not fits[card]:
                hand.append(card)
                turn ^= 1
                continue
        discard.append(card)
        if not hand:
            return actions
        rank = card & 15
        if rank < SKIP:
            state = card
            turn ^= 1
        elif rank >= WILD:
            state = int(rand() * 4) << 4 | rank
            if rank == WILD:
                turn ^= 1
            else:  # the opponent draws four and loses the turn
                _give(rng, hands[turn ^ 1], 4, pile, discard)
        else:  # Skip, Reverse (T7) and Draw Two: the same player goes again
            state = card
            if rank == DRAW_TWO:
                _give(rng, hands[turn ^ 1], 2, pile, discard)


def _give(rng: random.Random, hand: list[int], count: int, pile: list[int], discard: list[int]) -> None:
    """The opponent draws `count`, the pile rebuilt from the discards under the top card as needed."""
    for _ in range(count):
        if not pile:
            rand = rng.random
            pile += discard[:-1]
            pile.sort(key=lambda _: rand())
            del discard[:-1]
            if not pile:
                return
        hand.append(pile.pop())


def play_floor(games: int, seed: int) -> Batch:
    """Play `games` rounds from `seed`, timed with `time.perf_counter()` as `bench/engine.py` times its own."""
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for _ in range(games):
        actions += play_round(rng)
    return Batch(games, actions, time.perf_counter() - start)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    play_floor(1_000, 7)
    result = play_floor(count, 20260101)
    print(f"floor, 2 players: {result.games_per_s:,.0f} games/s, {result.actions_per_game:.1f} actions/game")
