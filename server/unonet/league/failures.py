"""When the league's own machinery fails: the game is aborted, never a bot's result.

A league game is a bot's result only when its bots played it out, or its own program or policy failed
(crashed, hung, answered garbage: charged to that bot alone, `unonet.league.tallies`). When anything
else fails (the seats process dies, the embedded host or a call to it fails, a Dask worker is lost,
a bug in the runner), the games in flight there are **aborted** (`GameAborted`): never recorded,
never rated, and played again from their seeds at once (the league's games are functions of their
numbers, so a game played again is the same game). A runner killed outright aborts its games the
same way: they were never recorded, and the next run plays them.

`ProgressGuard` stops a league that cannot make progress: after `limit` failures with no game finished
in between, it raises `NoProgress`, which `unonet league run` turns into exit status 1 with the last
failure named (what was recorded stays recorded; a rerun resumes). A failure that takes several games
down at once, such as the seats process dying with eight games in flight, counts once.
"""

from __future__ import annotations

__all__ = ["DEFAULT_FAILURE_LIMIT", "GameAborted", "InfrastructureError", "NoProgress", "ProgressGuard"]

#: Failures of the league's machinery in a row, no game finishing in between, before a run gives up.
DEFAULT_FAILURE_LIMIT = 3


class InfrastructureError(RuntimeError):
    """Something the league runs on failed (not a bot): the seats process, the host, a worker."""


class NoProgress(InfrastructureError):
    """The league cannot make progress: its machinery kept failing. The message says what failed last."""


class GameAborted(Exception):
    """A game the league's machinery failed: never recorded, played again.

    `cause` is the failure itself: games aborted by the same failure (a seats process's death) share it,
    so the failure counts once however many games it took down."""

    def __init__(self, game_id: str, reason: str, cause: object | None = None) -> None:
        super().__init__(f"game {game_id} aborted: {reason}")
        self.game_id = game_id
        self.reason = reason
        self.cause = self if cause is None else cause


class ProgressGuard:
    """Counts the league's machinery failures since a game last finished (see the module)."""

    def __init__(self, limit: int = DEFAULT_FAILURE_LIMIT) -> None:
        self.limit = limit
        self._causes: list[object] = []

    def finished(self) -> None:
        """A game finished: the league makes progress."""
        self._causes.clear()

    def aborted(self, aborted: GameAborted) -> None:
        """Count a game's abort. Raises NoProgress once `limit` distinct failures came in a row."""
        if any(cause is aborted.cause for cause in self._causes):
            return
        self._causes.append(aborted.cause)
        if len(self._causes) >= self.limit:
            raise NoProgress(
                f"the league cannot make progress: {len(self._causes)} failures of its machinery in a row with no "
                f"game finished in between (the last: {aborted.reason}). No aborted game was recorded; the games "
                "recorded so far stay recorded: fix the cause and run the same command again to resume"
            )
