"""The seat tokens kept on disk, per host and table, so a closed or crashed client rejoins its seat.

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

__all__ = ["SavedSeat", "SeatStore", "state_dir"]


def state_dir() -> Path:
    """The user's unonet state directory (not created)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "unonet"


@dataclass(frozen=True, slots=True)
class SavedSeat:
    """One seat this user holds: the token to act with, the seat (None for a spectator) and the name."""

    token: str
    seat: int | None
    name: str


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
            return SavedSeat(str(entry["token"]), None if seat is None else int(seat), str(entry.get("name", "")))
        except (KeyError, TypeError, ValueError):
            return None

    def tables(self, host: str) -> set[str]:
        """The ids of the tables at `host` this user holds a seat at."""
        prefix = host + " "
        return {key[len(prefix):] for key in self._read() if key.startswith(prefix)}

    def put(self, host: str, table_id: str, seat: SavedSeat) -> None:
        """Save (or replace) the seat for `table_id` at `host`."""
        data = self._read()
        data[_key(host, table_id)] = asdict(seat)
        self._write(data)

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
