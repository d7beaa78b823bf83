"""Every hand of a league game, from the seed its league recorded: what each seat saw, for `unonet replay`.

A league game is played at a league-seeded table (TableSettings.league_seeded): the engine deals it from
the deal's seed, with no player entropy and no commitments, so its public log alone shows no hand.
But the league's results database keeps each game's seed, and the game is a function of that seed and
the moves the log shows. So, given the seed:

1. it must be the one the log commits to (`league_seed_sha256`, the SHA-256 of its 8 bytes, big-endian);
2. the log is replayed through the engine from it (`unonet.verify_replay.replay_league_log`: the match
   started as the host starts a league-seeded table, each move found from the events), which fails
   loudly on any event the engine does not give;
3. each engine event is rendered for each seat as the host renders it (`unonet.wire.convert`): the
   seat's own log, its cards shown where the host showed them, the rest of each event the log's own.

The client's `Replay` takes these logs (`seat_logs`) and shows every seat's view and every hand open;
it never imports the engine, which is why this lives here. Works alike for games played over gRPC
and `--inprocess` (both keep the same public log).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from unonet.client.replay import Replay
from unonet.league.results import Results, decode_log
from unonet.v1 import events_pb2
from unonet.verify_replay import ReplayMismatch, replay_league_log
from unonet.wire import convert

__all__ = ["HandsUnavailable", "league_replay", "seat_logs"]


class HandsUnavailable(ValueError):
    """A league game's hands cannot be rebuilt: not a league-seeded log, a seed the log does not commit
    to, or a log the engine does not replay (`reason` says which: NOT_LEAGUE_SEEDED, SEED_MISMATCH,
    REPLAY_MISMATCH)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


def seat_logs(game_id: str, events: Sequence[events_pb2.Event], seed: int) -> dict[int, list[events_pb2.Event]]:
    """Each seat's log of the league game `events` dealt from `seed` (see the module). Raises HandsUnavailable."""
    started = next((e.match_started for e in events if e.HasField("match_started")), None)
    if started is None or not started.settings.league_seeded:
        raise HandsUnavailable("NOT_LEAGUE_SEEDED", f"game {game_id}'s log is not a league-seeded table's")
    if hashlib.sha256(seed.to_bytes(8, "big")).digest() != started.settings.league_seed_sha256:
        raise HandsUnavailable("SEED_MISMATCH", f"game {game_id}'s log commits to another seed than {seed}")
    try:
        _, engine = replay_league_log(game_id, events, seed)
    except ReplayMismatch as error:
        raise HandsUnavailable("REPLAY_MISMATCH", f"game {game_id} does not replay from its seed: {error}") from error
    logs: dict[int, list[events_pb2.Event]] = {seat: [] for seat in range(started.settings.seat_count)}
    for event in events:
        behind = engine.get(event.number)
        public = None if behind is None else convert.event_to_pb(behind, None)
        kind = event.WhichOneof("payload")
        for seat, log in logs.items():
            mine = None if behind is None else convert.event_to_pb(behind, seat)
            if mine is None or kind is None or mine == public:
                log.append(event)  # nothing hidden from the public that this seat saw
                continue
            shown = events_pb2.Event()
            shown.CopyFrom(event)
            getattr(shown, kind).CopyFrom(getattr(mine, kind))
            log.append(shown)
    return logs


def league_replay(path: str | Path, game_id: str) -> Replay | None:
    """`unonet replay --db LEAGUE.sqlite`: the recorded game with every seat's view and every hand open,
    or None when the database has no such game. Raises HandsUnavailable, or the client's ReplayRefused
    for a log that fails its audit."""
    with Results(path) as db:
        game = db.game(game_id)
    if game is None:
        return None
    events = [events_pb2.Event.FromString(blob) for blob in decode_log(game.log)]
    return Replay(game_id, events, seat_logs=seat_logs(game_id, events, game.seed))
