"""The JSON-lines bridge: its lines, its answers, a shell-script bot playing whole games, and every way a
bridged program can misbehave (garbage, an illegal command, a crash, a hang, a late answer) costing
only its own turns while the others finish the match."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bot_tables import clock, play_one_table

from unonet.bots.actions import command_from_json, command_to_json, enumerate_actions, is_listed
from unonet.bots.bridge import ExecBot, parse_answer, question
from unonet.bots.faults import BadAnswer, FaultKind
from unonet.bots.policy import BotState
from unonet.bots.random_bot import RandomBot
from unonet.bots.runner import BotRunner
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, cards_pb2, views_pb2

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "first_action.sh"
RED_FIVE = cards_pb2.Card(color=cards_pb2.COLOR_RED, rank=cards_pb2.RANK_FIVE)
WILD = cards_pb2.Card(color=cards_pb2.COLOR_BLACK, rank=cards_pb2.RANK_WILD)


def turn_legal() -> actions_pb2.LegalActions:
    legal = actions_pb2.LegalActions(required=True, draw=actions_pb2.DrawOption(count=1))
    legal.plays.add(cards=[RED_FIVE], kind=actions_pb2.PLAY_KIND_TURN)
    legal.plays.add(cards=[WILD], kind=actions_pb2.PLAY_KIND_TURN, needs_color=True)
    legal.catch_uno.add(target_seat=2, reaction_window_id=7)
    legal.catch_uno_targets.append(2)
    return legal


def test_the_actions_are_numbered_in_the_documented_order_and_round_trip_as_json():
    actions = enumerate_actions(turn_legal(), hand_size=2)
    assert actions[0] == cmd.Play((RED_FIVE,), call_uno=True)  # leaves one card: the listed play calls UNO
    assert [a.color for a in actions[1:5]] == [1, 2, 3, 4]  # the wild once per colour, red first
    assert actions[5:] == [cmd.Draw(), cmd.CatchUno(2, 7)]
    for action in actions:
        assert is_listed(action, turn_legal())
        assert command_from_json(json.loads(json.dumps(command_to_json(action)))) == action


def test_a_question_is_one_line_that_starts_with_required():
    view = views_pb2.SeatView(table_id="t", seat=1, event_number=12)
    view.hand.add(card=RED_FIVE)
    view.legal_actions.CopyFrom(turn_legal())
    state = BotState(seat=1, time_left=2.5)
    actions = enumerate_actions(view.legal_actions, len(view.hand))
    line = question(view, view.legal_actions, state, required=True, actions=actions)
    assert "\n" not in line and line.startswith('{"required":true,"kind":"decide"')
    body = json.loads(line)
    assert body["time_left_ms"] == 2500 and body["event"] is None
    assert body["view"]["event_number"] == "12"  # proto3 JSON: 64-bit numbers are strings
    first = {"rpc": "PlayCards", "request": {"cards": [{"color": "COLOR_RED", "rank": "RANK_FIVE"}]}}
    assert body["actions"][0] == first


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"play the red five\n", "not JSON"),
        (b"9\n", "outside"),
        (b"-1\n", "outside"),
        (b"true\n", "not an index"),
        (b'{"rpc": "Shout"}\n', "not a command"),
        (b'{"rpc": "PlayCards", "request": {"cards": [{"colour": "RED"}]}}\n', "does not parse"),
        (b'"0"\n', "expected"),
    ],
)
def test_garbage_answers_are_refused_with_what_is_wrong(line, problem):
    actions = enumerate_actions(turn_legal(), hand_size=3)
    with pytest.raises(BadAnswer, match=problem):
        parse_answer(line, actions)


def test_the_answers_a_program_may_give():
    actions = enumerate_actions(turn_legal(), hand_size=3)
    assert parse_answer(b"5\n", actions) == cmd.Draw()
    assert parse_answer(b"null\n", actions) is None
    assert parse_answer(b'{"rpc":"Draw"}\n', actions) == cmd.Draw()


def script(tmp_path: Path, name: str, body: str) -> list[str]:
    """A bot program: a Python script (any language would do; this one is easy to make misbehave)."""
    path = tmp_path / f"{name}.py"
    path.write_text("import json, sys, time\n" + body)
    return [sys.executable, str(path)]


@pytest.mark.timeout(200)
async def test_the_shell_script_bot_plays_a_whole_match_against_python_bots(served_host):
    async with ExecBot(["sh", str(EXAMPLE)]) as bridged:
        runners = [BotRunner(RandomBot(seed=1)), BotRunner(bridged), BotRunner(RandomBot(seed=2))]
        played = await play_one_table(served_host.address, runners, overrides={"target_score": 60})
    assert all(result is not None and not isinstance(result, BaseException) for result in played.results)
    assert runners[1].faults == [] and runners[1].commands_sent > 3
    assert any(p.seat == 1 for p in played.kinds("cards_played"))
    assert played.kinds("turn_timed_out") == []


# Each misbehaving program plays properly except where it misbehaves, so each test shows the fault, the
# table's clock deciding that turn (a TurnTimedOut for the seat), and the match going on to its end.
FIRST_REQUIRED = """
answered = 0
for line in sys.stdin:
    q = json.loads(line)
    if not q["required"]:
        print("null", flush=True)
        continue
    answered += 1
    if answered == 1:
        {misbehave}
    print(0, flush=True)
"""

MISBEHAVIOURS = {
    "garbage": ('print("the red five, please", flush=True); continue', FaultKind.GARBAGE),
    "illegal": (
        'print(json.dumps({{"rpc": "ChooseSwapTarget", "request": {{"target_seat": 2}}}}), flush=True); continue',
        FaultKind.ILLEGAL,
    ),
    "late": ("time.sleep(1.3)", FaultKind.LATE),  # past the 1 s turn, before its next turn
    "hang": ("time.sleep(3600)", FaultKind.LATE),
    "crash": ("sys.exit(3)", FaultKind.CRASHED),
}


@pytest.mark.parametrize("misbehaviour", sorted(MISBEHAVIOURS))
@pytest.mark.timeout(200)
async def test_a_bridged_program_that_misbehaves_loses_only_its_own_turn(served_host, tmp_path, misbehaviour):
    code, kind = MISBEHAVIOURS[misbehaviour]
    body = FIRST_REQUIRED.replace("{misbehave}", code.replace("{{", "{").replace("}}", "}"))
    argv = script(tmp_path, misbehaviour, body)
    bridged = ExecBot(argv)
    await bridged.start()
    try:
        runners = [BotRunner(RandomBot(seed=1)), BotRunner(bridged, safety_margin=0.15), BotRunner(RandomBot(seed=2))]
        played = await play_one_table(
            served_host.address, runners, overrides={"target_score": 30}, clock_settings=clock(1.0)
        )
    finally:
        await bridged.close(grace=0.5)
    assert [fault.kind for fault in runners[1].faults][:1] == [kind]
    assert played.results[0] is not None and not isinstance(played.results[0], BaseException)
    assert played.results[2] is not None and not isinstance(played.results[2], BaseException)
    assert played.events[-1].HasField("match_ended")
    timed_out = [t.seat for t in played.kinds("turn_timed_out")]
    assert 1 in timed_out  # the table's clock decided the turn the program lost
    if misbehaviour in ("garbage", "illegal"):
        # It played on after its one mistake: later turns were its own again, on time.
        assert runners[1].commands_sent > 3 and timed_out.count(1) == 1
