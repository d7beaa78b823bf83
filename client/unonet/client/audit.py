"""`unonet verify`: audit a finished game's public event log end to end, printing each check.

The log format (docs/fairness.md, "Event logs") is either

- JSON lines: a header line `{"format": "unonet-events", "version": 1, "table_id": "<id>"}`, then one
  event per line in the proto3 JSON mapping of `unonet.v1.Event` (bytes in base64), in event order; or
- length-delimited binary: each event a `unonet.v1.Event` serialized, preceded by its length as a
  protobuf varint (the framing of Java's `writeDelimitedTo`); the table id is given separately.

`unonet export --db FILE --table ID` writes the JSON-lines form from a host's SQLite store, whose public
rendering of every event (what a spectator sees, with no delay) is stored as the game is played.

The audit ends with one verdict line (docs/fairness.md 8.1): `PASSED` (exit 0), `FAILED` (exit 1), or,
for a log that holds no failure but whose decks were not provably fair, `NOT FAIR-SHUFFLED` (a table
dealt without committed shuffles, `--no-fair-shuffle`: exit 3), or `LEAGUE-SEEDED` (a table whose
settings say a league chose its seed, docs/leagues.md: exit 0, the league vouches for it). It prints
the log's hash-chain head (8.2) and checks it against each head another copy showed
(`--expect-head N:HASH`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TextIO

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from unonet.client.verify import Verifier
from unonet.fairness import FairnessError, VerificationError, verify_seat_entropy
from unonet.v1 import events_pb2

FORMAT = "unonet-events"
VERSION = 1

FAIR_SCHEME = "unonet/v1/fair-shuffle"
"""The scheme of docs/fairness.md sections 2 to 7, the one a PASSED log's every shuffle names."""

NOT_FAIR = 3
"""The exit status of a consistent log whose decks were not provably fair."""


def write_jsonl(
    out: TextIO, table_id: str, events: Iterable[events_pb2.Event], header: Mapping[str, str] | None = None
) -> int:
    """Write a JSON-lines log; returns how many events were written. `header` adds keys to the header line
    (a league game's export adds `league_seed`, the seed it was dealt from; readers skip keys they do not know)."""
    out.write(json.dumps({"format": FORMAT, "version": VERSION, "table_id": table_id, **(header or {})}) + "\n")
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
    return (events_pb2.Event.FromString(blob) for blob in split_delimited(data))


def split_delimited(data: bytes) -> Iterator[bytes]:
    """The serialized events of a binary log (each behind its varint length, protobuf's delimited
    form), in order. Raises ValueError for a truncated log."""
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
        yield data[pos : pos + length]
        pos += length


ExtraCheck = Callable[[str, list[events_pb2.Event]], str]
"""A further check of a log that passed the audit (`unonet verify --replay`'s, which needs the engine the
client may not import): returns the line to print, raises an exception with a `reason` if it fails."""


def audit(table_id: str, events: list[events_pb2.Event], out: TextIO,
          expect_heads: Sequence[tuple[int, bytes]] = (), reveals: Sequence[RevealClaim] = (),
          extra: Sequence[ExtraCheck] = ()) -> bool:
    """`audit_status(...) == 0`: True when the log PASSED (or is LEAGUE-SEEDED)."""
    return audit_status(table_id, events, out, expect_heads, reveals, extra) == 0


def audit_status(table_id: str, events: list[events_pb2.Event], out: TextIO,
                 expect_heads: Sequence[tuple[int, bytes]] = (), reveals: Sequence[RevealClaim] = (),
                 extra: Sequence[ExtraCheck] = ()) -> int:
    """Check the whole log as a spectator would and print every check; returns the exit status: 0 for
    PASSED (or LEAGUE-SEEDED), 1 for FAILED, 3 for a log with no failure dealt without fair shuffles.

    `expect_heads`: heads another copy showed (`--expect-head`); `reveals`: seats' claims that they
    revealed a value the log does not use (`--reveal`); `extra`: further checks, run once the rest
    passed on a log with committed shuffles."""
    verifier = Verifier(table_id)
    print(f"table {table_id}: {len(events)} events", file=out)
    numbers = [event.number for event in events]
    if numbers != list(range(1, len(events) + 1)):
        print("FAILED  events are not numbered 1, 2, 3, ... without gaps", file=out)
        return 1
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
        return 1
    if not _heads_agree(verifier, expect_heads, out) or not all(_reveal_holds(verifier, c, out) for c in reveals):
        return 1
    if not any(event.HasField("match_ended") for event in events):
        print("note    the log does not end with MatchEnded: only the rounds it holds were audited", file=out)
    _print_counts(verifier, out)
    if verifier.rounds or _is_league_seeded(events):  # a league-seeded log replays from its league seed
        for check in extra:
            try:
                print(f"ok      {check(table_id, events)}", file=out)
            except Exception as error:  # the check's own failure type: it names its reason
                print(f"FAILED  {getattr(error, 'reason', type(error).__name__)}: {error}", file=out)
                return 1
    if not verifier.rounds and _is_league_seeded(events):  # docs/fairness.md 8.1, "League-seeded tables"
        print("LEAGUE-SEEDED  the table dealt from a seed a league chose (TableSettings.league_seeded): no "
              "commit-reveal shuffle and no player entropy, so there is no shuffle to verify", file=out)
        return 0
    if not verifier.rounds:
        print("NOT FAIR-SHUFFLED  the table was dealt without committed shuffles (--no-fair-shuffle): no "
              "deck, deal, draw or verdict can be checked against a commitment", file=out)
        return NOT_FAIR
    others = verifier.schemes - {FAIR_SCHEME}
    if others:
        print(f"FAILED  UNKNOWN_SCHEME: the shuffles name scheme(s) {sorted(others)}, not {FAIR_SCHEME}", file=out)
        return 1
    print(f"PASSED  {sum(verifier.checks.values())} checks over {len(verifier.rounds)} round(s)", file=out)
    return 0


@dataclass(frozen=True)
class RevealClaim:
    """A seat's claim that it revealed `value` for `round_no` (`--reveal SEAT:ROUND:HEX`)."""

    seat: int
    round_no: int
    value: bytes

    @classmethod
    def parse(cls, text: str) -> RevealClaim:
        """`SEAT:ROUND:HEX`. Raises ValueError."""
        seat, round_no, value = text.split(":")
        claim = cls(int(seat), int(round_no), bytes.fromhex(value))
        if len(claim.value) != 32:
            raise ValueError(f"an entropy value is 32 bytes (64 hex digits), not {len(claim.value)}")
        return claim


def _reveal_holds(verifier: Verifier, claim: RevealClaim, out: TextIO) -> bool:
    """docs/fairness.md 12: a seat whose reveal was dropped shows its value; the log's commitment says
    whether the value is the seat's, and the log whether the deck used it."""
    state = verifier.rounds.get(claim.round_no)
    commitment = state.entropy_commitments.get(claim.seat) if state is not None else None
    what = f"seat {claim.seat}'s value for round {claim.round_no}"
    if state is None or commitment is None or not verify_seat_entropy(
            commitment, claim.seat, claim.value, table_id=verifier.table_id, round_no=claim.round_no):
        print(f"FAILED  BAD_CLAIM: {what} does not open any commitment the seat published for that round: the "
              "claim, not the log, is false", file=out)
        return False
    if claim.seat in state.contributing:
        print(f"ok      {what} opens its commitment and went into the deck", file=out)
        return True
    print(f"FAILED  DROPPED_REVEAL: {what} opens its commitment, yet the deck was dealt without it: the host "
          "either dropped the reveal or got it too late, and the log cannot tell which (docs/fairness.md 12)",
          file=out)
    return False


def _heads_agree(verifier: Verifier, expect_heads: Sequence[tuple[int, bytes]], out: TextIO) -> bool:
    """Print the log's head (8.2) and compare it with each head another copy showed."""
    chain = verifier.chain
    assert chain is not None  # the numbering was checked: nothing broke the chain
    print(f"head    {chain.number}:{chain.head.hex()}", file=out)
    for number, expected in expect_heads:
        got = chain.head_at(number)
        if got is None:
            print(f"FAILED  LOG_FORKED: the log ends at event {chain.number}, before event {number} of the head "
                  "to compare", file=out)
            return False
        if got != expected:
            print(f"FAILED  LOG_FORKED: at event {number} this log's head is {got.hex()}, the other copy's is "
                  f"{expected.hex()}: the host showed different histories, or the log was changed", file=out)
            return False
        print(f"ok      head at event {number} matches the other copy's", file=out)
    return True


def _is_league_seeded(events: list[events_pb2.Event]) -> bool:
    """The log's MatchStarted says the table was league-seeded (dealt from a seed a league chose)."""
    started = next((event.match_started for event in events if event.HasField("match_started")), None)
    return started is not None and started.settings.league_seeded


def _print_counts(verifier: Verifier, out: TextIO) -> None:
    for check, count in sorted(verifier.checks.items()):
        print(f"ok      {count:6d} x {check}", file=out)
