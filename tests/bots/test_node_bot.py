"""The Node bot (bots/node/play_bot.js, started by the launch convention) plays whole matches: at ONE
table with a Python bot and a bridged shell-script bot, and, with a misbehaving policy, loses only its
own turn while the match goes on."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import grpc
import pytest
from bot_tables import CALL_TIMEOUT, clock, join_table, public_log

from unonet.bots.bridge import ExecBot
from unonet.bots.launch import Launched, SeatGrant
from unonet.bots.random_bot import RandomBot
from unonet.bots.runner import BotRunner
from unonet.client.table_client import TableClient

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "bots" / "node" / "play_bot.js"
SH_BOT = ROOT / "bots" / "examples" / "first_action.sh"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (ROOT / "node_modules" / "@grpc" / "grpc-js").is_dir(),
    reason="needs node and node_modules (make pytest installs them)",
)


async def play_with_node(address, *, policy=None, clock_settings=None, max_restarts=0, stderr=None):
    channel = grpc.aio.insecure_channel(address)
    try:
        owner = TableClient(channel, timeout=CALL_TIMEOUT)
        table_id, clients = await join_table(
            channel, 3, overrides={"target_score": 40}, clock_settings=clock_settings, owner=owner
        )
        command = [NODE, str(NODE_BOT)] + (["--policy", str(policy)] if policy else [])
        node = Launched(command, SeatGrant(address, table_id, 1, clients[1].token), max_restarts=max_restarts,
                        backoff=0.1, stderr=stderr)
        async with ExecBot(["sh", str(SH_BOT)]) as bridged:
            python, shell = BotRunner(RandomBot(seed=3)), BotRunner(bridged)
            node_run = asyncio.create_task(node.run())
            try:
                # The match starts once Node is up (its event stream open), so a slow start on a loaded
                # machine cannot cost it turns before it plays at all.
                async with asyncio.timeout(60):
                    while not (await owner.get_table(table_id)).seats[1].connected:
                        await asyncio.sleep(0.05)
                await asyncio.wait_for(owner.start_table(table_id=table_id), CALL_TIMEOUT)
                results = await asyncio.wait_for(
                    asyncio.gather(node_run, python.run(clients[0], table_id, 0), shell.run(clients[2], table_id, 2)),
                    150,
                )
            finally:
                await node.stop(grace=1.0)
        events = await public_log(channel, table_id, clients[0].token, 0)
        return node, results, events, (python, shell)
    finally:
        await channel.close()


def kinds(events, kind):
    return [getattr(e, kind) for e in events if e.WhichOneof("payload") == kind]


@pytest.mark.timeout(200)
async def test_python_node_and_bridged_bots_play_a_whole_match_at_one_table(served_host):
    node, (status, python_end, shell_end), events, (python, shell) = await play_with_node(served_host.address)
    assert status == 0 and node.starts == 1
    assert python_end is not None and shell_end is not None
    assert list(python_end.winner_seats) == list(shell_end.winner_seats)
    played_by = {p.seat for p in kinds(events, "cards_played")}
    assert {0, 1, 2} <= played_by  # every one of the three bots played cards
    assert kinds(events, "turn_timed_out") == []
    assert python.faults == [] and shell.faults == []


MISBEHAVIOURS = {
    "illegal": 'return { rpc: "ChooseSwapTarget", req: { target_seat: 2 } };',
    "garbage": 'return "the red five, please";',
    "crash": 'throw new Error("the policy broke");',
    "hang": "return new Promise(() => {});",
    "late": "await new Promise((r) => setTimeout(r, 1300)); return defaultChoose(legal, me);",
}
SAID = {"illegal": "illegal answer", "garbage": "garbage answer", "crash": "crashed answer", "hang": "late answer",
        "late": "late answer"}


@pytest.mark.parametrize("misbehaviour", sorted(MISBEHAVIOURS))
@pytest.mark.timeout(200)
async def test_a_node_bot_that_misbehaves_loses_only_its_own_turn(served_host, tmp_path, misbehaviour):
    policy = tmp_path / f"{misbehaviour}.js"
    policy.write_text(
        f'const {{ defaultChoose }} = require({str(NODE_BOT)!r});\n'
        "let required = 0;\n"
        "exports.choose = async (legal, me) => {\n"
        f"  if (legal.required && !legal.commit_entropy && ++required === 1) {{ {MISBEHAVIOURS[misbehaviour]} }}\n"
        "  return defaultChoose(legal, me);\n"
        "};\n"
    )
    log = tmp_path / "node.log"
    with open(log, "wb") as stderr:
        _, (_, python_end, shell_end), events, _ = await play_with_node(
            served_host.address, policy=policy, clock_settings=clock(1.0), stderr=stderr
        )
    said = log.read_text()
    assert SAID[misbehaviour] in said and "the table's clock decides" in said
    assert python_end is not None and shell_end is not None and events[-1].HasField("match_ended")
    assert 1 in [t.seat for t in kinds(events, "turn_timed_out")]  # the clock decided the turn it lost
    if misbehaviour != "hang":  # it played on afterwards
        assert any(p.seat == 1 for p in kinds(events, "cards_played"))


@pytest.mark.timeout(200)
async def test_a_node_bot_that_exits_is_started_again_and_takes_its_seat_back(served_host, tmp_path):
    policy = tmp_path / "exit_once.js"
    marker = tmp_path / "exited"
    policy.write_text(
        f'const fs = require("fs"); const {{ defaultChoose }} = require({str(NODE_BOT)!r});\n'
        "exports.choose = (legal, me) => {\n"
        f"  if (legal.required && !fs.existsSync({str(marker)!r})) {{ fs.writeFileSync({str(marker)!r}, 'x'); "
        "process.exit(3); }\n"
        "  return defaultChoose(legal, me);\n"
        "};\n"
    )
    node, (status, python_end, shell_end), events, _ = await play_with_node(
        served_host.address, policy=policy, clock_settings=clock(3.0, strikes=3), max_restarts=2
    )
    assert node.statuses[0] == 3 and status == 0 and node.starts == 2
    assert python_end is not None and shell_end is not None
    assert any(p.seat == 1 for p in kinds(events, "cards_played"))
