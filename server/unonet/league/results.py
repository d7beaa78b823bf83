"""The league's results database: SQLite, one row per finished game, keyed by its game id.

Rows are only ever added, and adding a game already there changes nothing (`INSERT OR IGNORE`), so a
resumed run, or a Dask batch that ran twice after a worker was lost, never counts a game twice. A row
is committed the moment its game ends; a runner killed (even with SIGKILL) loses only the games in
flight, which the rerun plays again from their seeds. The database remembers the league's fingerprint
and refuses to serve a different league (`ResultsMismatch`).

Each row keeps the game's public event log (`unonet.v1.Event`s, length-delimited) so `unonet replay
--db LEAGUE.sqlite --table-id GAME_ID` opens it, the deal id, seed and seating so a heads-up analysis
can pair the games of one deal, and each seat's `tallies.SeatStats` (JSON: its bot's crashes, restarts,
timeouts, bad and illegal answers, decision times). A database from before the stats were kept gets the
column on open, its old rows with none.

Only games played out are ever added: a game the league's machinery failed is aborted, not recorded
(`unonet.league.failures`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from unonet.client.audit import split_delimited
from unonet.league.tallies import SeatStats
from unonet.v1 import events_pb2

__all__ = [
    "OUTCOMES", "GameResult", "Results", "ResultsMismatch", "decode_log", "encode_log", "is_league_db",
    "stored_events",
]

#: How each seat's game went: played to the end, or lost by a bot failure of each kind.
OUTCOMES = ("played", "forfeit", "time_loss", "stall", "crash")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS league_games (
    game_id TEXT PRIMARY KEY,
    idx INTEGER NOT NULL,
    cycle INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seed TEXT NOT NULL,
    rotation INTEGER NOT NULL,
    seats TEXT NOT NULL,
    ranks TEXT NOT NULL,
    points TEXT NOT NULL,
    outcomes TEXT NOT NULL,
    steps INTEGER NOT NULL,
    path TEXT NOT NULL,
    seconds REAL NOT NULL,
    log BLOB NOT NULL,
    finished_at REAL NOT NULL,
    stats TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS league_games_idx ON league_games (idx);
"""


class ResultsMismatch(RuntimeError):
    """The database holds another league's results (its fingerprint differs)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game. Per-seat tuples are indexed by seat: `seats` names the bot, `ranks` its
    finishing rank (1 = first), `points` the points left in its hand (a round) or its match total,
    `outcomes` one of OUTCOMES. `path` says how it was played ("inprocess", "grpc"); `log` is the
    public event log, length-delimited `unonet.v1.Event`s."""

    game_id: str
    index: int
    cycle: int
    deal: int
    seed: int
    rotation: int
    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    points: tuple[int, ...]
    outcomes: tuple[str, ...]
    steps: int
    path: str
    seconds: float
    log: bytes = b""
    #: Per seat, what its bot did wrong and how long it took to decide (`tallies.SeatStats`); empty for a
    #: game recorded before they were kept.
    stats: tuple[SeatStats, ...] = ()

    def same_play(self, other: GameResult) -> bool:
        """The two rows record the same game played the same way (all but timing and the path)."""
        keys = ("game_id", "deal", "seed", "rotation", "seats", "ranks", "points", "outcomes", "steps")
        return all(getattr(self, key) == getattr(other, key) for key in keys)


def encode_log(events: Iterable[bytes]) -> bytes:
    """Serialized events, each behind its varint length (protobuf's delimited form)."""
    out = bytearray()
    for blob in events:
        length = len(blob)
        while True:
            byte = length & 0x7F
            length >>= 7
            if length:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                break
        out += blob
    return bytes(out)


def decode_log(data: bytes) -> Iterator[bytes]:
    """The serialized events of a delimited log, in order (the audit's reader, so `unonet verify` and
    `unonet replay` read a league's logs as their own). Raises ValueError for a truncated log."""
    return split_delimited(data)


class Results:
    """The results database at `path`, created if missing.

    `fingerprint` (the league's) is stored on first use and checked on every later open: raises
    ResultsMismatch when the file belongs to another league.
    """

    def __init__(self, path: str | Path, fingerprint: str | None = None) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives a killed process
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(league_games)")}
        if "stats" not in columns:  # a database from before per-seat stats
            self._db.execute("ALTER TABLE league_games ADD COLUMN stats TEXT NOT NULL DEFAULT '[]'")
        if fingerprint is not None:
            self._claim(fingerprint)

    def _claim(self, fingerprint: str) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if row is None:
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        elif row[0] != fingerprint:
            raise ResultsMismatch(
                f"{self.path} holds the results of another league (fingerprint {row[0]}, this one {fingerprint}): "
                "use another db, or delete the file to start over"
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def add(self, result: GameResult) -> bool:
        """Record one finished game, durably. Returns False when its game id was already recorded."""
        return self.add_many([result]) == 1

    def add_many(self, results: Sequence[GameResult]) -> int:
        """Record finished games in one transaction; returns how many were new (the rest are ignored)."""
        rows = [_row(result) for result in results]
        before = self._db.total_changes
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                f"INSERT OR IGNORE INTO league_games ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                rows,
            )
        return self._db.total_changes - before

    def done_ids(self) -> set[str]:
        """The ids of every recorded game."""
        return {row[0] for row in self._db.execute("SELECT game_id FROM league_games")}

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM league_games").fetchone()[0])

    def games(self, *, with_logs: bool = False) -> list[GameResult]:
        """Every recorded game in schedule order (logs left empty unless asked for)."""
        log = "log" if with_logs else "x''"
        query = (
            "SELECT game_id, idx, cycle, deal, seed, rotation, seats, ranks, points, outcomes, steps, path, "
            f"seconds, {log}, stats FROM league_games ORDER BY idx"
        )
        return [_result(row) for row in self._db.execute(query)]

    def game(self, game_id: str) -> GameResult | None:
        """One recorded game with its log, or None."""
        row = self._db.execute(
            "SELECT game_id, idx, cycle, deal, seed, rotation, seats, ranks, points, outcomes, steps, path, "
            "seconds, log, stats FROM league_games WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        return None if row is None else _result(row)

    def game_ids(self) -> list[str]:
        """Every recorded game's id, in schedule order."""
        return [row[0] for row in self._db.execute("SELECT game_id FROM league_games ORDER BY idx")]


def is_league_db(path: str | Path) -> bool:
    """The SQLite file at `path` is a league's results database (it has the league_games table)."""
    db = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'league_games'").fetchone()
        return row is not None
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


def stored_events(path: str | Path, game_id: str) -> list[events_pb2.Event]:
    """A recorded game's public event log, for `unonet replay` and `unonet verify` (empty when unknown)."""
    with Results(path) as db:
        game = db.game(game_id)
    if game is None:
        return []
    return [events_pb2.Event.FromString(blob) for blob in decode_log(game.log)]


_COLUMNS = ("game_id", "idx", "cycle", "deal", "seed", "rotation", "seats", "ranks", "points", "outcomes", "steps",
            "path", "seconds", "log", "finished_at", "stats")


def _row(result: GameResult) -> tuple[object, ...]:
    return (
        result.game_id,
        result.index,
        result.cycle,
        result.deal,
        str(result.seed),  # a 64-bit seed does not fit SQLite's signed integer
        result.rotation,
        json.dumps(result.seats),
        json.dumps(result.ranks),
        json.dumps(result.points),
        json.dumps(result.outcomes),
        result.steps,
        result.path,
        result.seconds,
        result.log,
        time.time(),
        json.dumps([stats.to_json() for stats in result.stats], separators=(",", ":")),
    )


def _result(row: Sequence[object]) -> GameResult:
    return GameResult(
        game_id=str(row[0]),
        index=int(str(row[1])),
        cycle=int(str(row[2])),
        deal=int(str(row[3])),
        seed=int(str(row[4])),
        rotation=int(str(row[5])),
        seats=tuple(json.loads(str(row[6]))),
        ranks=tuple(json.loads(str(row[7]))),
        points=tuple(json.loads(str(row[8]))),
        outcomes=tuple(json.loads(str(row[9]))),
        steps=int(str(row[10])),
        path=str(row[11]),
        seconds=float(str(row[12])),
        log=bytes(row[13]) if isinstance(row[13], bytes | bytearray | memoryview) else b"",
        stats=tuple(SeatStats.from_json(seat) for seat in json.loads(str(row[14]))),
    )
