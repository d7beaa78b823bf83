"""`unonet verify --replay`: replay a verified public log through the rules engine (docs/fairness.md 8.3).

Once every round's seed is revealed, the public log determines the game: the decks are known (section
6.5), and every move shows in the events. This module plays the match again in the engine, from the
revealed decks, and finds for each step of the log the one input that produces exactly the events the
log holds next: a seat's legal action (a play, a draw, a pass, a colour, a call, a catch, a challenge,
a swap, a chat under a silence), a race ruled in the order the log publishes, a window closed, a
forfeit. The engine's events are rendered as the host renders them for a spectator (its commitment
record, `unonet.host.shuffles.RoundCards`, and `unonet.wire.convert`), so every draw, penalty, obligation,
score and total in the log is the engine's, or the replay stops at the first event that is not.

It needs the engine, so it lives on the server side (the client may not import it): `unonet verify`
runs the client's audit first and this only on a log that passed it.

What it takes from the log as given (the host's word, or checked elsewhere): who the first dealer is
(S2's draw uses the table's secret seed), the host's own events (timeouts, takeovers, connections, the
shuffle before each deal) and the race measurements (section 10.6 checks those).

A league-seeded table (TableSettings.league_seeded) has no shuffle to reveal, but whoever holds its
league seed (the league's results database does) can replay it the same way: `replay_league_log`
starts the engine's match from that seed as the host did (its dealer draw, deck, reshuffles and, with
league_seat_draws, the per-seat draw streams), and hands back the engine event behind each of the log's
events, so the league can show every hand (`unonet.league.hands`).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from unonet.engine import Game, Match, standard_deck
from unonet.engine import events as ev
from unonet.engine.actions import Action, Chat, Play, React
from unonet.engine.draws import SeatDraws
from unonet.engine.errors import UnoError
from unonet.engine.legal import legal_actions
from unonet.fairness import combine_seed
from unonet.host.shuffles import RoundCards
from unonet.v1 import cards_pb2, events_pb2, table_pb2
from unonet.wire import convert

__all__ = ["ReplayMismatch", "ReplayReport", "replay_league_log", "replay_log"]

HOST_KINDS = frozenset({
    "player_joined", "player_left", "bot_seated", "seat_connection_changed", "seat_taken_over", "match_started",
    "turn_timed_out", "chat_message", "chat_penalty", "shuffle_committed", "seat_entropy_committed",
    "seat_entropy_revealed", "shuffle_timed_out", "dealer_chosen", "snapshot", "bot_fallback", "round_held",
    "round_released",
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
        if window.HasField("card"):  # by its face: hosts before event format 2 sent no commitment with it,
            window.card.CopyFrom(cards_pb2.CardRef(card=window.card.card))  # which the Verifier checks
    elif kind == "reaction_window_closed":
        closed = out.reaction_window_closed
        out.reaction_window_closed.CopyFrom(events_pb2.ReactionWindowClosed(
            window_id=closed.window_id, kind=closed.kind, penalized_seats=closed.penalized_seats))
    elif kind == "hand_revealed":  # the host numbers the play: the Verifier checks it against the record,
        out.hand_revealed.ClearField("played_event_number")  # and league logs stored before had 0
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
    return _Replay(table_id, events).run()


def replay_league_log(
    table_id: str, events: Sequence[events_pb2.Event], league_seed: int
) -> tuple[ReplayReport, dict[int, ev.Event]]:
    """Replay the log of a league-seeded table from its league seed: the report, and for each of the
    log's game events (by number) the engine event that gives it. The caller checks the seed against
    the log's `league_seed_sha256`. Raises ReplayMismatch (also for a log that is not league-seeded)."""
    replay = _Replay(table_id, events, league_seed=league_seed)
    return replay.run(), replay.engine_events


@dataclass(frozen=True)
class _In:
    """One input: a seat's `action`, a `window` closed (or ruled with `answers`), a `forfeit`, a deal."""

    action: Action | None = None
    window: int | None = None
    answers: tuple[Action, ...] | None = None
    forfeit: int | None = None
    deal: bool = False

    def to_match(self, match: Match) -> list[ev.Event]:
        if self.action is not None:
            return match.apply(self.action)
        if self.forfeit is not None:
            return match.forfeit(self.forfeit)
        assert self.window is not None
        if self.answers is None:
            return match.close_window(self.window)
        return match.resolve_window(self.window, list(self.answers))

    def to_game(self, game: Game) -> list[ev.Event] | None:
        """The same input on a copy of the round alone (no scoring): None when only the match can say."""
        if self.action is not None:
            return game.apply(self.action)
        if self.forfeit is not None:
            return None
        assert self.window is not None
        if self.answers is None:
            return game.close_window(self.window)
        return game.resolve_window(self.window, list(self.answers))


CHECKPOINT_EVERY = 200
"""Inputs between two saved states: a step that must be undone is rebuilt from the last one."""

BACKTRACK_STEPS = 24
"""How many earlier steps the search may go back to try another input that gave the same events."""

MAX_RETRIES = 64
"""How often in one replay the search may go back at all: an honest log needs it rarely (an ambiguity
resolves within a few steps), a forged one would otherwise make it try every combination."""

_MATCH_KINDS = frozenset({"penalty_points", "player_eliminated", "round_ended", "match_ended", "deck_committed",
                          "shuffle_revealed"})
"""What the round alone does not render as the match does (totals, scoring) or at all (later piles)."""


class _Replay:
    """The search: each step's inputs are first tried on a cheap copy of the round (`Game.copy`), and
    the one whose events fit is applied to the match itself; a step that must be undone is rebuilt
    from the last checkpoint by applying the inputs again."""

    def __init__(self, table_id: str, events: Sequence[events_pb2.Event], league_seed: int | None = None) -> None:
        started = next((e.match_started for e in events if e.HasField("match_started")), None)
        first = next((e.round_started for e in events if e.HasField("round_started")), None)
        if started is None or first is None:
            raise ReplayMismatch("the log holds no MatchStarted and RoundStarted to replay from", number=0)
        if league_seed is not None and not started.settings.league_seeded:
            raise ReplayMismatch("the log's table is not league-seeded: it has no league seed", number=0)
        self.table_id = table_id
        self.ruleset = convert.ruleset_from_pb(started.settings.ruleset.preset, started.settings.ruleset)
        self.engine_events: dict[int, ev.Event] = {}  # a log event's number -> the engine event behind it
        if league_seed is None:
            # With the dealer and every deck given (the later piles through the record's shuffle hook), the
            # engine draws on no chance of its own: the generator is never used.
            match = Match(self.ruleset, started.settings.seat_count, random.Random(0), dealer=first.dealer_seat,
                          auto_deal=False)
            opening = match.start()
        else:  # as the host starts a league-seeded table: every chance from the league's seed
            draws = SeatDraws(league_seed) if started.settings.league_seat_draws else None
            match = Match(self.ruleset, started.settings.seat_count, random.Random(league_seed), draws=draws)
            opening = match.start()
        self.seeds = _round_seeds(events)
        self.contents = standard_deck(blank_cards=self.ruleset.blank_cards, sound_wilds=self.ruleset.sound_wilds,
                                      h2o_wilds=self.ruleset.h2o_wilds)
        self.expected = [e for e in events if _is_engine_event(e)]
        self.loose = [_loose(e) for e in self.expected]
        self.host_before: dict[int, list[events_pb2.Event]] = {}
        pending: list[events_pb2.Event] = []
        for event in events:
            if _is_engine_event(event):
                self.host_before[event.number] = pending
                pending = []
            else:
                pending.append(event)
        self.state = _State(match, None)
        self.at = 0
        if league_seed is not None:  # the engine dealt the first round itself: its events start the log
            self.at = _match_events(self.state, opening, self.expected, 0, self.engine_events)
        self.steps: list[_In] = []
        self.checkpoints: list[tuple[int, _State, int]] = [(0, copy.deepcopy(self.state), self.at)]

    def run(self) -> ReplayReport:
        frames: list[tuple[int, list[_In]]] = []  # a step with other inputs that fit, to go back to
        furthest, retries = 0, 0
        while self.at < len(self.expected):
            if self.state.match.is_over:
                raise ReplayMismatch("the engine's match is over, yet the log goes on",
                                     number=self.expected[self.at].number)
            options = [_In(deal=True)] if self.state.match.is_awaiting_deal else self._fitting()
            while not self._take(options):
                furthest = max(furthest, self.at)
                retries += 1
                if not frames or retries > MAX_RETRIES:
                    event = self.expected[furthest]
                    raise ReplayMismatch(
                        f"no input the rules allow gives event {event.number} ({event.WhichOneof('payload')}) as "
                        f"the log has it: {_brief(event)}", number=event.number)
                step, options = frames.pop()
                self._restore(step)
            if options:
                frames = [*frames[-BACKTRACK_STEPS:], (len(self.steps) - 1, options)]
        deals = sum(1 for step in self.steps if step.deal)  # a league's match deals by itself: none
        rounds = sum(1 for event in self.expected if event.HasField("round_started"))
        return ReplayReport(len(self.steps) - deals, rounds, len(self.expected))

    def _take(self, options: list[_In]) -> bool:
        """Apply the first of `options` whose events are the log's next ones (removing the ones tried)."""
        while options:
            step = options.pop(0)
            if self._apply(step):
                return True
            self._restore(len(self.steps))  # the failed input changed the state: back to before it
        return False

    def _apply(self, step: _In) -> bool:
        state = self.state
        try:
            if step.deal:
                round_no = state.match.round_no + 1
                if round_no not in self.seeds:
                    return False
                round_seed, host_seed = self.seeds[round_no]
                state.cards = RoundCards(self.table_id, round_no, round_seed, host_seed, self.contents)
                produced = state.match.deal(state.cards.deal_cards, shuffle=state.cards.shuffle)
            else:
                produced = step.to_match(state.match)
            if not produced:
                return False
            self.at = _match_events(state, produced, self.expected, self.at, self.engine_events)
        except (UnoError, ReplayMismatch):
            return False
        self.steps.append(step)
        if len(self.steps) % CHECKPOINT_EVERY == 0:
            self.checkpoints.append((len(self.steps), copy.deepcopy(self.state), self.at))
        return True

    def _restore(self, steps: int) -> None:
        """The state after the first `steps` inputs: the last checkpoint before, and the inputs since."""
        while self.checkpoints[-1][0] > steps:
            self.checkpoints.pop()
        done, saved, at = self.checkpoints[-1]
        self.state, self.at = copy.deepcopy(saved), at
        redo, self.steps = self.steps[done:steps], self.steps[:done]
        for step in redo:
            if not self._apply(step):
                raise AssertionError("an input that fitted once does not fit again")

    def _fitting(self) -> list[_In]:
        """The inputs whose events, on a copy of the round, fit the log's next ones (loosely: the faces
        alone, without commitments or match totals), the likeliest first."""
        out = []
        upcoming = self.expected[self.at:]
        match = self.state.match
        base = match.game.copy()
        for step in _candidates(base, match.num_players, upcoming, self.host_before.get(upcoming[0].number, [])):
            game = base.copy()
            if match.game.draws is not None:  # a league's per-seat draws: the copy must draw what the match would
                game.draws = copy.deepcopy(match.game.draws)
            try:
                produced = step.to_game(game)
            except UnoError:
                continue
            if produced is None or self._fits(produced):
                out.append(step)
        return out

    def _fits(self, produced: list[ev.Event]) -> bool:
        if not produced:
            return False
        at = self.at
        for event in produced:
            pb = convert.event_to_pb(event, None)
            if pb.WhichOneof("payload") in _MATCH_KINDS:
                continue
            while at < len(self.expected) and self.expected[at].WhichOneof("payload") in _MATCH_KINDS:
                at += 1
            if at >= len(self.expected) or _loose(pb) != self.loose[at]:
                return False
            if pb.HasField("pile_reshuffled"):
                return True  # what follows depends on the rebuilt pile's order, which the copy does not know
            at += 1
        return True


def _loose(event: events_pb2.Event) -> bytes:
    """`_normal` with every card reduced to its face: what a copy of the round renders without the
    commitment record."""
    out = events_pb2.Event()
    out.ParseFromString(_normal(event))
    kind = out.WhichOneof("payload")
    if kind is not None:
        _faces_only(getattr(out, kind))
    return out.SerializeToString(deterministic=True)


def _faces_only(message: Message) -> None:
    for descriptor, value in message.ListFields():
        if descriptor.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        if descriptor.message_type is cards_pb2.CardRef.DESCRIPTOR:
            refs = list(value) if descriptor.is_repeated else [value]
            for ref in refs:
                for name in ("commitment", "salt", "deck_number", "position"):
                    ref.ClearField(name)
            if descriptor.is_repeated:
                kept = [ref for ref in value if ref.HasField("card")]
                del value[:]
                value.extend(kept)
            elif not value.HasField("card"):
                message.ClearField(descriptor.name)
        elif descriptor.is_repeated:
            for element in value:
                _faces_only(element)
        else:
            _faces_only(value)


def _match_events(state: _State, produced: list[ev.Event], expected: Sequence[events_pb2.Event], at: int,
                  matched: dict[int, ev.Event]) -> int:
    """Render the engine's `produced` events as the host would, with the commitment record, and require
    they are the log's next ones (the dealer draw aside, which the log has as the host's word).
    Records in `matched` the engine event behind each. Returns the position after them."""
    for event in produced:
        rendered = _render(state, event, expected[at].number if at < len(expected) else 0)
        for pb in rendered:
            if pb.HasField("dealer_chosen"):  # a league's match draws its dealer; the log has it as given
                continue
            if at >= len(expected) or _normal(pb) != _normal(expected[at]):
                got = expected[at] if at < len(expected) else None
                raise ReplayMismatch(
                    f"the engine gives {pb.WhichOneof('payload')} {_brief(pb)}, the log "
                    f"{got.WhichOneof('payload') if got else 'nothing'} {_brief(got) if got else ''}",
                    number=got.number if got else 0)
            matched[expected[at].number] = event
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


def _candidates(game: Game, seats: int, upcoming: Sequence[events_pb2.Event],
                host: Sequence[events_pb2.Event]) -> Iterator[_In]:
    """The inputs that may come next, the likeliest first: what the host events before the next engine
    event announce (a forfeit, a chat), a race ruled as the log publishes it, a window closed, then every
    legal action of the seat the next event names, and of every other seat."""
    for event in host:
        if event.HasField("seat_taken_over") and event.seat_taken_over.policy == table_pb2.TAKEOVER_POLICY_FORFEIT:
            yield _In(forfeit=event.seat_taken_over.seat)
        if event.HasField("chat_message") and event.chat_message.HasField("seat"):
            yield _In(action=Chat(event.chat_message.seat))
    closed = next((e.reaction_window_closed for e in upcoming[:64] if e.HasField("reaction_window_closed")), None)
    if closed is not None and closed.window_id in game.windows:
        ranked = [r.seat for r in closed.reactions if not r.late]
        yield from _rulings(game, closed.window_id, ranked)  # none ranked: ruled with no answer in time
        yield _In(window=closed.window_id)
    first = upcoming[0]
    kind = first.WhichOneof("payload")
    named = getattr(getattr(first, kind), "seat", None) if kind else None
    order = list(range(seats))
    if isinstance(named, int) and named in order:
        order.remove(named)
        order.insert(0, named)
    for seat in order:
        for action in legal_actions(game, seat):
            yield _In(action=action)
            if isinstance(action, Play) and not action.call_uno:
                yield _In(action=Play(action.seat, action.cards, call_uno=True))


def _rulings(game: Game, window: int, ranked: list[int]) -> Iterator[_In]:
    """The ruling of `window` with the ranked seats' answers in order: each seat's actions that answer
    that window (a reaction, a catch, a jump-in play), every combination."""
    options: list[list[Action]] = []
    for seat in ranked:
        answers = [a for a in legal_actions(game, seat) if _answers(a, window)]
        answers += [Play(a.seat, a.cards, call_uno=True) for a in answers if isinstance(a, Play) and not a.call_uno]
        if not answers:
            return
        options.append(answers)
    for combination in _product(options):
        yield _In(window=window, answers=combination)


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


