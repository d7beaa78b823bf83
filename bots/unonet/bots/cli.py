"""`unonet bot play` (and its alias `python -m unonet.bots`): one bot at one seat, until the match ends.

    unonet bot play KIND[:LEVEL] | module:Class | --exec CMD  --address HOST:PORT
                    [--table ID | --create PRESET [--seats N] [--fill KIND]] [--seat N] [--token T]

The bot is a kind from the registry (`random`, `greedy:2`, ...), a `Bot` subclass of yours given as
``module:Class`` (made with no arguments, or with the seed when it takes one), or, with ``--exec``, any
program speaking the JSON-lines bridge (`unonet.bots.bridge`). It joins the table (the lowest empty
seat, or `--seat`), or takes back a seat it holds with `--token`; `--create` makes a new table first
and prints its id, and `--fill` seats host bots in its other seats. The launch convention's variables
(`unonet.bots.launch`: UNONET_ADDRESS, UNONET_TABLE, UNONET_SEAT, UNONET_TOKEN, UNONET_SEED) are the
defaults. `--stats FILE` writes the bot's figures on its decisions (`Bot.stats`) when it stops.
Exit status: 0 when the match ended with the seat still the bot's; 1 when the seat was lost to the bot
first, whatever lost it: its program crashed or exited, or the table took the seat over for the strikes
its faults earned (garbage, illegal, hung or late answers), or forfeited it; 2 on bad usage or a
refusal. Every fault is logged once, as it happens; the run ends with their count by kind.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import logging
import os
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Sequence

from unonet.bots.bridge import ExecBot
from unonet.bots.kinds import DEFAULT_BOT_KIND, UnknownBotKind, make_bot, public_names
from unonet.bots.launch import ENV_ADDRESS, ENV_SEAT, ENV_SEED, ENV_TABLE, ENV_TOKEN
from unonet.bots.policy import Bot
from unonet.bots.runner import BotRunner
from unonet.client import TableClient, UnonetError

__all__ = ["BadBotSpec", "add_play_arguments", "build_parser", "load_bot", "main", "play", "write_stats"]


class BadBotSpec(ValueError):
    """A bot named on the command line that cannot be made."""


def load_bot(spec: str, seed: int | None = None) -> Bot:
    """The bot `spec` names: ``KIND[:LEVEL]`` from the registry, or ``module:Class`` (a `Bot` subclass).

    Raises:
        BadBotSpec: an unknown kind, a module that does not import, a class that is not a Bot.
    """
    name, _, rest = spec.partition(":")
    if not rest or rest.isdigit():
        try:
            return make_bot(spec, seed, public_only=True)
        except UnknownBotKind as error:
            raise BadBotSpec(str(error)) from None
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        raise BadBotSpec(f"cannot import {name!r}: {error}") from None
    cls = getattr(module, rest, None)
    if not (inspect.isclass(cls) and issubclass(cls, Bot)):
        raise BadBotSpec(f"{spec!r} is not a unonet.bots.Bot subclass")
    factory: Callable[..., Bot] = cls
    return factory(seed=seed) if "seed" in inspect.signature(cls).parameters else factory()


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value and value.isdigit() else None


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `unonet bot play`, shared with `python -m unonet.bots`."""
    parser.add_argument("bot", nargs="?", default=None, metavar="KIND[:LEVEL]|module:Class",
                        help=f"the bot: a kind ({', '.join(public_names())}) or a Bot subclass "
                             f"(default {DEFAULT_BOT_KIND})")
    parser.add_argument("--kind", default=None, help="the same as the positional KIND[:LEVEL] (for scripts)")
    parser.add_argument("--exec", dest="exec_command", metavar="CMD",
                        help="run CMD (split like a shell would) as the bot, over the JSON-lines bridge")
    parser.add_argument("--address", default=os.environ.get(ENV_ADDRESS, "127.0.0.1:50051"),
                        help=f"the host, HOST:PORT (default ${ENV_ADDRESS}, else %(default)s)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--table", default=os.environ.get(ENV_TABLE), help=f"the table id (default ${ENV_TABLE})")
    where.add_argument("--create", metavar="PRESET", help="create a table with this preset first, and print its id")
    parser.add_argument("--seats", type=int, default=2, help="with --create: the number of seats (default 2)")
    parser.add_argument("--fill", metavar="KIND", help="with --create: seat host bots of KIND in the other seats")
    parser.add_argument("--target-score", type=int, default=0, help="with --create: points that win (0: preset's)")
    parser.add_argument("--seat", type=int, default=_env_int(ENV_SEAT),
                        help=f"the seat to take (default ${ENV_SEAT}, else the lowest empty one)")
    parser.add_argument("--token", default=os.environ.get(ENV_TOKEN),
                        help=f"a seat token already held (needs --seat): take the seat back (default ${ENV_TOKEN})")
    parser.add_argument("--name", default=None, help="the display name (default: the bot's kind and 'bot')")
    parser.add_argument("--seed", type=int, default=_env_int(ENV_SEED),
                        help=f"the bot's random seed (default ${ENV_SEED}, else none)")
    parser.add_argument("--stats", metavar="FILE", default=None,
                        help="when it stops, write the bot's own figures on its decisions (Bot.stats) and the "
                             "runner's counts to FILE, as one JSON object")
    parser.add_argument("--reaction-delay", type=float, default=0.3, help="seconds before optional reactions")
    parser.add_argument("--human-pace", type=float, default=None, metavar="SECONDS",
                        help="pace the bot as a host paces its own (docs/bots.md): with a person at the table, "
                             "SECONDS plus the level's pause before each turn and the level's reaction time "
                             "before each race answer; with bots only, no wait at all (replaces --reaction-delay)")
    parser.add_argument("--ping-interval", type=float, default=1.0, help="seconds between pings; 0 for none")
    parser.add_argument("--timeout", type=float, default=10.0, help="the deadline of every call, in seconds")
    parser.add_argument("--no-verify", action="store_true", help="do not check the host's fairness from the events")
    parser.add_argument("--no-pauses", action="store_true",
                        help="do not wait out a level's human-like pause before each decision (no human waits)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the bot does")


def build_parser(prog: str = "unonet bot play") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Play a unonet table with a bot.")
    add_play_arguments(parser)
    return parser


async def play(args: argparse.Namespace) -> int:
    """Join (or take back, or create), play until the match ends, and report. Returns the exit status."""
    spec = args.bot or args.kind or DEFAULT_BOT_KIND
    if args.exec_command and (args.bot or args.kind):
        print("give a bot or --exec CMD, not both", file=sys.stderr)
        return 2
    if not args.table and not args.create:
        print(f"give --table ID (or ${ENV_TABLE}) or --create PRESET", file=sys.stderr)
        return 2
    if args.token and args.seat is None:
        print("--token needs --seat", file=sys.stderr)
        return 2
    if args.exec_command:
        bot: Bot = ExecBot(shlex.split(args.exec_command))
    else:
        try:
            bot = load_bot(spec, args.seed)
        except BadBotSpec as error:
            print(error, file=sys.stderr)
            return 2
    runner = BotRunner(bot, reaction_delay=args.reaction_delay, ping_interval=args.ping_interval or None,
                       verify=not args.no_verify, pauses=not args.no_pauses, human_pace=args.human_pace)
    if isinstance(bot, ExecBot):
        await bot.start()
    try:
        return await _play_at_table(args, runner, spec)
    finally:
        if isinstance(bot, ExecBot):
            await bot.close()
        if args.stats:
            write_stats(args.stats, runner)


def write_stats(path: str, runner: BotRunner) -> None:
    """`--stats`: the bot's figures and the runner's counts as one JSON object, written whole (a reader
    never sees half of it)."""
    data = {"bot": runner.bot.stats(), "runner": {
        "decisions": runner.decisions, "commands_sent": runner.commands_sent, "refusals": runner.refusals,
        "view_reads": runner.view_reads, "faults": [fault.kind.value for fault in runner.faults],
        "decision_seconds": [round(seconds, 6) for seconds in runner.decision_seconds]}}
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as out:
        json.dump(data, out)
    os.replace(partial, path)


async def _play_at_table(args: argparse.Namespace, runner: BotRunner, spec: str) -> int:
    async with await TableClient.connect(args.address, timeout=args.timeout, connect_timeout=args.timeout) as client:
        table_id = args.table
        if args.create:
            created = await client.create_table(args.create, {"target_score": args.target_score}, args.seats)
            table_id = created.table_id
            print(f"table {table_id}", flush=True)
        if args.token:
            client.attach(table_id, args.token, args.seat)
            seat = args.seat
        else:
            name = args.name or ("exec" if args.exec_command else spec.split(":")[0].rsplit(".", 1)[-1]) + "-bot"
            joined = await client.join(table_id, name[:32], seat=args.seat)
            seat = joined.seat
            print(f"seat {seat} at {table_id}; token {joined.token}", flush=True)
        if args.create and args.fill:
            await client.add_bots(0, args.fill, table_id=table_id)
        ended = await runner.run(client, table_id, seat)
    faults = runner.faults + (runner.bot.dropped_faults if isinstance(runner.bot, ExecBot) else [])
    if faults:
        kinds = Counter(fault.kind.value for fault in faults)
        print(f"{len(faults)} bot faults (each logged above): "
              + ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items())), file=sys.stderr)
    if ended is None:
        print(f"seat {seat} can no longer act" + (f": {runner.lost}" if runner.lost else ""), flush=True)
        return 1
    scores = ", ".join(f"seat {s.seat}: {s.total}" for s in ended.scores)
    winners = ", ".join(str(s) for s in ended.winner_seats)
    print(f"match over; winners: {winners}" + (f"; {scores}" if scores else ""), flush=True)
    return 0


def run_play(args: argparse.Namespace) -> int:
    """Run `play` with logging set up and refusals turned into exit status 2."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    try:
        return asyncio.run(play(args))
    except UnonetError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def main(argv: Sequence[str] | None = None, prog: str = "unonet bot play") -> int:
    return run_play(build_parser(prog).parse_args(argv))
