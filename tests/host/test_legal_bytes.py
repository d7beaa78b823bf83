"""A seat's legal actions written without building a message (legal_bytes.py) are exactly protobuf's
serialization of the LegalActions the table built before: a seat compares its copy with the last one it
was sent, and the renderings that carry them are linked into the log's head chain."""

from __future__ import annotations

import collections
from typing import Any

import pytest
from played_tables import played_table

from unonet.engine import PRESETS
from unonet.engine.actions import CallUno, CatchUno, Challenge, ChooseColor, Draw, Pass, Play, React
from unonet.engine.cards import Card, Color, Rank
from unonet.host import legal_bytes
from unonet.host.table import Table
from unonet.v1 import actions_pb2
from unonet.wire import convert

EVERY_HOUSE_RULE = {"seven_o": True, "five_swap": True, "jump_in": True, "bluffing": True, "stacking": True,
                    "runs": True, "draw_to_match": True}


def _protobufs(actions: list[Any], *, deadline_ns: int | None, **options: Any) -> bytes:
    """What the table built and serialized before: the message, its deadline set."""
    message = convert.legal_actions_to_pb(actions, catch_windows=None, **options)
    if deadline_ns is not None:
        convert.set_timestamp(message.deadline, deadline_ns)
    return message.SerializeToString()


class Checked:
    """Compares, after each move of a played table, every seat's legal actions as the table writes them
    with the same built as messages (`Table.legal_for_all(written=False)`); counts what it met."""

    def __init__(self) -> None:
        self.met: collections.Counter[str] = collections.Counter()

    def __call__(self, played: Table) -> None:
        if played.match is None:
            return
        written = played.legal_for_all()
        assert written == played.legal_for_all(written=False), played.last_number
        options = [legal for legal in written.values() if legal not in (b"", REQUIRED_ONLY)]
        self.met["seats with options"] += len(options)
        for legal in options:
            message = actions_pb2.LegalActions.FromString(legal)
            self.met.update(field.name for field, _ in message.ListFields())
            self.met["a jump-in or cut"] += any(play.kind != actions_pb2.PLAY_KIND_TURN for play in message.plays)


REQUIRED_ONLY = actions_pb2.LegalActions(required=True).SerializeToString()


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("league", [False, True], ids=["fair", "league"])
async def test_every_seats_legal_actions_are_protobufs_own_bytes(preset: str, league: bool) -> None:
    checked = Checked()
    for seed in (1, 2):
        await played_table(preset, {}, seed, league=league, each_step=checked)
    # Not vacuous: the usual turn's options were met.
    assert checked.met["seats with options"] > 50 and {"plays", "draw", "deadline"} <= set(checked.met), checked.met


@pytest.mark.parametrize("turn_time_s", [0, 600], ids=["no-clock", "clock"])
async def test_every_house_rule_with_and_without_a_clock(turn_time_s: float) -> None:
    checked = Checked()
    for seed in (1, 2, 3):
        await played_table("standard", EVERY_HOUSE_RULE, seed, turn_time_s=turn_time_s, each_step=checked)
    assert {"plays", "draw", "choose_color", "challenge", "required"} <= set(checked.met), checked.met
    assert checked.met["a jump-in or cut"] > 0, checked.met  # jump-ins and run cuts, with their windows
    assert ("deadline" in checked.met) == (turn_time_s > 0), checked.met


RED_SEVEN, RED_NINE = Card(Color.RED, Rank.SEVEN), Card(Color.RED, Rank.NINE)
WILD, WILD_DRAW_FOUR = Card(Color.BLACK, Rank.WILD), Card(Color.BLACK, Rank.WILD_DRAW_FOUR)
USUAL = {"required": True, "current_seat": 0, "run_cut_window": None, "jump_in_window": None,
         "obligation_target": None, "obligation_amount": 0, "draw_to_match": False, "bluff": False}

EDGES = [
    # Seat 0 and zeros everywhere protobuf leaves a default out; an option listed with and without UNO.
    ([Play(0, (RED_SEVEN,)), Play(0, (RED_SEVEN,), call_uno=True), Draw(0)], {}),
    ([Play(0, (WILD,)), Play(0, (WILD_DRAW_FOUR,)), Draw(0), CallUno(0)], {"bluff": True}),
    ([ChooseColor(0, color) for color in (Color.RED, Color.BLUE)], {}),
    ([Pass(2), Challenge(2)], {"current_seat": 2, "required": False}),
    ([Draw(3)], {"current_seat": 3, "obligation_target": 3, "obligation_amount": 4}),  # accepts the obligation
    ([Draw(3)], {"current_seat": 3, "obligation_target": 1, "obligation_amount": 4, "draw_to_match": True}),
    ([Play(1, (RED_SEVEN, RED_NINE)), Play(1, (RED_NINE,))], {"current_seat": 2, "run_cut_window": 300}),
    ([Play(1, (RED_SEVEN,))], {"current_seat": 2, "jump_in_window": 2**40}),
    ([Play(0, (RED_SEVEN, WILD)), Play(0, (WILD, RED_SEVEN))], {}),  # a colour is named for the last card
    ([Play(1, (RED_SEVEN,))], {"current_seat": 2, "jump_in_window": None}),  # a jump-in with no window: 0
    ([], {"required": False}),
]


@pytest.mark.parametrize(("actions", "options"), EDGES)
@pytest.mark.parametrize("deadline_ns", [None, 0, 1, 1_765_000_000_999_999_999])
def test_edges(actions: list[Any], options: dict[str, Any], deadline_ns: int | None) -> None:
    arguments = {**USUAL, **options, "deadline_ns": deadline_ns}
    assert legal_bytes.legal_actions_bytes(actions, **arguments) == _protobufs(actions, **arguments)


@pytest.mark.parametrize("actions", [[Play(0, (RED_SEVEN,)), CatchUno(0, 1)], [React(0, 5)], [Draw(0), React(0, 5)]])
def test_what_it_does_not_write_is_left_to_the_message(actions: list[Any]) -> None:
    assert legal_bytes.legal_actions_bytes(actions, **USUAL, deadline_ns=None) is None


def test_a_time_before_1970_is_left_to_the_message() -> None:
    assert legal_bytes.legal_actions_bytes([Draw(0)], **USUAL, deadline_ns=-1) is None
