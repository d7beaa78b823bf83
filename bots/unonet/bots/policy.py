"""The policy half of a bot: `Bot.decide(view, state)` and `Bot.respond(legal, state)`, with no I/O.

A policy is a pure function of what the seat knows: it reads a `SeatView` (or the legal actions an
event carried) and the little `BotState` the runner keeps, and returns the command to send, or None.
It never touches the network, the clock or the shuffle's entropy, so it can be tested from hand-made
views without a server; `unonet.bots.runner.BotRunner` does all of that (the Lichess bot / UCI split).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, events_pb2, views_pb2

__all__ = ["Bot", "BotState", "default_command"]


@dataclass
class BotState:
    """The little a bot keeps between events; everything else is in the view the runner keeps from them.

    The runner updates it from every event and view; a policy only reads it.

    Attributes:
        seat: this bot's seat.
        last_event_number: the last event processed.
        open_windows: the reaction windows open now, by id (from events, snapshots and views).
        answered_windows: the windows this bot has already answered or caught in; it never answers twice.
        hand_sizes: each seat's hand size, as last reported.
        match_ended: the MatchEnded event, once it came.
        prompt: the event whose legal actions the bot is deciding on now (None when a view read
            started the decision: the bot's start, or a refusal).
        view: the runner's latest picture of the table (`unonet.bots.picture`), read-only; None before
            the first view.
        time_left: the seconds the bot has for the current decision or reaction (its deadline on this
            machine's clock, less the runner's safety margin, or the runner's cap); None for no limit.
    """

    seat: int
    last_event_number: int = 0
    open_windows: dict[int, views_pb2.ReactionWindow] = field(default_factory=dict)
    answered_windows: set[int] = field(default_factory=set)
    hand_sizes: dict[int, int] = field(default_factory=dict)
    match_ended: events_pb2.MatchEnded | None = None
    prompt: events_pb2.Event | None = None
    view: views_pb2.SeatView | None = None
    time_left: float | None = None

    def catch_window(self, target_seat: int) -> int:
        """The id of the open UNO-catch window about `target_seat`, or 0 when none is known."""
        for window in self.open_windows.values():
            if window.kind == views_pb2.REACTION_WINDOW_KIND_UNO_CATCH and window.subject_seat == target_seat:
                return window.id
        return 0

    def update_from_view(self, view: views_pb2.SeatView) -> None:
        """Replace what the view knows better: windows, hand sizes."""
        self.view = view
        self.open_windows = {window.id: window for window in view.open_windows}
        self.hand_sizes = {state.seat: state.hand_size for state in view.seats}

    def update(self, event: events_pb2.Event) -> None:
        """Follow one event."""
        self.last_event_number = max(self.last_event_number, event.number)
        kind = event.WhichOneof("payload")
        if kind == "snapshot":
            self.update_from_view(event.snapshot.view)
        elif kind == "reaction_window_opened":
            window = event.reaction_window_opened.window
            self.open_windows[window.id] = window
        elif kind == "reaction_window_closed":
            self.open_windows.pop(event.reaction_window_closed.window_id, None)
        elif kind == "turn_started":
            # U2, H6: a new turn closes the catch and jump-in windows that do not block play.
            self.open_windows = {wid: w for wid, w in self.open_windows.items() if w.blocks_play}
        elif kind == "cards_dealt":
            self.open_windows.clear()
            self.hand_sizes = {hand.seat: hand.count for hand in event.cards_dealt.hands}
        elif kind == "cards_played":
            self.hand_sizes[event.cards_played.seat] = event.cards_played.hand_size
        elif kind == "cards_drawn":
            self.hand_sizes[event.cards_drawn.seat] = event.cards_drawn.hand_size
        elif kind == "match_ended":
            self.match_ended = event.match_ended


class Bot:
    """A seat's policy. Subclasses implement `decide`, and may override `respond` and `on_event`.

    A bot never sees the network: `BotRunner(bot).run(client, table_id, seat)` plays it at a table.
    It may keep its own state (a seeded `random.Random`, a model), as long as it does no I/O.
    """

    #: The kind's name, as `python -m unonet.bots --kind` takes it.
    kind = "base"

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """The command to send when the game waits for this seat (`view.legal_actions.required`).

        None falls back to the safe default: Draw when allowed, else Pass.
        """
        raise NotImplementedError

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """The optional reaction to send now, or None to let the chance go.

        The default answers every UNO slap and Sound Wild window (the slowest seat draws 2) and
        nothing else.
        """
        for window_id in legal.react_window_ids:
            if window_id not in state.answered_windows:
                return cmd.React(window_id)
        return None

    async def decide_async(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        """What the runner awaits for a decision: `decide` in a worker thread, so that a slow or hung
        policy never holds up the runner's event loop (its other tables, its pings, its clock). A bot
        that does its own I/O, such as the JSON-lines bridge, overrides this instead."""
        return await asyncio.to_thread(self.decide, view, state)

    async def respond_async(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        """What the runner awaits for an optional reaction: `respond`, in a worker thread as `decide_async`."""
        return await asyncio.to_thread(self.respond, legal, state)

    def on_event(self, event: events_pb2.Event) -> None:
        """Called for every event, after the state is updated and before the bot acts. Does nothing.

        A runner started mid-match (a host's bot worker, a restarted bot) first passes on every event
        before its first view, from the match's first, so a bot that keeps a memory of the match knows
        what it would know had it been seated from the start; only this hook sees those."""

    def on_window(self, window: views_pb2.ReactionWindow, state: BotState) -> None:
        """Called when a reaction window opens (whether or not this seat may answer it). Does nothing;
        the answer itself comes from `respond` (or `decide`, for a slap or Sound Wild it must answer)."""

    def on_round_end(self, ended: events_pb2.RoundEnded, state: BotState) -> None:
        """Called when a round ends, with its scores and every hand shown. Does nothing."""

    def on_match_end(self, ended: events_pb2.MatchEnded, state: BotState) -> None:
        """Called once when the match ends, before the runner returns. Does nothing."""

    def stats(self) -> dict[str, Any]:
        """Figures the policy keeps about its own decisions, JSON-ready, for tests and benchmarks
        (`unonet bot play --stats FILE` writes them when it stops; a host's bot workers too). None: {}."""
        return {}

    def think_seconds(self, view: views_pb2.SeatView) -> float:
        """How long to wait before sending `decide`'s command, to seem human (a level's pause). None: 0.

        Runners at a real table honour it (`BotRunner`, the host's bot seats); in-process tables do not.
        """
        return 0.0


def default_command(legal: actions_pb2.LegalActions) -> cmd.Command | None:
    """The host's own default for a timed-out turn: Draw when allowed, else Pass; None otherwise."""
    if legal.HasField("draw"):
        return cmd.Draw()
    if legal.pass_turn:
        return cmd.Pass()
    return None
