"""The seat tokens kept on disk, per host and table, so a closed or crashed client rejoins its seat.

Beside each token: the table's owner token when this user created the table (so the game screen can
still start the match early or add bots after a restart), and the seat's secret shares of the fair
shuffle (`SeatStore.keep_entropy`), written before their commitment is sent: a client that crashed
between the commit and the reveal reveals the very value it committed to once it is back, instead of
being timed out of the shuffle (docs/fairness.md). Only the last few rounds' shares are kept.

They live in one JSON file in the user's state directory: ``$XDG_STATE_HOME/unonet/seats.json``, or
``~/.local/state/unonet/seats.json`` when XDG_STATE_HOME is unset. The file is written whole to a
temporary file and renamed (a crash never leaves half a file), readable by its owner only: whoever
holds a seat token plays that seat.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["ENTROPY_ROUNDS", "SavedSeat", "SeatStore", "state_dir"]

#: How many rounds' shuffle shares are kept per seat (the newest): a reveal is only ever asked for the
#: round being shuffled, so older ones are of no use.
ENTROPY_ROUNDS = 3


def state_dir() -> Path:
    """The user's unonet state directory (not created)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "unonet"


@dataclass(frozen=True, slots=True)
class SavedSeat:
    """One seat this user holds: the token to act with, the seat (None for a spectator), the name, and
    the table's owner token when this user created the table ("" otherwise)."""

    token: str
    seat: int | None
    name: str
    owner_token: str = ""


class SeatStore:
    """The saved seats, keyed by host address and table id."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_dir() / "seats.json"

    def get(self, host: str, table_id: str) -> SavedSeat | None:
        """The seat saved for `table_id` at `host`, or None."""
        entry = self._read().get(_key(host, table_id))
        if not isinstance(entry, dict):
            return None
        try:
            seat = entry.get("seat")
            return SavedSeat(str(entry["token"]), None if seat is None else int(seat), str(entry.get("name", "")),
                             str(entry.get("owner_token", "")))
        except (KeyError, TypeError, ValueError):
            return None

    def tables(self, host: str) -> set[str]:
        """The ids of the tables at `host` this user holds a seat at."""
        prefix = host + " "
        return {key[len(prefix):] for key in self._read() if key.startswith(prefix)}

    def put(self, host: str, table_id: str, seat: SavedSeat) -> None:
        """Save (or replace) the seat for `table_id` at `host`; the same token keeps its shuffle shares."""
        data = self._read()
        key = _key(host, table_id)
        entry: dict[str, object] = asdict(seat)
        old = data.get(key)
        if isinstance(old, dict) and old.get("token") == seat.token and isinstance(old.get("entropy"), dict):
            entry["entropy"] = old["entropy"]
        data[key] = entry
        self._write(data)

    def keep_entropy(self, host: str, table_id: str, round_no: int, value: bytes) -> None:
        """Write the seat's secret share of round `round_no`'s shuffle to disk (before committing to it).

        Does nothing for a table with no saved seat (a spectator has no share)."""
        data = self._read()
        entry = data.get(_key(host, table_id))
        if not isinstance(entry, dict):
            return
        shares = entry.get("entropy")
        shares = dict(shares) if isinstance(shares, dict) else {}
        shares[str(round_no)] = value.hex()
        newest = sorted(shares, key=lambda r: int(r) if r.isdigit() else -1)[-ENTROPY_ROUNDS:]
        entry["entropy"] = {r: shares[r] for r in newest}
        self._write(data)

    def entropy(self, host: str, table_id: str) -> dict[int, bytes]:
        """The seat's saved shuffle shares by round (empty when none, or the file is damaged)."""
        entry = self._read().get(_key(host, table_id))
        shares = entry.get("entropy") if isinstance(entry, dict) else None
        out: dict[int, bytes] = {}
        if isinstance(shares, dict):
            for round_no, value in shares.items():
                try:
                    out[int(round_no)] = bytes.fromhex(str(value))
                except ValueError:
                    continue
        return out

    def forget(self, host: str, table_id: str) -> None:
        """Drop the seat (after leaving the table, or when the host no longer knows it)."""
        data = self._read()
        if data.pop(_key(host, table_id), None) is not None:
            self._write(data)

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, object]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".seats-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(data, stream, indent=1, sort_keys=True)
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except BaseException:
            os.unlink(temporary)
            raise


def _key(host: str, table_id: str) -> str:
    return f"{host} {table_id}"
