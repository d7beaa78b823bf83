"""A host bot worker that fails on purpose, for the worker watch's tests (tests/host/test_bot_watch.py).

    python faulty_worker.py MODE MARKS --address HOST:PORT --table ID --seat N   (token in UNONET_TOKEN)

MODE is one of:

- ``hang``: a real `BotRunner` whose policy never returns from a decision;
- ``crash``: raises at once, at every start;
- ``illegal``: attaches to its seat and answers every decision it owes with a command its legal
  actions do not list (refused by the host), and nothing else.

In MARKS, a directory, ``hang`` and ``illegal`` touch a file per decision they hung on or answered
wrongly (``<pid>-<event number>``), so a test knows the fault happened before it moves the host's
clock on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from pathlib import Path

from unonet.bots.actions import is_listed
from unonet.bots.policy import Bot, BotState
from unonet.bots.runner import BotRunner
from unonet.client import commands as cmd
from unonet.client.errors import UnonetError
from unonet.client.table_client import TableClient
from unonet.v1 import actions_pb2, cards_pb2, views_pb2


class Hang(Bot):
    """Marks each decision it is asked, then never answers it."""

    kind = "hang"

    def __init__(self, marks: Path) -> None:
        self.marks = marks

    async def decide_async(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        (self.marks / f"{os.getpid()}-{view.event_number}").touch()
        await asyncio.Event().wait()  # never set
        return None


def _illegal(legal: actions_pb2.LegalActions) -> cmd.Command:
    """A command `legal` does not list."""
    for command in (cmd.Pass(), cmd.ChooseColor(cards_pb2.COLOR_RED), cmd.Challenge()):
        if not is_listed(command, legal):
            return command
    raise AssertionError(f"every probe is listed in {legal}")


async def _illegal_worker(client: TableClient, marks: Path) -> None:
    view = await client.get_view()
    legal, number, answered = view.legal_actions, view.event_number, -1
    async with contextlib.aclosing(client.events(after=view.event_number)) as stream:
        while True:
            if legal.required and number != answered:
                answered = number
                with contextlib.suppress(UnonetError):
                    await client.send(_illegal(legal))
                    raise AssertionError("the host applied a command its legal actions did not list")
                (marks / f"{os.getpid()}-{number}").touch()
            event = await anext(stream)
            if event.HasField("your_legal_actions"):
                legal, number = event.your_legal_actions, event.number
            if event.HasField("match_ended"):
                return


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["hang", "crash", "illegal"])
    parser.add_argument("marks", type=Path)
    parser.add_argument("--address", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--seat", type=int, required=True)
    args, _ = parser.parse_known_args(argv)
    if args.mode == "crash":
        raise RuntimeError("this worker crashes at every start")
    async with await TableClient.connect(args.address, timeout=10.0) as client:
        client.attach(args.table, os.environ["UNONET_TOKEN"], args.seat)
        if args.mode == "hang":
            await BotRunner(Hang(args.marks), reaction_delay=0.0).run(client, args.table, args.seat)
        else:
            await _illegal_worker(client, args.marks)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
