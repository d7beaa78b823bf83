"""Run one bot at a table: ``python -m unonet.bots --address HOST:PORT --table ID [--seat N] [--kind random]``.

It joins the table (or, with ``--token``, takes back a seat it already holds), plays until the match
ends, prints the result, and exits 0 (1 when the seat could no longer act, 2 on a refusal).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence

from unonet.bots import DEFAULT_BOT_KIND, BotRunner, make_bot
from unonet.bots.kinds import UnknownBotKind, public_names
from unonet.client import TableClient, UnonetError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m unonet.bots", description="Play a unonet table with a bot.")
    parser.add_argument("--address", default="127.0.0.1:50051", help="the host, HOST:PORT (default %(default)s)")
    parser.add_argument("--table", required=True, help="the table id")
    parser.add_argument("--seat", type=int, default=None, help="the seat to take (default: the lowest empty one)")
    parser.add_argument("--kind", default=DEFAULT_BOT_KIND, metavar="KIND[:LEVEL]",
                        help=f"the kind of bot: {', '.join(public_names())} (default %(default)s)")
    parser.add_argument("--name", default=None, help="the display name (default: the kind, e.g. 'random-bot')")
    parser.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    parser.add_argument("--token", default=os.environ.get("UNONET_TOKEN"),
                        help="a seat token already held (needs --seat): reconnect (default: $UNONET_TOKEN)")
    parser.add_argument("--reaction-delay", type=float, default=0.3, help="seconds before optional reactions")
    parser.add_argument("--ping-interval", type=float, default=1.0, help="seconds between pings; 0 for none")
    parser.add_argument("--timeout", type=float, default=10.0, help="the deadline of every call, in seconds")
    parser.add_argument("--no-verify", action="store_true", help="do not check the host's fairness from the events")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the bot does")
    return parser


async def play(args: argparse.Namespace) -> int:
    """Join (or re-attach), play until the match ends, and report. Returns the exit status."""
    try:
        bot = make_bot(args.kind, args.seed, public_only=True)
    except UnknownBotKind as error:
        print(error, file=sys.stderr)
        return 2
    runner = BotRunner(
        bot,
        reaction_delay=args.reaction_delay,
        ping_interval=args.ping_interval or None,
        verify=not args.no_verify,
    )
    async with await TableClient.connect(args.address, timeout=args.timeout, connect_timeout=args.timeout) as client:
        if args.token:
            if args.seat is None:
                print("--token needs --seat", file=sys.stderr)
                return 2
            client.attach(args.table, args.token, args.seat)
            seat = args.seat
        else:
            joined = await client.join(args.table, args.name or f"{args.kind}-bot", seat=args.seat)
            seat = joined.seat
            print(f"seat {seat} at {args.table}; token {joined.token}", flush=True)
        ended = await runner.run(client, args.table, seat)
    if ended is None:
        print(f"seat {seat} can no longer act", flush=True)
        return 1
    scores = ", ".join(f"seat {s.seat}: {s.total}" for s in ended.scores)
    winners = ", ".join(str(seat) for seat in ended.winner_seats)
    print(f"match over; winners: {winners}" + (f"; {scores}" if scores else ""), flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    try:
        return asyncio.run(play(args))
    except UnonetError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
