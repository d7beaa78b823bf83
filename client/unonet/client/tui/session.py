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
- a half-second tick that redraws the countdowns and lets banners go.

Events reach the screen through a `Pacer` (`pace.py`): other seats' moves land at a pace a person can
follow, while anything that asks this seat for something is shown at once. The fairness checks and the
link's state follow the stream as it arrives, never the pace. When this seat's turn starts the screen
rings the bell and sets the terminal's title, as the settings say.

At the match's end N sets up a rematch (`rematch.py`): the session moves to the new table on the same
screen (`switch_table`), and S writes the table's public log to a file `unonet replay` opens.

The seat's shares of each fair shuffle (commit, then reveal) are sent for the player as soon as the
legal actions ask for them; each share is handed to `keep_entropy` (the seat store on disk) before its
commitment leaves, so a client restarted between the commit and the reveal, given the saved shares
back as `entropy`, reveals the value it committed to. A refused command's reason is told in words on
the status line.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from unonet.client import commands as cmd
from unonet.client.audit import write_jsonl
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
from unonet.client.tui import rematch
from unonet.client.tui.controller import (
    AddBot,
    CloseScores,
    Effect,
    LeaveSeat,
    QuitApp,
    Rematch,
    SaveReplay,
    SendChat,
    SettingsChanged,
    StartMatch,
    UiState,
)
from unonet.client.tui.model import ConnectionState, GameModel
from unonet.client.tui.pace import Pacer
from unonet.client.tui.screen import GameScreen
from unonet.client.tui.seats import state_dir
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
        settings: the player's settings (bell, title, pace, colour-blind) to start the screen with.
        on_settings: called with the screen's state when a setting changed there (to write the config).
        on_seat: called with (table id, token, seat, owner token) when a rematch seated this player at
            a new table (to save the seat, as a join does).
        replays: the folder S writes a finished match's replay to (default: `replays` in the state dir).
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
        settings: UiState | None = None,
        on_settings: Callable[[UiState], None] | None = None,
        on_seat: Callable[[str, str, int | None, str], None] | None = None,
        replays: Path | None = None,
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
        if settings is not None:
            ui = self.screen.ui
            ui.colour_blind, ui.bell, ui.title, ui.pace = settings.colour_blind, settings.bell, settings.title, \
                settings.pace
        self.on_settings = on_settings
        self.on_seat = on_seat
        self.replays = replays if replays is not None else state_dir() / "replays"
        self.pacer = Pacer(client.seat, self.screen.ui.pace)
        self.screen.before_key = self._catch_up
        self._release_at: asyncio.TimerHandle | None = None
        self._rematch_bot_kind = ""
        self._my_turn = False
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
        self._stream = asyncio.create_task(self._stream_forever(), name="unonet-events")
        workers = [
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
            if self._release_at is not None:
                self._release_at.cancel()
            workers.append(self._stream)
            for task in workers + list(self._tasks):
                task.cancel()
            for task in workers + list(self._tasks):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self.screen.clear_title()

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
                self._say("the match starts")
            elif isinstance(effect, AddBot):
                seats = await self.client.add_bots(1, await self._best_bot_kind())
                self._say(f"a bot sits at seat {seats[0]}" if seats else "")
            elif isinstance(effect, SettingsChanged):
                self.pacer.pace = self.screen.ui.pace
                if self.on_settings is not None:
                    self.on_settings(self.screen.ui)
            elif isinstance(effect, SaveReplay):
                path = await self.save_replay()
                self.screen.ui.saved_replay = str(path)
                self._say("replay saved: `unonet replay FILE` opens it (the path is above)")
            elif isinstance(effect, Rematch):
                await self._rematch()
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
                    self._say("another player was faster: that race is lost (no cost)")
        except UnonetError as error:
            self._say(refusal_words(error))
        except Exception as error:  # never a traceback on screen: say it and log it
            log.exception("command %r failed", effect)
            self._say(f"that did not work: {error}")
        self.screen.invalidate()

    async def _close_scores(self, round_number: int) -> None:
        """Tell the host the player read the round's scores; a host without the call (or one that refuses
        it) holds the next round for its own time instead, so nothing is said on screen."""
        try:
            await self.client.close_scores(round_number)
        except UnonetError as error:
            log.info("CloseScores for round %d: %s", round_number, error)

    async def _best_bot_kind(self) -> str:
        """The strongest bot kind the host lists (asked once), for the bots the owner seats; at a
        rematch, the kind most of the last match's bots were."""
        if self._rematch_bot_kind:
            return self._rematch_bot_kind
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
        self._verify(event)
        if self._on_stream_open is not None:
            self._spawn(self._opened(self._on_stream_open))
            self._on_stream_open = None
        if event.number < self._live_from:  # the table's history, caught up on when the screen opened
            self._show(event, live=False)
            return
        self.pacer.push(event, self._host_now())
        self._release()

    def _release(self) -> None:
        """Show every held event that is due, and wake up again when the next one is (one wake-up at a
        time: an event arriving replaces the one set before)."""
        if self._release_at is not None:
            self._release_at.cancel()
            self._release_at = None
        now = self._host_now()
        for event in self.pacer.due(now):
            self._show(event, live=True)
        self._contribute_entropy()
        self.screen.invalidate()
        upcoming = self.pacer.next_time()
        if upcoming is not None:
            self._release_at = asyncio.get_running_loop().call_later(max(0.0, upcoming - now), self._release)

    def _say(self, hint: str) -> None:
        """Put `hint` on the hint line, for as long as the turn it was said at lasts."""
        self.screen.ui.hint, self.screen.ui.hint_turn = hint, self.model.seat_to_act

    def _catch_up(self) -> None:
        """A key was pressed: show everything the pacer holds first (the player's input is never
        delayed, and never acts on a table older than the one the host has)."""
        held = self.pacer.flush()
        for event in held:
            self._show(event, live=True)
        if held:
            self._contribute_entropy()

    def _show(self, event: events_pb2.Event, *, live: bool) -> None:
        try:
            self.model.apply(event, at=self._host_now() if live else None)
        except Exception:  # a model bug must not stop the stream or reach the screen as a traceback
            log.exception("could not apply event %d", event.number)
            self.model.notice = f"event {event.number} could not be shown (see the client log)"
        mine = self.model.is_my_turn
        if live and mine != self._my_turn:
            self.screen.announce_turn(mine)
        self._my_turn = mine

    async def _opened(self, callback: Callable[[], Awaitable[None]]) -> None:
        try:
            await callback()
        except UnonetError as error:
            self._say(refusal_words(error))
            self.screen.invalidate()

    def _verify(self, event: events_pb2.Event) -> None:
        if self.verifier is None:
            return
        if event.WhichOneof("payload") == "snapshot":  # its own cards are checked; the round's shuffle is
            self.model.fairness_on = False  # not verifiable from it, the next round's is again
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
            self._say(refusal_words(error))
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

    # ---------------------------------------------------------------------------- the match's end

    async def save_replay(self) -> Path:
        """Write the table's public log (read as a spectator from event 1) to a file in `replays`;
        returns its path. Raises the client's typed errors, and OSError when the file cannot be written."""
        reader = TableClient(self.client.channel)
        await reader.join(self.client.table_id, "replay", spectator=True)
        last = (await reader.get_table()).last_event_number
        events: list[events_pb2.Event] = []
        async with contextlib.aclosing(reader.events(after=0)) as stream:
            async for event in stream:
                events.append(event)
                if event.number >= last:
                    break
        self.replays.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
        path = self.replays / f"{stamp}-{self.client.table_id[:12]}.jsonl"
        with path.open("w", encoding="utf-8") as stream:
            write_jsonl(stream, self.client.table_id, events)
        return path

    async def _rematch(self) -> None:
        """N at the match's end: join the rematch a player invited to, or (the creator) set one up."""
        model = self.model
        name = model.seats[model.seat].name if model.seat is not None and model.seat < len(model.seats) else "player"
        if model.rematch is not None:
            by, table_id = model.rematch
            host = model.name_of(by)
            joined = await self.client.join(table_id, name or "player", model.seat)
            await self.switch_table(table_id, joined.token, joined.seat, "")
            self._say(f"back at your seat for the rematch: it starts when {host} starts it")
            return
        if not self.client.owner_token:
            self._say("only the table's creator can set up a rematch; when they do, N here joins it")
            return
        assert model.seat is not None
        plan = rematch.plan(model.settings, [(s.seat, s.is_bot, s.bot_kind) for s in model.seats], model.seat)
        table_id, token, owner = await rematch.create(self.client, plan, name or "player")
        if plan.people:
            await self.client.send_chat(rematch.invitation(table_id))
        self._rematch_bot_kind = plan.bot_kind
        await self.switch_table(table_id, token, plan.seat, owner)
        self._say(("rematch: the others are invited; S starts it (bots take the seats nobody took back)")
                   if plan.people else "rematch: same seats, a new match")

    async def switch_table(self, table_id: str, token: str, seat: int | None, owner_token: str) -> None:
        """Play `seat` of `table_id` on this screen from now on (a rematch): a fresh model and checks."""
        self._stream.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._stream
        if self._release_at is not None:
            self._release_at.cancel()
            self._release_at = None
        self.client.attach(table_id, token, seat)
        self.client.owner_token = owner_token
        fresh = GameModel(table_id=table_id, seat=seat, connection=ConnectionState.CONNECTED)
        for item in dataclasses.fields(GameModel):  # in place: the screen renders this very object
            setattr(self.model, item.name, getattr(fresh, item.name))
        ui = self.screen.ui
        ui.is_owner, ui.board_closed_for, ui.cursor_for, ui.prompt = bool(owner_token), 0, -1, None
        ui.saved_replay = ""
        self.verifier = Verifier(table_id, seat)
        self.pacer = Pacer(seat, ui.pace)
        self._entropy, self._entropy_sent, self._live_from, self._my_turn = {}, set(), 0, False
        if self.on_seat is not None:
            self.on_seat(table_id, token, seat, owner_token)
        self._stream = asyncio.create_task(self._stream_forever(), name="unonet-events")
        self.screen.invalidate()

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            self.screen.invalidate()
