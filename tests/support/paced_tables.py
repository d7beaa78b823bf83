"""A table with a person at seat 0 and host bots elsewhere, played in process on a clock the test moves,
for the pace tests (tests/host/test_pace.py): "a bot waited 1.3 s" or "the person caught it 100 ms
after the window opened" must mean exactly that.

The person plays as simply as a newcomer (a coloured card when one fits, else a wild, else a draw, else
a pass, red when a colour is due), calls UNO unless told to forget, and may answer every UNO catch race at a
chosen reaction time: a catch of a bot that forgot, or its own late call. Its answers go through the
race book as a client's would (`RaceBook.submit`, arriving when the clock says); its turns through
`Table.command`. The host's own driver step (`Host._step`) moves everything else, and the clock jumps to
whatever comes first: the driver's next deadline or the person's next answer.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from unonet.engine import CallUno, CatchUno, ChooseColor, Color, Draw, Pass, Play, WindowKind, legal_actions
from unonet.engine import events as ev
from unonet.host import journal
from unonet.host.host import Host
from unonet.host.pace import Pace
from unonet.host.racebook import Race
from unonet.host.store import MemoryStore, Store
from unonet.host.table import Table, TableSettings

PERSON = 0
TABLE_ID = "paced-table"


def table_with_person(seed: int, bot_kinds: list[str], pace: Pace, *, person: bool = True, turn_time_s: float = 0.0,
                      hold_s: float = 0.0, store: Store | None = None,
                      **overrides: Any) -> tuple[Host, Table, list[int]]:
    """A started table: seat 0 the person (or, without `person`, a bot of `bot_kinds[0]`'s kind), then
    one host bot of each of `bot_kinds`; no turn clock unless `turn_time_s` (the person is never timed
    out), a round start hold of `hold_s`."""
    clock = [1_700_000_000_000_000_000]
    store = store if store is not None else MemoryStore()
    settings = TableSettings(name="paced", seat_count=1 + len(bot_kinds), preset="standard", overrides=overrides,
                             manual_start=True, turn_time_s=turn_time_s, round_start_hold_s=hold_s)
    store.create_table(TABLE_ID, {"settings": dataclasses.asdict(settings), "owner_token": "owner", "seed": seed}, 0)
    host = Host(store, clock_ns=lambda: clock[0], pace=pace)
    table = Table(TABLE_ID, settings, owner_token="owner", seed=seed, created_ns=0, store=store,
                  clock_ns=lambda: clock[0])
    if person:
        table.record(journal.Join(PERSON, "ann", "tok-ann"))
    else:
        table.record(journal.SeatBot(PERSON, bot_kinds[0], "stand-in"))
    for seat, kind in enumerate(bot_kinds, start=1):
        table.record(journal.SeatBot(seat, kind, f"bot-{seat}"))
    table.record(journal.Start(version=2))
    return host, table, clock


def connect(table: Table, seat: int = PERSON) -> None:
    """The seat's event stream opens, as far as the table can tell (`Table.subscribe` counts it the same
    way), with no stream to feed: the table journals the seat connected."""
    table.seats[seat].connected += 1
    table.sync_connections()


@dataclass
class Person:
    """Seat 0's player: `calls_uno` with its second-to-last card or forgets; answers each UNO catch race
    it may answer `react_s` after the window opened (None: never); closes each round's scores
    `closes_scores_s` after the round ended (None: never)."""

    calls_uno: bool = True
    react_s: float | None = None
    closes_scores_s: float | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    commands: int = 0
    answered: set[int] = field(default_factory=set)
    closed: int = 0  # the last round whose scores it closed

    def next_answer_ns(self, table: Table) -> int | None:
        """When the person next does something of its own accord: answers a catch race it has not
        answered, or closes the scores (None: nothing to do)."""
        race = self._race(table)
        moments = [] if race is None or self.react_s is None else [race.opened_ns + int(self.react_s * 1e9)]
        scores = self._scores(table)
        if scores is not None:
            moments.append(scores[1])
        return min(moments, default=None)

    def sit_down(self) -> None:
        """At a new table: forget what was done at the last one (the scores closed, the races answered,
        the commands counted), or the person would think round 1's scores closed before they were."""
        self.closed, self.commands, self.answered = 0, 0, set()

    def act(self, table: Table, now: int) -> bool:
        """Close the scores or answer a catch race when its moment came, or take a turn that is due.
        True when it did something."""
        scores = self._scores(table)
        if scores is not None and now >= scores[1]:
            self.closed = scores[0]
            self.commands += 1
            table.close_scores(PERSON, f"scores-{self.commands}", scores[0])
            return True
        race = self._race(table)
        if race is not None and self.react_s is not None and now >= race.opened_ns + int(self.react_s * 1e9):
            self.answered.add(race.window_id)
            target = race.window.target
            action = CallUno(PERSON) if target == PERSON else CatchUno(PERSON, target)
            self.commands += 1
            waiting = table.races.submit(table, PERSON, f"race-{self.commands}", (action,), arrived_ns=now)
            assert waiting is not None and waiting.collected, "the person's answer was not collected"
            return True
        match = table.match
        if (match is None or match.is_over or table.shuffle is not None or table.holds.current is not None
                or table.races.holding() is not None or match.game.to_act != PERSON):
            return False
        options = legal_actions(match.game, PERSON)
        colour = next((a for a in options if isinstance(a, ChooseColor) and a.color is Color.RED), None)
        singles = [a for a in options if isinstance(a, Play) and len(a.cards) == 1]
        plays = [a for a in singles if a.cards[0].color is not Color.BLACK] or singles  # a wild when nothing else
        chosen: tuple[object, ...]
        if colour is not None:
            chosen = (colour,)
        elif plays:
            play = self.rng.choice(plays)
            leaves_one = len(match.game.hands[PERSON]) == 2
            chosen = (Play(PERSON, play.cards, call_uno=leaves_one and self.calls_uno),)
        else:
            fallback = next((a for a in options if isinstance(a, Draw | Pass)), None)
            if fallback is None:
                return False
            chosen = (fallback,)
        self.commands += 1
        table.command(PERSON, f"turn-{self.commands}", chosen)  # type: ignore[arg-type]
        return True

    def _scores(self, table: Table) -> tuple[int, int] | None:
        """The round whose scores the person will close next, and when (host clock)."""
        if self.closes_scores_s is None:
            return None
        ended = next((entry for entry in reversed(table.log) if isinstance(entry.event, ev.RoundEnded)), None)
        if ended is None or ended.event.round_no <= self.closed or table.match is None or table.match.is_over:
            return None
        return ended.event.round_no, ended.time_ns + int(self.closes_scores_s * 1e9)

    def _race(self, table: Table) -> Race | None:
        for race in table.races.races.values():
            window = race.window
            if (window.kind is WindowKind.UNO_CATCH and race.window_id not in self.answered
                    and PERSON in race.participants and not race.has_answered(PERSON)):
                return race
        return None


def drive_with_person(host: Host, table: Table, clock: list[int], person: Person,
                      until: Callable[[Table], bool] | None = None, *, max_steps: int = 100_000) -> None:
    """Run the person and the host's driver until `until(table)` (default: the match is over), jumping
    the clock to the driver's next deadline or the person's next answer, whichever is first."""
    done = until or (lambda t: t.match is not None and t.match.is_over)
    for _ in range(max_steps):
        if done(table):
            return
        if person.act(table, clock[0]):
            continue
        wait = host._step(table)
        if wait == 0:
            continue
        answer = person.next_answer_ns(table)
        due = [clock[0] + int(wait * 1e9) + 1] if wait is not None else []
        if answer is not None:
            due.append(max(answer, clock[0]))
        if not due:
            raise AssertionError("nothing is due, and the table is not done")
        clock[0] = min(due)
    raise AssertionError("the table never got there")
