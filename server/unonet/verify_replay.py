"""`unonet verify --replay`: replay a verified public log through the rules engine (docs/fairness.md 8.3).

Once every round's seed is revealed, the public log determines the game: the decks are known (section
6.5), and every move shows in the events. This module plays the match again in the engine, from the
revealed decks, and finds for each step of the log the one input that produces exactly the events the
log holds next: a seat's legal action (a play, a draw, a pass, a colour, a call, a catch, a challenge,
a swap, a chat under a silence), a race ruled in the order the log publishes, a window closed, a
forfeit. The engine's events are rendered as the host renders them for a spectator (its commitment
record, `unonet.host.shuffles.RoundCards`, and `unonet.host.convert`), so every draw, penalty, obligation,
score and total in the log is the engine's, or the replay stops at the first event that is not.

It needs the engine, so it lives on the server side (the client may not import it): `unonet verify`
runs the client's audit first and this only on a log that passed it.

What it takes from the log as given (the host's word, or checked elsewhere): who the first dealer is
(S2's draw uses the table's secret seed), the host's own events (timeouts, takeovers, connections, the
shuffle before each deal) and the race measurements (section 10.6 checks those).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from unonet.engine import Match, standard_deck
from unonet.engine import events as ev
from unonet.engine.actions import Action, Chat, Play, React
from unonet.engine.errors import UnoError
from unonet.engine.legal import legal_actions
from unonet.fairness import combine_seed
from unonet.host import convert
from unonet.host.shuffles import RoundCards
from unonet.v1 import events_pb2, table_pb2

__all__ = ["ReplayMismatch", "ReplayReport", "replay_log"]

HOST_KINDS = frozenset({
    "player_joined", "player_left", "bot_seated", "seat_connection_changed", "seat_taken_over", "match_started",
    "turn_timed_out", "chat_message", "chat_penalty", "shuffle_committed", "seat_entropy_committed",
    "seat_entropy_revealed", "shuffle_timed_out", "dealer_chosen", "snapshot",
})
"""Events the host makes itself (and the dealer draw): the replay takes them as given."""


class ReplayMismatch(Exception):
    """The engine, fed the log's inputs, does not give the log's events. `number` is the first event no
    input explains."""

    reason = "REPLAY_MISMATCH"

    def __init__(self, message: str, *, number: int) -> None:
        super().__init__(message)
        self.number = number


@dataclass(frozen=True)
class ReplayReport:
    """What a replay covered: the inputs it found and the rounds it played."""

    inputs: int
    rounds: int
    events: int


_Input = Callable[[Match], list[ev.Event]]
"""One input to the match: a seat's action, a ruling, a window closed, a forfeit."""


@dataclass
class _State:
    match: Match
    cards: RoundCards | None


def _is_engine_event(event: events_pb2.Event) -> bool:
    kind = event.WhichOneof("payload")
    if kind is None or kind in HOST_KINDS:
        return False
    return not (kind == "deck_committed" and event.deck_committed.deck_number == 0)  # the shuffle's own


def _normal(event: events_pb2.Event) -> bytes:
    """The parts of an event the engine decides (the host stamps times, clocks, race measurements)."""
    out = events_pb2.Event()
    out.CopyFrom(event)
    out.ClearField("number")
    out.ClearField("time")
    out.ClearField("your_legal_actions")
    kind = out.WhichOneof("payload")
    if kind == "turn_started":
        out.turn_started.CopyFrom(events_pb2.TurnStarted(seat=out.turn_started.seat))
    elif kind == "reaction_window_opened":
        window = out.reaction_window_opened.window
        for name in ("open_time", "deadline", "latency_allowance"):
            window.ClearField(name)
    elif kind == "reaction_window_closed":
        closed = out.reaction_window_closed
        out.reaction_window_closed.CopyFrom(events_pb2.ReactionWindowClosed(
            window_id=closed.window_id, kind=closed.kind, penalized_seats=closed.penalized_seats))
    return out.SerializeToString(deterministic=True)


def _round_seeds(events: Sequence[events_pb2.Event]) -> dict[int, tuple[bytes, bytes]]:
    """Each round's (round seed, host seed), from its reveals (the audit checked them)."""
    values: dict[int, dict[int, bytes]] = {}
    contributing: dict[int, list[int]] = {}
    hosts: dict[int, bytes] = {}
    current = 0
    for event in events:
        kind = event.WhichOneof("payload")
        if kind == "shuffle_committed":
            current = event.shuffle_committed.round_number
            values[current] = {}
        elif kind == "seat_entropy_revealed":
            values[current][event.seat_entropy_revealed.seat] = event.seat_entropy_revealed.entropy
        elif kind == "deck_committed" and event.deck_committed.deck_number == 0:
            contributing[current] = list(event.deck_committed.contributing_seats)
        elif kind == "shuffle_revealed":
            hosts[event.shuffle_revealed.round_number] = event.shuffle_revealed.seed
    return {
        round_no: (combine_seed(seed, {seat: values[round_no][seat] for seat in contributing[round_no]}), seed)
        for round_no, seed in hosts.items()
    }


def replay_log(table_id: str, events: Sequence[events_pb2.Event]) -> ReplayReport:
    """Replay an audited log of a fair-shuffle table through the engine. Raises ReplayMismatch."""
    started = next((e.match_started for e in events if e.HasField("match_started")), None)
    first = next((e.round_started for e in events if e.HasField("round_started")), None)
    if started is None or first is None:
        raise ReplayMismatch("the log holds no MatchStarted and RoundStarted to replay from", number=0)
    ruleset = convert.ruleset_from_pb(started.settings.ruleset.preset, started.settings.ruleset)
    seats = started.settings.seat_count
    # With the dealer and every deck given (the later piles through the record's shuffle hook), the
    # engine draws on no chance of its own: the generator is never used.
    match = Match(ruleset, seats, random.Random(0), dealer=first.dealer_seat, auto_deal=False)
    match.start()
    seeds = _round_seeds(events)
    contents = standard_deck(blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds,
                             h2o_wilds=ruleset.h2o_wilds)
    state = _State(match, None)
    expected = [e for e in events if _is_engine_event(e)]
    host_before: dict[int, list[events_pb2.Event]] = {}
    pending: list[events_pb2.Event] = []
    for event in events:
        if _is_engine_event(event):
            host_before[event.number] = pending
            pending = []
        else:
            pending.append(event)
    # A search with a little backtracking: two inputs can give the same events now and differ later (a
    # run played with or without its UNO call shows only when the run lands), so the last steps that
    # had another matching input are kept, and tried again when no input explains an event.
    frames: list[tuple[_State, int, Iterator[_Input]]] = []
    at, inputs, rounds, furthest, retries = 0, 0, 0, 0, 0
    while at < len(expected):
        if state.match.is_over:
            raise ReplayMismatch("the engine's match is over, yet the log goes on", number=expected[at].number)
        if state.match.is_awaiting_deal:
            state = copy.deepcopy(state)
            round_no = state.match.round_no + 1
            if round_no not in seeds:
                raise ReplayMismatch(f"round {round_no} was dealt but its seed never revealed",
                                     number=expected[at].number)
            round_seed, host_seed = seeds[round_no]
            state.cards = RoundCards(table_id, round_no, round_seed, host_seed, contents)
            produced = state.match.deal(state.cards.deal_cards, shuffle=state.cards.shuffle)
            at = _match_events(state, produced, expected, at)
            rounds += 1
            continue
        options = _candidates(state.match, expected[at:], host_before.get(expected[at].number, []))
        found = _advance(state, at, options, expected)
        while found is None:
            furthest = max(furthest, at)
            retries += 1
            if not frames or retries > MAX_RETRIES:
                event = expected[furthest]
                raise ReplayMismatch(
                    f"no input the rules allow gives event {event.number} ({event.WhichOneof('payload')}) as the "
                    f"log has it: {_brief(event)}", number=event.number)
            state, at, options = frames.pop()
            inputs -= 1
            found = _advance(state, at, options, expected)
        frames = [*frames[-BACKTRACK_STEPS:], (state, at, options)]
        state, at = found
        inputs += 1
    return ReplayReport(inputs, rounds, len(expected))


BACKTRACK_STEPS = 24
"""How many earlier steps the search may go back to try another input that gave the same events."""

MAX_RETRIES = 64
"""How often in one replay the search may go back at all: an honest log needs it rarely (an ambiguity
resolves within a few steps), a forged one would otherwise make it try every combination."""


def _advance(state: _State, at: int, options: Iterator[_Input],
             expected: Sequence[events_pb2.Event]) -> tuple[_State, int] | None:
    """The state after the next of `options` that gives the log's next events, or None."""
    for candidate in options:
        trial = copy.deepcopy(state)
        try:
            produced = candidate(trial.match)
        except UnoError:
            continue
        if not produced:
            continue
        try:
            return trial, _match_events(trial, produced, expected, at)
        except ReplayMismatch:
            continue
    return None


def _match_events(state: _State, produced: list[ev.Event], expected: Sequence[events_pb2.Event], at: int) -> int:
    """Render the engine's `produced` events as the host would, with the commitment record, and require
    they are the log's next ones. Returns the position after them."""
    for event in produced:
        rendered = _render(state, event, expected[at].number if at < len(expected) else 0)
        for pb in rendered:
            if at >= len(expected) or _normal(pb) != _normal(expected[at]):
                got = expected[at] if at < len(expected) else None
                raise ReplayMismatch(
                    f"the engine gives {pb.WhichOneof('payload')} {_brief(pb)}, the log "
                    f"{got.WhichOneof('payload') if got else 'nothing'} {_brief(got) if got else ''}",
                    number=got.number if got else 0)
            at += 1
    return at


def _render(state: _State, event: ev.Event, number: int) -> list[events_pb2.Event]:
    if state.cards is None:
        return [convert.event_to_pb(event, None)]
    refs, follow = state.cards.on_event(event, number)
    return [convert.event_to_pb(event, None, refs=refs), *follow]


def _brief(event: events_pb2.Event) -> str:
    kind = event.WhichOneof("payload")
    return str(getattr(event, kind)).replace("\n", " ")[:160] if kind else ""


def _candidates(match: Match, upcoming: Sequence[events_pb2.Event],
                host: Sequence[events_pb2.Event]) -> Iterator[_Input]:
    """The inputs that may come next, the likeliest first: what the host events before the next engine
    event announce (a forfeit, a chat), a race ruled as the log publishes it, a window closed, then every
    legal action of the seat the next event names, and of every other seat."""
    for event in host:
        if event.HasField("seat_taken_over") and event.seat_taken_over.policy == table_pb2.TAKEOVER_POLICY_FORFEIT:
            yield _forfeit(event.seat_taken_over.seat)
        if event.HasField("chat_message") and event.chat_message.HasField("seat"):
            yield _apply(Chat(event.chat_message.seat))
    game = match.game
    closed = next((e.reaction_window_closed for e in upcoming[:64] if e.HasField("reaction_window_closed")), None)
    if closed is not None and closed.window_id in game.windows:
        ranked = [r.seat for r in closed.reactions if not r.late]
        yield from _rulings(match, closed.window_id, ranked)  # none ranked: ruled with no answer in time
        yield _close(closed.window_id)
    first = upcoming[0]
    kind = first.WhichOneof("payload")
    named = getattr(getattr(first, kind), "seat", None) if kind else None
    order = list(range(match.num_players))
    if isinstance(named, int) and named in order:
        order.remove(named)
        order.insert(0, named)
    for seat in order:
        for action in legal_actions(game, seat):
            yield _apply(action)
            if isinstance(action, Play) and not action.call_uno:
                yield _apply(Play(action.seat, action.cards, call_uno=True))


def _apply(action: Action) -> _Input:
    return lambda match: match.apply(action)


def _forfeit(seat: int) -> _Input:
    return lambda match: match.forfeit(seat)


def _close(window: int) -> _Input:
    return lambda match: match.close_window(window)


def _ruled(window: int, answers: tuple[Action, ...]) -> _Input:
    return lambda match: match.resolve_window(window, list(answers))


def _rulings(match: Match, window: int, ranked: list[int]) -> Iterator[_Input]:
    """The ruling of `window` with the ranked seats' answers in order: each seat's actions that answer
    that window (a reaction, a catch, a jump-in play), every combination."""
    options: list[list[Action]] = []
    for seat in ranked:
        answers = [a for a in legal_actions(match.game, seat) if _answers(a, window)]
        answers += [Play(a.seat, a.cards, call_uno=True) for a in answers if isinstance(a, Play) and not a.call_uno]
        if not answers:
            return
        options.append(answers)
    for combination in _product(options):
        yield _ruled(window, combination)


def _answers(action: Action, window: int) -> bool:
    if isinstance(action, React):
        return action.window == window
    return not isinstance(action, Chat)


def _product(options: list[list[Action]]) -> Iterator[tuple[Action, ...]]:
    if not options:
        yield ()
        return
    for head in options[0]:
        for rest in _product(options[1:]):
            yield (head, *rest)


