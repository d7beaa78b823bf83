"""The inputs a table journals, as typed values, and their JSON form in the store.

Everything that changes a table is one of these entries: `Table.record` applies it, the store keeps
its JSON form (`encode`), and a restarted host rebuilds the table by applying every stored entry again
(`decode`). The JSON form is the journal's on-disk format, so it only ever grows: a key an entry
gains is optional on decode, and the entries older hosts wrote (a ruling without "v", a chat without
"cid") still decode to what they meant.

Every event a table emits must be a function of its journal alone, or a restarted host would give
back other events than it sent. So whatever an entry's events show that comes from the world outside
the journal is written into the entry while it is applied, before it is stored, and read back on
replay, in three parts: `fair`, the private part of a shuffle it starts (the host's seed and its bots'
values, `shuffles.py`), `races`, the latency figures of the race windows it opens (`racebook.py`), and
`measured`, the seats' latency estimates (from their pings) the MatchStarted of a match it starts lists
(`Table._starting_seats`). They are the only mutable parts of an otherwise frozen value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

JsonDict = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """What every entry has: the private parts written while it is applied (see the module's docstring)."""

    KIND: ClassVar[str] = ""
    fair: JsonDict = field(default_factory=dict, compare=False)
    races: JsonDict = field(default_factory=dict, compare=False)
    measured: JsonDict = field(default_factory=dict, compare=False)

    def fields(self) -> JsonDict:
        """The entry's own keys in the journal (without "k" and the private parts)."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Join(Entry):
    """A player took `seat` (JoinTable); `token` is the secret it acts with."""

    KIND: ClassVar[str] = "join"
    seat: int
    name: str
    token: str

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "name": self.name, "token": self.token}

    @classmethod
    def load(cls, data: JsonDict) -> Join:
        return cls(int(data["seat"]), data["name"], data["token"])


@dataclass(frozen=True, slots=True)
class Connection(Entry):
    """A player's seat opened its first event stream (`on`), or closed its last."""

    KIND: ClassVar[str] = "conn"
    seat: int
    on: bool

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "on": self.on}

    @classmethod
    def load(cls, data: JsonDict) -> Connection:
        return cls(int(data["seat"]), bool(data["on"]))


@dataclass(frozen=True, slots=True)
class Spectate(Entry):
    """A spectator joined with `token`."""

    KIND: ClassVar[str] = "spectate"
    token: str
    name: str

    def fields(self) -> JsonDict:
        return {"token": self.token, "name": self.name}

    @classmethod
    def load(cls, data: JsonDict) -> Spectate:
        return cls(data["token"], data["name"])


@dataclass(frozen=True, slots=True)
class Unspectate(Entry):
    """A spectator gave its place up: its token stops working."""

    KIND: ClassVar[str] = "unspectate"
    token: str

    def fields(self) -> JsonDict:
        return {"token": self.token}

    @classmethod
    def load(cls, data: JsonDict) -> Unspectate:
        return cls(data["token"])


@dataclass(frozen=True, slots=True)
class SeatBot(Entry):
    """A host bot of `kind` took `seat` (AddBots)."""

    KIND: ClassVar[str] = "bot"
    seat: int
    kind: str
    name: str

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "kind": self.kind, "name": self.name}

    @classmethod
    def load(cls, data: JsonDict) -> SeatBot:
        return cls(int(data["seat"]), data["kind"], data["name"])


@dataclass(frozen=True, slots=True)
class Leave(Entry):
    """The player of `seat` left (LeaveTable)."""

    KIND: ClassVar[str] = "leave"
    seat: int

    def fields(self) -> JsonDict:
        return {"seat": self.seat}

    @classmethod
    def load(cls, data: JsonDict) -> Leave:
        return cls(int(data["seat"]))


@dataclass(frozen=True, slots=True)
class Start(Entry):
    """The owner started the match (StartTable); with `fill`, empty seats get bots of `bot_kind`
    ("" for the default kind). `version` 2 announces each of those bots with a BotSeated event before
    MatchStarted, as AddBots announces its bots. Version 1 (starts journalled without "v") seated the
    bots silently. A table also starts by itself, with no Start entry, when the last seat is filled
    (a Join or SeatBot) and its start is not manual.

    However it started, MatchStarted lists each seat connected as its last SeatConnectionChanged said
    and with the latency journalled in the starting entry's `measured` part, so a replay gives back
    the event that was sent. A start journalled before `measured` existed (an automatic start, or a
    Start of either version) showed the values of that instant, which nothing journalled: a replay takes
    them from the event as the host stored and sent it (`Table._starting_seats`)."""

    KIND: ClassVar[str] = "start"
    fill: bool = False
    bot_kind: str = ""
    version: int = 1

    def fields(self) -> JsonDict:
        out: JsonDict = {"fill": self.fill, "bot_kind": self.bot_kind}
        return out if self.version == 1 else {**out, "v": self.version}

    @classmethod
    def load(cls, data: JsonDict) -> Start:
        return cls(bool(data.get("fill")), data.get("bot_kind") or "", int(data.get("v", 1)))


@dataclass(frozen=True, slots=True)
class Command(Entry):
    """A seat's game command under its command id: its actions in their JSON form (`actions_json`)."""

    KIND: ClassVar[str] = "cmd"
    seat: int
    cid: str
    actions: list[JsonDict]

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "cid": self.cid, "actions": self.actions}

    @classmethod
    def load(cls, data: JsonDict) -> Command:
        return cls(int(data["seat"]), data["cid"], data["actions"])


@dataclass(frozen=True, slots=True)
class Close(Entry):
    """A window closed at its deadline with no ruling (what hosts before the race book journalled)."""

    KIND: ClassVar[str] = "close"
    window: int

    def fields(self) -> JsonDict:
        return {"window": self.window}

    @classmethod
    def load(cls, data: JsonDict) -> Close:
        return cls(int(data["window"]))


@dataclass(frozen=True, slots=True)
class RaceAnswer:
    """One answer a race collected, as its ruling journals it: who, under which command id, its
    actions (JSON form), when it arrived (host clock) and the reaction time the client claimed."""

    seat: int
    cid: str
    actions: list[JsonDict]
    arrived_ns: int
    claimed_s: float | None = None

    def to_json(self) -> JsonDict:
        return {"seat": self.seat, "cid": self.cid, "actions": self.actions, "arrived_ns": self.arrived_ns,
                "claimed_s": self.claimed_s}

    @classmethod
    def load(cls, data: JsonDict) -> RaceAnswer:
        return cls(int(data["seat"]), data["cid"], data["actions"], int(data["arrived_ns"]), data.get("claimed_s"))


@dataclass(frozen=True, slots=True)
class Ruling(Entry):
    """A race's ruling with every measurement it used (`racebook.RaceBook.ruling_entry`).

    `answers` (in the ruled order) and `late` are the collected answers, and `ruling` the
    `fairness.races` ordering's own record (`Ruling.to_record`), kept as the JSON it is journalled
    as. `version` 2 rules as the answers applied in order would; 1 (rulings journalled without "v")
    replays the way hosts ruled before. `round` is None in rulings journalled
    before it was recorded (the round being played).
    """

    KIND: ClassVar[str] = "ruling"
    version: int
    window: int
    round: int | None
    kind: str
    compensated: bool
    answers: list[RaceAnswer]
    late: list[RaceAnswer]
    ruling: JsonDict
    opened_ns: int = 0
    close_ns: int | None = None
    duration_ns: int = 0
    allowance_ns: int = 0
    participants: list[int] = field(default_factory=list)
    sent_ns: dict[str, int] = field(default_factory=dict)

    def fields(self) -> JsonDict:
        out: JsonDict = {} if self.version == 1 else {"v": self.version}
        out.update({
            "window": self.window, "round": self.round, "kind": self.kind, "compensated": self.compensated,
            "opened_ns": self.opened_ns, "close_ns": self.close_ns, "duration_ns": self.duration_ns,
            "allowance_ns": self.allowance_ns, "participants": self.participants, "sent_ns": self.sent_ns,
            "answers": [answer.to_json() for answer in self.answers],
            "late": [answer.to_json() for answer in self.late], "ruling": self.ruling,
        })
        if self.round is None:
            del out["round"]
        return out

    @classmethod
    def load(cls, data: JsonDict) -> Ruling:
        round_no = data.get("round")
        return cls(
            int(data.get("v", 1)), int(data["window"]), None if round_no is None else int(round_no), data["kind"],
            bool(data["compensated"]), [RaceAnswer.load(a) for a in data["answers"]],
            [RaceAnswer.load(a) for a in data["late"]], data["ruling"],
            opened_ns=int(data.get("opened_ns", 0)), close_ns=data.get("close_ns"),
            duration_ns=int(data.get("duration_ns", 0)), allowance_ns=int(data.get("allowance_ns", 0)),
            participants=list(data.get("participants", [])), sent_ns=dict(data.get("sent_ns", {})),
        )


@dataclass(frozen=True, slots=True)
class Late(Entry):
    """An answer naming a window already ruled: it loses the race at no cost."""

    KIND: ClassVar[str] = "late"
    seat: int
    cid: str
    window: int
    actions: list[JsonDict]

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "cid": self.cid, "window": self.window, "actions": self.actions}

    @classmethod
    def load(cls, data: JsonDict) -> Late:
        return cls(int(data["seat"]), data["cid"], int(data["window"]), data["actions"])


@dataclass(frozen=True, slots=True)
class Timeout(Entry):
    """The turn clock of `seat` ran out (recorded by the driver)."""

    KIND: ClassVar[str] = "timeout"
    seat: int

    def fields(self) -> JsonDict:
        return {"seat": self.seat}

    @classmethod
    def load(cls, data: JsonDict) -> Timeout:
        return cls(int(data["seat"]))


@dataclass(frozen=True, slots=True)
class Fallback(Entry):
    """A bot seat's worker did not decide in time (`unonet.host.bot_watch`): `kind`, the seat's fallback
    kind, makes its next decision, and with `final` plays the seat for the rest of the match. `worker`
    is the seat's own kind, `reason` "silent" (the worker ran) or "down" (it did not), `allowed_ns`
    the time it had. Recorded by the driver; the decision itself follows as a Command entry."""

    KIND: ClassVar[str] = "fallback"
    seat: int
    worker: str
    kind: str
    reason: str
    allowed_ns: int
    final: bool

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "worker": self.worker, "kind": self.kind, "reason": self.reason,
                "allowed_ns": self.allowed_ns, "final": self.final}

    @classmethod
    def load(cls, data: JsonDict) -> Fallback:
        return cls(int(data["seat"]), data["worker"], data["kind"], data["reason"], int(data["allowed_ns"]),
                   bool(data["final"]))


@dataclass(frozen=True, slots=True)
class Chat(Entry):
    """A chat message from `seat`, or from a spectator (`seat` None). A message sent with a command id
    has `cid` (else ""), and a spectator's also its token as `by`, which tells its retries apart."""

    KIND: ClassVar[str] = "chat"
    seat: int | None
    name: str
    text: str
    cid: str = ""
    by: str | None = None

    def fields(self) -> JsonDict:
        out: JsonDict = {"seat": self.seat, "name": self.name, "text": self.text}
        if self.cid:
            out["cid"] = self.cid
            if self.by is not None:
                out["by"] = self.by
        return out

    @classmethod
    def load(cls, data: JsonDict) -> Chat:
        seat = data.get("seat")
        return cls(None if seat is None else int(seat), data["name"], data["text"], data.get("cid") or "",
                   data.get("by"))


@dataclass(frozen=True, slots=True)
class Entropy(Entry):
    """A seat's CommitEntropy (`commitment`) or, with `commitment` None, its RevealEntropy (`value`)."""

    KIND: ClassVar[str] = "entropy"
    seat: int
    cid: str
    commitment: bytes | None = None
    value: bytes | None = None

    def request(self) -> JsonDict:
        """The command as its retries are compared: the hex of what was sent, under its key."""
        if self.commitment is not None:
            return {"commit": self.commitment.hex()}
        return {"reveal": (self.value or b"").hex()}

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "cid": self.cid, **self.request()}

    @classmethod
    def load(cls, data: JsonDict) -> Entropy:
        if "commit" in data:
            return cls(int(data["seat"]), data["cid"], commitment=bytes.fromhex(data["commit"]))
        return cls(int(data["seat"]), data["cid"], value=bytes.fromhex(data["reveal"]))


@dataclass(frozen=True, slots=True)
class EntropyTimeout(Entry):
    """The deadline of a shuffle's `phase` ("commit" or "reveal") in `round` passed (the driver)."""

    KIND: ClassVar[str] = "entropy_timeout"
    round: int
    phase: str

    def fields(self) -> JsonDict:
        return {"round": self.round, "phase": self.phase}

    @classmethod
    def load(cls, data: JsonDict) -> EntropyTimeout:
        return cls(int(data["round"]), data["phase"])


@dataclass(frozen=True, slots=True)
class ScoresClosed(Entry):
    """The player of `seat` closed the scores of round `round` (CloseScores, under command id `cid`):
    the hold of the next round's first turn does not wait for it (holds.py)."""

    KIND: ClassVar[str] = "scores_closed"
    seat: int
    cid: str
    round: int

    def fields(self) -> JsonDict:
        return {"seat": self.seat, "cid": self.cid, "round": self.round}

    @classmethod
    def load(cls, data: JsonDict) -> ScoresClosed:
        return cls(int(data["seat"]), data["cid"], int(data["round"]))


@dataclass(frozen=True, slots=True)
class Release(Entry):
    """The hold of round `round`'s first turn ran out of time (recorded by the driver at its end)."""

    KIND: ClassVar[str] = "release"
    round: int

    def fields(self) -> JsonDict:
        return {"round": self.round}

    @classmethod
    def load(cls, data: JsonDict) -> Release:
        return cls(int(data["round"]))


@dataclass(frozen=True, slots=True)
class Lost(Entry):
    """On restart, the store gave back a table whose events end before `first`, while the host had
    sent events up to `last` (its sent mark, store.py): each number from `first` to `last` becomes an
    EventsLost marker, so none of them is ever given to another event."""

    KIND: ClassVar[str] = "lost"
    first: int
    last: int

    def fields(self) -> JsonDict:
        return {"first": self.first, "last": self.last}

    @classmethod
    def load(cls, data: JsonDict) -> Lost:
        return cls(int(data["first"]), int(data["last"]))


@dataclass(frozen=True, slots=True)
class Diverged(Entry):
    """On restart, the journal replayed into other events than the host had sent under the numbers
    `first` to `last` (the log's head at the sent mark did not match, loghead.py): those numbers keep
    the journal's events, and a client that resumes after one of them is told it saw another history
    (DATA_LOSS). No event: the journal's log is the table's from now on."""

    KIND: ClassVar[str] = "diverged"
    first: int
    last: int

    def fields(self) -> JsonDict:
        return {"first": self.first, "last": self.last}

    @classmethod
    def load(cls, data: JsonDict) -> Diverged:
        return cls(int(data["first"]), int(data["last"]))


AnyEntry = (
    Join | Connection | Spectate | Unspectate | SeatBot | Leave | Start | Command | Close | Ruling | Late
    | Timeout | Chat | Entropy | EntropyTimeout | ScoresClosed | Release | Lost | Diverged | Fallback
)
_KINDS: dict[str, Any] = {
    kind.KIND: kind
    for kind in (Join, Connection, Spectate, Unspectate, SeatBot, Leave, Start, Command, Close, Ruling, Late,
                 Timeout, Chat, Entropy, EntropyTimeout, ScoresClosed, Release, Lost, Diverged, Fallback)
}
KINDS = frozenset(_KINDS)  # every "k" a journal holds


class UnknownEntry(ValueError):
    """A stored entry of a kind this host does not know (a journal from a newer host)."""


def encode(entry: AnyEntry) -> JsonDict:
    """The entry's JSON form in the journal: "k", its fields, and its private parts when it has any."""
    out: JsonDict = {"k": entry.KIND, **entry.fields()}
    if entry.fair:
        out["fair"] = entry.fair
    if entry.races:
        out["races"] = entry.races
    if entry.measured:
        out["measured"] = entry.measured
    return out


def decode(data: JsonDict) -> AnyEntry:
    """The entry a stored JSON form means. Raises UnknownEntry for a kind this host does not know."""
    kind = _KINDS.get(data["k"])
    if kind is None:
        raise UnknownEntry(f"a journal entry of kind {data['k']!r}, which this host does not know")
    entry: AnyEntry = kind.load(data)
    if "fair" in data:
        entry.fair.update(data["fair"])
    if "races" in data:
        entry.races.update(data["races"])
    if "measured" in data:
        entry.measured.update(data["measured"])
    return entry
