"""`BotRunner`: play a `Bot` policy at a table, acting whenever the host says the seat may or must.

The policy (`unonet.bots.policy.Bot`) only chooses; the runner owns everything with I/O: the
`TableClient`, the clock, the reaction delay, pings, the shuffle's entropy and the fairness checks.
A bot needs no rules code: the host sends, with every event that changes them, the seat's complete
legal actions (`Event.your_legal_actions`). The loop in `BotRunner.run`:

- It reads the view once with GetView when it starts and from then on keeps its picture of the table
  from the events (`unonet.bots.picture.TablePicture`): a decision costs no round trip. Only a refusal
  or a lost command makes it read the view again. Before its first decision it passes the events that
  view covers (from the match's first) to the bot's `on_event`, so a bot started mid-match, as a host's
  bot workers always are, remembers the round as one seated from the start does.
- When the legal actions are `required` (the game waits for this seat), it awaits
  `bot.decide_async(view, state)` (by default `decide` in a worker thread) until the decision's
  deadline, less `safety_margin`, and sends the command if the legal actions list it.
- When they only offer something optional (a UNO slap or Sound Wild to react to, a seat to catch, UNO
  to call early), it awaits `bot.respond_async(legal, state)` and, after its reaction delay, sends
  what that returns.
- A decision that raises, comes too late, is not an answer, or is not listed is never sent: it is
  logged once and kept in `faults`, and the table's clock decides the turn (its default action, a
  strike). At a table without a clock, where nothing would ever decide it, the runner sends the safe
  default (Draw, else Pass) instead, so the game goes on.
- When the table takes the seat away (SeatTakenOver for it: its strikes ran out), or the bot's program
  is gone, the seat is lost to the bot: `run` returns None (`lost` says why) and `unonet bot play`
  exits 1, whichever fault lost it.
- A refusal (a race the state moved on from) makes it read the view and decide again; after two
  refusals in a row a required decision falls back to the default action, and after `max_attempts`
  it waits for the next event.
- Before each deal (PHASE_SHUFFLE) it contributes to the provably fair shuffle by itself: a fresh
  32-byte secret per round, committed when `commit_entropy` is offered and revealed when
  `reveal_entropy` is (docs/fairness.md 6.1). A policy never sees these.
- When a round ends at a table that holds the next round's first turn for the players to read the
  scores (ClockSettings.round_start_hold), it tells the host it has read them (CloseScores, beside the
  loop, never delaying a decision), so the host never waits for a bot; a host without the call
  (UNIMPLEMENTED) is not asked again.
- It returns when a `match_ended` event arrives (or the view says the match is over).

`play_tables` runs many runners at once, in one process, on one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import random
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from unonet.bots.actions import is_listed
from unonet.bots.faults import BadAnswer, BotGone, Fault, FaultKind
from unonet.bots.kinds import race_reaction_seconds
from unonet.bots.picture import TablePicture
from unonet.bots.policy import Bot, BotState, default_command
from unonet.client import commands as cmd
from unonet.client.errors import (
    AlreadyExists,
    Cancelled,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    ResourceExhausted,
    Unavailable,
    Unimplemented,
    UnonetError,
)
from unonet.client.table_client import TableClient
from unonet.client.verify import Verifier
from unonet.fairness import commit_seat_entropy
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["BotRunner", "ReactionDelay", "Seating", "fixed_delay", "play_tables"]

log = logging.getLogger(__name__)

#: An awaitable pause before an optional reaction; tests inject one that does not sleep.
ReactionDelay = Callable[[], Awaitable[None]]

# FAILED_PRECONDITION reasons after which this seat can never act again (errors.proto): the match is
# over, or the seat was handed to a bot or forfeited. A seat eliminated by the scores learns it from
# its view (PHASE_MATCH_OVER or no seat in the round), not from a reason of its own.
_TERMINAL_REASONS = frozenset({"GAME_OVER", "SEAT_TAKEN_OVER"})

# A guard against a policy that loops: no decision point needs this many commands in a row.
_MAX_COMMANDS_IN_A_ROW = 32


class _Outcome(enum.Enum):
    APPLIED = enum.auto()  # the host took it (applied, penalised, or a lost race)
    REFUSED = enum.auto()  # the host refused it
    LOST = enum.auto()  # no answer came, even after the retry
    DONE = enum.auto()  # the seat can never act again


def fixed_delay(seconds: float) -> ReactionDelay:
    """A reaction delay of `seconds` (none at all for zero)."""

    async def pause() -> None:
        if seconds > 0:
            await asyncio.sleep(seconds)

    return pause


class BotRunner:
    """Plays one `Bot` policy at a seat: the connection, the clock, entropy, pings and verification.

    Args:
        bot: the policy that chooses every command.
        reaction_delay: seconds to wait before an optional reaction (a catch, a slap, an early UNO
            call), or an awaitable factory that does the waiting (tests pass one that returns at once).
        max_attempts: how many refusals in a row the runner takes at one decision point before it waits
            for the next event (each refusal re-reads the view first).
        ping_interval: when set, ping the host this often (seconds) so it can measure this seat's
            latency and forgive it in races, and so the runner knows the host's clock (deadlines).
        verify: check the host's fairness from every event this seat receives, from the first one
            (a failed check raises the `unonet.fairness.VerificationError` that names it).
        safety_margin: seconds before a decision's deadline by which the answer must be in, to reach
            the host in time; a later answer is dropped as LATE.
        max_think: the longest a decision may take where the table has no clock (None: no limit).
        max_react: the longest an optional reaction may take to choose (its windows close fast).
        pauses: honour the policy's human-like pause before a decision (`Bot.think_seconds`); a league,
            where no human waits, turns them off.
        human_pace: time the bot as a host paces its own bots (``--human-pace``; the host's
            `unonet.host.pace`): at a table with a person (a seat held by a player, not a bot) a turn's
            command waits this many seconds after the event that asked for it, plus the level's pause
            when this is above zero, and a race answer its level's reaction time, drawn once per race
            (`levels.reaction_seconds`), after the event that opened it; at a table of bots only nothing
            waits. It replaces `pauses` and `reaction_delay`. None (the default): those two apply.
    """

    def __init__(
        self,
        bot: Bot,
        *,
        reaction_delay: float | ReactionDelay = 0.0,
        max_attempts: int = 4,
        ping_interval: float | None = None,
        verify: bool = False,
        safety_margin: float = 0.1,
        max_think: float | None = None,
        max_react: float = 1.0,
        pauses: bool = True,
        human_pace: float | None = None,
    ) -> None:
        self.bot = bot
        self.pauses = pauses
        self.human_pace = human_pace
        self._reactions: dict[int, float] = {}  # the reaction time drawn for each race (by window or event)
        self._reaction_rng = random.Random()
        self._options_at = time.monotonic()  # when the event that brought the latest options arrived
        self._closes_scores = True  # the host takes CloseScores (see `_close_scores`)
        self._side_tasks: set[asyncio.Task[None]] = set()  # calls the loop does not wait for (CloseScores)
        self.verify = verify
        #: Checks every commitment, opening, pile, seed and challenge reveal this seat receives
        #: (`unonet.client.verify`); None when not verifying.
        self.verifier: Verifier | None = None
        self.reaction_delay: ReactionDelay = (
            fixed_delay(reaction_delay) if isinstance(reaction_delay, int | float) else reaction_delay
        )
        self.max_attempts = max_attempts
        self.ping_interval = ping_interval
        self.safety_margin = safety_margin
        self.max_think = max_think
        self.max_react = max_react
        self.state = BotState(seat=0)
        #: The seat's view, kept from the events; None before `run`.
        self.picture: TablePicture | None = None
        #: Every mistake the bot made, in order (each logged once, as it happens).
        self.faults: list[Fault] = []
        #: Why the seat was lost to the bot before the match ended (taken over by the table for its
        #: strikes, forfeited), or None; `run` then returns None. A program that is gone says so in
        #: `faults` (CRASHED).
        self.lost: str | None = None
        self._acted_through = 0
        self._entropy: dict[int, bytes] = {}
        self._clock_offset = 0.0
        self._arrived = 0  # events with new legal actions the stream delivered
        self._consumed = 0  # ... and the ones the loop has taken in
        self._moved = asyncio.Event()  # set when new ones arrive
        self.commands_sent = 0
        self.refusals = 0
        self.view_reads = 0
        self.decisions = 0
        #: The wall-clock seconds each required decision the bot answered took it (for `--stats`).
        self.decision_seconds: list[float] = []
        #: How many refusals of each reason (errors.proto) the host sent this runner.
        self.refusal_reasons: Counter[str] = Counter()

    # ----------------------------------------------------------------------------------- the loop

    async def run(self, client: TableClient, table_id: str, seat: int) -> events_pb2.MatchEnded | None:
        """Play the bot at `seat` of `table_id` through `client` (already joined there) until the match ends.

        Returns the MatchEnded event, or None when the seat can no longer act (taken over, eliminated,
        or the bot's program is gone). A match that was already over when the bot started gives a
        MatchEnded with the view's winners.

        Raises:
            ValueError: `client` is not attached to that table and seat.
            NotFound, PermissionDenied: the table is gone, or the token is not this table's.
            Unavailable: the host stayed unreachable (see `TableClient.events`).
        """
        if client.table_id != table_id or client.seat != seat:
            raise ValueError(f"the client plays seat {client.seat} at {client.table_id!r}, not {seat} at {table_id!r}")
        self.state = BotState(seat=seat)
        self._acted_through = 0
        pinger = asyncio.create_task(self._ping_forever(client)) if self.ping_interval else None
        reader: asyncio.Task[None] | None = None
        try:
            view = await self._read_view(client)
            started_at = view.event_number
            self.state.last_event_number = view.event_number
            if view.phase == views_pb2.PHASE_MATCH_OVER:
                return events_pb2.MatchEnded(winner_seats=view.winners)
            self.verifier = Verifier(table_id, seat) if self.verify else None
            # The stream is read all the time, decisions or not, so a slow or hung policy is overtaken
            # by what happens meanwhile (the clock deciding, the match ending) instead of holding it up.
            # It starts at the match's first event: the ones the first view already covers are the
            # history, for the verifier and the bot's memory (`_recall`), and taken in before the first
            # decision, so a bot started mid-match (a host's worker, a restart) knows what one seated
            # from the start knows.
            queue: asyncio.Queue[events_pb2.Event | BaseException] = asyncio.Queue()
            self._arrived = self._consumed = 0
            self._moved = asyncio.Event()
            reader = asyncio.create_task(self._read_events(client, 0, queue))
            pending = await self._recall(queue, started_at)
            if not await self._act(client, view):
                return None
            while True:
                item = await queue.get() if pending is None else pending
                pending = None
                if isinstance(item, BaseException):
                    raise item
                event = item
                if _changes_options(event):
                    self._consumed += 1
                self._verify(event)
                if event.number <= started_at:
                    continue  # the first view already covered it
                ended = self._follow(event)
                if ended is not None:
                    return ended
                if self.lost is not None:
                    log.warning("seat %d: %s; the bot can no longer act", seat, self.lost)
                    return None
                if event.WhichOneof("payload") == "round_ended" and self._round_starts_held():
                    closing = asyncio.create_task(self._close_scores(client, event.round_ended.round_number))
                    self._side_tasks.add(closing)  # never waited for: the next deal's decisions go first
                    closing.add_done_callback(self._side_tasks.discard)
                if not _changes_options(event) or self._arrived > self._consumed:
                    continue  # nothing changed for this seat, or newer legal actions are already here
                if event.number <= self._acted_through:
                    continue  # a view read, or a command of ours, already covered it
                self.state.prompt = event
                if not await self._act(client, self._picture().view):
                    return None
        except BotGone as error:
            self._fault(FaultKind.CRASHED, str(error), self.state.last_event_number)
            log.error("seat %d: the bot is gone (%s); it stops playing, the table's clock decides", seat, error)
            return None
        finally:
            for task in (pinger, reader, *self._side_tasks):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

    async def _recall(
        self, queue: asyncio.Queue[events_pb2.Event | BaseException], through: int
    ) -> events_pb2.Event | BaseException | None:
        """Take in the history, the events up to `through` (the first view's number): the verifier
        checks them and the bot's `on_event` sees them (its other hooks, and the picture, start from
        the view). Returns the first item past them, for the loop to take in, or None."""
        if through == 0:
            return None
        while True:
            item = await queue.get()
            if isinstance(item, BaseException) or item.number > through or item.WhichOneof("payload") == "snapshot":
                return item
            if _changes_options(item):
                self._consumed += 1
            self._verify(item)
            self.bot.on_event(item)
            if item.number == through:
                return None

    def _verify(self, event: events_pb2.Event) -> None:
        """Feed the verifier, if any (a snapshot's own cards are checked; the record starts again with
        the next round's shuffle)."""
        if self.verifier is not None:
            self.verifier.feed(event)

    async def _read_events(
        self, client: TableClient, after: int, queue: asyncio.Queue[events_pb2.Event | BaseException]
    ) -> None:
        """Queue every event from the stream, and say when one brings this seat new options."""
        try:
            async with contextlib.aclosing(client.events(after=after)) as stream:
                async for event in stream:
                    queue.put_nowait(event)
                    if _changes_options(event):
                        self._options_at = time.monotonic()
                        self._arrived += 1
                        self._moved.set()
        except Exception as error:  # the stream was refused or the host stayed away: run() raises it
            queue.put_nowait(error)

    async def _ask_bot(self, decision: Awaitable[cmd.Command | None], budget: float | None) -> cmd.Command | None:
        """Await the bot for at most `budget` seconds, or until newer legal actions overtake the question.

        Raises:
            TimeoutError: the budget ran out first.
            _Overtaken: this seat's options changed first (the answer would be stale).
        """
        task = asyncio.ensure_future(decision)
        self._moved.clear()
        moved = asyncio.ensure_future(self._moved.wait())
        try:
            done, _ = await asyncio.wait({task, moved}, timeout=budget, return_when=asyncio.FIRST_COMPLETED)
        finally:
            moved.cancel()
        if task in done:
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        if moved in done:
            raise _Overtaken
        raise TimeoutError

    def _picture(self) -> TablePicture:
        assert self.picture is not None, "run() reads the view first"
        return self.picture

    def _follow(self, event: events_pb2.Event) -> events_pb2.MatchEnded | None:
        """Fold one event into the picture and the state, call the bot's hooks; the MatchEnded at the end."""
        self._picture().apply(event)
        self.state.update(event)
        self.bot.on_event(event)
        kind = event.WhichOneof("payload")
        if kind == "seat_taken_over" and event.seat_taken_over.seat == self.state.seat:
            taken = event.seat_taken_over
            why = "its strikes" if taken.reason == events_pb2.TAKEOVER_REASON_STRIKES else "its player's leaving"
            self.lost = f"taken over for {why} at event {event.number}"
        if kind == "reaction_window_opened":
            self.bot.on_window(event.reaction_window_opened.window, self.state)
        elif kind == "round_ended":
            self.bot.on_round_end(event.round_ended, self.state)
        elif kind == "match_ended":
            self._finish_verifying()
            self.bot.on_match_end(event.match_ended, self.state)
            return event.match_ended
        elif kind == "snapshot" and event.snapshot.view.phase == views_pb2.PHASE_MATCH_OVER:
            return events_pb2.MatchEnded(winner_seats=event.snapshot.view.winners)
        return None

    def _finish_verifying(self) -> None:
        """The match is over: every round dealt must have had its seed revealed (it follows RoundEnded)."""
        if self.verifier is not None:
            self.verifier.finish()

    async def _read_view(self, client: TableClient) -> views_pb2.SeatView:
        """GetView, and the picture starts again from it (the events after it still follow)."""
        view = await client.get_view()
        self.view_reads += 1
        if self.picture is None or view.event_number >= self.picture.view.event_number:
            self.picture = TablePicture(view)
        return view

    async def _act(self, client: TableClient, view: views_pb2.SeatView) -> bool:
        """Act on `view`'s legal actions until they ask for nothing more. False when the seat is done."""
        for failures in range(min(self.max_attempts, _MAX_COMMANDS_IN_A_ROW)):
            self.state.update_from_view(view)
            self._acted_through = max(self._acted_through, view.event_number)
            if view.phase == views_pb2.PHASE_MATCH_OVER:
                return True  # the match_ended event is on its way
            legal = view.legal_actions
            command: cmd.Command | None
            if legal.commit_entropy or legal.reveal_entropy:
                command = self._entropy_command(view)
                is_reaction = False
            elif legal.required:
                command = await self._catch_first(view) if failures == 0 else None
                if command is None:
                    command = default_command(legal) if failures >= 2 else await self._decide(view)
                if command is not None and self.human_pace is None:
                    await self._think(view)
                is_reaction = isinstance(command, cmd.React | cmd.CatchUno)
            else:
                command = await self._respond(legal, view.event_number)
                is_reaction = True
            if command is None:
                return True
            if self.human_pace is not None:
                await self._paced(view, command)
            elif is_reaction:
                await self.reaction_delay()
            outcome = await self._send(client, command)
            if outcome is _Outcome.DONE:
                return False
            if outcome is _Outcome.APPLIED:
                return True  # its events, and the legal actions after it, come on the stream
            view = await self._read_view(client)
        log.error("seat %d: %d commands in a row refused; waiting for the next event", self.state.seat, failures + 1)
        return True

    async def _think(self, view: views_pb2.SeatView) -> None:
        """The policy's human-like pause (`Bot.think_seconds`), at most half the time its clock leaves."""
        if not self.pauses:
            return
        pause = self.bot.think_seconds(view)
        if pause <= 0:
            return
        if view.legal_actions.HasField("deadline") and view.HasField("view_time"):
            left = (view.legal_actions.deadline.ToNanoseconds() - view.view_time.ToNanoseconds()) / 1e9
            pause = min(pause, max(0.0, left / 2))
        await asyncio.sleep(pause)

    async def _paced(self, view: views_pb2.SeatView, command: cmd.Command) -> None:
        """Wait as the host's pace says (`human_pace`), from when the options arrived: a race answer
        for the level's reaction time, anything else for the turn's pause; nothing at a table of bots."""
        assert self.human_pace is not None
        if not self._person_at_table(view):
            return
        race = _race_answered(command)
        if race is not None:
            key = race or -view.event_number  # a late UNO call names no window: one draw per event then
            pause = self._reactions.get(key)
            if pause is None:
                pause = self._reactions[key] = race_reaction_seconds(self.bot.kind, self._reaction_rng)
        else:
            pause = self.human_pace + (self.bot.think_seconds(view) if self.human_pace > 0 else 0.0)
            if view.legal_actions.HasField("deadline") and view.HasField("view_time"):
                left = (view.legal_actions.deadline.ToNanoseconds() - view.view_time.ToNanoseconds()) / 1e9
                pause = min(pause, max(0.0, left / 2))
        wait = self._options_at + pause - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)

    async def _catch_first(self, view: views_pb2.SeatView) -> cmd.Command | None:
        """Paced for a person (`human_pace`), the seat to play next may catch as well as play, as the
        host's own bots do: the policy's reaction when it is a catch, else None (the turn is decided)."""
        legal = view.legal_actions
        if self.human_pace is None or not legal.catch_uno_targets or not self._person_at_table(view):
            return None
        reaction = await self._respond(legal, view.event_number)
        return reaction if isinstance(reaction, cmd.CatchUno) else None

    def _person_at_table(self, view: views_pb2.SeatView) -> bool:
        """Whether another seat is held by a player (not a bot, not forfeited): the host's rule (its pace.py)."""
        return any(state.occupied and not state.is_bot and not state.taken_over
                   for state in view.seats if state.seat != self.state.seat)

    def _round_starts_held(self) -> bool:
        """Whether the table holds a round's first turn for its players to read the scores
        (ClockSettings.round_start_hold, unset at a table that holds nothing: a league's)."""
        return self.picture is not None and self.picture.view.settings.clock.HasField("round_start_hold")

    async def _close_scores(self, client: TableClient, round_number: int) -> None:
        """Say the round's scores are read: a bot reads them at once (see the module's docstring)."""
        if not self._closes_scores:
            return
        try:
            await client.close_scores(round_number)
        except Unimplemented:
            self._closes_scores = False  # a host without holds between rounds
        except UnonetError as error:  # a courtesy, like a ping: never a reason to stop playing
            log.debug("seat %d: CloseScores for round %d refused: %s", self.state.seat, round_number, error)

    def _entropy_command(self, view: views_pb2.SeatView) -> cmd.Command:
        """This seat's contribution to the shuffle of `view.round_number`: commit first, then reveal."""
        value = self._entropy.setdefault(view.round_number, secrets.token_bytes(32))
        if view.legal_actions.commit_entropy:
            commitment = commit_seat_entropy(view.seat, value, table_id=view.table_id, round_no=view.round_number)
            return cmd.CommitEntropy(commitment)
        return cmd.RevealEntropy(value)

    # ------------------------------------------------------------------------------- asking the bot

    def _budget(self, legal: actions_pb2.LegalActions, cap: float | None) -> float | None:
        """Seconds the bot may take: until the deadline (on our clock), less the safety margin, at most `cap`."""
        if not legal.HasField("deadline"):
            return cap
        deadline = legal.deadline.seconds + legal.deadline.nanos / 1e9 - self._clock_offset
        left = max(0.0, deadline - time.time() - self.safety_margin)
        return left if cap is None else min(left, cap)

    def _fault(self, kind: FaultKind, detail: str, event_number: int, required: bool = True) -> None:
        self.faults.append(Fault(kind, event_number, detail, required))

    def _no_answer(self, legal: actions_pb2.LegalActions) -> cmd.Command | None:
        """What a required decision the bot failed becomes: nothing, for the table's clock to decide; at a
        table without a clock, the safe default, so the game goes on."""
        return None if legal.HasField("deadline") else default_command(legal)

    async def _decide(self, view: views_pb2.SeatView) -> cmd.Command | None:
        """The bot's decision on a required LegalActions, checked; see the module for what a fault becomes."""
        legal = view.legal_actions
        number = view.event_number
        budget = self.state.time_left = self._budget(legal, self.max_think)
        self.decisions += 1
        asked = time.perf_counter()
        try:
            command = await self._ask_bot(self.bot.decide_async(_copy(view), self.state), budget)
            self.decision_seconds.append(time.perf_counter() - asked)
        except _Overtaken:
            log.debug("seat %d: the decision at event %d was overtaken by newer legal actions", self.state.seat, number)
            return None
        except TimeoutError:
            self._report(FaultKind.LATE, f"no decision within {budget:.2f}s, before the deadline", number, legal)
            return self._no_answer(legal)
        except BadAnswer as error:
            self._report(FaultKind.GARBAGE, str(error), number, legal)
            return self._no_answer(legal)
        except BotGone:
            raise
        except Exception as error:  # a policy bug: logged with its traceback, and the turn is lost
            log.exception("seat %d: decide() raised at event %d; %s", self.state.seat, number, _outcome(legal))
            self._fault(FaultKind.CRASHED, f"decide() raised {type(error).__name__}: {error}", number)
            return self._no_answer(legal)
        if command is None:
            return default_command(legal)
        if not is_listed(command, legal):
            self._report(FaultKind.ILLEGAL, f"{command!r} is not in the legal actions", number, legal)
            return self._no_answer(legal)
        return command

    async def _respond(self, legal: actions_pb2.LegalActions, number: int) -> cmd.Command | None:
        """The bot's optional reaction, checked; a faulty one is dropped (nothing waits for it)."""
        budget = self.state.time_left = self._budget(legal, self.max_react)
        try:
            command = await self._ask_bot(self.bot.respond_async(legal, self.state), budget)
        except _Overtaken:
            return None
        except TimeoutError:
            self._report(FaultKind.LATE, f"no reaction within {budget:.2f}s", number, legal)
            return None
        except BadAnswer as error:
            self._report(FaultKind.GARBAGE, str(error), number, legal)
            return None
        except BotGone:
            raise
        except Exception as error:
            log.exception("seat %d: respond() raised at event %d", self.state.seat, number)
            self._fault(FaultKind.CRASHED, f"respond() raised {type(error).__name__}: {error}", number, False)
            return None
        if command is not None and not is_listed(command, legal):
            self._report(FaultKind.ILLEGAL, f"{command!r} is not in the legal actions", number, legal)
            return None
        return command

    def _report(self, kind: FaultKind, detail: str, number: int, legal: actions_pb2.LegalActions) -> None:
        """Keep and log (once) a fault on the decision `legal` asked for, with what becomes of it."""
        self._fault(kind, detail, number, legal.required)
        log.error("seat %d: %s answer at event %d: %s; %s", self.state.seat, kind.value, number, detail,
                  _outcome(legal))

    # ------------------------------------------------------------------------------------ sending

    async def _send(self, client: TableClient, command: cmd.Command) -> _Outcome:
        """Send `command` and sort out what happened; only NotFound and PermissionDenied escape."""
        if isinstance(command, cmd.React | cmd.CatchUno) and command.reaction_window_id:
            self.state.answered_windows.add(command.reaction_window_id)
        try:
            result = await client.send(command)
        except FailedPrecondition as error:
            self.refusals += 1
            self.refusal_reasons[error.reason] += 1
            if error.reason in _TERMINAL_REASONS:
                log.info("seat %d can no longer act: %s", self.state.seat, error)
                return _Outcome.DONE
            log.debug("seat %d: %r refused (%s); re-reading the view", self.state.seat, command, error)
            return _Outcome.REFUSED
        except (InvalidArgument, AlreadyExists, Unimplemented) as error:
            self.refusals += 1
            self.refusal_reasons[error.reason] += 1
            log.warning("seat %d: %r refused as malformed (%s)", self.state.seat, command, error)
            return _Outcome.REFUSED
        except ResourceExhausted as error:
            self.refusals += 1
            log.warning("seat %d: %r refused (%s); slowing down", self.state.seat, command, error)
            await self.reaction_delay()
            return _Outcome.REFUSED
        except (Unavailable, DeadlineExceeded, Cancelled) as error:
            log.warning("seat %d: %r lost (%s); re-reading the view", self.state.seat, command, error)
            return _Outcome.LOST
        self.commands_sent += 1
        if isinstance(command, cmd.RevealEntropy) and self.verifier is not None:
            # The host acknowledged our reveal: the Verifier holds it to dealing with it (docs/fairness.md
            # 12); a reveal dropped and called a timeout raises DroppedReveal, which ends the run loudly.
            rounds = [round_no for round_no, value in self._entropy.items() if value == command.entropy]
            if rounds:
                self.verifier.sent_reveal(rounds[-1], result.event_number)
        # Legal actions on events before the command's own are from before it: never act on them.
        self._acted_through = max(self._acted_through, result.event_number - 1)
        return _Outcome.APPLIED

    async def _ping_forever(self, client: TableClient) -> None:
        assert self.ping_interval
        while True:
            try:
                await client.ping()
                if client.clock_offset is not None:
                    self._clock_offset = client.clock_offset
            except Exception as error:  # pings are a courtesy; never let them stop the bot
                log.debug("ping failed: %s", error)
            await asyncio.sleep(self.ping_interval)


def _outcome(legal: actions_pb2.LegalActions) -> str:
    """What becomes of a decision the bot got wrong (`BotRunner._no_answer`), in words for its log line."""
    if not legal.required:
        return "no reaction sent"
    if legal.HasField("deadline"):
        return "nothing sent: the table's clock decides"
    return "the safe default sent: the table has no clock"


class _Overtaken(Exception):
    """Newer legal actions arrived while the bot was deciding: its answer would be stale."""


def _changes_options(event: events_pb2.Event) -> bool:
    """Whether `event` brings this seat new legal actions (or ends its options with the match)."""
    return event.HasField("your_legal_actions") or event.WhichOneof("payload") in ("snapshot", "match_ended")


def _race_answered(command: cmd.Command) -> int | None:
    """The window a command answers as a race (0 for a late UNO call, whose window it does not name),
    None for a command that answers none (a turn's)."""
    if isinstance(command, cmd.React | cmd.CatchUno):
        return command.reaction_window_id
    if isinstance(command, cmd.Play):
        return command.reaction_window_id or None
    if isinstance(command, cmd.CallUno):
        return 0
    return None


def _copy(view: views_pb2.SeatView) -> views_pb2.SeatView:
    """The policy gets its own copy: the picture moves on while a decision runs in another thread."""
    copy = views_pb2.SeatView()
    copy.CopyFrom(view)
    return copy


@dataclass(frozen=True, slots=True)
class Seating:
    """One seat for `play_tables`: the runner, the client attached to the seat, the table and seat."""

    runner: BotRunner
    client: TableClient
    table_id: str
    seat: int


async def play_tables(seatings: Iterable[Seating]) -> list[events_pb2.MatchEnded | BaseException | None]:
    """Play every seating at once, in this process, until each match ends.

    One seat's failure (its table gone, its host unreachable) ends only that seat: its exception is
    returned in its place, in the order given, and the others play on.
    """
    jobs = [seating.runner.run(seating.client, seating.table_id, seating.seat) for seating in seatings]
    return list(await asyncio.gather(*jobs, return_exceptions=True))
