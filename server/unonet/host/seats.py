"""A table's places: its seats and what sits in them, its spectators, and the tokens that name them.

A token is the secret a player or spectator got when joining; every call that acts or watches as
someone names its token, and this is where a token becomes a seat (or a spectator, or a refusal).
Tokens are compared in constant time.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from unonet.host.errors import denied, exists, invalid


@dataclass
class Seat:
    """One seat: who holds it (a player's token, or a host bot), its connection and its clock."""

    index: int
    name: str = ""
    token: str = ""
    is_bot: bool = False
    bot_kind: str = ""
    connected: int = 0  # the seat's open event streams, live (a replay leaves it at 0)
    shown_connected: bool = False  # what the last SeatConnectionChanged said (journalled, so replayed)
    strikes: int = 0
    taken_over: bool = False
    bank_s: float = 0.0
    worker_token: str = ""  # a bot seat played by a worker process (host/bot_workers.py): its token, never journalled

    @property
    def is_occupied(self) -> bool:
        return bool(self.token) or self.is_bot

    @property
    def is_player(self) -> bool:
        """Held by a player's token (JoinTable), not by a host bot and not forfeited: what the host
        counts as a person (it cannot tell a person from a program that joined like one: host/pace.py)."""
        return bool(self.token) and not self.is_bot and not self.taken_over


class Places:
    """The seats (`seats[i].index == i`) and the spectators (token to name) of table `table_id`."""

    def __init__(self, table_id: str, seat_count: int) -> None:
        self.table_id = table_id
        self.seats = [Seat(i) for i in range(seat_count)]
        self.spectators: dict[str, str] = {}

    def has_player(self) -> bool:
        """Whether any seat is a player's (`Seat.is_player`): a table with a person, paced (host/pace.py)."""
        return any(seat.is_player for seat in self.seats)

    def seat_for(self, token: str) -> int | None:
        """The seat a token plays, None for a spectator. Raises PERMISSION_DENIED for any other token."""
        if not token:
            raise invalid("TOKEN_MISSING", "this call needs the token JoinTable returned")
        if not token.isascii():  # no token the host issues is; compare_digest refuses to compare such text
            raise denied("BAD_TOKEN", f"that token does not belong to table {self.table_id}")
        for seat in self.seats:
            if seat.token and secrets.compare_digest(seat.token, token):
                return seat.index
            if seat.worker_token and secrets.compare_digest(seat.worker_token, token):
                return seat.index
        if token in self.spectators:
            return None
        raise denied("BAD_TOKEN", f"that token does not belong to table {self.table_id}")

    def player_seat(self, token: str) -> int:
        """The seat a token plays. Raises PERMISSION_DENIED for a spectator's or any other token."""
        seat = self.seat_for(token)
        if seat is None:
            raise denied("SPECTATOR", "spectators watch; only players act")
        return seat

    def seat_to_join(self, requested: int | None) -> int:
        """The seat a player joining may take: `requested`, else the first free one. Raises
        ALREADY_EXISTS (TABLE_FULL, SEAT_TAKEN) or INVALID_ARGUMENT (BAD_SEAT)."""
        seat = requested
        if seat is None:
            free = [s.index for s in self.seats if not s.is_occupied]
            if not free:
                raise exists("TABLE_FULL", f"all {len(self.seats)} seats of table {self.table_id} are taken")
            seat = free[0]
        if not 0 <= seat < len(self.seats):
            raise invalid("BAD_SEAT", f"table {self.table_id} has seats 0 to {len(self.seats) - 1}")
        if self.seats[seat].is_occupied:
            raise exists("SEAT_TAKEN", f"seat {seat} is taken")
        return seat
