"""Matches played in process at a host `Table`, every seat followed by its own `SeatTracker` and checked
after every input against the true game (`knowledge_checks`).

Each seat receives its events as the host renders them for it (`Table.render`, the bytes a stream
sends) and reads its GetView (`Table.view`); the seats' commands go the way PlayService sends them:
routed by the race book (`RaceBook.submit`: collected for a race, held behind one, or applied), then
`Table.command`. A seeded random policy picks among every seat's legal actions and, now and then, the
moves the rules punish (a wrong jump-in, an illegal play, a false UNO call or catch, chat in a silence),
so every event kind the tracker follows comes up. The host's clock is a fake one the driver jumps to
each deadline: reaction windows close, races are ruled, turns time out and fair shuffles go on without
the seats' entropy, at no wall-clock cost.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from knowledge_checks import POSITION_PHASES, check_position

from unonet.engine import (
    PLAYABLE_COLORS,
    Action,
    CallUno,
    CatchUno,
    Challenge,
    ChooseColor,
    Game,
    MalformedAction,
    Play,
    UnoError,
    legal_actions,
    standard_deck,
)
from unonet.host import journal
from unonet.host.errors import HostError
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import Table, TableSettings
from unonet.v1 import events_pb2, views_pb2
from unonet.wire.knowledge import SeatTracker

MATCH_INPUTS = 100_000  # a whole match ends long before
PRESETS = ("standard", "house", "serbian", "french", "russian", "polish")
# The house-rule sets played on top of each preset: none, the ones that move hidden cards, and every
# rule that changes what happens when (slaps, silences, jump-ins, runs, take-backs).
HOUSE_RULES: dict[str, dict[str, Any]] = {
    "plain": {},
    "swaps": {"stacking": True, "jump_in": True, "seven_o": True, "five_swap": True},
    "more": {
        "runs": True, "multi_play": True, "jump_in": True, "super_jump_in": True, "skip_escape": True,
        "silent_two": True, "uno_slap": True, "blank_cards": True, "h2o_wilds": True, "draw_to_match": True,
        "illegal_play_penalty": True, "deflecting": True, "stacking": True, "seven_o": True,
        "five_swap": True, "bluff_penalty": "take_back",
    },
}  # fmt: skip

# Events that change a seat's hand: an UNO call is for the hand it was made with (SeatState.called_uno).
_HAND_EVENTS = {
    "cards_played": ("seat",), "cards_drawn": ("seat",), "card_taken_back": ("seat",),
    "five_swap_offered": ("seat",), "cards_exchanged": ("seat", "target_seat"),
    "hands_swapped": ("seat", "target_seat"), "player_eliminated": ("seat",),
}  # fmt: skip


@dataclass
class Played:
    """What a checked match went through: positions read back, by phase, and the event kinds seen."""

    positions: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    inputs: int = 0
    rounds: int = 0


class CheckedMatch:
    """One match of `players` seats under `preset` plus `overrides`, checked after every input."""

    def __init__(self, preset: str, overrides: dict[str, Any], players: int, seed: int, *,
                 fair_shuffle: bool = False, deal: bool = True) -> None:
        self.clock = [1_700_000_000_000_000_000]
        store = MemoryStore()
        settings = TableSettings(name="k", seat_count=players, preset=preset, overrides=dict(overrides),
                                 manual_start=True, turn_time_s=30.0)
        store.create_table("knowledge", {"settings": dataclasses.asdict(settings), "owner_token": "owner",
                                         "seed": seed}, 0)
        self.host = Host(store, clock_ns=lambda: self.clock[0], fair_shuffle=fair_shuffle)
        self.table = Table("knowledge", settings, owner_token="owner", seed=seed, created_ns=0, store=store,
                           clock_ns=lambda: self.clock[0], fair_shuffle=fair_shuffle)
        self.tokens = [self.table.join(f"p{seat}", seat, False)[0] for seat in range(players)]
        self.trackers = [SeatTracker(seat) for seat in range(players)]
        self.seen = [0] * players
        self.called: set[int] = set()  # the seats whose UNO call (an UnoCalled event) stands, from the events
        self.rng = random.Random(seed)
        self.deal = deal
        self.played = Played()
        self.trail: list[str] = []  # the latest events as seat 0 received them, for a failure's report

    # ------------------------------------------------------------------------------------ driving

    def play(self, max_inputs: int | None = 3000) -> Played:
        """Play until the match ends or `max_inputs` inputs were applied (None: to the match's end),
        checking after each."""
        self.table.record(journal.Start())
        self.follow()
        limit = MATCH_INPUTS if max_inputs is None else max_inputs
        while self.table.match is not None and not self.table.match.is_over and self.played.inputs < limit:
            self.played.inputs += 1
            if not self.act():
                self.wait()
            self.follow()
        assert max_inputs is not None or self.table.match is None or self.table.match.is_over, "no end"
        return self.played

    def act(self) -> bool:
        """One seat's command, if one was applied or collected; False when the table waits for time."""
        match = self.table.match
        assert match is not None
        if self.table.shuffle is not None or not match.round_no or self.rng.random() < 0.08:
            return False
        game = match.game
        options = [(seat, (action,)) for seat in range(len(self.trackers)) if game.in_play[seat]
                   for action in legal_actions(game, seat)]
        options += self.mischief(game)
        self.rng.shuffle(options)
        # Most Wild Draw Fours are challenged, as at a table of ChallengingBots: each ruling is an event
        # the tracker must follow (a reveal, a take-back, an exclusion).
        options.sort(key=lambda option: not (isinstance(option[1][0], Challenge) and self.rng.random() < 0.8))
        return any(self.send(seat, actions) for seat, actions in options[:4])

    def mischief(self, game: Game) -> list[tuple[int, tuple[Action, ...]]]:
        """Moves the rules may refuse or punish: a random card played in or out of turn (a wrong
        jump-in, H7, or an illegal play, H15), a false UNO call or catch (U3), chat (H14)."""
        out: list[tuple[int, tuple[Action, ...]]] = []
        if self.rng.random() > 0.1:
            return out
        seat = self.rng.randrange(len(self.trackers))
        hand = game.hands[seat]
        if hand:
            card = self.rng.choice(hand)
            play: tuple[Action, ...] = (Play(seat, (card,)),)
            if card.is_black:
                play += (ChooseColor(seat, self.rng.choice(PLAYABLE_COLORS)),)
            out.append((seat, play))
        out.append((seat, (CallUno(seat),)))
        out.append((seat, (CatchUno(seat, self.rng.randrange(len(self.trackers))),)))
        return out

    def send(self, seat: int, actions: tuple[Action, ...]) -> bool:
        """As PlayService routes a command (`RaceBook.submit`, then `Table.command`); a refusal changes
        nothing, and is no failure: the policy tried what the rules refuse."""
        table = self.table
        command_id = f"c{table.last_number}-{self.played.inputs}"
        try:
            if self.rng.random() < 0.02 and table.ruleset.silent_two:
                table.chat(self.tokens[seat], command_id, "hush")
                return True
            waiting = table.races.submit(table, seat, command_id, actions, arrived_ns=self.clock[0])
            if waiting is None:
                table.command(seat, command_id, actions)
                return True
            return waiting.collected
        except (UnoError, HostError):
            return False

    def wait(self) -> None:
        """Let the host's driver do what is due, jumping the clock to the next deadline."""
        for _ in range(50):
            wait = self.host._step(self.table)
            if wait is None:
                return
            if wait > 0:
                self.clock[0] += int(wait * 1e9) + 1
                continue
            return

    # ----------------------------------------------------------------------------------- checking

    def follow(self) -> None:
        """Each seat receives its new events, then reads its view: both must agree with the true game."""
        table = self.table
        for seat, tracker in enumerate(self.trackers):
            for event in table.events.rendered_since(self.seen[seat], seat):
                tracker.observe(event)
                if seat == 0:
                    self.note(event)
            self.seen[seat] = table.last_number
            self.check(seat, tracker, table.view(seat))

    def note(self, event: events_pb2.Event) -> None:
        """The public facts seat 0's copy of `event` tells: which UNO calls stand."""
        kind = event.WhichOneof("payload")
        self.played.events[str(kind)] += 1
        self.trail = [*self.trail[-40:], f"{event.number} {kind}"]
        if kind == "round_started":
            self.called.clear()
            self.played.rounds += 1
        elif kind == "uno_called":
            self.called.add(event.uno_called.seat)
        elif kind == "hands_rotated":
            self.called.clear()
        elif kind == "cards_drawn" and not event.cards_drawn.count:
            pass  # nothing was left to draw
        elif kind in _HAND_EVENTS:
            msg = getattr(event, kind)
            self.called.difference_update(getattr(msg, name) for name in _HAND_EVENTS[kind])

    def check(self, seat: int, tracker: SeatTracker, view: views_pb2.SeatView) -> None:
        match = self.table.match
        assert match is not None
        if match.round_no and seat == 0:
            ruleset = self.table.ruleset
            deck = standard_deck(blank_cards=ruleset.blank_cards, sound_wilds=ruleset.sound_wilds,
                                 h2o_wilds=ruleset.h2o_wilds)
            in_play = Counter(match.game.cards_in_play())
            assert in_play == Counter(deck), (
                f"cards in play are not the deck: {in_play - Counter(deck)} more, {Counter(deck) - in_play} fewer\n"
                + self.report())
        said = {state.seat for state in view.seats if state.called_uno}
        assert said == {s for s in self.called if view.seats[s].hand_size == 1}, (
            f"GetView says {sorted(said)} called UNO, the events {sorted(self.called)}\n" + self.report())
        if view.phase not in POSITION_PHASES:
            if tracker.has_round:
                try:
                    tracker.position(view)
                except MalformedAction:
                    return
                raise AssertionError(f"a position was read in phase {view.phase}")
            return
        try:
            check_position(tracker, view, match.game, deal=self.deal)
        except (AssertionError, MalformedAction) as error:
            raise AssertionError(f"seat {seat} at event {view.event_number}: {error!r}\n{self.report()}") from error
        self.played.positions[views_pb2.Phase.Name(view.phase)] += 1

    def report(self) -> str:
        game = self.table.match.game if self.table.match is not None else None
        hands = None if game is None else game.hands
        return "\n".join(self.trail) + f"\ntrue hands {hands}"


def configurations() -> Iterator[tuple[str, str, int]]:
    """Every preset with every house-rule set, 2 to 6 players: (preset, house rules, players)."""
    for preset in PRESETS:
        for rules in HOUSE_RULES:
            for players in range(2, 7):
                yield preset, rules, players
