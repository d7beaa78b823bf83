"""What just happened, said where it happened: the short banners the table shows on a seat or at the pile.

STYLE.md, "A table people enjoy": a skip, a reverse, a draw, a challenge, an UNO call or catch, a swap
or a round's end is shown where it happened (on the seat it happened to, or at the pile), briefly, then
gets out of the way. `banners_for(event, name_of)` is the one place that decides which events get a
banner, where and in what words; `GameModel` stamps each with the time it was shown and keeps the
latest few, and the layout shows a banner only while it is younger than its `life`.

An ordinary play gets a quiet banner on its seat ("▸ blue 4"), so a person following a paced
table sees where each card came from; the pile shows the last one and who played it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from unonet.client.narrate import refs_text
from unonet.v1 import actions_pb2, events_pb2

__all__ = ["BANNER_SECONDS", "PILE", "Banner", "banners_for"]

#: How long a banner stays on screen, in seconds (a round's end stays longer).
BANNER_SECONDS: Final = 3.0
ROUND_END_SECONDS: Final = 6.0
#: The place of a banner shown at the pile rather than on a seat.
PILE: Final = -1


@dataclass(frozen=True, slots=True)
class Banner:
    """One banner: where (a seat, or `PILE`), its words, its style class, when it was shown (host
    seconds) and how long it stays."""

    place: int
    text: str
    style: str = "banner"
    at: float = 0.0
    life: float = BANNER_SECONDS

    def is_shown(self, now: float) -> bool:
        """True while the banner is on screen at host time `now`."""
        return self.at <= now < self.at + self.life


_DRAW_WORDS: Final = {
    events_pb2.DRAW_REASON_TURN: "draws {n}",
    events_pb2.DRAW_REASON_OBLIGATION: "takes +{n}",
    events_pb2.DRAW_REASON_UNO_PENALTY: "+{n}: no UNO",
    events_pb2.DRAW_REASON_FALSE_CATCH: "+{n}: false catch",
    events_pb2.DRAW_REASON_CHALLENGE_LOST: "+{n}: lost the challenge",
    events_pb2.DRAW_REASON_BLUFF_CAUGHT: "+{n}: bluff caught",
    events_pb2.DRAW_REASON_SLOWEST: "+{n}: slowest",
    events_pb2.DRAW_REASON_WRONG_JUMP_IN: "+{n}: wrong jump-in",
    events_pb2.DRAW_REASON_ILLEGAL_PLAY: "+{n}: wrong card",
    events_pb2.DRAW_REASON_BROKE_SILENCE: "+{n}: broke the silence",
    events_pb2.DRAW_REASON_H2O: "+{n}",
}
# Draws whose own event already had a banner saying why (a catch, a challenge): the draw adds nothing.
_SAID_BEFORE: Final = frozenset({
    events_pb2.DRAW_REASON_UNO_PENALTY, events_pb2.DRAW_REASON_FALSE_CATCH, events_pb2.DRAW_REASON_CHALLENGE_LOST,
    events_pb2.DRAW_REASON_BLUFF_CAUGHT,
})


def banners_for(event: events_pb2.Event, name_of: Callable[[int], str], strikes_limit: int = 0) -> list[Banner]:
    """The banners `event` puts on the table (none for most events), not yet stamped with a time.
    `strikes_limit` is the table's strikes before a takeover (0: none), to say where a strike leads."""
    kind = event.WhichOneof("payload")
    if kind is None:
        return []
    p = getattr(event, kind)
    match kind:
        case "cards_played":
            if p.kind == actions_pb2.PLAY_KIND_JUMP_IN:
                return [Banner(p.seat, "jumps in!", "alert")]
            if p.kind == actions_pb2.PLAY_KIND_RUN_CUT:
                return [Banner(p.seat, "cuts the run!", "alert")]
            return [Banner(p.seat, f"▸ {refs_text(p.cards)}", "quiet")] if p.cards else []
        case "turn_skipped":
            return [Banner(p.seat, "⊘ skipped", "alert")]
        case "direction_reversed":
            return [Banner(PILE, "⇄ play reverses", "banner")]
        case "cards_drawn":
            if p.reason in _SAID_BEFORE or not p.count:
                return []
            words = _DRAW_WORDS.get(p.reason, "draws {n}").format(n=p.count)
            style = "dim" if p.reason == events_pb2.DRAW_REASON_TURN else "alert"
            return [Banner(p.seat, words, style)]
        case "drawn_card_kept":
            return [Banner(p.seat, "keeps it", "dim")]
        case "uno_called":
            return [Banner(p.seat, "UNO!", "uno")]
        case "uno_caught":
            return [Banner(p.target_seat, f"caught! +{p.penalty_cards}", "alert"),
                    Banner(p.catcher_seat, f"catches {name_of(p.target_seat)}", "banner")]
        case "false_catch":
            return [Banner(p.catcher_seat, f"false catch +{p.penalty_cards}", "alert")]
        case "challenge_resolved":
            if p.guilty:
                return [Banner(p.accused_seat, f"bluff caught! +{p.penalty_cards}", "alert"),
                        Banner(p.challenger_seat, "challenge won", "banner"),
                        Banner(PILE, f"{name_of(p.challenger_seat)} challenged: guilty", "alert")]
            return [Banner(p.challenger_seat, f"challenge lost +{p.penalty_cards}", "alert"),
                    Banner(p.accused_seat, "played it fair", "banner"),
                    Banner(PILE, f"{name_of(p.challenger_seat)} challenged: not guilty", "alert")]
        case "hands_rotated":
            return [Banner(PILE, "every hand passes on", "banner")]
        case "hands_swapped":
            return [Banner(p.seat, f"swaps with {name_of(p.target_seat)}", "banner"),
                    Banner(p.target_seat, f"swapped with {name_of(p.seat)}", "banner")]
        case "cards_exchanged":
            return [Banner(p.seat, "5-swap", "banner"), Banner(p.target_seat, "5-swap", "banner")]
        case "wrong_jump_in":
            cost = f" +{p.penalty_cards}" if p.penalty_cards else f" {p.penalty_points} pts" if p.penalty_points else ""
            return [Banner(p.seat, "wrong jump-in" + cost, "alert")]
        case "illegal_play":
            return [Banner(p.seat, f"wrong card +{p.penalty_cards}", "alert")]
        case "chat_penalty":
            return [Banner(p.seat, f"spoke! +{p.penalty_cards}", "alert")]
        case "turn_timed_out":
            of = f" of {strikes_limit}" if strikes_limit else ""
            return [Banner(p.seat, f"out of time: strike {p.strikes}{of}", "alert", life=ROUND_END_SECONDS)]
        case "seat_taken_over":
            return [Banner(p.seat, "a bot took over", "alert")]
        case "round_ended":
            return [Banner(PILE, f"{name_of(p.winner_seat)} won round {p.round_number}!", "score",
                           life=ROUND_END_SECONDS)]
        case "reaction_window_closed":
            if not p.HasField("winner_seat"):
                return []
            reactions = list(p.reactions)
            margin = ""
            if len(reactions) >= 2:
                first, second = reactions[0].reaction_time, reactions[1].reaction_time
                gap = (second.seconds - first.seconds) + (second.nanos - first.nanos) / 1e9
                margin = f" by {gap * 1000:.0f} ms"
            out = [Banner(p.winner_seat, f"won the race{margin}", "race")]
            out += [Banner(seat, "slowest: +2", "alert") for seat in p.penalized_seats]
            return out
    return []
