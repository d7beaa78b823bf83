"""What one batch of games took: the one result type of every player in the engine bench (unonet,
RLCard and the floor), so their figures are computed the same way."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Batch:
    """Games played, actions taken and seconds spent by one batch."""

    games: int
    actions: int
    seconds: float
    windows: int = 0  # blocking windows closed or resolved by the bench, not counted as actions

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def actions_per_game(self) -> float:
        return self.actions / self.games

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds
