"""How a seat's draw picks its card: per-seat draw streams for duplicate deals.

By default a draw takes the top of the pile, and the pile's order is the deck's (rule T5): two games
dealt from one deck order give the same seat the same draws only while both have drawn exactly the
same number of cards in the same order. A league replays a deal with the seats rotated (duplicate
deals) to cancel the luck of the cards, but once play diverges, who draws which card shifts, and in
UNO most of the luck is in the draws.

`SeatDraws` gives every seat its own order over the cards the pile holds, an exponential race
written in integers, so that a seat's draws depend on (seed, round, seat) and on which cards the pile
holds, never on the pile's order, while every draw stays a uniformly random card of the pile: a game's
distribution is exactly that of a shuffled pile. When a seat draws and the pile holds no card that it
did not hold at that seat's last draw (the usual case: since then cards only left it), the seat keeps
its numbers; otherwise (the first draw of the round, or cards came back since, a rebuild from the
discards) the seat starts a new epoch e (0, 1, ...) and each card the pile holds, the j-th copy of a
card name c (j = 0 up to the copies held, less one), gets the 64-bit number

    u(e, c, j) = BLAKE2b (unkeyed, digest size 8), read big-endian, of the bytes
                 "unonet-seat-draw/v1" 0x00 seed round seat e c 0x00 j

(seed as 8 big-endian bytes; round, seat and e as 4 big-endian bytes each, the round numbered from 1,
seats and epochs from 0; `c` the card's name as `str(Card)` writes it, "red 5" or "wild", in UTF-8; j
as 2 big-endian bytes). The seat draws the card whose number is the largest of the numbers it still
holds (ties, at odds of 2^-64 a pair, go to the smallest name), and that number goes with the card.
When others took a copy of c since, the seat drops its last number of c (the highest j left), so it
holds exactly one number per card of the pile.

Why a draw is uniform: the numbers are independent and uniform; after a seat drew the card with the
largest number of the pile it held, the numbers left are independent and uniform below that one, and
the pile at its next draw holds only cards it held then (others took cards by their own numbers, or
the seat would have started a new epoch), so each card of the pile is equally likely to hold the
largest again. `tests/engine/test_draws.py` checks it with a chi-square over every order of a small
pile.

Why it cancels luck: each seat draws the pile's cards in its own fixed order, skipping those others
took. Two games dealt from one seed give a seat the same sequence of cards, even when it drew more
cards in one game than in the other (a penalty, a draw where the other bot had a play): it is only
further along the same sequence. So in the rotated replay of a deal each seat keeps drawing the cards
the other bot drew from that seat, and the two games differ only where the bots' choices took
different cards out of the pile.

Only the draws a seat makes take this path (`Game._draw` and a turn's draw-until-playable); the deal
and the first card still come off the top of the shuffled deck, so both games of a deal are dealt the
same hands. docs/leagues.md says when a league uses it; docs/fairness.md how to recompute a draw.
"""

from __future__ import annotations

from hashlib import blake2b

from unonet.engine.cards import Card

__all__ = ["SeatDraws", "draw_number"]

_DOMAIN = b"unonet-seat-draw/v1\0"
_NAMES: dict[int, bytes] = {}  # a card's key -> its name's bytes, with the separator after it


def draw_number(seed: int, round_no: int, seat: int, epoch: int, card: Card, copy: int) -> int:
    """u(e, c, j) of the module's docstring: the number of the `copy`-th copy of `card` in the pile
    that `seat` holds in its `epoch` of round `round_no`."""
    prefix = _DOMAIN + seed.to_bytes(8, "big") + round_no.to_bytes(4, "big") + seat.to_bytes(4, "big")
    return _number(prefix + epoch.to_bytes(4, "big"), _name(card), copy)


class _Stream:
    """One seat's numbers: its epoch, and per card name the numbers of the copies it holds (by j)."""

    __slots__ = ("epoch", "numbers")

    def __init__(self) -> None:
        self.epoch = -1
        self.numbers: dict[Card, list[int]] = {}


class SeatDraws:
    """The draws of one round, each seat drawing in its own order (the module's docstring).

    Mutable (each seat's numbers change as it draws); `Game` owns one per round and never shares it: a
    copy for search gets none, so a search can never read the draws to come."""

    __slots__ = ("_prefix", "_streams", "round_no", "seed")

    def __init__(self, seed: int, round_no: int = 1) -> None:
        """Raises ValueError for a seed outside 0 to 2^64 - 1 or a round below 1."""
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"a draw seed is an unsigned 64-bit number, not {seed}")
        if round_no < 1:
            raise ValueError(f"rounds are numbered from 1, not {round_no}")
        self.seed = seed
        self.round_no = round_no
        self._streams: dict[int, _Stream] = {}
        self._prefix = _DOMAIN + seed.to_bytes(8, "big") + round_no.to_bytes(4, "big")

    def for_round(self, round_no: int) -> SeatDraws:
        """The same seed's draws for round `round_no`, every seat on a fresh start (of this class)."""
        return type(self)(self.seed, round_no)

    def epoch(self, seat: int) -> int:
        """The epoch `seat` drew its last card in (-1 before its first draw of the round)."""
        stream = self._streams.get(seat)
        return -1 if stream is None else stream.epoch

    def state(self) -> tuple[object, ...]:
        """Everything that decides the next draws, as one comparable value (`Game.fingerprint`)."""
        return (
            self.seed,
            self.round_no,
            tuple(
                (
                    seat,
                    stream.epoch,
                    tuple(sorted((card.key, tuple(numbers)) for card, numbers in stream.numbers.items())),
                )
                for seat, stream in sorted(self._streams.items())
            ),
        )

    def take(self, pile: list[Card], seat: int) -> Card:
        """Remove and return `seat`'s next draw from `pile` (its order is left as it was but for the
        card taken). Raises IndexError on an empty pile."""
        if not pile:
            raise IndexError("draw from an empty pile")
        held: dict[Card, int] = {}
        for card in pile:
            held[card] = held.get(card, 0) + 1
        stream = self._streams.get(seat)
        if stream is None:
            stream = self._streams[seat] = _Stream()
        numbers = stream.numbers
        if stream.epoch < 0 or any(count > len(numbers.get(card, ())) for card, count in held.items()):
            stream.epoch += 1
            prefix = self._prefix + seat.to_bytes(4, "big") + stream.epoch.to_bytes(4, "big")
            numbers.clear()
            for card, count in held.items():
                name = _name(card)
                numbers[card] = [_number(prefix, name, copy) for copy in range(count)]
        else:
            for card in [card for card in numbers if card not in held]:
                del numbers[card]
            for card, count in held.items():
                del numbers[card][count:]  # others took copies: the last numbers go
        best, best_name, winner = -1, b"", pile[-1]
        for card, values in numbers.items():
            top = max(values)
            if top > best or (top == best and _name(card) < best_name):
                best, best_name, winner = top, _name(card), card
        values = numbers[winner]
        values.remove(best)
        if not values:
            del numbers[winner]
        # The last copy of the winner in the pile goes: which copy is immaterial, they are one card.
        index = len(pile) - 1 - pile[::-1].index(winner)
        del pile[index]
        return winner


def _name(card: Card) -> bytes:
    name = _NAMES.get(card.key)
    if name is None:
        name = _NAMES[card.key] = str(card).encode() + b"\0"
    return name


def _number(prefix: bytes, name: bytes, copy: int) -> int:
    return int.from_bytes(blake2b(prefix + name + copy.to_bytes(2, "big"), digest_size=8).digest(), "big")
