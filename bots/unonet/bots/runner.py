"""`BotRunner`: play a `Bot` policy at a table, acting whenever the host says the seat may or must.

The policy (`unonet.bots.policy.Bot`) only chooses; the runner owns everything with I/O: the
`TableClient`, the reaction delay, pings, the shuffle's entropy and the fairness checks. A bot needs
no rules code: the host sends, with every event that changes them, the seat's complete legal actions
(`Event.your_legal_actions`). The loop in `BotRunner.run`:

- When the legal actions are `required` (the game waits for this seat), it reads the current view with
  GetView and sends what `bot.decide(view, state)` returns. GetView is the authority: a stale event
  (replayed after a reconnect, or overtaken by a jump-in) can never make the bot act twice.
- When they only offer something optional (a UNO slap or Sound Wild to react to, a seat to catch, UNO
  to call early), it waits its reaction delay and sends what `bot.respond(legal, state)` returns.
- After every command, and after every refusal, it reads the view again and goes on from there, so a
  race (FAILED_PRECONDITION because the state moved on, or RACE_LOST) is never fatal. A bot that
  rebuilds the position from the events (`Bot.decides_from_events`, a search bot) is asked to decide
  only once the events up to that view have reached it.
- Before each deal (PHASE_SHUFFLE) it contributes to the provably fair shuffle by itself: a fresh
  32-byte secret per round, committed when `commit_entropy` is offered and revealed when
  `reveal_entropy` is (docs/fairness.md 6.1). A policy never sees these.
- It returns when a `match_ended` event arrives (or the view says the match is over).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable

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
)
from unonet.client.table_client import TableClient
from unonet.client.verify import Verifier
from unonet.fairness import commit_seat_entropy
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["BotRunner", "ReactionDelay", "fixed_delay"]

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
            latency and forgive it in races.
        verify: check the host's fairness from every event this seat receives, from the first one
            (a failed check raises the `unonet.fairness.VerificationError` that names it).
    """

    def __init__(
        self,
        bot: Bot,
        *,
        reaction_delay: float | ReactionDelay = 0.0,
        max_attempts: int = 4,
        ping_interval: float | None = None,
        verify: bool = False,
    ) -> None:
        self.bot = bot
        self.verify = verify
        #: Checks every commitment, opening, pile, seed and challenge reveal this seat receives
        #: (`unonet.client.verify`); None when not verifying, or after a snapshot broke the record.
        self.verifier: Verifier | None = None
        self.reaction_delay: ReactionDelay = (
            fixed_delay(reaction_delay) if isinstance(reaction_delay, int | float) else reaction_delay
        )
        self.max_attempts = max_attempts
        self.ping_interval = ping_interval
        self.state = BotState(seat=0)
        self._acted_through = 0
        self._catch_up_to = 0  # a view read ahead of the events, for a bot that decides from them
        self._entropy: dict[int, bytes] = {}
        self.commands_sent = 0
        self.refusals = 0
        #: How many refusals of each reason (errors.proto) the host sent this runner.
        self.refusal_reasons: Counter[str] = Counter()

    # ----------------------------------------------------------------------------------- the loop

    async def run(self, client: TableClient, table_id: str, seat: int) -> events_pb2.MatchEnded | None:
        """Play the bot at `seat` of `table_id` through `client` (already joined there) until the match ends.

        Returns the MatchEnded event, or None when the seat can no longer act (taken over, eliminated).
        A match that was already over when the bot started gives a MatchEnded with the view's winners.

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
        try:
            view = await client.get_view()
            self.state.last_event_number = view.event_number
            if view.phase == views_pb2.PHASE_MATCH_OVER:
                return events_pb2.MatchEnded(winner_seats=view.winners)
            if not await self._settle(client, view):
                return None
            self.verifier = Verifier(table_id, seat) if self.verify else None
            start = 0 if self.verifier is not None else view.event_number
            async with contextlib.aclosing(client.events(after=start)) as stream:
                async for event in stream:
                    if self.verifier is not None:
                        if event.WhichOneof("payload") == "snapshot":
                            self.verifier = None  # a snapshot carries no commitments: the record is lost
                        else:
                            self.verifier.feed(event)
                    if event.number <= view.event_number:
                        continue  # replayed only for the verifier: the view already covered it
                    self.state.update(event)
                    self.bot.on_event(event)
                    if event.HasField("match_ended"):
                        self._finish_verifying()
                        return event.match_ended
                    if (
                        event.WhichOneof("payload") == "snapshot"
                        and event.snapshot.view.phase == views_pb2.PHASE_MATCH_OVER
                    ):
                        return events_pb2.MatchEnded(winner_seats=event.snapshot.view.winners)
                    legal = _legal_actions_of(event)
                    if self._catch_up_to and event.number >= self._catch_up_to:
                        self._catch_up_to = 0  # the events have caught up with the view: decide now
                        if not await self._settle(client, None):
                            return None
                        continue
                    if legal is None or event.number <= self._acted_through:
                        continue  # nothing changed for this seat, or a view read since already covered it
                    if not await self._on_legal_actions(client, legal):
                        return None
        finally:
            if pinger is not None:
                pinger.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pinger
        return None  # pragma: no cover - the event stream never ends by itself

    def _finish_verifying(self) -> None:
        """The match is over: every round dealt must have had its seed revealed (it follows RoundEnded)."""
        if self.verifier is not None:
            self.verifier.finish()

    async def _on_legal_actions(self, client: TableClient, legal: actions_pb2.LegalActions) -> bool:
        """Act on legal actions that just arrived. Returns False when the seat can no longer act."""
        if legal.required:
            return await self._settle(client, None)
        command = self.bot.respond(legal, self.state)
        if command is None:
            return True
        await self.reaction_delay()
        if await self._send(client, command) is _Outcome.DONE:
            return False
        # Whatever happened, read the view: other events may have overtaken the reaction.
        return await self._settle(client, None)

    async def _settle(self, client: TableClient, view: views_pb2.SeatView | None) -> bool:
        """Read the view and act on it until it asks for nothing more. False when the seat is done.

        Every refusal re-reads the view; after two refusals in a row a required decision falls back to
        the default action, and after `max_attempts` the bot waits for the next event (or the clock).
        """
        failures = 0
        for _ in range(_MAX_COMMANDS_IN_A_ROW):
            if view is None:
                view = await client.get_view()
            if view.legal_actions.required and self.bot.decides_from_events and (
                view.event_number > self.state.last_event_number
            ):
                self._catch_up_to = view.event_number  # decide once the events up to it have been followed
                return True
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
                command = self._decide_safely(view) if failures < 2 else default_command(legal)
                await self._think(view)
                is_reaction = isinstance(command, cmd.React | cmd.CatchUno)
            else:
                command = self.bot.respond(legal, self.state)
                is_reaction = True
            if command is None:
                return True
            if is_reaction:
                await self.reaction_delay()
            outcome = await self._send(client, command)
            if outcome is _Outcome.DONE:
                return False
            if outcome is not _Outcome.APPLIED:
                failures += 1
                if failures >= self.max_attempts:
                    log.error(
                        "seat %d: %d commands in a row refused; waiting for the next event", self.state.seat, failures
                    )
                    return True
            view = None
        return True

    async def _think(self, view: views_pb2.SeatView) -> None:
        """The policy's human-like pause (`Bot.think_seconds`), at most half the time its clock leaves."""
        pause = self.bot.think_seconds(view)
        if pause <= 0:
            return
        if view.legal_actions.HasField("deadline") and view.HasField("view_time"):
            left = (view.legal_actions.deadline.ToNanoseconds() - view.view_time.ToNanoseconds()) / 1e9
            pause = min(pause, max(0.0, left / 2))
        await asyncio.sleep(pause)

    def _entropy_command(self, view: views_pb2.SeatView) -> cmd.Command:
        """This seat's contribution to the shuffle of `view.round_number`: commit first, then reveal."""
        value = self._entropy.setdefault(view.round_number, secrets.token_bytes(32))
        if view.legal_actions.commit_entropy:
            commitment = commit_seat_entropy(view.seat, value, table_id=view.table_id, round_no=view.round_number)
            return cmd.CommitEntropy(commitment)
        return cmd.RevealEntropy(value)

    def _decide_safely(self, view: views_pb2.SeatView) -> cmd.Command | None:
        try:
            command = self.bot.decide(view, self.state)
        except Exception:  # a policy bug must not lose the game on time: fall back to the default
            log.exception("seat %d: decide() failed; using the default action", self.state.seat)
            command = None
        return command if command is not None else default_command(view.legal_actions)

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
        self._acted_through = max(self._acted_through, result.last_event_number)
        return _Outcome.APPLIED

    async def _ping_forever(self, client: TableClient) -> None:
        assert self.ping_interval
        while True:
            try:
                await client.ping()
            except Exception as error:  # pings are a courtesy; never let them stop the bot
                log.debug("ping failed: %s", error)
            await asyncio.sleep(self.ping_interval)


def _legal_actions_of(event: events_pb2.Event) -> actions_pb2.LegalActions | None:
    if event.WhichOneof("payload") == "snapshot":
        return event.snapshot.view.legal_actions
    return event.your_legal_actions if event.HasField("your_legal_actions") else None
