"""What one seat observes: a flat uint8 vector of what it knows, laid out field by field.

Seats are named relative to the observer, as the action space names them (`unonet.rl.actions`):
relative seat 0 is the observer, 1 the next seat clockwise (seat + 1 mod N), and so on, so a policy
reads "the player after me" at the same place whichever seat it plays. Cards are named by
`Card.index` (`unonet.engine.cards.CARDS`: the 13 coloured ranks of red, yellow, green and blue in
turn, 0-51, then wild, wild_draw_four, blank, sound_wild, plus_one, plus_two, 52-57).

`ObservationLayout(players).fields` lists every field with its offset, size and meaning (docs/rl.md
prints the table); `encode` builds the vector. Nothing in it is hidden from the seat: its own hand,
the public facts of the table (the seat view's), the public history of `unonet.rl.history` and what
this seat alone was shown (its drawn card, a 5-swap's card, a challenge's reveal, a swap's hands).
Counts are raw (hand sizes, an obligation's amount), not scaled, and capped at 255 (no count in one
round comes near): a learner normalises as it likes.

The vector is joined from byte strings in one C call, most of them prebuilt (each one-hot field's
strings, the blocks of zeros of the fields usually empty; the history's rows are its own byte strings),
and handed out as a numpy view of the joined `bytearray`, one numpy call per observation: building it is
meant to stay well under a third of an environment step (bench/rl.py measures the share).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from unonet.engine import Game, Phase, Rank, WindowKind, is_bluff
from unonet.engine.cards import CARDS, Card, Color, color_slot
from unonet.rl.actions import mask_of
from unonet.rl.history import PublicHistory
from unonet.rl.table import LearningTable

__all__ = ["Field", "ObservationLayout", "masked_observation"]

_PHASES: Final = tuple(Phase)
_WINDOW_KINDS: Final = tuple(WindowKind)
_OBLIGATION_KINDS: Final = (Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.BLANK)
_CARDS: Final = len(CARDS)
_WILD_DRAW_FOUR_INDEX: Final = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR).index
# Upper bounds for counts, so the observation space is bounded: no hand, pile or obligation holds more
# cards than the largest deck (C1 and C2: 108 + 4 + 8 + 4), and no two copies of a coloured card exist.
_MOST_CARDS: Final = 124.0
_MOST_COPIES: Final = 8.0  # sound wilds (C2); every other card has at most 4 copies
_MOST_VERDICTS: Final = 255.0


def _onehots(size: int) -> tuple[bytes, ...]:
    """Each one-hot byte string of `size` numbers, then (at index `size`) all zeros."""
    return (*(bytes(i) + b"\x01" + bytes(size - i - 1) for i in range(size)), bytes(size))


# The pieces `encode` picks by index (see its docstring).
_CARD_ONEHOT: Final = _onehots(_CARDS)  # index 58: no card
_COLOR_ONEHOT: Final = _onehots(5)
_PHASE_ONEHOT: Final = _onehots(len(_PHASES))
_BIT: Final = (b"\x00", b"\x01")
_NO_TWO_CARDS: Final = bytes(2 * _CARDS)
# clockwise, the phase one-hot and offer in one piece, at (clockwise * len(_PHASES) + phase) * 2 + offer
_HEAD: Final = tuple(
    _BIT[clockwise] + phase + _BIT[offer] for clockwise in (0, 1) for phase in _PHASE_ONEHOT[:-1] for offer in (0, 1)
)
_BYTE: Final = tuple(bytes([i]) for i in range(256))
_NO_CARDS: Final = bytes(_CARDS)
_NO_CARDS_ROW: Final = bytearray(_CARDS)  # copied, then written
_JOINER: Final = bytearray()  # `bytearray().join`: the observation's own writable buffer, in one copy
_UINT8: Final = np.dtype(np.uint8)
_INT8: Final = np.dtype(np.int8)


@dataclass(frozen=True, slots=True)
class Field:
    """One field of the observation: where it starts, how many numbers it has, their bound, what it says."""

    name: str
    offset: int
    size: int
    high: float
    meaning: str

    def __reduce__(self) -> tuple[type[Field], tuple[str, int, int, float, str]]:
        """Pickled through `__init__`: the compiled build's own unpickling of a native frozen class sets
        the fields one by one, which the frozen `__setattr__` refuses."""
        return Field, (self.name, self.offset, self.size, self.high, self.meaning)


class ObservationLayout:
    """The observation's fields for a table of `players` seats (the vector's length depends on it)."""

    def __init__(self, players: int) -> None:
        self.players = n = players
        others = n - 1
        spec: list[tuple[str, int, float, str]] = [
            ("hand", _CARDS, _MOST_COPIES, "copies of each card in this seat's hand"),
            ("top", _CARDS, 1, "the top card of the discard pile, one-hot"),
            ("color", 5, 1, "the colour in force: red, yellow, green, blue, or none (after a Sound Wild, H12)"),
            ("clockwise", 1, 1, "1 while play goes clockwise (to seat + 1), 0 the other way"),
            ("phase", len(_PHASES), 1, "what the game waits for, one-hot: " + ", ".join(p.value for p in _PHASES)),
            (
                "offer",
                1,
                1,
                "1 when this decision is an optional out-of-turn chance (DECLINE unmasked), 0 when required",
            ),
            ("drawn", _CARDS, 1, "the card this seat just drew and may still play (phase after_draw), one-hot"),
            ("swap_card", _CARDS, 1, "the card a pending 5-swap offers, shown to its giver and its target (H11)"),
            (
                "bluff",
                1,
                1,
                "1 when a Wild Draw Four this seat played now would be unfair (T2): a challenge finds it guilty",
            ),
            ("obligation", 1, 1, "1 while a draw obligation is open"),
            ("obligation_amount", 1, _MOST_CARDS, "how many cards the open obligation asks for"),
            ("obligation_kind", 3, 1, "the card that set or last raised it: Draw Two, Wild Draw Four, Blank"),
            ("obligation_target", n, 1, "the obligation's target, by relative seat"),
            ("obligation_setter", n, 1, "the seat that set it, by relative seat"),
            ("obligation_challengeable", 1, 1, "1 when its target may challenge it (a Wild Draw Four, B1)"),
            ("hand_sizes", n, _MOST_CARDS, "cards in each seat's hand, by relative seat"),
            ("in_play", n, 1, "1 for each seat playing this round"),
            ("uno_catchable", n, 1, "1 for a seat that can be caught now: one card, no UNO call (U2)"),
            ("uno_called", n, 1, "1 for a seat that called UNO and still holds one card"),
            ("current", n, 1, "the seat whose turn it is, one-hot"),
            ("to_act", n, 1, "the seat the game waits for, one-hot; all 0 while a blocking window holds play"),
            ("dealer", n, 1, "the dealer, one-hot"),
            ("silence", n, 1, "H14: the seat whose 2 started the silence now kept, one-hot"),
            (
                "windows_open",
                len(_WINDOW_KINDS),
                10,
                "open reaction windows by kind: " + ", ".join(k.value for k in _WINDOW_KINDS),
            ),
            ("windows_eligible", len(_WINDOW_KINDS), 10, "of those, how many this seat may answer"),
            ("draw_pile", 1, _MOST_CARDS, "cards in the draw pile"),
            ("discard_pile", 1, _MOST_CARDS, "cards in the discard pile"),
            ("discards", _CARDS, _MOST_COPIES, "history: copies of each card face up in the discard pile"),
            (
                "known",
                others * _CARDS,
                _MOST_COPIES,
                "history: copies of each card this seat knows are in "
                "each other hand, relative seats 1 to N-1, 58 cards each",
            ),
            (
                "excluded",
                others * _CARDS,
                1,
                "history: 1 for each card a fair Wild Draw Four says each other "
                "hand lacks (B4, T2), relative seats 1 to N-1",
            ),
            (
                "lacks",
                others * 4,
                1,
                "history: the colours each other seat drew on and has not played since, "
                "red, yellow, green, blue, relative seats 1 to N-1",
            ),
            (
                "verdicts",
                2 * n,
                _MOST_VERDICTS,
                "history: each seat's challenged Wild Draw Fours found guilty and innocent, two per relative seat",
            ),
        ]
        fields: list[Field] = []
        offset = 0
        for name, size, high, meaning in spec:
            fields.append(Field(name, offset, size, float(high), meaning))
            offset += size
        self.fields: tuple[Field, ...] = tuple(fields)
        self.size = offset
        self.high = np.concatenate([np.full(f.size, min(f.high, 255), np.uint8) for f in fields])
        self._at = {f.name: f.offset for f in fields}
        # The pieces `encode` joins that depend on the seat count: relative seats one-hot (index n: none),
        # and the all-zero blocks of the fields that are usually empty.
        onehot = _onehots(n)
        # current and to_act, or dealer and silence: the first one-hot, the second one-hot or (n) none
        self._seat_pairs = tuple(first + second for first in onehot[:n] for second in onehot)
        self._all_in_play = bytes([1] * n)
        self._everyone_quiet = self._all_in_play + bytes(2 * n)
        self._no_seats = bytes(n)
        self._seat_row = bytearray(n)  # copied, then written
        # bluff, then the obligation's fields while there is none
        self._bluff_without_obligation = (bytes(7 + 2 * n), b"\x01" + bytes(6 + 2 * n))
        self._no_windows = bytes(2 * len(_WINDOW_KINDS))
        self._no_rows = bytes(others * _CARDS)
        self._no_verdicts = bytes(2 * n)

    def __reduce__(self) -> tuple[type[ObservationLayout], tuple[int]]:
        """Pickled as its seat count, which builds the rest (a native class has no `__dict__` to copy)."""
        return ObservationLayout, (self.players,)

    def offset(self, name: str) -> int:
        """Where field `name` starts. Raises KeyError for an unknown name."""
        return self._at[name]

    def encode(self, game: Game, history: PublicHistory, seat: int, *, offer: bool) -> npt.NDArray[np.uint8]:
        """The observation of `seat` in `game` (with its round's `history`); `offer` marks an optional chance.

        Built as the fields' pieces joined in one C call: one-hot fields are prebuilt byte strings picked
        by index, the usually empty fields a prebuilt block of zeros, the history's rows its own byte
        strings, each seat's hand size a one-byte piece; only the hand's counts are written, into a copy
        of a zeroed row. The result is a fresh writable array (a learner may keep it) over the joined
        bytes: one numpy call. (callgrind, standard rules, 2 players: about 11,500 instructions an
        observation, a fifth of them the join and a sixth numpy's array.)
        """
        n = self.players
        hand = game.hands[seat]
        counts = _NO_CARDS_ROW.copy()  # a copy: cheaper than making a bytearray of a size
        held = 0  # the card indices seen, a bit each: a first copy is stored, not read and added to
        for card in hand:
            index = card.index
            bit = 1 << index
            if held & bit:
                count: int = counts[index]
                counts[index] = count + 1
            else:
                counts[index] = 1
                held |= bit
        wild_draw_four = (held >> _WILD_DRAW_FOUR_INDEX) & 1 == 1
        onehot = _CARD_ONEHOT
        to_act = game.to_act
        drawn = game.drawn
        swap = game.pending_swap
        silence = game.silence
        obligation = game.obligation
        bluff = 1 if wild_draw_four and is_bluff(game, seat) else 0
        head = ((1 if game.direction == 1 else 0) * len(_PHASES) + _slot(game.phase, _PHASES)) * 2
        pieces: list[bytes | bytearray] = [
            counts,
            onehot[game.discard[-1].index],
            _COLOR_ONEHOT[color_slot(game.color)],
            _HEAD[head + (1 if offer else 0)],  # clockwise, phase, offer
        ]
        drawn_index = drawn.index if drawn is not None and to_act == seat else _CARDS
        swap_index = swap[2].index if swap is not None and (seat == swap[0] or seat == swap[1]) else _CARDS
        if drawn_index == _CARDS and swap_index == _CARDS:
            pieces.append(_NO_TWO_CARDS)
        else:
            pieces.append(onehot[drawn_index])
            pieces.append(onehot[swap_index])
        if obligation is None:
            pieces.append(self._bluff_without_obligation[bluff])
        else:
            pieces.append(_BIT[bluff])
            pieces.append(self._obligation(game, seat))
        self._seats(pieces, game, history, seat)
        pairs, n1 = self._seat_pairs, n + 1  # a pair of relative seats, the second one possibly none (n)
        pieces.append(pairs[((game.current - seat) % n) * n1 + (n if to_act is None else (to_act - seat) % n)])
        pieces.append(pairs[((game.dealer - seat) % n) * n1 + (n if silence is None else (silence - seat) % n)])
        pieces.append(self._windows(game, seat) if game.windows else self._no_windows)
        pieces.append(_BYTE[min(len(game.draw_pile), 255)])
        pieces.append(_BYTE[min(len(game.discard), 255)])
        pieces.append(history.discard)
        # The rarer history (known cards, verdicts) is one block of zeros while there is none.
        if history.any_known:
            known = history.known[seat]
            for r in range(1, n):
                row = known[(seat + r) % n]
                pieces.append(_NO_CARDS if row is None else row)
        else:
            pieces.append(self._no_rows)
        excluded = history.excluded
        for r in range(1, n):
            ban = excluded[(seat + r) % n]
            pieces.append(_NO_CARDS if ban is None else ban)
        lacks = history.lacks
        for r in range(1, n):
            pieces.append(lacks[(seat + r) % n])
        pieces.append(self._verdicts(history, seat) if history.any_verdicts else self._no_verdicts)
        return np.frombuffer(_JOINER.join(pieces), _UINT8)

    def _obligation(self, game: Game, seat: int) -> bytearray:
        """The open obligation's fields: obligation, amount, kind, target, setter, challengeable."""
        obligation = game.obligation
        assert obligation is not None
        n = self.players
        block = bytearray(6 + 2 * n)
        block[0] = 1
        block[1] = min(obligation.amount, 255)
        block[2 + _slot(obligation.kind, _OBLIGATION_KINDS)] = 1
        block[5 + (obligation.target - seat) % n] = 1
        block[5 + n + (obligation.setter - seat) % n] = 1
        if obligation.bluff is not None and game.ruleset.can_challenge:
            block[5 + 2 * n] = 1
        return block

    def _seats(self, pieces: list[bytes | bytearray], game: Game, history: PublicHistory, seat: int) -> None:
        """hand_sizes, in_play, uno_catchable and uno_called, by relative seat."""
        n = self.players
        hands = game.hands
        in_play = game.in_play
        uno_called = history.uno_called
        everyone = True
        called: bytearray | None = None
        for r in range(n):  # hand_sizes: a one-byte piece a seat, in relative order (no store, no buffer)
            s = (seat + r) % n
            if not in_play[s]:
                everyone = False
                pieces.append(_BYTE[0])
                continue
            size = len(hands[s])
            pieces.append(_BYTE[size if size < 255 else 255])
            if size == 1 and uno_called[s]:
                if called is None:
                    called = self._seat_row.copy()
                called[r] = 1
        if everyone and not game.catchable and called is None:
            pieces.append(self._everyone_quiet)  # in_play all 1, uno_catchable and uno_called all 0
            return
        if everyone:
            pieces.append(self._all_in_play)
        else:
            playing = self._seat_row.copy()
            for s in range(n):
                if in_play[s]:
                    playing[(s - seat) % n] = 1
            pieces.append(playing)
        if game.catchable:
            catchable = self._seat_row.copy()
            for s in game.catchable:
                catchable[(s - seat) % n] = 1
            pieces.append(catchable)
        else:
            pieces.append(self._no_seats)
        pieces.append(self._no_seats if called is None else called)

    def _windows(self, game: Game, seat: int) -> bytearray:
        """windows_open and windows_eligible: the open windows by kind, and those this seat may answer."""
        kinds = len(_WINDOW_KINDS)
        block = bytearray(2 * kinds)
        for window in game.windows.values():
            slot = _slot(window.kind, _WINDOW_KINDS)
            block[slot] += 1
            if seat in window.eligible:
                block[kinds + slot] += 1
        return block

    def _verdicts(self, history: PublicHistory, seat: int) -> bytearray:
        """Each seat's challenged Wild Draw Fours found guilty and innocent, two per relative seat."""
        n = self.players
        block = bytearray(2 * n)
        verdicts = history.verdicts
        for r in range(n):
            guilty, innocent = verdicts[(seat + r) % n]
            block[2 * r] = min(guilty, 255)
            block[2 * r + 1] = min(innocent, 255)
        return block


def masked_observation(
    layout: ObservationLayout, table: LearningTable, seat: int, no_mask: npt.NDArray[np.int8]
) -> dict[str, npt.NDArray[Any]]:
    """The PettingZoo observation of `seat` at `table` (`unonet.rl.aec`): its vector, and its action mask
    (int8 over the 13,421 indices) when it is the seat asked, else `no_mask`. In one compiled call: read
    from the interpreter, each of the table's attributes would be a descriptor call of its own."""
    if seat != table.seat:
        return {"observation": layout.encode(table.game, table.history, seat, offer=False), "action_mask": no_mask}
    observation = layout.encode(table.game, table.history, seat, offer=not table.required)
    return {"observation": observation, "action_mask": np.frombuffer(mask_of(table.legal), _INT8)}


def _slot(member: object, members: tuple[object, ...]) -> int:
    """`members.index(member)` by identity: an enum member's hash is a Python call, a dict lookup's cost."""
    for slot, candidate in enumerate(members):
        if candidate is member:
            return slot
    raise ValueError(f"{member!r} is none of {members!r}")
