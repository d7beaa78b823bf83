"""Per-seat draw streams (`unonet.engine.draws`): every draw uniform over the pile, and the same cards
for the same seat whatever the pile's order, so a league's rotated replays share their draws."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest

from unonet.engine import Card, Color, Match, find_ruleset
from unonet.engine.draws import SeatDraws, draw_number
from unonet.engine.search import playout

R1, G2, B3, Y4 = (Card.parse(name) for name in ("red 1", "green 2", "blue 3", "yellow 4"))


def chi2_999(df: int) -> float:
    """Pearson's chi-square at p = 0.001 by Wilson and Hilferty's approximation (49.84 for 23 degrees
    of freedom; the table's is 49.73). The seeds are fixed, so a test fails only if the draws are
    biased, never by chance from run to run."""
    z = 3.0902  # the normal's 0.999 quantile
    return df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3


def chi_square(observed: Counter[tuple[Card, ...]], expected: dict[tuple[Card, ...], Fraction], trials: int) -> float:
    assert set(observed) <= set(expected), "an outcome the rules cannot give"
    return sum((observed[cell] - trials * p) ** 2 / (trials * p) for cell, p in expected.items())


def test_every_draw_is_uniform_given_what_came_before() -> None:
    """Seat 0 draws, seat 1 draws, seat 0 draws again from four different cards: all 24 orders are
    equally likely, so each draw is uniform over the pile given the draws before it, the other
    seat's included (its numbers are its own)."""
    trials = 12_000
    observed: Counter[tuple[Card, ...]] = Counter()
    for seed in range(trials):
        pile = [R1, G2, B3, Y4]
        draws = SeatDraws(seed)
        observed[(draws.take(pile, 0), draws.take(pile, 1), draws.take(pile, 0))] += 1
    cells = {(a, b, c): Fraction(1, 24) for a in (R1, G2, B3, Y4) for b in (R1, G2, B3, Y4)
             for c in (R1, G2, B3, Y4) if len({a, b, c}) == 3}
    assert chi_square(observed, cells, trials) < chi2_999(len(cells) - 1)


def exact(pile: Sequence[Card], script: Sequence[int | None]) -> dict[tuple[Card, ...], Fraction]:
    """The law of `script` with every draw uniform over the pile: a seat number draws, None puts the
    first card drawn back on the pile (a rebuild)."""
    out: dict[tuple[Card, ...], Fraction] = {}

    def walk(left: list[Card], step: int, drawn: tuple[Card, ...], p: Fraction) -> None:
        if step == len(script):
            out[drawn] = out.get(drawn, Fraction(0)) + p
            return
        if script[step] is None:
            walk([*left, drawn[0]], step + 1, drawn, p)
            return
        for card, count in Counter(left).items():
            rest = list(left)
            rest.remove(card)
            walk(rest, step + 1, (*drawn, card), p * Fraction(count, len(left)))

    walk(list(pile), 0, (), Fraction(1))
    return out


def test_draws_stay_uniform_with_copies_and_a_rebuild() -> None:
    """Two copies of a card, the other seat taking one, then a card coming back (a new epoch): every
    sequence of draws has the chance uniform draws give it."""
    pile = [R1, R1, G2, B3, Y4]
    script = [0, 1, 0, None, 0]
    expected = exact(pile, script)
    trials = 30_000
    observed: Counter[tuple[Card, ...]] = Counter()
    for seed in range(trials):
        left, draws, drawn = list(pile), SeatDraws(seed, round_no=3), []
        for step in script:
            if step is None:
                left.append(drawn[0])
            else:
                drawn.append(draws.take(left, step))
        observed[tuple(drawn)] += 1
    assert min(expected.values()) * trials > 100  # every cell large enough for Pearson's test
    assert chi_square(observed, expected, trials) < chi2_999(len(expected) - 1)


def test_a_seat_draws_the_same_cards_whatever_the_piles_order() -> None:
    cards = [Card.parse(name) for name in ("red 1", "red 1", "green 2", "blue 3", "wild", "yellow 4", "red 7")] * 3
    first, second = list(cards), list(cards)
    random.Random(5).shuffle(second)
    a, b = SeatDraws(99), SeatDraws(99)
    seats = (0, 1, 0, 0, 1, 2, 0)
    assert [a.take(first, seat) for seat in seats] == [b.take(second, seat) for seat in seats]
    assert Counter(first) == Counter(second)


def test_a_seat_that_drew_more_is_further_along_the_same_sequence() -> None:
    """The other seat drawing first in one game and not the other leaves a seat's cards as they were:
    the same seed gives it the same sequence, less the copy the other seat took."""
    cards = [Card.parse(name) for name in ("red 1", "green 2", "blue 3", "wild", "yellow 4", "red 7", "blue 9")] * 2
    for seed in range(50):
        alone, shared = list(cards), list(cards)
        a, b = SeatDraws(seed), SeatDraws(seed)
        sequence = [a.take(alone, 0) for _ in range(6)]
        taken = b.take(shared, 1)  # the other seat drew first in this game
        rest = [b.take(shared, 0) for _ in range(5)]
        without = [sequence[:i] + sequence[i + 1:] for i, card in enumerate(sequence) if card is taken]
        assert rest in [sequence[:5], *(skipped[:5] for skipped in without)]


def test_draw_number_is_the_documented_blake2b() -> None:
    message = (b"unonet-seat-draw/v1\0" + (2026).to_bytes(8, "big") + (1).to_bytes(4, "big") + (0).to_bytes(4, "big")
               + (0).to_bytes(4, "big") + b"red 1\0" + (1).to_bytes(2, "big"))
    expected = int.from_bytes(hashlib.blake2b(message, digest_size=8).digest(), "big")
    assert draw_number(2026, 1, 0, 0, R1, 1) == expected
    # The first draw of a seat is the card with the largest number of epoch 0.
    pile = [R1, G2, G2]
    numbers = {(R1, 0): draw_number(2026, 1, 0, 0, R1, 0), (G2, 0): draw_number(2026, 1, 0, 0, G2, 0),
               (G2, 1): draw_number(2026, 1, 0, 0, G2, 1)}
    assert SeatDraws(2026).take(pile, 0) is max(numbers, key=numbers.__getitem__)[0]


def test_a_match_with_seat_draws_plays_out_and_accounts_for_every_card() -> None:
    for seed in range(20):
        match = Match(find_ruleset("standard"), 3, random.Random(seed), draws=SeatDraws(seed))
        match.start()
        game = match.game
        assert game.draws is not None and game.draws.round_no == 1
        assert game.copy().draws is None  # a search never reads the draws to come
        playout(game, random.Random(seed))
        cards = [card for hand in game.hands for card in hand] + game.draw_pile + game.discard
        assert len(cards) == 108


def test_seat_draws_refuse_a_seed_outside_64_bits() -> None:
    with pytest.raises(ValueError, match="64-bit"):
        SeatDraws(1 << 64)
    with pytest.raises(ValueError, match="rounds"):
        SeatDraws(1, round_no=0)
    with pytest.raises(IndexError):
        SeatDraws(1).take([], 0)


def test_draws_in_four_seat_playouts_take_each_colour_at_its_share_of_the_pile() -> None:
    """The streams' uniformity where it matters: real rounds of four seats, rebuilds included. Each
    draw's chance of a colour is that colour's share of the pile at that moment; summed over every
    draw, the counts drawn stay within four standard deviations of it."""
    observed: Counter[Color] = Counter()
    expected: Counter[Color] = Counter()
    variance: Counter[Color] = Counter()

    class Recording(SeatDraws):
        __slots__ = ()

        def take(self, pile: list[Card], seat: int) -> Card:
            held = Counter(card.color for card in pile)
            for color, count in held.items():
                share = count / len(pile)
                expected[color] += share
                variance[color] += share * (1 - share)
            card = super().take(pile, seat)
            observed[card.color] += 1
            return card

    for seed in range(300):
        match = Match(find_ruleset("standard"), 4, random.Random(seed), draws=Recording(seed))
        match.start()
        playout(match.game, random.Random(seed + 7))
    assert sum(observed.values()) > 5_000
    for color in expected:
        assert abs(observed[color] - expected[color]) < 4 * variance[color] ** 0.5, color
