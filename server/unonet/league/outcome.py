"""A game's result read from its public event log (`unonet.v1.Event`s): what a host table recorded.

The gRPC path learns how a game went from the log the host kept, never from what its bots believe:
the first RoundEnded (a round game) or the MatchEnded (a match game) gives the finishing order
(`order`), and the host's own events give each seat's failures: a SeatTakenOver that forfeits the
seat for its strikes (turns timed out) is a time loss, one for a seat that left a forfeit.

The log's clock gives each seat's decision times and timeouts (`turn_clock`): every turn the seat's
clock timed (its TurnStarted has a deadline), from the TurnStarted to the seat's move on it (a card
played, a card drawn or an obligation taken, a drawn card kept, a challenge) or to its TurnTimedOut,
by the host's clock, so the loopback round trip is in it: what the turn clock charges. A turn whose
seat never moved (another seat jumped in, the round ended) is not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from unonet.engine import Scoring
from unonet.league.config import GameUnit
from unonet.league.order import match_ranks, round_ranks
from unonet.v1 import events_pb2, table_pb2

__all__ = ["LogOutcome", "TurnClock", "read_outcome", "turn_clock"]


@dataclass(frozen=True, slots=True)
class LogOutcome:
    """The finishing order (`ranks`), each seat's points (left in hand, or match totals), each seat's
    outcome, and whether the log reached the game's end at all (`finished`)."""

    ranks: tuple[int, ...]
    points: tuple[int, ...]
    outcomes: tuple[str, ...]
    finished: bool


def read_outcome(events: Sequence[events_pb2.Event], seats: int, unit: GameUnit, scoring: Scoring) -> LogOutcome:
    """The result the log records for a table of `seats` seats."""
    outcomes = ["played"] * seats
    hand = [0] * seats
    round_end: events_pb2.RoundEnded | None = None
    match_end: events_pb2.MatchEnded | None = None
    eliminated: set[int] = set()
    for event in events:
        kind = event.WhichOneof("payload")
        if kind == "seat_taken_over" and round_end is None:
            taken = event.seat_taken_over
            if taken.policy == table_pb2.TAKEOVER_POLICY_FORFEIT:
                outcomes[taken.seat] = "time_loss" if taken.reason == events_pb2.TAKEOVER_REASON_STRIKES else "forfeit"
        elif kind == "player_eliminated":
            eliminated.add(event.player_eliminated.seat)
        elif kind == "round_ended" and round_end is None:
            round_end = event.round_ended
        elif kind == "match_ended":
            match_end = event.match_ended
    forfeited = {seat for seat, outcome in enumerate(outcomes) if outcome != "played"}
    if unit is GameUnit.MATCH and match_end is not None:
        totals = [0] * seats
        for score in match_end.scores:
            totals[score.seat] = score.total
        ranks = match_ranks(set(match_end.winner_seats), totals, scoring, eliminated, forfeited)
        return LogOutcome(ranks, tuple(totals), tuple(outcomes), True)
    if unit is GameUnit.ROUND and round_end is not None:
        for score in round_end.scores:
            hand[score.seat] = score.hand_points
        return LogOutcome(round_ranks(round_end.winner_seat, hand, forfeited), tuple(hand), tuple(outcomes), True)
    # Ended without its RoundEnded/MatchEnded: a forfeit ended the match, or the game was cut off.
    winners = set(match_end.winner_seats) if match_end is not None else set()
    winner = next(iter(winners)) if len(winners) == 1 else -1
    return LogOutcome(round_ranks(winner, hand, forfeited), tuple(hand), tuple(outcomes), match_end is not None)


@dataclass(frozen=True, slots=True)
class TurnClock:
    """Per seat: each timed turn's decision time in microseconds, and how many turns its clock ran out on."""

    decision_us: tuple[tuple[int, ...], ...]
    timeouts: tuple[int, ...]


# The events that are a seat's move on its own turn, and the field naming the seat.
_MOVES = {"cards_played": "seat", "drawn_card_kept": "seat", "turn_timed_out": "seat",
          "challenge_resolved": "challenger_seat", "cards_drawn": "seat"}
_MOVE_DRAWS = (events_pb2.DRAW_REASON_TURN, events_pb2.DRAW_REASON_OBLIGATION)


def turn_clock(events: Sequence[events_pb2.Event], seats: int) -> TurnClock:
    """Each seat's decision times and timeouts, read from the log's clock (see the module)."""
    times: list[list[int]] = [[] for _ in range(seats)]
    timeouts = [0] * seats
    timed = True  # a table with a clock times its turns: a TurnStarted without a deadline waits on a window
    turn: tuple[int, int] | None = None  # (seat, microseconds) of the turn waiting for its seat's move
    for event in events:
        kind = event.WhichOneof("payload")
        if kind == "match_started":
            timed = event.match_started.settings.clock.turn_time.ToNanoseconds() > 0
        elif kind == "turn_started":
            started = event.turn_started
            turn = (started.seat, event.time.ToMicroseconds()) if started.HasField("deadline") or not timed else None
        elif kind in ("round_ended", "match_ended"):
            turn = None
        if kind == "turn_timed_out" and event.turn_timed_out.seat < seats:
            timeouts[event.turn_timed_out.seat] += 1
        if turn is None or kind not in _MOVES:
            continue
        if kind == "cards_drawn" and event.cards_drawn.reason not in _MOVE_DRAWS:
            continue
        seat = getattr(getattr(event, kind), _MOVES[kind])
        if seat == turn[0] and seat < seats:
            times[seat].append(max(0, event.time.ToMicroseconds() - turn[1]))
            turn = None
    return TurnClock(tuple(tuple(seat) for seat in times), tuple(timeouts))
