"""An asyncio client for one seat (or spectator place) at a unonet table, over `grpc.aio`.

`TableClient` wraps the generated stubs so that client code (the terminal client, every bot) deals in
seats, events and commands, never in tokens, command ids, deadlines, retries or raw gRPC errors:

- every RPC has a deadline (`timeout`, or `stream_timeout` for the event stream);
- every refusal is raised as a typed `unonet.client.errors.UnonetError`;
- every command carries the table id, the token and a fresh command id, and is resent once, with the
  same id, when the transport fails (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED), which the host applies at most
  once (see PlayService in `play_service.proto`);
- `events()` resumes a broken or ended stream from the last event it yielded, so its consumer sees
  every event number exactly once, in order.

It needs only the generated code (`unonet.v1`), never `unonet.engine` or `unonet.host`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self, TypeVar

import grpc
from google.protobuf import duration_pb2, timestamp_pb2

from unonet.client import commands as cmd
from unonet.client.errors import (
    DataLoss,
    ResourceExhausted,
    Unavailable,
    UnonetError,
    from_rpc_error,
    is_transient,
)
from unonet.client.logchain import LogChain
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
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
    views_pb2,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

__all__ = ["CreatedTable", "JoinedSeat", "PingResult", "TableClient", "new_command_id"]

log = logging.getLogger(__name__)

_Response = TypeVar("_Response")

# How many times in a row `events()` reopens a stream that delivers nothing new before giving up.
_MAX_FRUITLESS_RECONNECTS = 10
# WatchEventsRequest.batch: the host may send up to this many events in one message (fewer writes).
_EVENT_BATCH = 64


def new_command_id() -> str:
    """A fresh command id: 32 hex digits of a random UUID (the protocol allows 1 to 64 printable chars)."""
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class CreatedTable:
    """What CreateTable returned: the table's id, its owner token (for AddBots/StartTable) and info."""

    table_id: str
    owner_token: str
    table: table_pb2.TableInfo


@dataclass(frozen=True, slots=True)
class JoinedSeat:
    """What JoinTable returned: the seat (meaningless for a spectator) and its secret token."""

    table_id: str
    seat: int
    token: str
    is_spectator: bool
    event_number: int


@dataclass(frozen=True, slots=True)
class PingResult:
    """One four-timestamp ping, in seconds: t0 sent, t1 host received, t2 host sent, t3 received.

    `round_trip` = (t3 - t0) - (t2 - t1); `offset` = ((t1 - t0) + (t2 - t3)) / 2 is how far the host's
    clock is ahead of ours (subtract it from host times to read them on our clock).
    """

    sequence: int
    round_trip: float
    offset: float
    smoothed_round_trip: float | None


class TableClient:
    """One seat's (or spectator's) connection to a host.

    Create it with `connect(address)` (or around an existing channel, which it then does not close),
    then `join` a table, or `attach` a token you already hold. A client plays one seat at a time;
    several clients may share one channel.

    Attributes:
        legal_actions: the latest LegalActions seen (from an event, a snapshot or GetView), or None.
        last_event_number: the number of the last event `events()` yielded (0 before any).
        log_head: this copy's hash-chain head (docs/fairness.md 8.2) as (event number, 32 bytes), to
            compare with other players' at the same number; None before event 1, and for a copy that
            did not start at event 1 or went through a Snapshot.
    """

    def __init__(
        self,
        channel: grpc.aio.Channel,
        *,
        timeout: float = 10.0,
        stream_timeout: float = 600.0,
        reconnect_delay: float = 0.05,
        max_reconnect_delay: float = 2.0,
        retry_delay: float = 0.05,
        owns_channel: bool = False,
    ) -> None:
        """Wrap `channel`.

        Args:
            timeout: the deadline, in seconds, of every unary RPC.
            stream_timeout: the deadline of one WatchEvents call; when it passes, `events()` simply
                resumes on a new call, so it bounds how long a dead connection can go unnoticed.
            reconnect_delay, max_reconnect_delay: the back-off between fruitless stream reconnects.
            retry_delay: the pause before resending a command after a transport failure.
            owns_channel: close the channel in `close()`.
        """
        self._channel = channel
        self._owns_channel = owns_channel
        self.timeout = timeout
        self.stream_timeout = stream_timeout
        self.reconnect_delay = reconnect_delay
        self.max_reconnect_delay = max_reconnect_delay
        self.retry_delay = retry_delay
        self._lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        self._play = play_service_pb2_grpc.PlayServiceStub(channel)
        self._watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        self._chat = chat_service_pb2_grpc.ChatServiceStub(channel)
        self._time = time_service_pb2_grpc.TimeServiceStub(channel)
        self.table_id = ""
        self.token = ""
        self.seat: int | None = None
        self.is_spectator = False
        self.owner_token = ""
        self.legal_actions: actions_pb2.LegalActions | None = None
        self._legal_actions_number = -1
        self.last_event_number = 0
        self._chain: LogChain | None = None
        self.clock_offset: float | None = None
        self._ping_sequence = 0
        self._previous_ping: time_service_pb2.PingReport | None = None

    @classmethod
    async def connect(
        cls,
        address: str,
        *,
        wait_ready: bool = True,
        connect_timeout: float = 10.0,
        options: list[tuple[str, Any]] | None = None,
        tls: bool = False,
        root_certificates: bytes | None = None,
        **kwargs: Any,
    ) -> Self:
        """Open a channel to `address` (``host:port``) and return a client that owns it.

        The channel is plaintext unless `tls`, which checks the host's certificate against
        `root_certificates` (PEM), or the system's roots when None.

        Raises:
            Unavailable: when `wait_ready` and the host cannot be reached within `connect_timeout`.
        """
        if tls:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            channel = grpc.aio.secure_channel(address, credentials, options=options)
        else:
            channel = grpc.aio.insecure_channel(address, options=options)
        if wait_ready:
            try:
                await asyncio.wait_for(channel.channel_ready(), connect_timeout)
            except TimeoutError:
                await channel.close()
                raise Unavailable(message=f"no host answered at {address} within {connect_timeout}s") from None
        return cls(channel, owns_channel=True, **kwargs)

    @property
    def channel(self) -> grpc.aio.Channel:
        """The underlying channel, to share with other clients."""
        return self._channel

    async def close(self) -> None:
        """Close the channel if this client opened it."""
        if self._owns_channel:
            await self._channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # ----------------------------------------------------------------------------------------- lobby

    async def create_table(
        self,
        preset: str = "standard",
        overrides: rules_pb2.Ruleset | Mapping[str, Any] | None = None,
        seat_count: int = 4,
        *,
        name: str = "",
        clock: table_pb2.ClockSettings | None = None,
        spectator_delay: float | None = None,
        manual_start: bool = False,
        league_seed: int | None = None,
        league_seat_draws: bool = False,
    ) -> CreatedTable:
        """Create a table; `overrides` is a Ruleset or a mapping of its fields (``{"target_score": 50}``).

        `league_seed` makes a league-seeded table: dealt from that seed by the engine's own shuffle,
        with no fair shuffle (CreateTableRequest.league_seed, docs/leagues.md); `league_seat_draws`
        then has every seat draw from its own draw stream (CreateTableRequest.league_seat_draws).

        The owner token is also kept in `owner_token`. Not retried: a lost answer may have created it.

        Raises:
            InvalidArgument: an unknown preset, impossible options, a bad seat count or clock,
                `league_seat_draws` without `league_seed`.
            ResourceExhausted: the host holds as many tables as it will.
        """
        if overrides is None:
            ruleset = rules_pb2.Ruleset()
        elif isinstance(overrides, rules_pb2.Ruleset):
            ruleset = overrides
        else:
            ruleset = rules_pb2.Ruleset(**dict(overrides))
        request = lobby_service_pb2.CreateTableRequest(
            name=name, preset=preset, overrides=ruleset, seat_count=seat_count, manual_start=manual_start
        )
        if clock is not None:
            request.clock.CopyFrom(clock)
        if spectator_delay is not None:
            request.spectator_delay.CopyFrom(_duration(spectator_delay))
        if league_seed is not None:
            request.league_seed = league_seed
        request.league_seat_draws = league_seat_draws
        response: lobby_service_pb2.CreateTableResponse = await self._unary(self._lobby.CreateTable, request)
        self.owner_token = response.owner_token
        return CreatedTable(response.table.table_id, response.owner_token, response.table)

    async def join(self, table_id: str, name: str, seat: int | None = None, spectator: bool = False) -> JoinedSeat:
        """Take a seat (`seat`, or the lowest empty one) or a spectator place, and keep its token.

        Not retried: a lost answer may have taken the seat.

        Raises:
            NotFound: no such table.
            AlreadyExists: the seat is taken (SEAT_TAKEN) or none is left (TABLE_FULL).
            FailedPrecondition: the match has started (players join only before it).
            InvalidArgument: a bad name or seat number.
        """
        role = lobby_service_pb2.JOIN_ROLE_SPECTATOR if spectator else lobby_service_pb2.JOIN_ROLE_PLAYER
        request = lobby_service_pb2.JoinTableRequest(table_id=table_id, name=name, role=role)
        if seat is not None:
            request.seat = seat
        response: lobby_service_pb2.JoinTableResponse = await self._unary(self._lobby.JoinTable, request)
        self.attach(table_id, response.token, None if response.is_spectator else response.seat)
        return JoinedSeat(table_id, response.seat, response.token, response.is_spectator, response.event_number)

    def attach(self, table_id: str, token: str, seat: int | None) -> None:
        """Act for a seat (or watch, with `seat` None) whose token is already known, e.g. after a restart."""
        if table_id != self.table_id or token != self.token:
            self.last_event_number = 0
            self.legal_actions = None
            self._legal_actions_number = -1
            self._chain = None
        self.table_id, self.token, self.seat = table_id, token, seat
        self.is_spectator = seat is None

    async def add_bots(self, count: int = 0, bot_kind: str = "", *, table_id: str | None = None) -> list[int]:
        """Seat host bots in empty seats (all of them for `count` 0); needs `owner_token`."""
        request = lobby_service_pb2.AddBotsRequest(
            table_id=table_id or self.table_id, owner_token=self.owner_token, bot_kind=bot_kind, count=count
        )
        response: lobby_service_pb2.AddBotsResponse = await self._unary(self._lobby.AddBots, request)
        return list(response.seats)

    async def start_table(
        self, fill_with_bots: bool = False, bot_kind: str = "", *, table_id: str | None = None
    ) -> int:
        """Start the match now; needs `owner_token`. Returns the number of the MatchStarted event."""
        request = lobby_service_pb2.StartTableRequest(
            table_id=table_id or self.table_id,
            owner_token=self.owner_token,
            fill_with_bots=fill_with_bots,
            bot_kind=bot_kind,
        )
        response: lobby_service_pb2.StartTableResponse = await self._unary(self._lobby.StartTable, request)
        return response.event_number

    async def get_table(self, table_id: str | None = None) -> table_pb2.TableInfo:
        """The table as the lobby shows it."""
        request = lobby_service_pb2.GetTableRequest(table_id=table_id or self.table_id)
        response: lobby_service_pb2.GetTableResponse = await self._unary(self._lobby.GetTable, request, retry=True)
        return response.table

    async def list_tables(self, statuses: tuple[int, ...] = (), page_size: int = 0) -> list[table_pb2.TableInfo]:
        """The host's tables, newest first: every page, or the first `page_size` tables when set."""
        tables: list[table_pb2.TableInfo] = []
        token = ""
        while True:
            request = lobby_service_pb2.ListTablesRequest(
                statuses=statuses, page_size=page_size, page_token=token  # type: ignore[arg-type]
            )
            response: lobby_service_pb2.ListTablesResponse = await self._unary(
                self._lobby.ListTables, request, retry=True
            )
            tables.extend(response.tables)
            token = response.next_page_token
            if not token or page_size:
                return tables

    async def list_presets(self) -> list[rules_pb2.RulesetPreset]:
        """The named rulesets the host offers, `standard` first."""
        request = lobby_service_pb2.ListPresetsRequest()
        response: lobby_service_pb2.ListPresetsResponse = await self._unary(
            self._lobby.ListPresets, request, retry=True
        )
        return list(response.presets)

    async def list_bot_kinds(self) -> list[table_pb2.BotKind]:
        """The kinds of bot the host can seat, its default first."""
        request = lobby_service_pb2.ListBotKindsRequest()
        response: lobby_service_pb2.ListBotKindsResponse = await self._unary(
            self._lobby.ListBotKinds, request, retry=True
        )
        return list(response.bot_kinds)

    async def leave(self) -> int:
        """Give the seat up; the token stops working. Returns the PlayerLeft event number."""
        request = lobby_service_pb2.LeaveTableRequest(table_id=self._need_table(), token=self.token)
        response: lobby_service_pb2.LeaveTableResponse = await self._unary(self._lobby.LeaveTable, request)
        return response.event_number

    # ----------------------------------------------------------------------------------------- watch

    async def get_view(self) -> views_pb2.SeatView:
        """This seat's current view, legal actions included (also kept in `legal_actions`)."""
        request = watch_service_pb2.GetViewRequest(table_id=self._need_table(), token=self.token)
        response: watch_service_pb2.GetViewResponse = await self._unary(self._watch.GetView, request, retry=True)
        self._keep_legal_actions(response.view.legal_actions, response.view.event_number)
        return response.view

    @property
    def log_head(self) -> tuple[int, bytes] | None:
        chain = self._chain
        return (chain.number, chain.head) if chain is not None and chain.number else None

    async def events(
        self, after: int | None = 0, *, start_with_snapshot: bool = False
    ) -> AsyncGenerator[events_pb2.Event, None]:
        """Yield the table's events after number `after` (None: after `last_event_number`), forever.

        The stream is reopened, from the last number yielded, whenever it fails with UNAVAILABLE,
        DEADLINE_EXCEEDED (`stream_timeout`) or CANCELLED (by the host), is cut off as too slow
        (RESOURCE_EXHAUSTED, SUBSCRIBER_TOO_SLOW), or simply ends. Every event yielded is numbered
        exactly one more than the one before; a duplicate is dropped, and a gap closes the stream and
        resumes from the last number, as the protocol asks. A Snapshot is yielded as it comes and sets
        the position to its number (the last event it includes). When the host's store lost events
        this copy may have seen (docs/protocol.md: a resume refused with DATA_LOSS / EVENTS_LOST, or the
        last of a range of `events_lost` markers, yielded as they come), the stream reopens after the
        number the host names with `start_with_snapshot`, so a Snapshot comes next: replace your
        picture with it (`legal_actions` already is, and `log_head` is gone). Close the iterator
        (``contextlib.aclosing``) to cancel the call.

        Raises:
            Unavailable: the stream failed, or delivered nothing new, this many times in a row.
            NotFound, PermissionDenied, InvalidArgument, ResourceExhausted: the stream was refused.
        """
        table_id = self._need_table()
        last = self.last_event_number if after is None else after
        self.last_event_number = last
        if last == 0 and not start_with_snapshot:
            self._chain = LogChain(table_id)
        elif self._chain is not None and self._chain.number != last:
            self._chain = None  # not resumed where the chain stands: it cannot follow
        snapshot_first = start_with_snapshot
        fruitless = 0
        while True:
            request = watch_service_pb2.WatchEventsRequest(
                table_id=table_id, token=self.token, after_event_number=last, start_with_snapshot=snapshot_first,
                batch=_EVENT_BATCH,
            )
            call = self._watch.WatchEvents(request, timeout=self.stream_timeout)
            progressed = False
            failure: UnonetError | None = None
            resync_after: int | None = None  # an EventsLost range ended: reopen with a snapshot, from here
            try:
                async for response in call:
                    # Several events per message (`batch`); a host that predates it sends one in `event`.
                    for event in response.events if len(response.events) else (response.event,):
                        if event.WhichOneof("payload") == "snapshot":
                            last = event.number
                            self._chain = None
                            self._keep_legal_actions(event.snapshot.view.legal_actions, event.number)
                        elif event.number <= last:
                            log.debug("dropping duplicate event %d (at %d)", event.number, last)
                            continue
                        elif event.number != last + 1:
                            log.warning("event %d after %d: resuming from %d", event.number, last, last)
                            failure = Unavailable(message=f"gap in the event stream: {event.number} after {last}")
                            break
                        else:
                            last = event.number
                            if self._chain is not None:
                                self._chain.feed(event)
                            if event.HasField("your_legal_actions"):
                                self._keep_legal_actions(event.your_legal_actions, event.number)
                        self.last_event_number = last
                        progressed = True
                        snapshot_first = False
                        yield event
                        lost = event.events_lost if event.HasField("events_lost") else None
                        if lost is not None and event.number >= lost.last_number:
                            resync_after = int(lost.first_number) - 1
                            break
                    if failure is not None or resync_after is not None:
                        break
            except grpc.aio.AioRpcError as error:
                failure = from_rpc_error(error)
                if isinstance(failure, DataLoss) and failure.metadata.get("event_number", "").isdecimal():
                    resync_after = int(failure.metadata["event_number"])
                elif not _is_resumable(failure):
                    raise failure from error
                else:
                    log.info("event stream broke (%s); resuming after %d", failure, last)
            finally:
                call.cancel()
            if resync_after is not None:  # what this copy learnt after that number may not be the table's
                log.warning("the host lost or altered events after %d; resuming from there with a snapshot",
                            resync_after)
                last, snapshot_first = resync_after, True
                self._forget_since_loss()
            fruitless = 0 if progressed else fruitless + 1
            if fruitless > _MAX_FRUITLESS_RECONNECTS:
                raise failure or Unavailable(message=f"the event stream keeps ending without events after {last}")
            if fruitless:
                await asyncio.sleep(min(self.max_reconnect_delay, self.reconnect_delay * 2 ** (fruitless - 1)))

    # -------------------------------------------------------------------------------------- commands

    async def send(self, command: cmd.Command, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """Send one of the `unonet.client.commands` values as its RPC."""
        match command:
            case cmd.Play():
                return await self.play(
                    command.cards,
                    color=command.color,
                    call_uno=command.call_uno,
                    reaction_window_id=command.reaction_window_id,
                    command_id=command_id,
                )
            case cmd.ChooseColor():
                return await self.choose_color(command.color, command_id=command_id)
            case cmd.Draw():
                return await self.draw(command_id=command_id)
            case cmd.Pass():
                return await self.pass_turn(command_id=command_id)
            case cmd.CallUno():
                return await self.call_uno(command_id=command_id)
            case cmd.CatchUno():
                return await self.catch_uno(command.target_seat, command.reaction_window_id, command_id=command_id)
            case cmd.Challenge():
                return await self.challenge(command_id=command_id)
            case cmd.React():
                return await self.react(command.reaction_window_id, command_id=command_id)
            case cmd.ChooseSwapTarget():
                return await self.choose_swap_target(command.target_seat, command_id=command_id)
            case cmd.FiveSwap():
                return await self.five_swap(command.target_seat, command.card, command_id=command_id)
            case cmd.GiveCard():
                return await self.give_card(command.card, command_id=command_id)
            case cmd.CommitEntropy():
                return await self.commit_entropy(command.commitment, command_id=command_id)
            case cmd.RevealEntropy():
                return await self.reveal_entropy(command.entropy, command_id=command_id)
        raise TypeError(f"not a command: {command!r}")

    async def play(
        self,
        cards: cards_pb2.Card | list[cards_pb2.Card] | tuple[cards_pb2.Card, ...],
        *,
        color: cards_pb2.Color.ValueType | None = None,
        call_uno: bool = False,
        reaction_window_id: int = 0,
        command_id: str | None = None,
    ) -> actions_pb2.CommandResult:
        """PlayCards: play `cards` in order (a jump-in or run cut quotes its `reaction_window_id`)."""
        card_list = [cards] if isinstance(cards, cards_pb2.Card) else list(cards)
        request = play_service_pb2.PlayCardsRequest(
            cards=card_list,
            call_uno=call_uno,
            reaction_window_id=reaction_window_id,
        )
        if color is not None:
            request.color = color
        return await self._command(self._play.PlayCards, request, command_id)

    async def choose_color(
        self, color: cards_pb2.Color.ValueType, *, command_id: str | None = None
    ) -> actions_pb2.CommandResult:
        """ChooseColor: name the colour for the black card just played."""
        request = play_service_pb2.ChooseColorRequest(color=color)
        return await self._command(self._play.ChooseColor, request, command_id)

    async def draw(self, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """Draw: draw for the turn, or accept the open draw obligation."""
        return await self._command(self._play.Draw, play_service_pb2.DrawRequest(), command_id)

    async def pass_turn(self, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """Pass: keep the card just drawn and end the turn."""
        return await self._command(self._play.Pass, play_service_pb2.PassRequest(), command_id)

    async def call_uno(self, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """CallUno: call UNO for the last card."""
        request = play_service_pb2.CallUnoRequest()
        return await self._command(self._play.CallUno, request, command_id)

    async def catch_uno(
        self, target_seat: int, reaction_window_id: int = 0, *, command_id: str | None = None
    ) -> actions_pb2.CommandResult:
        """CatchUno: catch `target_seat` (RACE_LOST when another seat caught it first)."""
        request = play_service_pb2.CatchUnoRequest(target_seat=target_seat, reaction_window_id=reaction_window_id)
        return await self._command(self._play.CatchUno, request, command_id)

    async def challenge(self, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """Challenge: challenge the Wild Draw Four this seat must answer."""
        request = play_service_pb2.ChallengeRequest()
        return await self._command(self._play.Challenge, request, command_id)

    async def commit_entropy(self, commitment: bytes, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """CommitEntropy: commit to this seat's contribution to the next shuffle (LegalActions.commit_entropy)."""
        request = play_service_pb2.CommitEntropyRequest(commitment=commitment)
        return await self._command(self._play.CommitEntropy, request, command_id)

    async def reveal_entropy(self, entropy: bytes, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """RevealEntropy: reveal the contribution committed to (LegalActions.reveal_entropy)."""
        request = play_service_pb2.RevealEntropyRequest(entropy=entropy)
        return await self._command(self._play.RevealEntropy, request, command_id)

    async def close_scores(self, round_number: int, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """CloseScores: this seat's player read the scores of `round_number` (RoundEnded.round_number), so
        the host need not hold the next round's first turn for it (ClockSettings.round_start_hold)."""
        request = play_service_pb2.CloseScoresRequest(round_number=round_number)
        return await self._command(self._play.CloseScores, request, command_id)

    async def react(self, reaction_window_id: int, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """React: answer a UNO slap or Sound Wild window (answered after the window's ruling)."""
        request = play_service_pb2.ReactRequest(reaction_window_id=reaction_window_id)
        return await self._command(self._play.React, request, command_id)

    async def choose_swap_target(self, target_seat: int, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """ChooseSwapTarget: swap hands with `target_seat` after a 7."""
        request = play_service_pb2.ChooseSwapTargetRequest(target_seat=target_seat)
        return await self._command(self._play.ChooseSwapTarget, request, command_id)

    async def five_swap(
        self, target_seat: int, card: cards_pb2.Card, *, command_id: str | None = None
    ) -> actions_pb2.CommandResult:
        """FiveSwap: give `card` to `target_seat` after a 5."""
        request = play_service_pb2.FiveSwapRequest(target_seat=target_seat, card=card)
        return await self._command(self._play.FiveSwap, request, command_id)

    async def give_card(self, card: cards_pb2.Card, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """GiveCard: give `card` back as the target of a five swap."""
        request = play_service_pb2.GiveCardRequest(card=card)
        return await self._command(self._play.GiveCard, request, command_id)

    async def send_chat(self, text: str, *, command_id: str | None = None) -> actions_pb2.CommandResult:
        """SendChat: write `text` in the table chat (a retried message is shown once)."""
        request = chat_service_pb2.SendChatRequest(text=text)
        return await self._command(self._chat.SendChat, request, command_id)

    # ------------------------------------------------------------------------------------------ time

    async def ping(self) -> PingResult:
        """One four-timestamp ping, attributed to this seat when joined, reporting the previous one's t3.

        Also sets `clock_offset` (seconds the host's clock is ahead of ours).
        """
        self._ping_sequence += 1
        request = time_service_pb2.PingRequest(
            table_id=self.table_id, token=self.token, sequence=self._ping_sequence, client_send_time=_now()
        )
        # The report goes once: should this ping be refused (BAD_PING_REPORT; a host that restarted
        # ignores a report of a ping it never took), the next goes without one instead of failing alike.
        previous, self._previous_ping = self._previous_ping, None
        if previous is not None:
            request.previous.CopyFrom(previous)
        response: time_service_pb2.PingResponse = await self._unary(self._time.Ping, request)
        t3 = _now()
        self._previous_ping = time_service_pb2.PingReport(sequence=self._ping_sequence, client_receive_time=t3)
        t0, t1 = _seconds(request.client_send_time), _seconds(response.receive_time)
        t2, t3s = _seconds(response.send_time), _seconds(t3)
        offset = ((t1 - t0) + (t2 - t3s)) / 2
        self.clock_offset = offset
        smoothed = (
            response.smoothed_round_trip.ToTimedelta().total_seconds()
            if response.HasField("smoothed_round_trip")
            else None
        )
        return PingResult(self._ping_sequence, (t3s - t0) - (t2 - t1), offset, smoothed)

    # -------------------------------------------------------------------------------------- internals

    def _need_table(self) -> str:
        if not self.table_id:
            raise RuntimeError("join (or attach to) a table first")
        return self.table_id

    def _forget_since_loss(self) -> None:
        """The host lost events this copy saw (an EventsLost range, DATA_LOSS on resume): its chain and
        its legal actions may come from events that are not the table's, so the snapshot replaces them,
        even one numbered before them."""
        self._chain = None
        self._legal_actions_number = -1

    def _keep_legal_actions(self, legal: actions_pb2.LegalActions, event_number: int) -> None:
        # A view fetched with GetView may be newer than the stream's position; never go back in time.
        if event_number >= self._legal_actions_number:
            self.legal_actions = legal
            self._legal_actions_number = event_number

    async def _command(
        self, rpc: Callable[..., Awaitable[Any]], request: Any, command_id: str | None
    ) -> actions_pb2.CommandResult:
        """Fill the table, token and command id into `request`, send it, and resend it once if lost."""
        request.table_id = self._need_table()
        request.token = self.token
        request.command_id = command_id or new_command_id()
        response = await self._unary(rpc, request, retry=True)
        result: actions_pb2.CommandResult = response.result
        return result

    async def _unary(self, rpc: Callable[..., Awaitable[_Response]], request: Any, *, retry: bool = False) -> _Response:
        """Call `rpc` with the deadline; when `retry`, resend the identical request once on transport trouble."""
        attempts = 2 if retry else 1
        for attempt in range(attempts):
            try:
                return await rpc(request, timeout=self.timeout)
            except grpc.aio.AioRpcError as error:
                failure = from_rpc_error(error)
                if attempt + 1 < attempts and is_transient(failure):
                    log.info("%s failed (%s); resending it once", type(request).__name__, failure)
                    if self.retry_delay:
                        await asyncio.sleep(self.retry_delay)
                    continue
                raise failure from error
        raise AssertionError("unreachable")


def _is_resumable(failure: UnonetError) -> bool:
    if is_transient(failure):
        return True
    return isinstance(failure, ResourceExhausted) and failure.reason == "SUBSCRIBER_TOO_SLOW"


def _now() -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(time.time_ns())
    return stamp


def _seconds(stamp: timestamp_pb2.Timestamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


def _duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(round(seconds * 1e9))
    return duration
