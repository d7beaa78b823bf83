"""`unonet verify`: audit a finished game's public event log end to end, printing each check.

The log format (docs/fairness.md, "Event logs") is either

- JSON lines: a header line `{"format": "unonet-events", "version": 1, "table_id": "<id>"}`, then one
  event per line in the proto3 JSON mapping of `unonet.v1.Event` (bytes in base64), in event order; or
- length-delimited binary: each event a `unonet.v1.Event` serialized, preceded by its length as a
  protobuf varint (the framing of Java's `writeDelimitedTo`); the table id is given separately.

`unonet export --db FILE --table ID` writes the JSON-lines form from a host's SQLite store, whose public
rendering of every event (what a spectator sees, with no delay) is stored as the game is played.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, TextIO

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from unonet.client.verify import Verifier
from unonet.fairness import FairnessError, VerificationError
from unonet.v1 import events_pb2

FORMAT = "unonet-events"
VERSION = 1


def write_jsonl(out: TextIO, table_id: str, events: Iterable[events_pb2.Event]) -> int:
    """Write a JSON-lines log; returns how many events were written."""
    out.write(json.dumps({"format": FORMAT, "version": VERSION, "table_id": table_id}) + "\n")
    count = 0
    for event in events:
        out.write(json_format.MessageToJson(event, indent=None) + "\n")
        count += 1
    return count


def read_log(stream: IO[bytes], table_id: str | None = None) -> tuple[str, list[events_pb2.Event]]:
    """Read either log form. Raises ValueError for a malformed log or a binary log without a table id."""
    try:
        return _read_log(stream.read(), table_id)
    except (json_format.ParseError, DecodeError, KeyError, IndexError) as error:  # protobuf's are not ValueErrors
        raise ValueError(f"malformed log: {error}") from error


def _read_log(data: bytes, table_id: str | None) -> tuple[str, list[events_pb2.Event]]:
    if data[:1] == b"{":
        lines = [line for line in data.decode("utf-8").splitlines() if line.strip()]
        header = json.loads(lines[0])
        if header.get("format") != FORMAT or header.get("version") != VERSION:
            raise ValueError(f"not a {FORMAT} v{VERSION} log: {lines[0][:80]}")
        events = [json_format.Parse(line, events_pb2.Event()) for line in lines[1:]]
        return table_id or str(header["table_id"]), events
    if not table_id:
        raise ValueError("a binary log does not name its table: pass --table-id")
    return table_id, list(_delimited(data))


def _delimited(data: bytes) -> Iterator[events_pb2.Event]:
    pos = 0
    while pos < len(data):
        length = shift = 0
        while True:
            if pos >= len(data):
                raise ValueError("the log ends inside a length prefix")
            byte = data[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if pos + length > len(data):
            raise ValueError("the log ends inside an event")
        yield events_pb2.Event.FromString(data[pos : pos + length])
        pos += length


def audit(table_id: str, events: list[events_pb2.Event], out: TextIO) -> bool:
    """Check the whole log as a spectator would, print every check; True when everything holds."""
    verifier = Verifier(table_id)
    print(f"table {table_id}: {len(events)} events", file=out)
    numbers = [event.number for event in events]
    if numbers != list(range(1, len(events) + 1)):
        print("FAILED  events are not numbered 1, 2, 3, ... without gaps", file=out)
        return False
    print("ok      events numbered from 1 without gaps", file=out)
    shown = 0
    try:
        for event in events:
            verifier.feed(event)
            while shown < len(verifier.notes):
                print(f"ok      {verifier.notes[shown]}", file=out)
                shown += 1
        verifier.finish()
    except (FairnessError, ValueError) as error:  # a failed check, a card that is no card, an unknown enum value
        for note in verifier.notes[shown:]:
            print(f"ok      {note}", file=out)
        _print_counts(verifier, out)
        reason = error.reason if isinstance(error, FairnessError) else "MALFORMED_EVENT"
        print(f"FAILED  {reason}: event {verifier.number}: {error}"
              if not isinstance(error, VerificationError) else f"FAILED  {reason}: {error}", file=out)
        return False
    if not verifier.rounds:
        if _is_league_seeded(events):
            print("LEAGUE-SEEDED  the table dealt from a seed a league chose (TableSettings.league_seeded): no "
                  "commit-reveal shuffle and no player entropy, so there is no shuffle to verify", file=out)
            return True
        print("FAILED  the log holds no committed shuffle: nothing to verify", file=out)
        return False
    if not any(event.HasField("match_ended") for event in events):
        print("note    the log does not end with MatchEnded: only the rounds it holds were audited", file=out)
    _print_counts(verifier, out)
    print(f"PASSED  {sum(verifier.checks.values())} checks over {len(verifier.rounds)} round(s)", file=out)
    return True


def _is_league_seeded(events: list[events_pb2.Event]) -> bool:
    """The log's MatchStarted says the table was league-seeded (dealt from a seed a league chose)."""
    started = next((event.match_started for event in events if event.HasField("match_started")), None)
    return started is not None and started.settings.league_seeded


def _print_counts(verifier: Verifier, out: TextIO) -> None:
    for check, count in sorted(verifier.checks.items()):
        print(f"ok      {count:6d} x {check}", file=out)
