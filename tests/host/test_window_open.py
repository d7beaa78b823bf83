"""errors.proto: this host never sends WINDOW_OPEN. A command a blocking window would refuse waits for
the window's ruling, then applies (racebook.py, `RaceBook.submit`).

The way it once slipped out: a card that opens a blocking window also opens a non-blocking one (a Sound
Wild, H12, opens the jump-in window, H6, as every card played does). A jump-in naming the non-blocking
window was routed as an answer to that race and checked on arrival, where the engine refused it
WINDOW_OPEN because the Sound Wild window was still open. It must wait for the Sound Wild ruling like
any other command that window holds up, then be judged as a jump-in.

The same holds wherever an UNO slap window (U5) blocks play while a jump-in window (or a Skip's escape
window, H8) is open: a play that calls UNO opens both at once, and a late UNO call opens the slap window
after the jump-in window was sent, so a jump-in sent on it arrives blocked (the timing-dependent case).
The race book's routing is checked on set positions (`RaceBook.submit` on a stand-in table), and the
whole path over real gRPC on 127.0.0.1:0 with the host's injectable clock, moved only by the test;
every await has a timeout, nothing sleeps.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from race_rig import MS, T0, Rig, deal_until, start_rig, stop_rig

from unonet.engine import CallUno, Card, Color, Game, IllegalAction, Play, Rank, WindowKind, find_ruleset, legal_actions
from unonet.host import journal
from unonet.host.racebook import Race, RaceBook
from unonet.host.shuffles import RoundCards
from unonet.host.table import Table
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    play_service_pb2,
)
from unonet.wire import convert

TIMEOUT = 60  # every wait ends on its condition (the clock is the test's); only a hang uses it up
SEATS = 3  # the seat that jumps in is not the one whose turn the Sound Wild passes to
SETTINGS: dict[str, Any] = {"name": "window-open", "seat_count": SEATS, "preset": "standard",
                            "overrides": {"sound_wilds": True, "jump_in": True}, "turn_time_s": 0.0}


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    rig, server = await start_rig()
    try:
        yield rig
    finally:
        await stop_rig(rig, server)


def can_open_sound_wild(table: Table) -> bool:
    game = table.match.game if table.match is not None and table.match.round_no else None
    if game is None or game.to_act is None:
        return False
    return any(isinstance(a, Play) and a.cards[0].rank is Rank.SOUND_WILD for a in legal_actions(game, game.to_act))


async def sound_wild_table(rig: Rig) -> tuple[Table, list[str]]:
    """A started table whose seat to act can play a Sound Wild (dealt until one can)."""
    return await deal_until(rig, SETTINGS, can_open_sound_wild, "let the seat to act play a Sound Wild")


def race_of(table: Table, kind: WindowKind) -> Race:
    (race,) = [race for race in table.races.races.values() if race.window.kind is kind]
    return race


async def until(event_set: Any, condition: Any) -> None:
    """Wait until `condition()` holds, woken by `event_set` (an asyncio.Event the host sets)."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            event_set.clear()
            await event_set.wait()


async def test_a_jump_in_sent_while_a_sound_wild_window_blocks_waits_for_its_ruling(rig: Rig) -> None:
    """A plays a Sound Wild: its jump-in window (H6) and its Sound Wild window (H12, blocking) open
    together. C, not the next player, jumps in naming the jump-in window. The host neither refuses it
    WINDOW_OPEN nor judges it yet: it waits until the Sound Wild race is ruled, then the jump-in is
    judged (a card that is not the Sound Wild's twin is a wrong jump-in, which costs cards)."""
    table, tokens = await sound_wild_table(rig)
    assert table.match is not None
    game = table.match.game
    opener = game.to_act
    assert opener is not None
    await rig.play.PlayCards(play_service_pb2.PlayCardsRequest(
        table_id=table.table_id, token=tokens[opener], command_id="sound",
        cards=[cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=cards_pb2.RANK_SOUND_WILD)]), timeout=TIMEOUT)
    sound = race_of(table, WindowKind.SOUND_WILD)
    jump = race_of(table, WindowKind.JUMP_IN)
    assert game.has_blocking_window
    jumper = next(s for s in range(SEATS) if s not in (opener, game.current))
    card = next(c for c in game.hands[jumper] if c.rank is not Rank.SOUND_WILD)
    jumper_hand = len(game.hands[jumper])

    submitted = table.races.submit
    held = asyncio.Event()

    def spy(*args: Any, **kwargs: Any) -> Any:
        waiting = submitted(*args, **kwargs)
        if waiting is not None and not waiting.collected and waiting.race is sound:
            held.set()
        return waiting

    table.races.submit = spy  # type: ignore[method-assign]
    jump_in = asyncio.ensure_future(rig.play.PlayCards(play_service_pb2.PlayCardsRequest(
        table_id=table.table_id, token=tokens[jumper], command_id="jump", cards=[convert.card_to_pb(card)],
        reaction_window_id=jump.window_id), timeout=TIMEOUT))
    async with asyncio.timeout(TIMEOUT):
        await asyncio.wait([jump_in, asyncio.ensure_future(held.wait())], return_when=asyncio.FIRST_COMPLETED)
    if jump_in.done():  # the bug: answered at once, refused WINDOW_OPEN (or anything else)
        jump_in.result()
    assert held.is_set() and not jump.answers and len(game.hands[jumper]) == jumper_hand

    reactions = [asyncio.ensure_future(rig.play.React(play_service_pb2.ReactRequest(
        table_id=table.table_id, token=tokens[seat], command_id=f"react-{seat}", reaction_window_id=sound.window_id),
        timeout=TIMEOUT)) for seat in sound.participants]
    async with asyncio.timeout(TIMEOUT):
        reacted = [(await r).result for r in reactions]
        judged = (await jump_in).result
    assert all(r.outcome in (actions_pb2.COMMAND_OUTCOME_APPLIED, actions_pb2.COMMAND_OUTCOME_PENALIZED)
               for r in reacted)
    assert judged.outcome == actions_pb2.COMMAND_OUTCOME_PENALIZED  # a wrong jump-in (H6), after the ruling
    assert judged.event_number > max(r.event_number for r in reacted)


# --------------------------------------------------------------------------- the race book on positions


@dataclass
class PositionMatch:
    """The part of a Match the race book reads, around a game set up mid-play."""

    game: Game
    is_over: bool = False
    round_no: int = 1


@dataclass
class BookTable:
    """A stand-in for the race book's table (`RaceTable`): it applies nothing, and records nothing."""

    match: Any  # a PositionMatch: the race book reads only its game, is_over and round_no
    cards: RoundCards | None = None
    seed: int = 1
    window_deadlines: dict[int, int] = field(default_factory=dict)
    turn_began: int = 0
    reaction_time_ns: int = 1_000 * MS
    woken: int = 0

    def has_command(self, seat: int, command_id: str) -> bool:
        return False

    def record(self, entry: journal.AnyEntry) -> object:
        raise AssertionError(f"the race book applied {entry} itself")

    def wake_driver(self, *, force: bool = False) -> None:
        self.woken += 1


def card(color: Color, rank: Rank) -> Card:
    return Card.of(color, rank)


Position = tuple[Game, list[Any], int, Play]
"""A game just after a play opened two windows, the events that play produced, the window an answer
names, and the answer."""


def slap_and_jump_position() -> Position:
    """Seat 0 plays R5, its second-to-last card, calling UNO: the jump-in window and the UNO slap
    window open. Seat 2, not the next player, jumps in with its own R5."""
    ruleset = find_ruleset("standard", jump_in=True, uno_slap=True)
    r5 = card(Color.RED, Rank.FIVE)
    game = Game.from_position(ruleset, random.Random(1), hands=[
        [r5, card(Color.RED, Rank.SEVEN)],
        [card(Color.BLUE, rank) for rank in (Rank.ONE, Rank.TWO, Rank.THREE)],
        [r5, card(Color.BLUE, Rank.FOUR), card(Color.BLUE, Rank.SIX)],
    ], draw_pile=[card(Color.GREEN, Rank.ONE)] * 12, discard=[card(Color.RED, Rank.THREE)], current=0)
    events = game.apply(Play(0, (r5,), call_uno=True))
    assert game.jump_window is not None
    return game, events, game.jump_window, Play(2, (r5,))


def late_call_position() -> Position:
    """Seat 0 plays R5, its second-to-last card, without calling UNO (a catch window and the jump-in
    window open), then calls UNO, which opens the slap window: seat 2's jump-in, sent on the jump-in
    window it saw before the call, arrives while the slap blocks play."""
    ruleset = find_ruleset("standard", jump_in=True, uno_slap=True)
    r5 = card(Color.RED, Rank.FIVE)
    game = Game.from_position(ruleset, random.Random(1), hands=[
        [r5, card(Color.RED, Rank.SEVEN)],
        [card(Color.BLUE, rank) for rank in (Rank.ONE, Rank.TWO, Rank.THREE)],
        [r5, card(Color.BLUE, Rank.FOUR), card(Color.BLUE, Rank.SIX)],
    ], draw_pile=[card(Color.GREEN, Rank.ONE)] * 12, discard=[card(Color.RED, Rank.THREE)], current=0)
    events = game.apply(Play(0, (r5,)))
    jump_window = game.jump_window
    assert jump_window is not None and not game.has_blocking_window
    events += game.apply(CallUno(0))
    return game, events, jump_window, Play(2, (r5,))


def slap_and_escape_position() -> Position:
    """Seat 0 plays a red Skip, its second-to-last card, calling UNO: seat 1's escape window (H8)
    opens with the UNO slap window. Seat 1 escapes with its own red Skip."""
    ruleset = find_ruleset("standard", jump_in=True, skip_escape=True, uno_slap=True)
    skip = card(Color.RED, Rank.SKIP)
    game = Game.from_position(ruleset, random.Random(1), hands=[
        [skip, card(Color.RED, Rank.SEVEN)],
        [skip, card(Color.BLUE, Rank.ONE), card(Color.BLUE, Rank.TWO)],
        [card(Color.BLUE, rank) for rank in (Rank.FOUR, Rank.SIX, Rank.EIGHT)],
    ], draw_pile=[card(Color.GREEN, Rank.ONE)] * 12, discard=[card(Color.RED, Rank.THREE)], current=0)
    events = game.apply(Play(0, (skip,), call_uno=True))
    escape = next(w for w in game.windows.values() if w.kind is WindowKind.SKIP_ESCAPE)
    return game, events, escape.id, Play(1, (skip,))


@pytest.mark.parametrize("position", [slap_and_jump_position, late_call_position, slap_and_escape_position])
def test_an_answer_a_slap_window_blocks_waits_for_the_slap_ruling(position: Any) -> None:
    """The answer names its open non-blocking window; the engine alone would refuse it WINDOW_OPEN
    (the slap blocks play). The race book holds it behind the slap race, collects nothing and changes
    nothing."""
    game, events, named, answer = position()
    table = BookTable(PositionMatch(game))
    book = RaceBook()
    book.after_record(table, journal.Close(0), list(enumerate(events, start=1)), T0)
    assert game.has_blocking_window and named in book.races
    assert WindowKind.UNO_SLAP in {race.window.kind for race in book.races.values()}
    with pytest.raises(IllegalAction) as refused:  # what the engine says on its own
        game.copy().apply_command((answer,))
    assert refused.value.reason == "WINDOW_OPEN"
    before = game.copy()
    waiting = book.submit(table, answer.seat, "answer", (answer,), arrived_ns=T0 + 5 * MS, window_hint=named)
    assert waiting is not None and not waiting.collected
    assert waiting.race.window.kind is WindowKind.UNO_SLAP
    assert not book.races[named].answers and not table.woken
    assert game.hands == before.hands and set(game.windows) == set(before.windows)
