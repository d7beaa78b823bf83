"""Readable one-line descriptions of protocol events, for logs, the demo and the terminal client.

Works from the protobuf messages alone (no engine, no host), as any client in any language could.
"""

from __future__ import annotations

from collections.abc import Sequence

from unonet.v1 import cards_pb2, events_pb2

_COLORS = {1: "red", 2: "yellow", 3: "green", 4: "blue", 5: "black"}
_RANKS = {i + 1: str(i) for i in range(10)} | {
    11: "skip", 12: "reverse", 13: "draw two", 14: "wild", 15: "wild draw four", 16: "blank",
    17: "sound wild", 18: "+1 wild", 19: "+2 wild",
}


def card_text(card: cards_pb2.Card) -> str:
    rank = _RANKS.get(card.rank, "?")
    return rank if card.color == cards_pb2.COLOR_BLACK else f"{_COLORS.get(card.color, '?')} {rank}"


def refs_text(refs: Sequence[cards_pb2.CardRef]) -> str:
    return ", ".join(card_text(ref.card) for ref in refs if ref.HasField("card"))


def describe(event: events_pb2.Event, names: Sequence[str] = ()) -> str | None:
    """A sentence for the event, or None for events too small to narrate (turn starts, windows)."""

    def who(seat: int) -> str:
        return names[seat] if seat < len(names) and names[seat] else f"seat {seat}"

    kind = event.WhichOneof("payload")
    p = getattr(event, kind) if kind else None
    if p is None:
        return None
    match kind:
        case "player_joined" | "bot_seated":
            return f"{p.name} sits at seat {p.seat}"
        case "match_started":
            return "the match begins"
        case "dealer_chosen":
            return f"{who(p.dealer_seat)} deals"
        case "round_started":
            return f"— round {p.round_number}, {who(p.dealer_seat)} deals —"
        case "first_card_turned":
            return f"first card: {card_text(p.card.card)}"
        case "cards_played":
            extra = " (jumping in)" if p.kind == 2 else " (cutting the run)" if p.kind == 3 else ""
            return f"{who(p.seat)} plays {refs_text(p.cards)}{extra}"
        case "color_chosen":
            return f"{who(p.seat)} names {_COLORS.get(p.color, '?')}"
        case "cards_drawn":
            reason = events_pb2.DrawReason.Name(p.reason).removeprefix("DRAW_REASON_").lower().replace("_", " ")
            shown = refs_text(p.cards)  # empty for whoever may not see the faces (a spectator, the others)
            faces = f": {shown}" if shown else ""
            return f"{who(p.seat)} draws {p.count} ({reason}){faces}"
        case "drawn_card_kept":
            return f"{who(p.seat)} keeps the card"
        case "seat_connection_changed":
            return f"{who(p.seat)} {'is back' if p.connected else 'is away'}"
        case "turn_skipped":
            return f"{who(p.seat)} is skipped"
        case "direction_reversed":
            return "play reverses"
        case "uno_called":
            return f"{who(p.seat)} calls UNO!"
        case "uno_caught":
            return f"{who(p.catcher_seat)} catches {who(p.target_seat)} without UNO (+{p.penalty_cards})"
        case "challenge_resolved":
            verdict = "guilty" if p.guilty else "innocent"
            return f"{who(p.challenger_seat)} challenges {who(p.accused_seat)}: {verdict}"
        case "hands_rotated":
            return "every hand passes on"
        case "hands_swapped":
            return f"{who(p.seat)} swaps hands with {who(p.target_seat)}"
        case "chat_message":
            return f"<{p.name}> {p.text}"
        case "turn_timed_out":
            return f"{who(p.seat)} ran out of time (strike {p.strikes})"
        case "seat_taken_over":
            return f"a bot takes over {who(p.seat)}"
        case "bot_fallback":
            rest = " from now on" if p.rest_of_match else ""
            return f"{who(p.seat)}'s {p.bot_kind} bot did not answer: {p.fallback_kind} plays for it{rest}"
        case "round_held":
            return f"round {p.round_number} starts once everyone has read the scores"
        case "round_released":
            return f"round {p.round_number}: play begins"
        case "round_ended":
            scores = ", ".join(f"{who(s.seat)} {s.total}" for s in p.scores)
            return f"{who(p.winner_seat)} wins round {p.round_number}. Totals: {scores}"
        case "player_eliminated":
            return f"{who(p.seat)} is eliminated with {p.total}"
        case "match_ended":
            winners = " and ".join(who(s) for s in p.winner_seats)
            scores = ", ".join(f"{who(s.seat)} {s.total}" for s in p.scores)
            return f"{winners} won the match. Final scores: {scores}"
    return None
