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

The vector is written byte by byte into a `bytearray` (the history's rows are byte strings copied in
one slice each) and handed out as a numpy view of it, one numpy call per observation: building it is
meant to stay well under a third of an environment step (bench/rl.py measures the share).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from unonet.engine import Game, Phase, Rank, WindowKind, is_bluff
from unonet.engine.cards import CARDS, Card, Color, color_slot
from unonet.rl.history import PublicHistory

__all__ = ["Field", "ObservationLayout"]

_PHASES: Final = tuple(Phase)
_WINDOW_KINDS: Final = tuple(WindowKind)
_OBLIGATION_KINDS: Final = (Rank.DRAW_TWO, Rank.WILD_DRAW_FOUR, Rank.BLANK)
_CARDS: Final = len(CARDS)
_WILD_DRAW_FOUR_CARD: Final = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR)
# Upper bounds for counts, so the observation space is bounded: no hand, pile or obligation holds more
# cards than the largest deck (C1 and C2: 108 + 4 + 8 + 4), and no two copies of a coloured card exist.
_MOST_CARDS: Final = 124.0
_MOST_COPIES: Final = 8.0  # sound wilds (C2); every other card has at most 4 copies
_MOST_VERDICTS: Final = 255.0


@dataclass(frozen=True, slots=True)
class Field:
    """One field of the observation: where it starts, how many numbers it has, their bound, what it says."""

    name: str
    offset: int
    size: int
    high: float
    meaning: str


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
        at = {f.name: f.offset for f in fields}
        self._at = at
        # Each field's offset as an attribute of its own, for `encode` (a native int in the compiled build).
        self._hand, self._top, self._color, self._clockwise = at["hand"], at["top"], at["color"], at["clockwise"]
        self._phase, self._offer, self._drawn, self._swap_card = at["phase"], at["offer"], at["drawn"], at["swap_card"]
        self._bluff, self._obligation = at["bluff"], at["obligation"]
        self._obligation_amount, self._obligation_kind = at["obligation_amount"], at["obligation_kind"]
        self._obligation_target, self._obligation_setter = at["obligation_target"], at["obligation_setter"]
        self._obligation_challengeable = at["obligation_challengeable"]
        self._hand_sizes, self._in_play, self._uno_called = at["hand_sizes"], at["in_play"], at["uno_called"]
        self._uno_catchable, self._current, self._to_act = at["uno_catchable"], at["current"], at["to_act"]
        self._dealer, self._silence = at["dealer"], at["silence"]
        self._windows_open, self._windows_eligible = at["windows_open"], at["windows_eligible"]
        self._draw_pile, self._discard_pile, self._discards = at["draw_pile"], at["discard_pile"], at["discards"]
        self._known, self._excluded, self._lacks, self._verdicts = (
            at["known"],
            at["excluded"],
            at["lacks"],
            at["verdicts"],
        )

    def offset(self, name: str) -> int:
        """Where field `name` starts. Raises KeyError for an unknown name."""
        return self._at[name]

    def encode(self, game: Game, history: PublicHistory, seat: int, *, offer: bool) -> npt.NDArray[np.uint8]:
        """The observation of `seat` in `game` (with its round's `history`); `offer` marks an optional chance.

        The vector is written into a zeroed `bytearray`, one store per number that is not 0 (the
        history's rows copied in one slice each), and handed out as a numpy view of it: one numpy call.
        """
        n = self.players
        out = bytearray(self.size)
        hands = game.hands
        hand = hands[seat]
        at = self._hand
        for card in hand:
            out[at + card.index] += 1
        out[self._top + game.discard[-1].index] = 1
        out[self._color + color_slot(game.color)] = 1
        if game.direction == 1:
            out[self._clockwise] = 1
        out[self._phase + _slot(game.phase, _PHASES)] = 1
        if offer:
            out[self._offer] = 1
        to_act = game.to_act
        drawn = game.drawn
        if drawn is not None and to_act == seat:
            out[self._drawn + drawn.index] = 1
        swap = game.pending_swap
        if swap is not None and (seat == swap[0] or seat == swap[1]):
            out[self._swap_card + swap[2].index] = 1
        if _WILD_DRAW_FOUR_CARD in hand and is_bluff(game, seat):
            out[self._bluff] = 1
        obligation = game.obligation
        if obligation is not None:
            out[self._obligation] = 1
            out[self._obligation_amount] = min(obligation.amount, 255)
            out[self._obligation_kind + _slot(obligation.kind, _OBLIGATION_KINDS)] = 1
            out[self._obligation_target + (obligation.target - seat) % n] = 1
            out[self._obligation_setter + (obligation.setter - seat) % n] = 1
            if obligation.bluff is not None and game.ruleset.can_challenge:
                out[self._obligation_challengeable] = 1
        uno_called = history.uno_called
        in_play = game.in_play
        at_sizes, at_in_play, at_called = self._hand_sizes, self._in_play, self._uno_called
        for s in range(n):
            if not in_play[s]:
                continue
            r = (s - seat) % n
            size = len(hands[s])
            out[at_sizes + r] = size if size < 255 else 255
            out[at_in_play + r] = 1
            if size == 1 and uno_called[s]:
                out[at_called + r] = 1
        if game.catchable:
            at = self._uno_catchable
            for s in game.catchable:
                out[at + (s - seat) % n] = 1
        out[self._current + (game.current - seat) % n] = 1
        if to_act is not None:
            out[self._to_act + (to_act - seat) % n] = 1
        out[self._dealer + (game.dealer - seat) % n] = 1
        if game.silence is not None:
            out[self._silence + (game.silence - seat) % n] = 1
        if game.windows:
            opened, eligible = self._windows_open, self._windows_eligible
            for window in game.windows.values():
                slot = _slot(window.kind, _WINDOW_KINDS)
                out[opened + slot] += 1
                if seat in window.eligible:
                    out[eligible + slot] += 1
        out[self._draw_pile] = min(len(game.draw_pile), 255)
        out[self._discard_pile] = min(len(game.discard), 255)
        at = self._discards
        out[at : at + _CARDS] = history.discard
        # The rarer history (known cards, exclusions, verdicts) is skipped whole while there is none.
        known = history.known[seat] if history.any_known else None
        excluded = history.excluded
        lacks = history.lacks
        at_known, at_excluded, at_lacks = self._known, self._excluded, self._lacks
        for r in range(1, n):
            s = (seat + r) % n
            if known is not None:
                row = known[s]
                if row is not None:
                    at = at_known + (r - 1) * _CARDS
                    out[at : at + _CARDS] = row
            ban = excluded[s]
            if ban is not None:
                at = at_excluded + (r - 1) * _CARDS
                out[at : at + _CARDS] = ban
            at = at_lacks + (r - 1) * 4
            out[at : at + 4] = lacks[s]
        if history.any_verdicts:
            verdicts = history.verdicts
            at = self._verdicts
            for r in range(n):
                guilty, innocent = verdicts[(seat + r) % n]
                out[at + 2 * r] = min(guilty, 255)
                out[at + 2 * r + 1] = min(innocent, 255)
        return np.frombuffer(out, np.uint8)


def _slot(member: object, members: tuple[object, ...]) -> int:
    """`members.index(member)` by identity: an enum member's hash is a Python call, a dict lookup's cost."""
    for slot, candidate in enumerate(members):
        if candidate is member:
            return slot
    raise ValueError(f"{member!r} is none of {members!r}")
