"""`unonet bot play` (with `--exec`, a Bot subclass, `--create --fill`) and `unonet bot check`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from unonet.bots.cli import BadBotSpec, build_parser, load_bot, play
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.policy import Bot
from unonet.bots.random_bot import RandomBot
from unonet.cli import build_parser as unonet_parser

SH_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "first_action.sh"


class Broken(Bot):
    """A bot of the user's own, given as module:Class: it always crashes."""

    def decide(self, view, state):
        raise ZeroDivisionError("a bug")


def test_a_bot_is_named_by_kind_level_or_module_and_class():
    assert isinstance(load_bot("random", 1), RandomBot)
    assert isinstance(load_bot("greedy"), GreedyBot)
    assert isinstance(load_bot("test_bot_cli:Broken"), Broken)
    for bad in ("nonsense", "no_such_module:Bot", "unonet.bots.cli:load_bot"):
        with pytest.raises(BadBotSpec):
            load_bot(bad)


def test_python_m_unonet_bots_and_unonet_bot_play_take_the_same_arguments():
    args = unonet_parser().parse_args(["bot", "play", "greedy:2", "--table", "t", "--seat", "1"])
    alias = build_parser("python -m unonet.bots").parse_args(["--kind", "greedy:2", "--table", "t", "--seat", "1"])
    assert (args.bot, args.table, args.seat) == ("greedy:2", "t", 1) and (alias.kind, alias.seat) == ("greedy:2", 1)


@pytest.mark.timeout(200)
async def test_bot_play_exec_creates_a_table_fills_it_and_plays_the_match(served_host, capsys):
    args = build_parser().parse_args(
        ["--exec", f"sh {SH_BOT}", "--address", served_host.address, "--create", "standard", "--seats", "3",
         "--fill", "random", "--target-score", "40", "--reaction-delay", "0", "--ping-interval", "0.2"]
    )
    status = await asyncio.wait_for(play(args), 150)
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("table ") and "seat 0 at" in out and "match over; winners:" in out


@pytest.mark.timeout(200)
async def test_bot_check_reports_every_decision_and_what_the_bot_got_wrong():
    from unonet.botcheck import CheckTable, check_bot

    # The longest turn clock that still counts as hurried (botcheck: under 2 s): the checked bot must answer
    # in time on a loaded machine too, or three strikes take its seat over before the reconnect is checked.
    small = (CheckTable("standard", {"target_score": 60}, 2, turn_s=1.9, reconnect_after=3),)
    good = await check_bot(RandomBot(seed=3), tables=small, timeout=60)
    # The host shuffles with every seat's entropy, so how many turns the bot gets is the cards' doing (5 once).
    assert good.faults == [] and good.reconnected and good.asked["play or draw"] > 0
    assert good.asked["clock about to run out"] > 0 and good.status() == 3  # one table: not every kind
    bad = await check_bot(Broken(), tables=small, timeout=60)
    assert bad.faults and {f.kind.value for f in bad.faults} == {"crashed"} and bad.status() == 1
