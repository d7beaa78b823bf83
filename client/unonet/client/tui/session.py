"""A live seat behind the game screen: the event stream, pings, entropy and the commands keys produce.

`Session.run()` opens the game screen and three background tasks on the same asyncio loop:

- the event stream: every event of the table from number 1 (so the fairness checks see the whole
  record and the log tells the whole story), each applied to the model and fed to the `Verifier`,
  then `invalidate()`. A broken stream resumes from the last event number (the SDK does the first
  retries); when the SDK gives up, the session says "reconnecting" and opens it again with a growing
  back-off, so a host that restarted on the same database is followed where it left off;
- pings, about once a second, so the host measures this seat's latency fairly in races, plus a
  GetTable for every seat's latency and connection; a failed round says "reconnecting" at once, so
  nothing stale is offered as playable;
- a one-second tick that redraws the countdowns.

The seat's shares of each fair shuffle (commit, then reveal) are sent for the player as soon as the
legal actions ask for them; each share is handed to `keep_entropy` (the seat store on disk) before its
commitment leaves, so a client restarted between the commit and the reveal, given the saved shares
back as `entropy`, reveals the value it committed to. A refused command's reason is told in words on
the status line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Final

from unonet.client import commands as cmd
from unonet.client.bot_kinds import best_bot_kind
from unonet.client.errors import (
    Cancelled,
    DeadlineExceeded,
    FailedPrecondition,
    NotFound,
    PermissionDenied,
    Unavailable,
    UnonetError,
)
from unonet.client.table_client import TableClient
from unonet.client.tui.controller import AddBot, CloseScores, Effect, LeaveSeat, QuitApp, SendChat, StartMatch
from unonet.client.tui.model import ConnectionState, GameModel
from unonet.client.tui.screen import GameScreen
from unonet.client.verify import Verifier
from unonet.fairness import DroppedReveal, FairnessError, commit_seat_entropy
from unonet.v1 import events_pb2

__all__ = ["Session", "refusal_words"]

log = logging.getLogger(__name__)


PING_INTERVAL: Final = 1.0
_TRANSIENT = (Unavailable, DeadlineExceeded, Cancelled)

_REASON_WORDS: Final = {
    "NOT_YOUR_TURN": "it is not your turn",
    "CARD_DOES_NOT_MATCH": "that card does not match the top card or the colour",
    "CARD_NOT_IN_HAND": "you do not hold that card",
    "MUST_ANSWER_OBLIGATION": "you must answer the draw first (Space takes it)",
    "OBLIGATION_OPEN": "a draw is owed first (Space takes it)",
    "MUST_DRAW": "you must draw first",
    "ONLY_DRAWN_CARD": "only the card you just drew may be played now (or P)",
    "WILD_DRAW_FOUR_NOT_ALLOWED": "the Wild Draw Four is not allowed while you hold a matching card",
    "NOTHING_TO_CALL": "there is no UNO to call",
    "NOTHING_TO_CHALLENGE": "there is nothing to challenge",
    "NOT_CATCHABLE": "that player cannot be caught",
    "WINDOW_CLOSED": "too late: that race is over",
    "WINDOW_OPEN": "a race is still being decided: try again in a moment",
    "RACE_LOST": "another player was faster",
    "GAME_OVER": "the match is over",
    "SEAT_TAKEN_OVER": "your seat was taken over",
    "TEXT_TOO_LONG": "that message is too long",
    "RATE_LIMITED": "slow down: too many commands",
    "WRONG_PHASE": "that is not what the game waits for now",
    "NO_COLOR_TO_CHOOSE": "there is no colour to name now",
}


def _log_unhandled(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
    error = context.get("exception")
    log.error("unhandled: %s", context.get("message"), exc_info=error if isinstance(error, BaseException) else None)


def refusal_words(error: UnonetError) -> str:
    """A refusal as the status line tells it: the reason in words, then the host's own message."""
    words = _REASON_WORDS.get(error.reason) or (error.reason.lower().replace("_", " ") if error.reason else "")
    detail = error.message.strip()
    if words and detail:
        return f"refused: {words} ({detail})"
    return f"refused: {words or detail or type(error).__name__}"


class Session:
    """One seat (or spectator place) played through the game screen.

    Args:
        client: a `TableClient` attached to the table (join or attach first).
        model: the model to feed; a fresh one is made when None.
        on_leave: called after LeaveTable succeeded (the caller forgets the saved token).
        on_stream_open: awaited once, when the first event arrived: the host now counts this seat as
            connected, so a match started from here asks it for its share of the shuffle.
        ping_interval: seconds between pings (and table fetches).
        entropy: the seat's shuffle shares saved by an earlier run, by round number.
        keep_entropy: called with (round, share) before a share's commitment is sent, to save it.
        quit_warning: what quitting does to a game that stops with this client (its host runs in this
            process): Q asks first, in these words (`UiState.quit_warning`); empty, Q quits at once.
    """

    def __init__(
        self,
        client: TableClient,
        *,
        model: GameModel | None = None,
        screen_factory: Callable[..., GameScreen] = GameScreen,
        colour_blind: bool = False,
        on_leave: Callable[[], None] | None = None,
        on_stream_open: Callable[[], Awaitable[None]] | None = None,
        ping_interval: float = PING_INTERVAL,
        max_backoff: float = 5.0,
        entropy: dict[int, bytes] | None = None,
        keep_entropy: Callable[[int, bytes], None] | None = None,
        quit_warning: str = "",
        **screen_args: object,
    ) -> None:
        self.client = client
        self.model = model if model is not None else GameModel(table_id=client.table_id, seat=client.seat)
        self.model.seat = client.seat
        self.screen = screen_factory(
            self.model, on_effect=self.handle, host_clock=self._host_now, colour_blind=colour_blind, **screen_args
        )
        self.on_leave = on_leave
        self._on_stream_open = on_stream_open
        self.ping_interval = ping_interval
        self.max_backoff = max_backoff
        self.verifier: Verifier | None = Verifier(client.table_id, client.seat)
        self.screen.ui.is_owner = bool(client.owner_token)
        self.screen.ui.quit_warning = quit_warning
        self._bot_kind: str | None = None
        self._in_flight = 0  # the player's commands sent and not answered yet
        self._entropy: dict[int, bytes] = dict(entropy or {})
        self._keep_entropy = keep_entropy
        self._entropy_sent: set[tuple[int, str]] = set()
        self._live_from = 0
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------------------------ run

    async def run(self) -> None:
        """Show the screen until the player quits (or leaves); the background tasks stop with it."""
        try:
            info = await self.client.get_table()
            self.model.apply_table(info)
            self._live_from = info.last_event_number
            self.model.set_connection(ConnectionState.CONNECTED)
        except UnonetError as error:
            self.model.set_connection(ConnectionState.RECONNECTING, f"the host did not answer ({error})")
        workers = [
            asyncio.create_task(self._stream_forever(), name="unonet-events"),
            asyncio.create_task(self._ping_forever(), name="unonet-pings"),
            asyncio.create_task(self._tick_forever(), name="unonet-tick"),
        ]
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        loop.set_exception_handler(_log_unhandled)  # never a traceback on the screen: into the log
        try:
            await self.screen.application.run_async(set_exception_handler=False)
        finally:
            loop.set_exception_handler(previous)
            for task in workers + list(self._tasks):
                task.cancel()
            for task in workers + list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    def _host_now(self) -> float:
        return time.time() + (self.client.clock_offset or 0.0)

    # ------------------------------------------------------------------------------- effects

    def handle(self, effect: Effect) -> None:
        """Carry out what a key produced (called by the screen)."""
        if isinstance(effect, QuitApp):
            self.screen.application.exit()
            return
        self._spawn(self._carry_out(effect))

    def _spawn(self, job: Awaitable[None]) -> None:
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _carry_out(self, effect: Effect) -> None:
        try:
            if isinstance(effect, SendChat):
                await self.client.send_chat(effect.text)
            elif isinstance(effect, LeaveSeat):
                await self.client.leave()
                if self.on_leave is not None:
                    self.on_leave()
                self.screen.application.exit()
                return
            elif isinstance(effect, QuitApp):
                self.screen.application.exit()
            elif isinstance(effect, StartMatch):
                await self.client.start_table(fill_with_bots=True, bot_kind=await self._best_bot_kind())
                self.screen.ui.hint = "the match starts"
            elif isinstance(effect, AddBot):
                seats = await self.client.add_bots(1, await self._best_bot_kind())
                self.screen.ui.hint = f"a bot sits at seat {seats[0]}" if seats else ""
            elif isinstance(effect, CloseScores):
                await self._close_scores(effect.round_number)
            else:
                shown = not isinstance(effect, (cmd.CommitEntropy, cmd.RevealEntropy))  # the player's own
                self._in_flight += shown
                self.screen.ui.pending = self._in_flight > 0
                try:
                    result = await self.client.send(effect)
                finally:
                    self._in_flight -= shown
                    self.screen.ui.pending = self._in_flight > 0
                if result.outcome == 3:  # COMMAND_OUTCOME_RACE_LOST
                    self.screen.ui.hint = "another player was faster: that race is lost (no cost)"
        except UnonetError as error:
            self.screen.ui.hint = refusal_words(error)
        except Exception as error:  # never a traceback on screen: say it and log it
            log.exception("command %r failed", effect)
            self.screen.ui.hint = f"that did not work: {error}"
        self.screen.invalidate()

    async def _close_scores(self, round_number: int) -> None:
        """Tell the host the player read the round's scores; a host without the call (or one that refuses
        it) holds the next round for its own time instead, so nothing is said on screen."""
        try:
            await self.client.close_scores(round_number)
        except UnonetError as error:
            log.info("CloseScores for round %d: %s", round_number, error)

    async def _best_bot_kind(self) -> str:
        """The strongest bot kind the host lists (asked once), for the bots the owner seats."""
        if self._bot_kind is None:
            self._bot_kind = best_bot_kind(await self.client.list_bot_kinds())
        return self._bot_kind

    # -------------------------------------------------------------------------------- stream

    async def _stream_forever(self) -> None:
        delay = 0.2
        while True:
            try:
                async with contextlib.aclosing(self.client.events(after=None)) as stream:
                    async for event in stream:
                        self._on_event(event)
                        delay = 0.2
            except _TRANSIENT:
                self.model.set_connection(ConnectionState.RECONNECTING, "the host is unreachable: reconnecting…")
            except NotFound:
                self.model.set_connection(ConnectionState.GONE, "this table is gone from the host. Q quits.")
                self.screen.invalidate()
                return
            except PermissionDenied:
                self.model.set_connection(ConnectionState.GONE, "the host no longer knows this seat. Q quits.")
                self.screen.invalidate()
                return
            except UnonetError as error:  # refused for now (too many streams, say): say so, try again later
                self.model.set_connection(ConnectionState.RECONNECTING, f"the host stopped the stream ({error})")
            self.screen.invalidate()
            await asyncio.sleep(delay)
            delay = min(self.max_backoff, delay * 2)

    def _on_event(self, event: events_pb2.Event) -> None:
        if self.model.connection != ConnectionState.CONNECTED:
            self.model.set_connection(ConnectionState.CONNECTED)
        try:
            self.model.apply(event)
        except Exception:  # a model bug must not stop the stream or reach the screen as a traceback
            log.exception("could not apply event %d", event.number)
            self.model.notice = f"event {event.number} could not be shown (see the client log)"
        self._verify(event)
        if self._on_stream_open is not None:
            self._spawn(self._opened(self._on_stream_open))
            self._on_stream_open = None
        if event.number >= self._live_from:
            self._contribute_entropy()
            self.screen.invalidate()

    async def _opened(self, callback: Callable[[], Awaitable[None]]) -> None:
        try:
            await callback()
        except UnonetError as error:
            self.screen.ui.hint = refusal_words(error)
            self.screen.invalidate()

    def _verify(self, event: events_pb2.Event) -> None:
        if self.verifier is None:
            return
        if event.WhichOneof("payload") == "snapshot":
            self.verifier = None
            self.model.fairness_failure = ""
            self.model.fairness_on = False
            self.model.log_head = ""
            return
        try:
            self.verifier.feed(event)
            if event.HasField("match_ended"):
                self.verifier.finish()
        except FairnessError as error:
            self.model.fairness_failure = str(error)
            if isinstance(error, DroppedReveal):  # the proof is this seat's value: show it with the failure
                value = self._entropy.get(self.model.shuffle_round or self.model.round_number)
                self.model.fairness_failure += f" (your value: {value.hex()})" if value is not None else ""
            self.verifier = None
            return
        self.model.fairness_checks = sum(self.verifier.checks.values())
        head = self.verifier.head
        self.model.log_head = f"{head[0]}:{head[1].hex()}" if head is not None else ""

    def _contribute_entropy(self) -> None:
        """Commit, then reveal, this seat's share of the shuffle, once each, when the host asks."""
        legal, seat = self.model.legal, self.client.seat
        if seat is None or not (legal.commit_entropy or legal.reveal_entropy):
            return
        round_no = self.model.shuffle_round or self.model.round_number
        step = "commit" if legal.commit_entropy else "reveal"
        key = (round_no, step)
        if key in self._entropy_sent:
            return
        self._entropy_sent.add(key)
        value = self._entropy.get(round_no)
        if value is None:
            value = self._entropy[round_no] = secrets.token_bytes(32)
            if self._keep_entropy is not None:
                try:  # on disk before the commitment leaves: a crash after it can still reveal
                    self._keep_entropy(round_no, value)
                except OSError:
                    log.exception("could not save the shuffle share of round %d", round_no)
        command: cmd.Command
        if step == "commit":
            commitment = commit_seat_entropy(seat, value, table_id=self.client.table_id, round_no=round_no)
            command = cmd.CommitEntropy(commitment)
        else:
            self._spawn(self._reveal(round_no, value))
            return
        self._spawn(self._carry_out(command))

    async def _reveal(self, round_no: int, value: bytes) -> None:
        """Reveal this seat's value; once the host acknowledged it, the Verifier holds the host to it
        (docs/fairness.md 12: a reveal acknowledged but dealt without is shown loudly)."""
        try:
            result = await self.client.send(cmd.RevealEntropy(value))
        except UnonetError as error:
            self.screen.ui.hint = refusal_words(error)
            self.screen.invalidate()
            return
        if self.verifier is not None:
            try:
                self.verifier.sent_reveal(round_no, result.event_number)
            except FairnessError as error:
                self.model.fairness_failure = f"{error} (your value: {value.hex()})"
                self.verifier = None
        self.screen.invalidate()

    # --------------------------------------------------------------------------------- pings

    async def _ping_forever(self) -> None:
        while True:
            try:
                result = await self.client.ping()
                self.model.round_trip = result.round_trip
                self.model.apply_table(await self.client.get_table())
                if self.model.connection == ConnectionState.RECONNECTING:
                    self.model.set_connection(ConnectionState.CONNECTED)
            except _TRANSIENT:
                if self.model.connection != ConnectionState.GONE:
                    self.model.set_connection(ConnectionState.RECONNECTING, "the host is unreachable: reconnecting…")
            except FailedPrecondition as error:
                log.debug("ping refused: %s", error)
            except UnonetError as error:
                log.info("ping failed: %s", error)
            self.screen.invalidate()
            await asyncio.sleep(self.ping_interval)

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            self.screen.invalidate()
