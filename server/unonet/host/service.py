"""gRPC servicers: validate requests, find the table and seat, call the table under its lock.

Every handler is wrapped by `_refusals`, which ends the call on any refusal (`errors.REFUSALS`: a
HostError or an engine UnoError) through `errors.abort`, the one map to a gRPC status with a
machine-readable reason. Anything else is a bug: it is logged with its
traceback and surfaces as INTERNAL, and the table, whose state changes only after validation, is intact.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from unonet.bots.kinds import DEFAULT_BOT_KIND, UnknownBotKind, canonical_name, describe, public_names
from unonet.engine import PRESET_DESCRIPTIONS, PRESETS, find_ruleset
from unonet.host import journal
from unonet.host.errors import REFUSALS, HostError, abort, denied, exhausted, exists, invalid, precondition
from unonet.host.eventlog import EventLog, LogEntry, RenderingMissing
from unonet.host.fanout import Subscriber
from unonet.host.framing import EVENT_FIELD, EVENTS_FIELD, length_delimited
from unonet.host.hangup import hang_up
from unonet.host.holds import DEFAULT_ROUND_START_HOLD_S
from unonet.host.host import Host
from unonet.host.store import StoreClosed
from unonet.host.table import DEFAULT_REACTION_TIME_S, Table, TableSettings
from unonet.host.undecodable import Registering, Undecodable, refusal, tolerant
from unonet.v1 import (
    chat_service_pb2,
    chat_service_pb2_grpc,
    events_pb2,
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    rules_pb2,
    table_pb2,
    time_service_pb2,
    time_service_pb2_grpc,
    watch_service_pb2,
    watch_service_pb2_grpc,
)
from unonet.wire import convert

log = logging.getLogger(__name__)
Context = grpc.aio.ServicerContext[Any, Any]
R = TypeVar("R")

MAX_NAME = 32
MAX_TABLE_NAME = 64
MAX_CHAT = 280
MAX_CLOCK_S = 86_400.0  # a day: any clock setting beyond it is a mistake
MAX_SPECTATOR_DELAY_S = 3_600.0
# A request bigger than this is refused with MESSAGE_TOO_LARGE (the transport itself takes up to
# server.MAX_TRANSPORT_MESSAGE_BYTES, so that the refusal can carry its reason).
MAX_REQUEST_BYTES = 64 * 1024
DEFAULT_PAGE_SIZE = 50  # ListTablesRequest.page_size zero: the default the contract names
MAX_PAGE_SIZE = 500
SUBSCRIBER_TOO_SLOW_MESSAGE = "the event stream fell too far behind; resume from your last event number"
STORE_FAILED_MESSAGE = "the host could not store the table's latest inputs; resume from your last event number"
# The most events one WatchEventsResponse carries, whatever WatchEventsRequest.batch asks for.
MAX_BATCH = 64
# Once a cut-off stream's connection is hung up, how long gRPC may take to fail its pending status.
HUNG_UP_STATUS_S = 5.0


def _refusals(handler: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """A handler's refusals become statuses, and it answers once what it recorded (or saw) is durable."""
    return _answering(handler, wait_durable=True)


def _refusals_now(handler: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """As `_refusals`, for a call that neither records nor shows any table state (Ping): it answers at
    once instead of with the open group commit, so the commit's wait is not measured as network time."""
    return _answering(handler, wait_durable=False)


def _answering(handler: Callable[..., Awaitable[R]], *, wait_durable: bool) -> Callable[..., Awaitable[R]]:
    @functools.wraps(handler)
    async def wrapper(self: Any, request: Any, context: Context) -> R:
        try:
            _check_size(request)
            if getattr(self, "rated_commands", False):  # PlayService, ChatService: limits.Guard.command
                self.host.guard.command(request.token, context.peer())
            response = await handler(self, request, context)
        except REFUSALS as error:
            if wait_durable:
                await self.host.store.durable()
            await abort(context, error)
            raise AssertionError("unreachable") from error
        if wait_durable:  # group commit: nothing the caller hears of may be lost
            await self.host.store.durable()
        return response

    return wrapper


def _seat_draws(request: lobby_service_pb2.CreateTableRequest) -> bool:
    """CreateTableRequest.league_seat_draws, refused (INVALID_FIELD) on a table that is not league-seeded."""
    if request.league_seat_draws and not request.HasField("league_seed"):
        raise invalid("INVALID_FIELD", "league_seat_draws needs a league_seed: per-seat draws come from the "
                      "league's seed", field="league_seat_draws")
    return request.league_seat_draws


def _name(value: str, field: str, limit: int) -> str:
    value = value.strip()
    if not value:
        raise invalid("MISSING_FIELD", f"{field} is empty")
    if len(value) > limit:
        raise invalid(f"{field.upper()}_TOO_LONG", f"{field} is longer than {limit} characters")
    if not value.isprintable():
        raise invalid("INVALID_FIELD", f"{field} must be printable characters")
    return value


def _check_size(request: Any) -> None:
    """MESSAGE_TOO_LARGE for a request over 64 KiB, then MALFORMED_REQUEST for bytes that did not parse
    (`undecodable.tolerant`), noted in the rate-limited log line rather than one traceback each."""
    if request.ByteSize() > MAX_REQUEST_BYTES:
        raise exhausted("MESSAGE_TOO_LARGE", f"requests are at most {MAX_REQUEST_BYTES} bytes")
    if isinstance(request, Undecodable):
        raise refusal(request)


# The range google.protobuf.Timestamp documents: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
MIN_TIMESTAMP_S, MAX_TIMESTAMP_S = -62_135_596_800, 253_402_300_799


def _time_ns(timestamp: Any, field: str) -> int:
    """A request's Timestamp in nanoseconds; INVALID_FIELD (naming `field`) for one outside the range
    Timestamp documents (nanos not in 0 to 999,999,999, seconds outside the years 1 to 9999)."""
    if not (0 <= timestamp.nanos <= 999_999_999 and MIN_TIMESTAMP_S <= timestamp.seconds <= MAX_TIMESTAMP_S):
        raise invalid("INVALID_FIELD", f"{field} must be a valid Timestamp (years 1 to 9999, nanos 0 to "
                      f"999999999), not seconds={timestamp.seconds} nanos={timestamp.nanos}", field=field)
    return int(timestamp.ToNanoseconds())


def _bot_kind(name: str) -> str:
    """The name a public bot kind is seated by (empty: the host's default; ``greedy`` is ``greedy:3``),
    or UNKNOWN_BOT_KIND."""
    try:
        return canonical_name(name or DEFAULT_BOT_KIND)
    except UnknownBotKind as error:
        raise invalid("UNKNOWN_BOT_KIND", str(error)) from None


def _enum(enum: Any, value: int, field: str, *, default: int | None = None) -> int:
    """`value` when `enum` defines it; zero (`*_UNSPECIFIED`, which proto3 cannot tell from unset) is
    `default` where the contract names one. Anything else is UNSPECIFIED_ENUM, naming `field`."""
    if value == 0 and default is not None:
        return default
    if value == 0 or value not in enum.values():
        choices = ", ".join(name for name, number in enum.items() if number != 0)
        shown = enum.Name(value) if value in enum.values() else str(value)
        raise invalid("UNSPECIFIED_ENUM", f"{field} must be one of {choices}, not {shown}", field=field)
    return value


def _clock(clock: Any) -> dict[str, Any]:
    """The TableSettings clock fields for a ClockSettings taken as written (an unset clock, None, is the
    host's default: TableSettings' own, with the default round start hold): a zero turn_time is no clock,
    zero strikes never take a seat over, a zero reaction_time is the host's default, an unset
    round_start_hold is the host's default (a zero one holds nothing), TAKEOVER_POLICY_UNSPECIFIED is
    TAKEOVER_POLICY_BOT. Negative or absurd durations are BAD_CLOCK; a policy number the protocol does not
    define is UNSPECIFIED_ENUM."""
    if clock is None:
        return {"round_start_hold_s": DEFAULT_ROUND_START_HOLD_S}
    seconds = {}
    for field in ("turn_time", "time_bank", "reaction_time", "round_start_hold"):
        value = getattr(clock, field).ToNanoseconds() / 1e9
        if not 0 <= value <= MAX_CLOCK_S:
            raise invalid("BAD_CLOCK", f"clock.{field} must be 0 to {MAX_CLOCK_S:.0f} seconds, not {value:g}",
                          field=f"clock.{field}")
        seconds[field] = value
    kind = _bot_kind(clock.takeover_bot_kind)
    policy = _enum(table_pb2.TakeoverPolicy, clock.takeover_policy, "clock.takeover_policy",
                   default=table_pb2.TAKEOVER_POLICY_BOT)
    return {
        "turn_time_s": seconds["turn_time"],
        "time_bank_s": seconds["time_bank"],
        "reaction_time_s": seconds["reaction_time"] or DEFAULT_REACTION_TIME_S,
        "round_start_hold_s": seconds["round_start_hold"] if clock.HasField("round_start_hold")
        else DEFAULT_ROUND_START_HOLD_S,
        "strikes_before_takeover": clock.strikes_before_takeover,
        "takeover_policy": "forfeit" if policy == table_pb2.TAKEOVER_POLICY_FORFEIT else "bot",
        "takeover_bot_kind": kind,
    }


class LobbyService(lobby_service_pb2_grpc.LobbyServiceServicer):
    def __init__(self, host: Host) -> None:
        self.host = host

    @_refusals
    async def CreateTable(  # noqa: N802
        self, request: lobby_service_pb2.CreateTableRequest, context: Context
    ) -> lobby_service_pb2.CreateTableResponse:
        self.host.guard.join(context.peer())
        self.host.guard.new_table(self.host.open_tables())
        if not 2 <= request.seat_count <= 10:
            raise invalid("BAD_SEAT_COUNT", f"a table seats 2 to 10 players, not {request.seat_count}")
        ruleset = convert.ruleset_from_pb(request.preset, request.overrides)
        delay = request.spectator_delay.ToNanoseconds() / 1e9
        if not 0 <= delay <= MAX_SPECTATOR_DELAY_S:
            raise invalid("INVALID_FIELD", f"spectator_delay must be 0 to {MAX_SPECTATOR_DELAY_S:.0f} seconds, "
                          f"not {delay:g}", field="spectator_delay")
        settings = TableSettings(
            name=_name(request.name, "name", MAX_TABLE_NAME) if request.name else "table",
            seat_count=request.seat_count,
            preset=ruleset.name if ruleset.name in PRESETS else (request.preset or "standard"),
            overrides=_overrides(request.preset, ruleset),
            spectator_delay_s=delay,
            manual_start=request.manual_start,
            league_seed=request.league_seed if request.HasField("league_seed") else None,
            league_seat_draws=_seat_draws(request),
            **_clock(request.clock if request.HasField("clock") else None),
        )
        table = self.host.create_table(settings)
        return lobby_service_pb2.CreateTableResponse(table=table.info(), owner_token=table.owner_token)

    @_refusals
    async def ListTables(  # noqa: N802
        self, request: lobby_service_pb2.ListTablesRequest, context: Context
    ) -> lobby_service_pb2.ListTablesResponse:
        """Tables newest first, a page at a time: those in memory and the archived finished ones."""
        wanted = {_enum(table_pb2.TableStatus, status, "statuses") for status in request.statuses}
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        before = _page_position(request.page_token)
        rows: list[tuple[int, str, Any]] = sorted(
            ((t.created_ns, t.table_id, t) for t in self.host.tables.values()
             if (not wanted or t.status in wanted) and (before is None or (t.created_ns, t.table_id) < before)),
            key=lambda row: row[:2], reverse=True,
        )[: size + 1]
        if not wanted or table_pb2.TABLE_STATUS_FINISHED in wanted:
            rows += [row for row in self.host.store.archived_page(before, size + 1) if row[1] not in self.host.tables]
            rows.sort(key=lambda row: row[:2], reverse=True)
        page = rows[:size]
        tables = [item.public_info() if not isinstance(item, bytes) else table_pb2.TableInfo.FromString(item)
                  for _, _, item in page]
        more = len(rows) > size
        return lobby_service_pb2.ListTablesResponse(
            tables=tables, next_page_token=f"{page[-1][0]}:{page[-1][1]}" if more else "")

    @_refusals
    async def GetTable(  # noqa: N802
        self, request: lobby_service_pb2.GetTableRequest, context: Context
    ) -> lobby_service_pb2.GetTableResponse:
        return lobby_service_pb2.GetTableResponse(table=self.host.info(request.table_id))

    @_refusals
    async def JoinTable(  # noqa: N802
        self, request: lobby_service_pb2.JoinTableRequest, context: Context
    ) -> lobby_service_pb2.JoinTableResponse:
        self.host.guard.join(context.peer())
        table = self.host.table(request.table_id)
        spectator = _enum(lobby_service_pb2.JoinRole, request.role, "role") == lobby_service_pb2.JOIN_ROLE_SPECTATOR
        if spectator and request.HasField("seat"):
            raise invalid("INVALID_FIELD", f"a spectator takes no seat: leave seat unset, not {request.seat}",
                          field="seat")
        name = _name(request.name, "name", MAX_NAME)
        async with table.lock:
            joined = table.last_number + 1  # a player's PlayerJoined comes first (then, maybe, the start)
            token, seat = table.join(name, request.seat if request.HasField("seat") else None, spectator)
            return lobby_service_pb2.JoinTableResponse(
                token=token, seat=seat or 0, is_spectator=seat is None, event_number=0 if seat is None else joined,
                table=table.info() if seat is not None else table.public_info(),
            )

    @_refusals
    async def LeaveTable(  # noqa: N802
        self, request: lobby_service_pb2.LeaveTableRequest, context: Context
    ) -> lobby_service_pb2.LeaveTableResponse:
        table = self.host.table(request.table_id)
        async with table.lock:
            if table.seat_for(request.token) is None:  # a spectator: its place goes, and no event is written
                table.leave_spectator(request.token)
                return lobby_service_pb2.LeaveTableResponse(event_number=0)
            seat = table.acting_seat(request.token)
            produced = table.record(journal.Leave(seat))
            return lobby_service_pb2.LeaveTableResponse(event_number=_number_of(produced, "player_left"))

    @_refusals
    async def AddBots(  # noqa: N802
        self, request: lobby_service_pb2.AddBotsRequest, context: Context
    ) -> lobby_service_pb2.AddBotsResponse:
        table = self.host.table(request.table_id)
        kind = _bot_kind(request.bot_kind)
        async with table.lock:
            _owner(table, request.owner_token)
            free = [seat.index for seat in table.seats if not seat.is_occupied]
            count = request.count or len(free)
            if count > len(free):
                raise exists("TABLE_FULL", f"only {len(free)} seats are free")
            number = table.last_number
            for seat in free[:count]:
                produced = table.record(journal.SeatBot(seat, kind, f"{kind.partition(':')[0]}-bot-{seat}"))
                number = _number_of(produced, "match_started", "bot_seated")  # the table may have started
            return lobby_service_pb2.AddBotsResponse(seats=free[:count], event_number=number)

    @_refusals
    async def StartTable(  # noqa: N802
        self, request: lobby_service_pb2.StartTableRequest, context: Context
    ) -> lobby_service_pb2.StartTableResponse:
        table = self.host.table(request.table_id)
        async with table.lock:
            _owner(table, request.owner_token)
            kind = _bot_kind(request.bot_kind)
            produced = table.record(journal.Start(request.fill_with_bots, kind, version=2))
            return lobby_service_pb2.StartTableResponse(event_number=_number_of(produced, "match_started"))

    @_refusals
    async def ListPresets(  # noqa: N802
        self, request: lobby_service_pb2.ListPresetsRequest, context: Context
    ) -> lobby_service_pb2.ListPresetsResponse:
        presets = [
            rules_pb2.RulesetPreset(
                name=name, description=PRESET_DESCRIPTIONS[name], ruleset=convert.ruleset_to_pb(ruleset)
            )
            for name, ruleset in PRESETS.items()
        ]
        return lobby_service_pb2.ListPresetsResponse(presets=presets)

    @_refusals
    async def ListBotKinds(  # noqa: N802
        self, request: lobby_service_pb2.ListBotKindsRequest, context: Context
    ) -> lobby_service_pb2.ListBotKindsResponse:
        names = sorted(public_names(), key=lambda name: name != DEFAULT_BOT_KIND)  # the default first
        kinds = [table_pb2.BotKind(name=name, description=describe(name), is_default=name == DEFAULT_BOT_KIND)
                 for name in names]
        return lobby_service_pb2.ListBotKindsResponse(bot_kinds=kinds)


def _number_of(produced: list[LogEntry], *payloads: str) -> int:
    """The number of the first event among `produced` whose payload is `payloads[0]`, else `payloads[1]`,
    ...: what a lobby response's `event_number` names (PlayerLeft, BotSeated, MatchStarted), which is not
    always the last event the call produced (a start deals, a takeover follows a leave)."""
    for payload in payloads:
        for entry in produced:
            if isinstance(entry.event, events_pb2.Event) and entry.event.WhichOneof("payload") == payload:
                return entry.number
    raise AssertionError(f"no {' or '.join(payloads)} event among {len(produced)}")


_FIELDS: dict[type, frozenset[str]] = {}


def _fields(request: Any) -> frozenset[str]:
    """The fields a request's message type has, by name, found once per type: asked of every command
    (`getattr` with a default raises and catches an AttributeError inside for a field the message
    lacks, 0.9 us each)."""
    fields = _FIELDS.get(type(request))
    if fields is None:
        fields = _FIELDS[type(request)] = frozenset(request.DESCRIPTOR.fields_by_name)
    return fields


def _check_target_seat(request: Any, seat_count: int) -> None:
    """A command that names another seat (CatchUno, ChooseSwapTarget, FiveSwap) must name one of the
    table's: any other number is BAD_SEAT whatever the state, as PlayService's contract says."""
    if "target_seat" in _fields(request) and (target := request.target_seat) >= seat_count:
        raise invalid("BAD_SEAT", f"target_seat must be one of seats 0 to {seat_count - 1}, not {target}",
                      field="target_seat")


def _page_position(token: str) -> tuple[int, str] | None:
    """The position a ListTables page token names: the creation time and id of the last table listed."""
    if not token:
        return None
    created, _, table_id = token.partition(":")
    # ASCII digits only (str.isdigit also takes "²"), and a creation time SQLite's integers can hold.
    if not (created.isascii() and created.isdigit() and int(created) < 2**63) or not table_id:
        raise invalid("BAD_PAGE_TOKEN", "page_token must be a next_page_token this host returned")
    return int(created), table_id


def _based_on(request: Any, last_number: int) -> int:
    """The newest event a command can have been sent against: the request's `based_on_event_number`
    where it has one (capped at the log's end), else the last event logged when it arrived (a command
    held behind a race then knows it was sent before the ruling's events)."""
    claimed = request.based_on_event_number if "based_on_event_number" in _fields(request) else 0
    return min(claimed, last_number) if claimed else last_number


def _owner(table: Any, token: str) -> None:
    if not token or not token.isascii() or not secrets.compare_digest(token, table.owner_token):
        raise denied("NOT_OWNER", "only the table's creator (owner token) may do this")


def _overrides(preset: str, ruleset: Any) -> dict[str, Any]:
    """The options that differ from the preset, as plain data for the journal."""
    base = find_ruleset(preset or "standard").options()
    return {k: v for k, v in ruleset.options().items() if base.get(k) != v}


class PlayService(play_service_pb2_grpc.PlayServiceServicer):
    """One unary RPC per command; each becomes engine actions applied once per command id."""

    rated_commands = True  # each call counts against its token's and its peer's rate (limits.py)

    def __init__(self, host: Host) -> None:
        self.host = host

    async def _command(self, request: Any, response_type: Callable[..., R]) -> R:
        """Apply a command; an answer to a race waits for the ruling, and a command held behind a race
        (the next turn during an UNO catch or a jump-in being ruled) waits for it, then goes on."""
        arrived = self.host.clock_ns()  # before the lock: an answer's arrival is part of the race
        table = self.host.table(request.table_id)
        fields, claimed = _fields(request), None
        if "reaction_time" in fields and request.HasField("reaction_time"):
            claimed = request.reaction_time.ToNanoseconds() / 1e9
        hint = request.reaction_window_id if "reaction_window_id" in fields else 0
        based_on: int | None = None
        while True:
            async with table.lock:
                seat = table.acting_seat(request.token, request.command_id)
                _check_target_seat(request, len(table.seats))
                actions = convert.action_from_request(seat, request)
                if not table.has_command(seat, request.command_id):  # a retry gets its first result, held or not
                    table.refuse_if_held()
                if based_on is None:
                    based_on = _based_on(request, table.last_number)
                waiting = table.races.submit(table, seat, request.command_id, actions, arrived_ns=arrived,
                                             claimed_s=claimed, window_hint=hint, based_on=based_on)
                if waiting is None:
                    return response_type(result=table.command(seat, request.command_id, actions))
            await waiting.race.ruled.wait()
            if waiting.collected:
                async with table.lock:
                    record = table.commands.get((seat, request.command_id))
                    if record is None:
                        raise precondition("WINDOW_CLOSED", f"window {waiting.race.window_id} closed unruled")
                    return response_type(result=record.result)

    @_refusals
    async def PlayCards(  # noqa: N802
        self, request: play_service_pb2.PlayCardsRequest, context: Context
    ) -> play_service_pb2.PlayCardsResponse:
        return await self._command(request, play_service_pb2.PlayCardsResponse)

    @_refusals
    async def ChooseColor(  # noqa: N802
        self, request: play_service_pb2.ChooseColorRequest, context: Context
    ) -> play_service_pb2.ChooseColorResponse:
        return await self._command(request, play_service_pb2.ChooseColorResponse)

    @_refusals
    async def Draw(  # noqa: N802
        self, request: play_service_pb2.DrawRequest, context: Context
    ) -> play_service_pb2.DrawResponse:
        return await self._command(request, play_service_pb2.DrawResponse)

    @_refusals
    async def Pass(  # noqa: N802
        self, request: play_service_pb2.PassRequest, context: Context
    ) -> play_service_pb2.PassResponse:
        return await self._command(request, play_service_pb2.PassResponse)

    @_refusals
    async def CallUno(  # noqa: N802
        self, request: play_service_pb2.CallUnoRequest, context: Context
    ) -> play_service_pb2.CallUnoResponse:
        return await self._command(request, play_service_pb2.CallUnoResponse)

    @_refusals
    async def CatchUno(  # noqa: N802
        self, request: play_service_pb2.CatchUnoRequest, context: Context
    ) -> play_service_pb2.CatchUnoResponse:
        return await self._command(request, play_service_pb2.CatchUnoResponse)

    @_refusals
    async def Challenge(  # noqa: N802
        self, request: play_service_pb2.ChallengeRequest, context: Context
    ) -> play_service_pb2.ChallengeResponse:
        return await self._command(request, play_service_pb2.ChallengeResponse)

    @_refusals
    async def React(  # noqa: N802
        self, request: play_service_pb2.ReactRequest, context: Context
    ) -> play_service_pb2.ReactResponse:
        return await self._command(request, play_service_pb2.ReactResponse)

    @_refusals
    async def ChooseSwapTarget(  # noqa: N802
        self, request: play_service_pb2.ChooseSwapTargetRequest, context: Context
    ) -> play_service_pb2.ChooseSwapTargetResponse:
        return await self._command(request, play_service_pb2.ChooseSwapTargetResponse)

    @_refusals
    async def FiveSwap(  # noqa: N802
        self, request: play_service_pb2.FiveSwapRequest, context: Context
    ) -> play_service_pb2.FiveSwapResponse:
        return await self._command(request, play_service_pb2.FiveSwapResponse)

    @_refusals
    async def GiveCard(  # noqa: N802
        self, request: play_service_pb2.GiveCardRequest, context: Context
    ) -> play_service_pb2.GiveCardResponse:
        return await self._command(request, play_service_pb2.GiveCardResponse)

    @_refusals
    async def CommitEntropy(  # noqa: N802
        self, request: play_service_pb2.CommitEntropyRequest, context: Context
    ) -> play_service_pb2.CommitEntropyResponse:
        table = self.host.table(request.table_id)
        async with table.lock:
            seat = table.acting_seat(request.token, request.command_id)
            result = table.entropy(seat, request.command_id, commitment=request.commitment)
        return play_service_pb2.CommitEntropyResponse(result=result)

    @_refusals
    async def RevealEntropy(  # noqa: N802
        self, request: play_service_pb2.RevealEntropyRequest, context: Context
    ) -> play_service_pb2.RevealEntropyResponse:
        table = self.host.table(request.table_id)
        async with table.lock:
            seat = table.acting_seat(request.token, request.command_id)
            result = table.entropy(seat, request.command_id, value=request.entropy)
        return play_service_pb2.RevealEntropyResponse(result=result)

    @_refusals
    async def CloseScores(  # noqa: N802
        self, request: play_service_pb2.CloseScoresRequest, context: Context
    ) -> play_service_pb2.CloseScoresResponse:
        """A player read a round's scores: the hold of the next round's first turn stops waiting for it."""
        table = self.host.table(request.table_id)
        async with table.lock:
            seat = table.player_seat(request.token)  # a seat taken over may still close what it reads
            result = table.close_scores(seat, request.command_id, request.round_number)
        return play_service_pb2.CloseScoresResponse(result=result)


class ChatService(chat_service_pb2_grpc.ChatServiceServicer):
    rated_commands = True  # a chat line counts as a command against the rates (limits.py)

    def __init__(self, host: Host) -> None:
        self.host = host

    @_refusals
    async def SendChat(  # noqa: N802
        self, request: chat_service_pb2.SendChatRequest, context: Context
    ) -> chat_service_pb2.SendChatResponse:
        table = self.host.table(request.table_id)
        text = _name(request.text, "text", MAX_CHAT)
        async with table.lock:
            result = table.chat(request.token, request.command_id, text)
        return chat_service_pb2.SendChatResponse(result=result)


class WatchService(watch_service_pb2_grpc.WatchServiceServicer):
    """Event streams, written as pre-serialized bytes (see `add_services`).

    Each event is rendered and serialized once per visibility class (`Table.render_bytes`); a stream
    that asked for `batch` sends every event that is ready, up to its limit, in one message, so a
    command reaches each seat in one write instead of one per event. No timer is armed per write: a
    single watchdog cuts off any stream whose pending write has lasted longer than the host's
    `write_timeout_s`, as the bounded queue cuts off one that falls too far behind.
    """

    def __init__(self, host: Host) -> None:
        self.host = host
        self._writers: dict[int, tuple[Subscriber, Table]] = {}
        self._watchdog: asyncio.TimerHandle | None = None

    @_refusals
    async def GetView(  # noqa: N802
        self, request: watch_service_pb2.GetViewRequest, context: Context
    ) -> watch_service_pb2.GetViewResponse:
        table = self.host.table(request.table_id)
        async with table.lock:
            seat = table.seat_for(request.token) if request.token else None
            return watch_service_pb2.GetViewResponse(view=table.view(seat) if seat is not None else table.public_view())

    async def WatchEvents(  # type: ignore[override]  # noqa: N802
        self, request: watch_service_pb2.WatchEventsRequest, context: Context
    ) -> None:
        try:
            await self._watch(request, context)
        except StoreClosed as closed:  # past the shutdown order (Host.stop): UNAVAILABLE, resume elsewhere
            log.info("a stream of table %s ended: %s", request.table_id, closed)
            await abort(context, closed)

    async def _watch(self, request: watch_service_pb2.WatchEventsRequest, context: Context) -> None:
        # Streams by `context.write` (of pre-serialized bytes), not by yielding: grpc.aio allows both.
        try:
            _check_size(request)  # first, as for every unary call
            table = self.host.table(request.table_id)
            seat = table.seat_for(request.token) if request.token else None
        except REFUSALS as error:
            await abort(context, error)
            return
        limit = min(request.batch, MAX_BATCH) if request.batch > 1 else 1
        tag = EVENTS_FIELD if limit > 1 else EVENT_FIELD
        async with table.lock:
            last = table.last_number
            if request.after_event_number > last or table.lost_range(request.after_event_number):
                lost = self.host.lost_events(table, request.after_event_number)  # DATA_LOSS: a damaged store
                await abort(context, lost or invalid("BAD_EVENT_NUMBER", f"the table's last event is {last}",
                                                     event_number=str(last)))
                return
            try:
                self.host.guard.new_subscriber(len(table.subscribers))
            except HostError as error:
                await abort(context, error)
                return
            subscriber = table.subscribe(seat)
            last = subscriber.first_queued - 1  # a seat's first stream was just announced (SeatConnectionChanged)
            subscriber.task = asyncio.current_task()
            snapshot = None
            if request.start_with_snapshot:  # a spectator's is behind any spectator delay, as its events are
                view = table.view(seat) if seat is not None else table.public_view()
                snapshot = events_pb2.Event(number=view.event_number, snapshot=events_pb2.Snapshot(view=view))
        # Numbers to send before the queue's: the backlog (events never change once numbered; the old ones
        # come from the store, eventlog.py).
        after = request.after_event_number if snapshot is None else snapshot.number
        pending = collections.deque(range(after + 1, last + 1))
        delay_ns = int(table.settings.spectator_delay_s * 1e9) if seat is None else 0
        queue, events = subscriber.queue, table.events
        self._writers[id(subscriber)] = (subscriber, table)
        self._arm_watchdog()
        try:
            # The backlog and the snapshot may include inputs of the open group commit: nothing leaves
            # before they are durable. What the queue brings later already is (`FanOut.publish`).
            await self.host.store.durable()
            if snapshot is not None:
                await self._write(context, subscriber, length_delimited(tag, snapshot.SerializeToString()))
            while True:
                if not pending:
                    waiter = queue.wait()
                    if waiter is not None:
                        await waiter
                    if subscriber.overflowed or subscriber.store_failed:
                        break
                    taken = queue.take()
                    if not taken:  # woken with nothing queued: wait again
                        continue
                    if len(taken) <= limit and not delay_ns:  # a live stream's every wake-up: one write
                        await self._write(context, subscriber, events.framed(taken, seat, tag))
                        continue
                    pending.extend(taken)
                else:
                    pending.extend(queue.take())
                count = min(limit, len(pending))
                if delay_ns:
                    count = await self._due(events, pending, count, delay_ns)
                numbers = [pending.popleft() for _ in range(count)]
                await self._write(context, subscriber, events.framed(numbers, seat, tag))
        except asyncio.CancelledError:
            if not (subscriber.overflowed or subscriber.store_failed):
                raise
        except RenderingMissing as missing:  # a damaged database: one log line, the stream ends TABLE_DAMAGED
            log.error("%s; the stream ends with TABLE_DAMAGED", missing)
            await abort(context, precondition("TABLE_DAMAGED", f"{missing}; its older events cannot be sent"))
        finally:
            self._writers.pop(id(subscriber), None)
            table.unsubscribe(subscriber)
        if subscriber.store_failed:
            await self._end_stream(context, HostError(grpc.StatusCode.UNAVAILABLE, "STORE_FAILED",
                                                      STORE_FAILED_MESSAGE))
        await self._end_stream(context, exhausted("SUBSCRIBER_TOO_SLOW", SUBSCRIBER_TOO_SLOW_MESSAGE))

    async def _end_stream(self, context: Context, error: HostError) -> None:
        """End a stream the host cut off with its status, which waits behind whatever the client has not
        read yet and reaches it once it reads. A client that does not read within the host's
        `hang_up_after_s` (its HTTP/2 window stays shut) would never see it, nor any end: its connection
        is hung up instead (hangup.py), so it sees the stream fail and resumes. Where the transport cannot
        carry a status any more (a connection stalled at the TCP level, or hung up), the call is ended as
        cancelled, with one log line, not gRPC's ExecuteBatchError traceback."""
        ending = asyncio.ensure_future(abort(context, error))
        try:
            done, _ = await asyncio.wait({ending}, timeout=self.host.hang_up_after_s)
            if not done:
                hung = hang_up(context.peer())
                log.info("a cut-off stream's %s status did not reach %s within %g s: %s", error.reason,
                         context.peer(), self.host.hang_up_after_s,
                         "its connection was hung up" if hung else "it waits until the client reads")
                await asyncio.wait({ending}, timeout=HUNG_UP_STATUS_S if hung else None)
        finally:
            if not ending.done():
                ending.cancel()
        try:
            await ending
        except grpc.aio.AbortError:
            raise
        except BaseException as failed:  # ExecuteBatchError: core takes no status on this call any more
            log.info("a cut-off stream could not be sent %s (%s): ended as cancelled", error.reason,
                     type(failed).__name__)
            raise asyncio.CancelledError from None

    async def _due(self, log: EventLog, pending: collections.deque[int], count: int, delay_ns: int) -> int:
        """A delayed spectator: wait until the first pending event is due; how many are due by then."""
        now = self.host.clock_ns()
        first_due = log.time_ns(pending[0]) + delay_ns
        if first_due > now:
            await asyncio.sleep((first_due - now) / 1e9)  # the spectator delay itself, not a synchronisation
            now = self.host.clock_ns()
        due = 1
        while due < count and log.time_ns(pending[due]) + delay_ns <= now:
            due += 1
        return due

    async def _write(self, context: Context, subscriber: Subscriber, data: bytes) -> None:
        # No timer per write (and no wait_for, which on Python 3.11 can swallow a cancellation): the
        # watchdog reads `writing_since`, and a client that hangs up cancels this task directly.
        subscriber.writing_since = time.monotonic()
        try:
            await context.write(data)
        except asyncio.CancelledError:
            raise
        except Exception as failed:  # ExecuteBatchError: the call already ended in core (its client went away)
            # A loaded host can still be writing when the client's cancel or deadline lands; nothing more
            # reaches that client, so the stream ends as cancelled with one log line, not a traceback.
            log.info("a stream's write to %s failed (%s): its call is over, ended as cancelled", context.peer(),
                     type(failed).__name__)
            raise asyncio.CancelledError from None
        subscriber.writing_since = 0.0
        if subscriber.store_failed:  # cut off during the write (`FanOut.cut_off`): the stream ends now
            raise asyncio.CancelledError

    def _arm_watchdog(self) -> None:
        if self._watchdog is None:
            period = max(0.01, self.host.write_timeout_s / 4)
            self._watchdog = asyncio.get_running_loop().call_later(period, self._check_writes)

    def _check_writes(self) -> None:
        """Cut off every stream whose write has been pending longer than the host's write timeout."""
        self._watchdog = None
        now = time.monotonic()
        for subscriber, table in list(self._writers.values()):
            since = subscriber.writing_since
            if since and now - since > self.host.write_timeout_s and not subscriber.overflowed:
                table.cut_off(subscriber)
        if self._writers:
            self._arm_watchdog()


class TimeService(time_service_pb2_grpc.TimeServiceServicer):
    """Four-timestamp pings: the client computes round trip and clock offset from the times returned."""

    def __init__(self, host: Host) -> None:
        self.host = host

    @_refusals_now
    async def Ping(  # noqa: N802
        self, request: time_service_pb2.PingRequest, context: Context
    ) -> time_service_pb2.PingResponse:
        """Echo the times; with a seat token, also feed that seat's latency (reaction windows, racebook.py)."""
        received = self.host.clock_ns()
        if not request.HasField("client_send_time"):
            raise invalid("MISSING_FIELD", "PingRequest.client_send_time is required", field="client_send_time")
        if request.HasField("previous") and not request.previous.HasField("client_receive_time"):
            raise invalid("MISSING_FIELD", "PingRequest.previous needs its client_receive_time",
                          field="previous.client_receive_time")
        client_sent = _time_ns(request.client_send_time, "client_send_time")
        client_received = (_time_ns(request.previous.client_receive_time, "previous.client_receive_time")
                           if request.HasField("previous") else 0)
        response = time_service_pb2.PingResponse(sequence=request.sequence)
        response.client_send_time.CopyFrom(request.client_send_time)
        response.receive_time.FromNanoseconds(received)
        seat = None
        if request.table_id or request.token:
            table = self.host.table(request.table_id)
            seat = table.seat_for(request.token)
        sent = self.host.clock_ns()
        if seat is not None:
            previous = None
            if request.HasField("previous"):
                previous = (request.previous.sequence, client_received)
            rtt = table.races.ping(seat, request.sequence, client_sent, received,
                                   sent, previous)
            if rtt is not None:
                response.smoothed_round_trip.FromNanoseconds(round(rtt * 1e9))
        response.send_time.FromNanoseconds(sent)
        return response


def add_services(server: grpc.aio.Server, host: Host) -> list[str]:
    """Register every service through its generated `add_..._to_server`, so every RPC the protocol
    defines is served (one a servicer lacks answers UNIMPLEMENTED); returns the services' full names
    (for health checking and reflection). Each registration goes through `undecodable.Registering`:
    request bytes that do not parse reach the handler as an `Undecodable` (refused with MALFORMED_REQUEST)."""
    lobby_service_pb2_grpc.add_LobbyServiceServicer_to_server(
        LobbyService(host), Registering(server, _own()))  # type: ignore[arg-type]
    play_service_pb2_grpc.add_PlayServiceServicer_to_server(
        PlayService(host), Registering(server, _own()))  # type: ignore[arg-type]
    chat_service_pb2_grpc.add_ChatServiceServicer_to_server(
        ChatService(host), Registering(server, _own()))  # type: ignore[arg-type]
    # WatchEvents writes the bytes it serialized itself (the table's cached renderings).
    watch_service_pb2_grpc.add_WatchServiceServicer_to_server(
        WatchService(host), Registering(server, _own(frozenset({"WatchEvents"}))))  # type: ignore[arg-type]
    time_service_pb2_grpc.add_TimeServiceServicer_to_server(
        TimeService(host), Registering(server, _own()))  # type: ignore[arg-type]
    return [
        lobby_service_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name,
        play_service_pb2.DESCRIPTOR.services_by_name["PlayService"].full_name,
        chat_service_pb2.DESCRIPTOR.services_by_name["ChatService"].full_name,
        watch_service_pb2.DESCRIPTOR.services_by_name["WatchService"].full_name,
        time_service_pb2.DESCRIPTOR.services_by_name["TimeService"].full_name,
    ]


def _own(pre_serialized: frozenset[str] = frozenset()) -> Callable[[str, Any], Any]:
    """How this module's servicers are registered (`undecodable.Registering`): a request deserializer
    that turns unparsable bytes into an `Undecodable`, which their handlers refuse (`_check_size`), and,
    for the methods in `pre_serialized`, which write only responses they serialized themselves, no
    serializer: gRPC sends the bytes as they are (a serializer is one Python call per message written)."""

    def adapt(method: str, handler: Any) -> Any:
        handler = handler._replace(request_deserializer=tolerant(method, handler.request_deserializer))
        if method.rpartition("/")[2] in pre_serialized:
            handler = handler._replace(response_serializer=None)
        return handler

    return adapt
