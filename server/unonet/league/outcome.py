"""A game's result read from its public event log (`unonet.v1.Event`s): what a host table recorded.

The gRPC path learns how a game went from the log the host kept, never from what its bots believe:
the first RoundEnded (a round game) or the MatchEnded (a match game) gives the finishing order
(`order`), and the host's own events give each seat's failures: a SeatTakenOver that forfeits the
seat for its strikes (turns timed out) is a time loss, one for a seat that left a forfeit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from unonet.engine import Scoring
from unonet.league.config import GameUnit
from unonet.league.order import match_ranks, round_ranks
from unonet.v1 import events_pb2, table_pb2

__all__ = ["LogOutcome", "read_outcome"]


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
