"""Every event a table emits is a function of its journal alone: random tables replay to what was sent.

Hypothesis plays a table in process (a fake clock, the host's own driver step, `Host._step`, for what
falls due) through a random sequence of what the world does to a table: joins, host bots, spectators
coming and going, seats' streams opening and closing, pings with any latency, chat from seats and
spectators, StartTable or the automatic start, the seats' commands (legal ones and ones the rules
punish or refuse), shuffle entropy committed and revealed or left to time out, the clock jumping to
deadlines (turn timeouts, race rulings, shuffle timeouts), answers to windows already ruled, seats
leaving mid-match, and the entries only older hosts or a restore write (a plain window close, lost
events, a diverged range). Then a second host restores the table from the store alone, and every
event, as a spectator and as each seat renders it, must be byte for byte the one the first table sent.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unonet.engine import Action, ChooseColor, Play, React, UnoError, legal_actions
from unonet.engine.cards import PLAYABLE_COLORS
from unonet.fairness.shuffle import commit_seat_entropy
from unonet.host import journal, shuffles
from unonet.host.errors import HostError
from unonet.host.fanout import Subscriber
from unonet.host.host import Host
from unonet.host.store import MemoryStore
from unonet.host.table import EVENT_FORMAT, Table, TableSettings

TABLE_ID = "replayed"
RULES = [
    ("standard", {}),
    ("standard", {"jump_in": True, "seven_o": True}),
    ("house", {}),
    ("serbian", {}),
]
SEATING = ["player", "streaming player", "streaming player", "bot", "empty"]  # how each seat is taken
OPERATIONS = [
    "join", "bot", "spectate", "unspectate", "leave", "stream", "unstream", "ping", "ping", "chat",
    "spectator_chat", "start", "act", "act", "act", "act", "act", "act", "entropy", "entropy", "entropy",
    "tick", "due", "due", "due", "late", "close", "lost", "diverged",
]


@dataclass
class World:
    """A table and everything outside its journal that acts on it."""

    host: Host
    table: Table
    clock: list[int]
    rng: random.Random
    tokens: dict[int, str] = field(default_factory=dict)
    spectators: list[str] = field(default_factory=list)
    streams: dict[int, list[Subscriber]] = field(default_factory=dict)
    pings: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat: (sequence, host send time)
    entropy: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (round, seat): value
    commands: int = 0

    def cid(self) -> str:
        self.commands += 1
        return f"c{self.commands}"

    @property
    def started(self) -> bool:
        return self.table.match is not None

    @property
    def over(self) -> bool:
        return self.table.match is not None and self.table.match.is_over

    def seat(self, seating: list[str]) -> None:
        """Take the seats in order before the start (the last one taken starts a table that starts by
        itself): a player, a player whose stream is open and who pings, a host bot, or nobody."""
        for seat, how in enumerate(seating):
            if how == "bot":
                self.do("bot", 0)
            elif how != "empty":
                self.do("join", seat)
                if how == "streaming player" and seat in self.tokens:
                    self.streams.setdefault(seat, []).append(self.table.subscribe(seat))
                    for _ in range(3):
                        self.do("ping", sorted(self.tokens).index(seat))
                        self.clock[0] += self.rng.randrange(1_000_000, 900_000_000)

    def do(self, operation: str, pick: int) -> None:
        """One thing the world does; a refusal (HostError, UnoError) changes nothing and is no failure."""
        with contextlib.suppress(HostError, UnoError):
            getattr(self, f"_{operation}")(pick)

    # ------------------------------------------------------------------------------------ seats

    def _join(self, pick: int) -> None:
        token, seat = self.table.join(f"p{pick}", None, False)
        assert seat is not None
        self.tokens[seat] = token

    def _bot(self, pick: int) -> None:
        empty = [seat.index for seat in self.table.seats if not seat.is_occupied]
        if empty and not self.started:
            seat = empty[pick % len(empty)]
            self.table.record(journal.SeatBot(seat, ("random", "greedy")[pick % 2], f"bot-{seat}"))

    def _leave(self, pick: int) -> None:
        players = [seat for seat in self.tokens if not self.table.seats[seat].taken_over
                   and self.table.seats[seat].token == self.tokens[seat]]
        if players and not self.over and pick % 3 == 0:
            seat = players[pick % len(players)]
            self.table.record(journal.Leave(seat))
            if not self.started:
                del self.tokens[seat]

    def _spectate(self, pick: int) -> None:
        self.spectators.append(self.table.join(f"s{pick}", None, True)[0])

    def _unspectate(self, pick: int) -> None:
        if self.spectators:
            self.table.leave_spectator(self.spectators.pop(pick % len(self.spectators)))

    # ------------------------------------------------------------------------------------ the outside

    def _stream(self, pick: int) -> None:
        if self.tokens:
            seat = sorted(self.tokens)[pick % len(self.tokens)]
            self.streams.setdefault(seat, []).append(self.table.subscribe(seat))

    def _unstream(self, pick: int) -> None:
        open_ = [(seat, sub) for seat, subs in self.streams.items() for sub in subs]
        if open_:
            seat, subscriber = open_[pick % len(open_)]
            self.streams[seat].remove(subscriber)
            self.table.unsubscribe(subscriber)
            if pick % 2:
                self.table.sync_connections()  # else the driver's next step announces it

    def _ping(self, pick: int) -> None:
        """A seat's ping, reporting its previous one's arrival after a latency of up to 0.4 s."""
        if not self.tokens:
            return
        seat = sorted(self.tokens)[pick % len(self.tokens)]
        sequence, _ = self.pings.get(seat, (0, 0))
        now = self.clock[0]
        previous = None
        if sequence:
            previous = (sequence, self.pings[seat][1] + self.rng.randrange(1_000_000, 400_000_000))
        self.pings[seat] = (sequence + 1, now + 50_000)
        self.table.races.ping(seat, sequence + 1, now - self.rng.randrange(0, 200_000_000), now, now + 50_000,
                              previous)

    def _chat(self, pick: int) -> None:
        if self.tokens:
            seat = sorted(self.tokens)[pick % len(self.tokens)]
            self.table.chat(self.tokens[seat], self.cid() if pick % 2 else "", f"line {pick}")

    def _spectator_chat(self, pick: int) -> None:
        if self.spectators:
            self.table.chat(self.spectators[pick % len(self.spectators)], self.cid(), f"watching {pick}")

    def _tick(self, pick: int) -> None:
        self.clock[0] += self.rng.randrange(0, 3_000_000_000)

    # ------------------------------------------------------------------------------------ play

    def _start(self, pick: int) -> None:
        self.table.record(journal.Start(fill=True, bot_kind="random", version=1 + pick % 2))

    def _due(self, pick: int) -> None:
        """The driver's steps until it waits, then the clock to the next deadline (or the bots' move)."""
        for _ in range(40):
            wait = self.host._step(self.table)
            if wait is None:
                return
            if wait > 0:
                self.clock[0] += int(wait * 1e9) + 1
                if pick % 2:
                    return

    def _act(self, pick: int) -> None:
        """A seat's command, sent as PlayService routes it: mostly legal, sometimes a card the rules refuse
        or punish (a wrong jump-in, an illegal play)."""
        match = self.table.match
        if match is None or match.is_over or not match.round_no or self.table.shuffle is not None:
            return
        game = match.game
        seats = [seat for seat in self.tokens if game.in_play[seat] and not self.table.seats[seat].is_bot]
        if not seats:
            return
        seat = seats[pick % len(seats)]
        options: list[tuple[Action, ...]] = [(action,) for action in legal_actions(game, seat)]
        if game.hands[seat] and pick % 7 == 0:
            card = self.rng.choice(game.hands[seat])
            options.append((Play(seat, (card,)),) + ((ChooseColor(seat, PLAYABLE_COLORS[0]),) if card.is_black else ()))
        if not options:
            return
        actions = options[pick % len(options)]
        cid = self.cid()
        waiting = self.table.races.submit(self.table, seat, cid, actions, arrived_ns=self.clock[0])
        if waiting is None:
            self.table.command(seat, cid, actions)

    def _late(self, pick: int) -> None:
        """An answer naming a window the host has already ruled or closed (RACE_LOST or refused)."""
        match = self.table.match
        if match is None or match.is_over or not match.round_no or not self.tokens:
            return
        window = pick % max(1, match.game.next_window_id)
        seat = sorted(self.tokens)[pick % len(self.tokens)]
        cid = self.cid()
        if self.table.races.submit(self.table, seat, cid, (React(seat, window),), arrived_ns=self.clock[0]) is None:
            self.table.command(seat, cid, (React(seat, window),))

    def _entropy(self, pick: int) -> None:
        """A seat asked for shuffle entropy commits, then reveals (or, one time in four, never does)."""
        shuffle = self.table.shuffle
        if shuffle is None or pick % 4 == 0:
            return
        waiting = shuffle.waiting_for()
        seats = [seat for seat in waiting if seat in self.tokens]
        if not seats:
            return
        seat = seats[pick % len(seats)]
        key = (shuffle.round_no, seat)
        if shuffle.phase == "commit":
            value = self.entropy[key] = self.rng.randbytes(32)
            commitment = commit_seat_entropy(seat, value, table_id=TABLE_ID, round_no=shuffle.round_no)
            self.table.entropy(seat, self.cid(), commitment=commitment)
        elif key in self.entropy:
            self.table.entropy(seat, self.cid(), value=self.entropy[key])

    # ------------------------------------------------------------------------------------ older entries

    def _close(self, pick: int) -> None:
        """A window closed with no ruling, as hosts before the race book journalled it."""
        if self.started and not self.over and self.table.window_deadlines:
            self.table.record(journal.Close(min(self.table.window_deadlines)))

    def _lost(self, pick: int) -> None:
        """Numbers a restore found lost (what `Host._mark_lost` journals)."""
        if pick % 5 == 0:
            last = self.table.last_number
            self.table.record(journal.Lost(last + 1, last + 1 + pick % 3))

    def _diverged(self, pick: int) -> None:
        """A range a restore found diverged (what `Host._check_head` journals): no event."""
        if pick % 5 == 0 and self.table.last_number:
            self.table.record(journal.Diverged(1, 1 + pick % self.table.last_number))


def _sent(table: Table) -> dict[int | None, list[bytes]]:
    """Every event as each receiver renders it (the older ones read back from the store)."""
    return {viewer: [event.SerializeToString() for event in table.events.rendered_since(0, viewer)]
            for viewer in (None, *range(len(table.seats)))}


@settings(max_examples=50, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULES), seats=st.integers(2, 4), manual_start=st.booleans(),
       spectator_delay=st.sampled_from([0.0, 2.0]), seed=st.integers(0, 2**16),
       seating=st.lists(st.sampled_from(SEATING), min_size=4, max_size=4),
       operations=st.lists(st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 1000)), min_size=40, max_size=240))
def test_a_table_replays_from_its_journal_to_every_rendering_it_sent(
        rules: tuple[str, dict], seats: int, manual_start: bool, spectator_delay: float, seed: int,
        seating: list[str], operations: list[tuple[str, int]]) -> None:
    preset, overrides = rules
    clock = [1_700_000_000_000_000_000]
    store = MemoryStore()
    settings_ = TableSettings(name="t", seat_count=seats, preset=preset, overrides={"target_score": 60, **overrides},
                              turn_time_s=5.0, time_bank_s=3.0, manual_start=manual_start,
                              spectator_delay_s=spectator_delay, reaction_time_s=1.0)
    store.create_table(TABLE_ID, {"settings": dataclasses.asdict(settings_), "owner_token": "owner", "seed": seed,
                                  "window_ids": "table", "event_format": EVENT_FORMAT}, clock[0])
    host = Host(store, clock_ns=lambda: clock[0])
    with pytest.MonkeyPatch.context() as patch:  # the host's shuffle secrets, seeded: each example repeats
        patch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=random.Random(seed).randbytes))
        table = Table(TABLE_ID, settings_, owner_token="owner", seed=seed, created_ns=clock[0], store=store,
                      clock_ns=lambda: clock[0])
        world = World(host, table, clock, random.Random(seed))
        world.seat(seating[:seats])
        for operation, pick in operations:
            world.do(operation, pick)
    sent = _sent(table)

    clock[0] += 3_600_000_000_000  # the restart comes an hour later: nothing may read today's clock
    restored = Host(store, clock_ns=lambda: clock[0])
    restored.restore()
    again = restored.table(TABLE_ID)
    assert again is not table
    assert again.last_number == table.last_number
    replayed = _sent(again)
    for viewer, events in sent.items():
        assert replayed[viewer] == events, f"as {'a spectator' if viewer is None else f'seat {viewer}'}"
