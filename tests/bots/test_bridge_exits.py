"""`unonet bot play --exec`: one exit status rule for every seat lost to a fault, and every fault logged
once (issue 29).

A program that crashes loses its seat at once; one that answers garbage, or hangs, loses it to the
table's clock (a strike a turn, then the takeover). Whichever it was, `unonet bot play` exits 1 and
says why; before, a hanging program's runner watched the rest of the match and exited 0. At a table
without a clock nothing takes the seat away: a garbage answer gets the safe default sent, the match
ends, and the exit status is 0. Each fault is one log line, as it happens (before, the run's end
repeated them all), and the run ends with their count."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest
from bot_tables import CALL_TIMEOUT, clock

from unonet.bots.cli import build_parser, play
from unonet.client.table_client import TableClient

PROGRAMS = {
    "crash": "import sys\nsys.stdin.readline()\nsys.exit(3)\n",
    "garbage": "import sys\nfor line in sys.stdin:\n    print('the red five, please', flush=True)\n",
    "out_of_range": "import json, sys\nfor line in sys.stdin:\n"
                    "    print(99999 if json.loads(line)['required'] else 'null', flush=True)\n",
    "hang": "import sys, time\nsys.stdin.readline()\ntime.sleep(3600)\n",
    # Out of range for its first five required decisions, then the first legal action (plays come first):
    # a program that only ever got the safe default (Draw, else Pass) would never play a card, and once
    # it held most of the deck the match could go on for ever.
    "out_of_range_five_times": "import json, sys\nbad = 5\nfor line in sys.stdin:\n"
                               "    if json.loads(line)['required']:\n"
                               "        print(99999 if bad else 0, flush=True)\n        bad = max(0, bad - 1)\n"
                               "    else:\n        print('null', flush=True)\n",
}
FAULT_LINES = ("answer at event", "the bot is gone", "answer to the question of event")


async def _play_exec(address: str, tmp_path: Path, program: str, turn_s: float) -> int:
    """`unonet bot play --exec` at seat 0 of a heads-up table (a host's random bot at seat 1) whose clock
    is `turn_s` seconds a turn (0: none), taken over after two strikes."""
    path = tmp_path / f"{program}.py"
    path.write_text(PROGRAMS[program])
    async with await TableClient.connect(address, timeout=CALL_TIMEOUT) as owner:
        created = await owner.create_table("standard", {"target_score": 30}, 2, manual_start=True,
                                           clock=clock(turn_s, strikes=2))
        args = build_parser().parse_args(["--exec", f"{sys.executable} {path}", "--address", address, "--table",
                                          created.table_id, "--seat", "0", "--reaction-delay", "0",
                                          "--ping-interval", "0", "--no-verify"])
        playing = asyncio.create_task(play(args))
        try:
            while True:  # until the program's seat is joined
                table = await owner.get_table(created.table_id)
                if table.seats[0].occupied:
                    break
                await asyncio.sleep(0.02)
            assert await owner.add_bots(1, "random", table_id=created.table_id) == [1]
            await owner.start_table(table_id=created.table_id)
            return await asyncio.wait_for(playing, 120)
        finally:
            playing.cancel()


def _fault_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.levelno >= logging.ERROR and any(words in record.getMessage() for words in FAULT_LINES)]


@pytest.mark.timeout(150)
@pytest.mark.parametrize("program", ["crash", "garbage", "out_of_range", "hang"])
async def test_a_seat_lost_to_any_fault_exits_1_with_each_fault_logged_once(served_host, tmp_path, caplog, capsys,
                                                                           program):
    caplog.set_level(logging.INFO)
    status = await _play_exec(served_host.address, tmp_path, program, turn_s=1.0)
    out, err = capsys.readouterr()
    assert status == 1, (out, err)
    assert "can no longer act" in out
    if program != "crash":
        assert "taken over for its strikes" in out  # the clock took the seat: the rule is the same
    faults = _fault_lines(caplog)
    assert faults, caplog.text
    assert len(faults) == len(set(faults)), faults  # no fault logged twice
    assert f"{len(faults)} bot faults (each logged above)" in err, (err, faults)
    assert "bot fault at event" not in err  # the run's end no longer repeats them


@pytest.mark.timeout(150)
async def test_without_a_clock_a_garbage_answer_gets_the_safe_default_and_the_match_ends(served_host, tmp_path,
                                                                                     caplog, capsys):
    caplog.set_level(logging.INFO)
    status = await _play_exec(served_host.address, tmp_path, "out_of_range_five_times", turn_s=0.0)
    out, err = capsys.readouterr()
    assert status == 0, (out, err)
    assert "match over" in out
    faults = _fault_lines(caplog)
    assert len(faults) == 5 and all("the safe default sent: the table has no clock" in line for line in faults), faults
    assert f"{len(faults)} bot faults (each logged above): {len(faults)} garbage" in err
