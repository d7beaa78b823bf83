"""Host bots at a table with a person take a person's time, and a table of bots only never waits.

Everything is timed on the host's clock, which only the test moves (paced_tables.py): the gaps between
events are the delays the host scheduled, to the nanosecond, never a sleep.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
from typing import Any

import pytest
from paced_tables import PERSON, Person, drive_with_person, table_with_person

from unonet.bots.cli import build_parser
from unonet.bots.kinds import level_of
from unonet.bots.levels import LEVELS, REACTION_BOUNDS, TOP_LEVEL, reaction_seconds
from unonet.engine import events as ev
from unonet.host import journal
from unonet.host.bot_workers import WorkerSpec, default_command
from unonet.host.host import Host
from unonet.host.pace import INSTANT, Pace
from unonet.host.pace import reaction_seconds as race_reaction
from unonet.host.table import Table
from unonet.v1 import events_pb2, views_pb2

HUMAN = Pace.from_bot_delay(1.0)


def bot_move_gaps(table: Table, seat: int) -> list[float]:
    """Seconds from each TurnStarted of `seat` to that seat's own move (a play or a draw) right after."""
    gaps = []
    for before, after in zip(table.log, table.log[1:], strict=False):
        started, moved = before.event, after.event
        if (isinstance(started, ev.TurnStarted) and started.seat == seat
                and isinstance(moved, ev.Played | ev.Drew) and moved.seat == seat):
            gaps.append((after.time_ns - before.time_ns) / 1e9)
    return gaps


def test_with_a_person_each_bots_turn_waits_the_pace_plus_its_levels_pause() -> None:
    # To 500 points: the deal comes from the fair shuffle's fresh entropy, and a match to 150 once gave a
    # bot only 5 turns.
    host, table, clock = table_with_person(3, ["greedy:3", "greedy:1"], HUMAN, target_score=500)
    drive_with_person(host, table, clock, Person())
    top, low = bot_move_gaps(table, 1), bot_move_gaps(table, 2)
    assert len(top) > 5 and len(low) > 5
    # The top level has no pause of its own: exactly the pace's second (plus the nanosecond the test's
    # clock jumps past each deadline).
    assert all(1.0 <= gap <= 1.0 + 1e-6 for gap in top), top
    # Level 1 thinks 0.5 to 1.5 times its 1.2 s on top of it.
    think = LEVELS[1].think_s
    assert all(1.0 + 0.5 * think <= gap <= 1.0 + 1.5 * think + 1e-6 for gap in low), low
    assert statistics.pstdev(low) > 0.1  # varied, not mechanical


@pytest.mark.parametrize("kind", ["greedy:1", "greedy:3", "basic:2", "random"])
def test_a_table_of_bots_only_never_waits_at_a_paced_host(kind: str) -> None:
    host, table, clock = table_with_person(3, [kind, kind], HUMAN, person=False, target_score=60)
    drive_with_person(host, table, clock, Person())
    gaps = bot_move_gaps(table, 1) + bot_move_gaps(table, 2) + bot_move_gaps(table, PERSON)
    assert len(gaps) > 5 and set(gaps) == {0.0}


def test_an_instant_host_never_waits_even_with_a_person() -> None:
    host, table, clock = table_with_person(3, ["greedy:1", "greedy:1"], INSTANT, target_score=60)
    drive_with_person(host, table, clock, Person())
    assert set(bot_move_gaps(table, 1) + bot_move_gaps(table, 2)) == {0.0}


def test_when_the_person_leaves_the_bots_play_the_rest_at_once() -> None:
    host, table, clock = table_with_person(5, ["greedy:3", "greedy:3"], HUMAN, target_score=100)
    person = Person()
    drive_with_person(host, table, clock, person, until=lambda t: len(bot_move_gaps(t, 1)) >= 3)
    assert min(bot_move_gaps(table, 1)) >= 1.0
    left_at = table.last_number
    table.record(journal.Leave(PERSON))  # taken over by a bot: nobody at the table is a person now
    drive_with_person(host, table, clock, person)
    after = [entry for entry in table.log if entry.number > left_at]
    assert after and after[-1].time_ns == after[0].time_ns  # the whole rest of the match in no time


# ------------------------------------------------------------------------------------- reaction times


def test_each_levels_reaction_times_follow_its_documented_distribution() -> None:
    rng = random.Random(1)
    medians = {}
    for number, level in LEVELS.items():
        draws = [reaction_seconds(level, rng) for _ in range(4000)]
        medians[number] = statistics.median(draws)
        assert abs(medians[number] - level.reaction_s) < 0.05 * level.reaction_s
        low, high = REACTION_BOUNDS
        assert low * level.reaction_s <= min(draws) and max(draws) <= high * level.reaction_s
        assert statistics.pstdev(draws) > 0.1 * level.reaction_s  # a spread, as people's
    assert 0.2 < medians[TOP_LEVEL] < 0.5  # a few hundred ms at the top
    assert medians[3] < medians[2] < medians[1]  # slower below


def test_a_bots_reaction_is_drawn_once_per_race_and_by_its_level() -> None:
    first = race_reaction(42, 1, 7, "greedy:2")
    assert race_reaction(42, 1, 7, "greedy:2") == first  # asked again (decided again): the same draw
    assert len({race_reaction(42, 1, window, "greedy:2") for window in range(1, 40)}) > 30
    assert level_of("greedy:2") is LEVELS[2] and level_of("random") is LEVELS[TOP_LEVEL]
    assert level_of("no-such-kind") is LEVELS[TOP_LEVEL]  # a restored journal's kind that is gone
    slow = statistics.median(race_reaction(42, 1, w, "strong:1") for w in range(400))
    fast = statistics.median(race_reaction(42, 1, w, "strong") for w in range(400))
    assert fast < slow


def payload(entry: Any, kind: str) -> Any:
    """The protocol payload `kind` of a log entry the host logged in protocol form (windows), or None."""
    event = entry.event
    return getattr(event, kind) if isinstance(event, events_pb2.Event) and event.WhichOneof("payload") == kind else None


def public(table: Table, kind: str) -> list[Any]:
    """Every `kind` payload of the table's whole public stream (the store keeps what memory let go)."""
    events = table.events.rendered_since(0, None)
    return [getattr(event, kind) for event in events if event.WhichOneof("payload") == kind]


def catch_windows(table: Table) -> list[Any]:
    """The UNO catch windows opened (ReactionWindow), with their subject (the seat that may be caught)."""
    return [opened.window for opened in public(table, "reaction_window_opened")
            if opened.window.kind == views_pb2.REACTION_WINDOW_KIND_UNO_CATCH]


def first_catch_race(person: Person) -> Table:
    """A two-seat table (the person and greedy:3, which catches every time) played until the person's
    first missing UNO has been ruled (a match the bot wins before that is dealt again, a few at most)."""

    def ruled(t: Table) -> bool:  # the person answered a race and it is over, or the match is
        over = t.match is not None and t.match.is_over
        return over or (bool(person.answered) and not any(w in t.races.races for w in person.answered))

    for seed in range(20):
        host, table, clock = table_with_person(seed, ["greedy:3"], HUMAN, target_score=500)
        drive_with_person(host, table, clock, person, until=ruled)
        if person.answered:
            return table
    raise AssertionError("in 20 matches the person never came down to one card")


@pytest.mark.parametrize(("react_s", "wins"), [(0.15, True), (0.85, False)])
def test_a_person_who_forgot_uno_beats_the_bot_by_reacting_faster_and_loses_by_reacting_slower(
        react_s: float, wins: bool) -> None:
    """The top level reacts in 0.2 to 0.8 s (its median 0.4 within REACTION_BOUNDS): a person's late
    call at 0.15 s beats its catch, one at 0.85 s comes after it."""
    person = Person(calls_uno=False, react_s=react_s)
    table = first_catch_race(person)
    (window,) = person.answered
    (opened,) = [w for w in catch_windows(table) if w.id == window]
    (closed,) = [c for c in (payload(e, "reaction_window_closed") for e in table.log) if c and c.window_id == window]
    reactions = {r.seat: r for r in closed.reactions}
    # The bot's catch arrived its reaction time after the window opened, exactly as drawn; the ruling
    # measured both reactions as they were.
    drawn = race_reaction(table.seed, 1, window, "greedy:3")
    # (to the microsecond: the test's clock jumps a nanosecond past each deadline)
    assert abs(reactions[1].receive_time.ToNanoseconds() - opened.open_time.ToNanoseconds() - drawn * 1e9) < 1e3
    assert abs(reactions[1].reaction_time.ToNanoseconds() / 1e9 - drawn) < 1e-6
    assert abs(reactions[PERSON].reaction_time.ToNanoseconds() / 1e9 - react_s) < 1e-6
    caught = [e.event for e in table.log if isinstance(e.event, ev.UnoCaught) and e.event.target == PERSON]
    called = [e.event for e in table.log if isinstance(e.event, ev.UnoCalled) and e.event.seat == PERSON]
    assert (bool(called), bool(caught)) == (wins, not wins)


@pytest.mark.parametrize(("kind", "forgets"), [("greedy:1", True), ("greedy:3", False)])
def test_below_the_top_level_bots_forget_uno_now_and_then_and_a_person_catches_them(kind: str, forgets: bool) -> None:
    exposed: list[Any] = []
    caught: list[Any] = []
    for seed in range(5):  # a match or two holds a forgotten call at level 1 (half its calls)
        host, table, clock = table_with_person(seed, [kind, kind], HUMAN, target_score=200)
        drive_with_person(host, table, clock, Person(react_s=0.1))  # the person catches at 100 ms
        exposed += [w for w in catch_windows(table) if w.subject_seat != PERSON]
        caught += [event for event in public(table, "uno_caught") if event.target_seat != PERSON]
        if exposed or (not forgets and seed == 1):
            break
    if forgets:
        # Every bot that forgot was caught, by the person, first (the bots react in 0.5 s at the least).
        assert exposed and len(caught) == len(exposed) and all(event.catcher_seat == PERSON for event in caught)
    else:
        assert not exposed and not caught  # the top level never forgets


def test_a_paced_hosts_worker_processes_time_themselves_by_its_pace() -> None:
    spec = WorkerSpec("127.0.0.1:1", "t", 1, "strong:2", "token", human_pace=1.0)
    assert default_command(spec)[-2:] == ["--human-pace", "1"]
    assert "--human-pace" not in default_command(dataclasses.replace(spec, human_pace=None))
    assert Host(pace=HUMAN).workers.human_pace == 1.0
    assert Host().workers.human_pace is None  # an instant host: its workers never wait


@pytest.mark.parametrize("human_pace", [None, 1.0], ids=["instant-host", "paced-host"])
def test_a_workers_command_line_gives_its_runner_the_hosts_pace_and_no_pause_of_its_own_on_an_instant_host(
        human_pace: float | None) -> None:
    """The worker's own parser reads its command line: on an instant host the level's human-like pause
    (0.6-1.8 s a turn at strong:1) is off, so a table of bots never waits for it; on a paced host the
    host's pace times it (with bots only, no wait either: test_bot_workers)."""
    spec = WorkerSpec("127.0.0.1:1", "t", 1, "strong:1", "token", human_pace=human_pace)
    command = default_command(spec)
    assert command[1:3] == ["-m", "unonet.bots"]
    args = build_parser().parse_args(command[3:])
    assert args.human_pace == human_pace
    assert args.no_pauses is (human_pace is None)
    assert args.reaction_delay == 0
