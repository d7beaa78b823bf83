"""Stub clients for the field-coverage games: random but seeded players that speak only the wire protocol.

Each `Player` holds one seat: it reads its own event stream (so every seat's copy of every event is
observed), pings the host so its latency is measured, and answers its legal actions at random, with a
few deliberate mistakes (`careless`) so the punishable ones are produced too: a card that does not match,
a wrong jump-in, a false catch, chat during a silence, a late reaction. Each says it read a round's
scores (CloseScores): at once, or, careless, only once the host holds the next round for it. An `idle`
seat watches and never acts (its clock runs out), a `leaver` leaves the running match. Every message
received is handed to the shared `FieldCoverage`; every refusal's ErrorDetail reason is recorded there
as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
import secrets
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import duration_pb2, timestamp_pb2
from google.protobuf.message import Message

from unonet.client.conformance.coverage import FieldCoverage
from unonet.client.conformance.remote import CALL_TIMEOUT, Remote
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    chat_service_pb2,
    errors_pb2,
    events_pb2,
    lobby_service_pb2,
    play_service_pb2,
    time_service_pb2,
    views_pb2,
    watch_service_pb2,
)
from unonet.v1.trailers import ERROR_DETAIL_KEY

__all__ = ["Player", "entropy_commitment", "observed"]

#: How often a stub client pings (TimeService.Ping). Every 50 ms made pings most of the fields suite's calls
#: (about 600 a second from its 30 clients, CPU on both sides of one process) for nothing: one answered ping
#: gives the host a latency figure.
PING_PERIOD_S = 0.25
COLORS = (cards_pb2.COLOR_RED, cards_pb2.COLOR_YELLOW, cards_pb2.COLOR_GREEN, cards_pb2.COLOR_BLUE)


async def observed(coverage: FieldCoverage, call: Awaitable[Any]) -> Any:
    """Await one unary call: its response is observed; a refusal's ErrorDetail is observed and its reason
    recorded, and None returned (a random player's stale command is refused now and then)."""
    try:
        response = await asyncio.wait_for(call, CALL_TIMEOUT)
    except grpc.aio.AioRpcError as error:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError from None  # the call was cancelled with its caller: not a refusal
        for key, value in error.trailing_metadata() or ():
            if key == ERROR_DETAIL_KEY:
                detail = errors_pb2.ErrorDetail.FromString(value)  # type: ignore[arg-type]
                coverage.observe(detail)
                coverage.reasons.add(detail.reason)
        return None
    if isinstance(response, Message):
        coverage.observe(response)
    return response


def _hash_field(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def entropy_commitment(table_id: str, round_no: int, seat: int, value: bytes) -> bytes:
    """docs/fairness.md 6.1: H("unonet/v1/seat-entropy", table_id, round_no, seat, value)."""
    fields = [b"unonet/v1/seat-entropy", table_id.encode(), round_no.to_bytes(8, "big"), seat.to_bytes(8, "big"),
              value]
    return hashlib.sha256(b"".join(_hash_field(f) for f in fields)).digest()


@dataclass
class Player:
    """One stub-client seat. `style`: "careful", "careless", "idle" or "leaver"."""

    remote: Remote
    table_id: str
    token: str
    seat: int
    rng: random.Random
    coverage: FieldCoverage
    style: str = "careful"
    batch: int = 0
    reaction_s: float = 0.3
    legal: actions_pb2.LegalActions = field(default_factory=actions_pb2.LegalActions)
    windows: dict[int, views_pb2.ReactionWindow] = field(default_factory=dict)
    last_number: int = 0
    round_number: int = 0
    over: bool = False
    gone: bool = False
    streaming: asyncio.Event = field(default_factory=asyncio.Event)  # set once the first event arrived
    _commands: int = 0
    _entropy: dict[int, bytes] = field(default_factory=dict)
    _received_at: float = 0.0
    _breaks: int = 0
    _silenced_by: int | None = None  # the seat whose 2 silenced the chat (H14), until it plays again
    _scores_read: int = 0  # the round whose scores the player has read and not said so yet (CloseScores)
    _looks_while_held: bool = False  # held for its CloseScores: it looks at the table first (GetView)

    # ----------------------------------------------------------------------------- the stream

    async def run(self) -> None:
        """Play until the match ends. The stream breaks twice, as a client's connection does: it is
        resumed once from the last number seen, once from a snapshot."""
        pinger = asyncio.get_running_loop().create_task(self._ping())
        try:
            while not self.over:
                await self._stream(snapshot=self._breaks == 2)
        finally:
            pinger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pinger

    async def _stream(self, *, snapshot: bool) -> None:
        request = watch_service_pb2.WatchEventsRequest(
            table_id=self.table_id, token=self.token, after_event_number=self.last_number, batch=self.batch,
            start_with_snapshot=snapshot)
        call = self.remote.watch.WatchEvents(request)
        try:
            async for response in call:
                self.coverage.observe(response)
                self._received_at = time.monotonic()
                for event in response.events or [response.event]:
                    self._on_event(event)
                self.streaming.set()
                if self.over:
                    return
                if not self.gone and self.style != "idle":
                    await self.act()
                if self._breaks < 2 and self.last_number > 60 * (self._breaks + 1):
                    self._breaks += 1
                    return  # the connection breaks; `run` resumes
        finally:
            call.cancel()

    def _on_event(self, event: events_pb2.Event) -> None:
        self.last_number = event.number
        if event.HasField("your_legal_actions"):
            self.legal = event.your_legal_actions
        kind = event.WhichOneof("payload")
        if kind == "snapshot":
            view = event.snapshot.view
            self.legal = view.legal_actions
            self.windows = {w.id: w for w in view.open_windows}
            self.round_number = view.round_number
            self.over = view.phase == views_pb2.PHASE_MATCH_OVER  # resumed after the end: nothing follows
        elif kind == "reaction_window_opened":
            self.windows[event.reaction_window_opened.window.id] = event.reaction_window_opened.window
        elif kind == "reaction_window_closed":
            self.windows.pop(event.reaction_window_closed.window_id, None)
        elif kind == "silence_started":
            self._silenced_by = event.silence_started.seat
        elif kind == "cards_played" and event.cards_played.seat == self._silenced_by:
            self._silenced_by = None
        elif kind == "shuffle_committed":
            self.round_number = event.shuffle_committed.round_number
        elif kind == "seat_taken_over" and event.seat_taken_over.seat == self.seat:
            self.gone = True
        elif kind == "match_ended":
            self.over = True
        elif kind == "round_ended" and not self.is_careless:
            self._scores_read = event.round_ended.round_number  # read at once: said before the next deal
        elif kind == "round_held" and self.seat in event.round_held.waiting_seats:
            self._scores_read = event.round_held.round_number - 1  # a careless reader: the host waits for it
            self._looks_while_held = True

    async def _ping(self) -> None:
        """About every 250 ms, with the previous answer's arrival, so the host measures this seat's latency (one
        sample is enough to measure it; the terminal client pings once a second)."""
        previous = None
        sequence = 0
        while not self.over:
            sequence += 1
            sent = timestamp_pb2.Timestamp()
            sent.GetCurrentTime()
            request = time_service_pb2.PingRequest(
                table_id=self.table_id, token=self.token, sequence=sequence, client_send_time=sent,
                previous=previous)
            response = await observed(self.coverage, self.remote.time.Ping(request))
            if response is not None:
                arrived = timestamp_pb2.Timestamp()
                arrived.GetCurrentTime()
                previous = time_service_pb2.PingReport(sequence=sequence, client_receive_time=arrived)
            await asyncio.sleep(PING_PERIOD_S)  # the client's ping period, not a synchronisation

    # ----------------------------------------------------------------------------- acting

    def _ids(self) -> dict[str, Any]:
        self._commands += 1
        return {"table_id": self.table_id, "token": self.token, "command_id": f"s{self.seat}-{self._commands}"}

    def _reaction_time(self) -> duration_pb2.Duration:
        took = duration_pb2.Duration()
        took.FromNanoseconds(int(max(0.0, time.monotonic() - self._received_at) * 1e9))
        return took

    async def _send(self, call: Any) -> Any | None:
        return await observed(self.coverage, call)

    @property
    def is_careless(self) -> bool:
        """Careless until the table's log is long: punished mistakes make hands grow, and a round ends
        only when someone goes out."""
        return self.style == "careless" and self.last_number < 1500

    async def act(self) -> None:
        """Answer the latest legal actions: shuffle contributions, races, the turn, and now and then a
        mistake the rules punish or refuse."""
        legal, play = self.legal, self.remote.play
        if self._looks_while_held:  # the host waits for this seat: the view says so (SeatView.round_held)
            self._looks_while_held = False
            await self._send(self.remote.watch.GetView(watch_service_pb2.GetViewRequest(
                table_id=self.table_id, token=self.token)))
        if self._scores_read:
            await self._send(play.CloseScores(play_service_pb2.CloseScoresRequest(
                **self._ids(), round_number=self._scores_read)))
            self._scores_read = 0
        if legal.commit_entropy or legal.reveal_entropy:
            await self._entropy_step(legal)
            return
        for window_id in legal.react_window_ids:
            if self.is_careless and self.rng.random() < 0.2:
                await asyncio.sleep(self.reaction_s * 1.5)  # too slow on purpose: late, or lost the race
            await self._send(play.React(play_service_pb2.ReactRequest(
                **self._ids(), reaction_window_id=window_id, reaction_time=self._reaction_time())))
        if legal.catch_uno_targets and self.rng.random() < 0.8:
            await self._send(play.CatchUno(play_service_pb2.CatchUnoRequest(
                **self._ids(), target_seat=self.rng.choice(list(legal.catch_uno_targets)),
                reaction_time=self._reaction_time())))
        races = [option for option in legal.plays if option.kind != actions_pb2.PLAY_KIND_TURN]
        if races and self.rng.random() < 0.7:
            await self._play(self.rng.choice(races))
            return
        if self.is_careless and self._silenced_by is not None and self.rng.random() < 0.6:
            await self._send(self.remote.chat.SendChat(chat_service_pb2.SendChatRequest(  # breaks the silence
                **self._ids(), text="psst")))
        if self.is_careless and self.rng.random() < 0.12:
            await self._mistake()
        for _ in range(3):  # a command refused as stale (the table moved on): look again, and retry
            if not self.legal.required or await self._required(self.legal) is not None:
                break
            view = await self._send(self.remote.watch.GetView(watch_service_pb2.GetViewRequest(
                table_id=self.table_id, token=self.token)))
            if view is None:
                break
            self.legal = view.view.legal_actions
        if legal.required:
            return
        if legal.call_uno and self.rng.random() < 0.5:
            await self._send(play.CallUno(play_service_pb2.CallUnoRequest(**self._ids())))
        elif self.style == "leaver" and self._commands > 12:
            self.gone = True
            await self._send(self.remote.lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(
                table_id=self.table_id, token=self.token)))

    async def _entropy_step(self, legal: actions_pb2.LegalActions) -> None:
        value = self._entropy.setdefault(self.round_number, secrets.token_bytes(32))
        play = self.remote.play
        if legal.commit_entropy:
            commitment = entropy_commitment(self.table_id, self.round_number, self.seat, value)
            await self._send(play.CommitEntropy(play_service_pb2.CommitEntropyRequest(
                **self._ids(), commitment=commitment)))
        elif not (self.is_careless and self.rng.random() < 0.3):  # else: committed, never revealed
            await self._send(play.RevealEntropy(play_service_pb2.RevealEntropyRequest(**self._ids(), entropy=value)))

    async def _play(self, option: actions_pb2.PlayOption, *, call_uno: bool = False) -> Any | None:
        request = play_service_pb2.PlayCardsRequest(
            **self._ids(), cards=option.cards, reaction_window_id=option.reaction_window_id, call_uno=call_uno,
            reaction_time=self._reaction_time())
        if option.needs_color and self.rng.random() < 0.5:
            request.color = self.rng.choice(COLORS)  # else ChooseColor follows
        return await self._send(self.remote.play.PlayCards(request))

    async def _required(self, legal: actions_pb2.LegalActions) -> Any | None:
        """The command the game waits for; its response, or None when refused."""
        play, rng = self.remote.play, self.rng
        turn = [option for option in legal.plays if option.kind == actions_pb2.PLAY_KIND_TURN]
        if legal.choose_color:
            return await self._send(play.ChooseColor(play_service_pb2.ChooseColorRequest(
                **self._ids(), color=rng.choice(COLORS))))
        elif legal.swap_target_seats:
            return await self._send(play.ChooseSwapTarget(play_service_pb2.ChooseSwapTargetRequest(
                **self._ids(), target_seat=rng.choice(list(legal.swap_target_seats)))))
        elif legal.HasField("five_swap") and (rng.random() < 0.8 or not legal.pass_turn):
            return await self._send(play.FiveSwap(play_service_pb2.FiveSwapRequest(
                **self._ids(), target_seat=rng.choice(list(legal.five_swap.target_seats)),
                card=rng.choice(list(legal.five_swap.cards)))))
        elif legal.give_cards:
            # A client looks at what it was offered (SeatView.five_swap) before it gives a card back.
            await self._send(self.remote.watch.GetView(watch_service_pb2.GetViewRequest(
                table_id=self.table_id, token=self.token)))
            return await self._send(play.GiveCard(play_service_pb2.GiveCardRequest(
                **self._ids(), card=rng.choice(list(legal.give_cards)))))
        elif legal.challenge and rng.random() < 0.7:
            return await self._send(play.Challenge(play_service_pb2.ChallengeRequest(**self._ids())))
        elif (bluffs := [option for option in turn if option.is_bluff]) and rng.random() < 0.5:
            return await self._play(rng.choice(bluffs))  # an unfair Wild Draw Four, to be challenged (B3)
        elif legal.pass_turn and rng.random() < 0.4:  # keep the card just drawn (T3)
            return await self._send(play.Pass(play_service_pb2.PassRequest(**self._ids())))
        elif turn and rng.random() < (0.5 if legal.draw.accepts_obligation else 0.95):  # chains end too
            return await self._play(rng.choice(turn), call_uno=rng.random() < 0.3)  # often forgets: catchable
        elif legal.pass_turn:
            return await self._send(play.Pass(play_service_pb2.PassRequest(**self._ids())))
        elif legal.HasField("draw"):
            return await self._send(play.Draw(play_service_pb2.DrawRequest(**self._ids())))
        elif turn:
            return await self._play(turn[0])
        return None

    async def _mistake(self) -> None:
        """One thing a careless player gets wrong: punished under some house rules, refused otherwise."""
        play, rng = self.remote.play, self.rng
        choice = rng.randrange(5)
        if choice == 0:
            await self._send(self.remote.chat.SendChat(chat_service_pb2.SendChatRequest(
                **self._ids(), text="oops")))
            return
        if choice == 1:
            await self._send(play.CatchUno(play_service_pb2.CatchUnoRequest(
                **self._ids(), target_seat=(self.seat + 1 + rng.randrange(3)) % 4)))
            return
        view = await self._send(self.remote.watch.GetView(watch_service_pb2.GetViewRequest(
            table_id=self.table_id, token=self.token)))
        if view is None or not view.view.hand:
            return
        card = rng.choice(list(view.view.hand)).card
        jump = next((w.id for w in self.windows.values() if w.kind == views_pb2.REACTION_WINDOW_KIND_JUMP_IN), 0)
        if jump and choice != 2 and rng.random() < 0.8:
            choice = 2  # a jump-in window is the rarer chance: take it more often (wrong jump-ins, H6)
        request = play_service_pb2.PlayCardsRequest(**self._ids(), cards=[card])
        if choice == 2 and jump:
            request.reaction_window_id = jump  # a jump-in with a card that is probably not identical
        elif choice == 3:
            request.call_uno = True
        await self._send(play.PlayCards(request))
