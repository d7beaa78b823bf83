"""The `unonet` command: one argparse tree whose subcommands each hand off to the module that owns them.

`rules check` (scenarios), `serve` (the host), `host` (lan), `local` (what `make play` runs), `demo`,
`play` (the terminal client), `verify`, `replay`, `export` (the audit and the replay screen), `league`
(its own parser, `unonet.league.cli`) and `bot play` / `bot check`. A handler imports the module it
hands off to inside its body.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unonet.client.replay import PointOfView, Replay
    from unonet.lan import HostedSeat


def _rules_check(args: argparse.Namespace) -> int:
    """Run scenario files. Exit 0 when all pass, 1 when some scenario fails a rule, 2 when some file
    cannot be run as written (a scenario error) or none was found: a broken file is never a rules verdict."""
    from unonet.scenarios import run_file, scenario_files

    files = scenario_files(args.paths)
    if not files:
        print("no scenario files found", file=sys.stderr)
        return 2
    results = [run_file(path) for path in files]
    for result in results:
        if not result.passed or args.verbose:
            print(result.report())
    counts = {status: sum(result.status == status for result in results) for status in ("pass", "fail", "error")}
    errors = f"{counts['error']} scenario error" + ("" if counts["error"] == 1 else "s")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {errors}")
    return 2 if counts["error"] else 1 if counts["fail"] else 0


def _check_db(path: str) -> int:
    """`unonet serve --check-db`: every stored table replayed and reported, nothing served. Exit 0 when
    every table is sound, 1 when some table is damaged (it would be quarantined), 2 with no database."""
    from unonet.host.host import Host
    from unonet.host.integrity import summary
    from unonet.host.store import SqliteStore

    if not os.path.exists(path):
        print(f"no database at {path}", file=sys.stderr)
        return 2
    store = SqliteStore(path)
    try:
        reports = Host(store).check_tables()
    finally:
        store.close()
    for report in reports:
        print(report.line())
    print(summary(reports))
    return 1 if any(report.is_damaged for report in reports) else 0


def _serve(args: argparse.Namespace) -> int:
    import logging

    if args.check_db:
        return _check_db(args.db)

    from unonet.host.event_loop import runner
    from unonet.host.limits import Limits
    from unonet.host.pace import Pace
    from unonet.host.server import serve

    limits = Limits(max_tables=args.max_tables, max_subscribers=args.max_subscribers,
                    commands_per_s_token=args.commands_per_second, commands_per_s_peer=args.peer_commands_per_second,
                    joins_per_s_peer=args.joins_per_second)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with runner(args.event_loop) as loop:
        loop.run(serve(args.listen, args.db, tls_cert=args.tls_cert, tls_key=args.tls_key,
                       pace=Pace.from_bot_delay(args.bot_delay), fair_shuffle=args.fair_shuffle,
                       keep_finished_s=args.keep_finished,
                       commit_interval_s=None if args.commit_interval is None else args.commit_interval / 1e3,
                       batch_helper_threads=args.helper_threads == "batch",
                       announce_as=_announce_name(args), limits=limits, synchronous=args.synchronous.upper(),
                       accept_lost_marks=args.accept_lost_marks))
    return 0


def _bot_delay_flag(parser: argparse.ArgumentParser) -> None:
    """`--bot-delay`, the pace of host bots at a table with a person (unonet.host.pace; docs/bots.md)."""
    from unonet.host.pace import DEFAULT_BOT_DELAY_S

    parser.add_argument("--bot-delay", type=float, default=DEFAULT_BOT_DELAY_S, metavar="SECONDS",
                        help="at a table with a person, the seconds a host bot waits before its move (its level's "
                             "pause comes on top) and, when above 0, races answered at a human reaction time; 0 "
                             "makes bots instant. Tables of bots only never wait (default %(default)g)")


def _limit_flags(serve: argparse.ArgumentParser) -> None:
    """`unonet serve`'s limits on load (unonet.host.limits; docs/protocol.md, "Limits"); 0 is no limit."""
    from unonet.host import limits

    serve.add_argument("--max-tables", type=int, default=limits.DEFAULT_MAX_TABLES, metavar="N",
                       help="tables not finished at once; CreateTable beyond is TOO_MANY_TABLES (default %(default)s)")
    serve.add_argument("--max-subscribers", type=int, default=limits.DEFAULT_MAX_SUBSCRIBERS, metavar="N",
                       help="event streams open on one table; more is TOO_MANY_SUBSCRIBERS (default %(default)s)")
    serve.add_argument("--commands-per-second", type=float, default=limits.DEFAULT_COMMANDS_PER_S_TOKEN,
                       metavar="RATE", help="commands (and chat) per second from one token, twice that in a "
                                            "burst; beyond is RATE_LIMITED (default %(default)g)")
    serve.add_argument("--peer-commands-per-second", type=float, default=limits.DEFAULT_COMMANDS_PER_S_PEER,
                       metavar="RATE", help="commands per second from one IP address, all its tokens together "
                                            "(default %(default)g)")
    serve.add_argument("--joins-per-second", type=float, default=limits.DEFAULT_JOINS_PER_S_PEER, metavar="RATE",
                       help="JoinTable and CreateTable calls per second from one IP address (default %(default)g)")


def _announce_name(args: argparse.Namespace) -> str | None:
    """The name `serve` announces on the LAN: --name, else the machine's name; None without --announce."""
    if not args.announce:
        return None
    return str(args.name or _machine_name())


def _host(args: argparse.Namespace) -> int:
    """`unonet host`: exit 0 after Ctrl-C, 2 when the address cannot be used or the table is refused."""
    import asyncio

    from unonet.client.errors import UnonetError
    from unonet.lan import LanOptions, run_lan_host

    open_seat, log = _game_screen_for_hosted_seat()
    options = LanOptions(listen=args.listen, name=args.name or _machine_name(), player_name=args.player,
                         seat_count=args.seats, bots=args.bots, preset=args.preset, target_score=args.target_score,
                         db=args.db, bot_delay_s=args.bot_delay, worker_log=log)
    try:
        asyncio.run(run_lan_host(options, out=sys.stdout, open_seat=open_seat))
    except (ValueError, OSError, UnonetError) as error:
        print(f"unonet host: {error}", file=sys.stderr)
        return 2
    return 0


def _game_screen_for_hosted_seat() -> tuple[Callable[[HostedSeat], Awaitable[object]] | None, Path | None]:
    """In a terminal, `unonet host` opens the game screen on the user's seat (the address friends dial
    stays on it), and logs to a file instead of the screen: returned with it, for the host's bot workers
    to write to as well. Without one (a service, a test), it hosts until Ctrl-C, logging as before:
    (None, None)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None, None
    from unonet.client.tui.config import player_settings
    from unonet.client.tui.play import calm_garbage_collector, log_to_file, play_token

    log = log_to_file()
    calm_garbage_collector()
    settings = player_settings(name=None, colour_blind=None, bell=None, pace=None, default_name="you")

    from unonet.lan import quit_warning

    async def open_seat(seat: HostedSeat) -> None:
        await play_token(seat.local_address, seat.table_id, seat.token, seat.seat, owner_token=seat.owner_token,
                         notice=f"friends join with: unonet play {seat.address} · S starts with bots",
                         quit_warning=quit_warning(seat), **settings.session_args())

    return open_seat, log


def _machine_name() -> str:
    import socket

    return socket.gethostname().split(".")[0] or "unonet"


def _demo(args: argparse.Namespace) -> int:
    from unonet.demo import main as demo_main

    return demo_main(args.players, args.preset, args.target_score)


def _quiet_grpc() -> None:
    """gRPC's C core writes its INFO lines to stderr: a GOAWAY when a host restarts, over a full screen;
    "skipping fork() handlers" each time a host starts a bot worker, through a console host's log. Ask
    it for errors only, unless the user asked for more (GRPC_VERBOSITY set): before grpc loads, as it
    reads the setting then (set later, in a command's handler, it was too late for every command, since
    building the parser loads grpc)."""
    import os

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")


def _play(args: argparse.Namespace) -> int:
    from unonet.client.tui.command import main as play_main

    return play_main(args.address, table_id=args.table, name=args.name, seat=args.seat, watch=args.watch,
                     tls=args.tls, colour_blind=args.colour_blind, bell=args.bell, pace=args.pace,
                     default_name=_default_name())


def _local(args: argparse.Namespace) -> int:
    from unonet.client.tui.config import player_settings
    from unonet.local import main as local_main

    settings = player_settings(name=args.name, colour_blind=args.colour_blind, bell=args.bell, pace=args.pace,
                               default_name=_default_name())
    return local_main(name=settings.name, players=args.players, preset=args.preset, target_score=args.target_score,
                      bot_delay=args.bot_delay, turn_time=args.turn_time, db=args.db, port=args.port,
                      colour_blind=settings.screen.colour_blind, bots=args.bots, resume=args.resume,
                      session_args=settings.session_args())


def _verify(args: argparse.Namespace) -> int:
    """`unonet verify`: 0 PASSED, 1 FAILED, 2 bad usage or an unreadable log, 3 not provably fair."""
    from unonet.client.audit import RevealClaim, audit_status, read_log
    from unonet.client.logchain import parse_head

    if bool(args.db) == bool(args.log) or (args.db and not args.table_id):
        print("give a LOG file, or --db FILE with --table-id ID", file=sys.stderr)
        return 2
    try:
        heads = [parse_head(head) for head in args.expect_head]
        reveals = [RevealClaim.parse(claim) for claim in args.reveal]
    except ValueError as error:
        print(f"--expect-head / --reveal: {error}", file=sys.stderr)
        return 2
    if args.db:
        events = _stored_events(args.db, args.table_id)
        table_id = args.table_id
    else:
        try:
            with open(args.log, "rb") as stream:
                table_id, events = read_log(stream, args.table_id)
        except (OSError, ValueError) as error:
            print(f"cannot read {args.log}: {error}", file=sys.stderr)
            return 2
    replay = functools.partial(_replayed, league_seed=_league_seed(args.db, args.log, table_id))
    return audit_status(table_id, events, sys.stdout, heads, reveals, [replay] if args.replay else [])


def _league_seed(db: str | None, log: str | None, table_id: str) -> int | None:
    """A league game's seed, for `--replay`: from the league's results database, or from the header of the
    game's exported log (`unonet export --game`); None for anything else."""
    import json

    from unonet.league.results import Results, is_league_db

    if db:
        if not is_league_db(db):
            return None
        with Results(db) as results:
            game = results.game(table_id)
        return None if game is None else game.seed
    try:
        with open(str(log), "rb") as stream:
            first = stream.readline()
        seed = json.loads(first).get("league_seed") if first.startswith(b"{") else None
    except (OSError, ValueError, AttributeError):
        return None
    return int(seed) if isinstance(seed, str) and seed.isdigit() else None


def _replayed(table_id: str, events: list[Any], league_seed: int | None = None) -> str:
    """`--replay`: the log through the engine (unonet.verify_replay); raises ReplayMismatch. A league-seeded
    log replays from its league seed (checked against the log's commitment to it)."""
    from unonet.verify_replay import ReplayMismatch, replay_league_log, replay_log

    started = next((e for e in events if e.HasField("match_started")), None)
    if started is not None and started.match_started.settings.league_seeded:
        import hashlib

        if league_seed is None:
            raise ReplayMismatch("a league-seeded log replays from its league seed: verify it from the league's "
                                 "database (--db LEAGUE.sqlite) or from `unonet export --game`'s log",
                                 number=started.number)
        if hashlib.sha256(league_seed.to_bytes(8, "big")).digest() != started.match_started.settings.league_seed_sha256:
            raise ReplayMismatch(f"the seed {league_seed} is not the one the log commits to (league_seed_sha256)",
                                 number=started.number)
        report, _ = replay_league_log(table_id, events, league_seed)
        how = "from its league seed, checked against the log's league_seed_sha256"
    else:
        report = replay_log(table_id, events)
        how = "from the revealed decks"
    return (f"replayed through the engine {how}: {report.inputs} inputs over {report.rounds} round(s) give all "
            f"{report.events} of the log's game events, every draw, penalty and score included")


def _replay(args: argparse.Namespace) -> int:
    """`unonet replay`: exit 0 with the step printed, 1 for a log that fails its audit, 2 for bad usage."""
    from unonet.client.replay import OPEN, Replay, ReplayRefused, render_text

    if bool(args.db) == bool(args.log):
        print("give a LOG file, or --db FILE (with --table-id ID, or pick a table from its list)", file=sys.stderr)
        return 2
    if args.db and not os.path.isfile(args.db):
        print(f"no database at {args.db}", file=sys.stderr)  # opening it would create an empty one
        return 2
    if args.db and not args.table_id:
        args.table_id = _pick_table(args.db, "replay")
        if args.table_id is None:
            return 2
    try:
        if args.db:
            replay = _league_replay(args.db, args.table_id) or Replay(args.table_id,
                                                                      _stored_events(args.db, args.table_id))
        else:
            with open(args.log, "rb") as stream:
                replay = Replay.from_log(stream, args.table_id)
        pov: PointOfView = OPEN if args.open else args.seat
        snapshots = replay.snapshots(pov)
    except OSError as error:
        print(f"cannot read {args.log}: {error}", file=sys.stderr)
        return 2
    except ReplayRefused as error:
        print(f"unonet replay: refused: {error}", file=sys.stderr)
        return 2 if error.reason in ("MALFORMED_LOG", "EMPTY_LOG", "UNKNOWN_SEAT") else 1
    if args.step is None and sys.stdin.isatty() and sys.stdout.isatty():
        return _replay_on_screen(replay, pov)
    step = len(snapshots) if args.step is None else args.step
    if not 1 <= step <= len(snapshots):
        print(f"--step {step} is outside 1..{len(snapshots)}", file=sys.stderr)
        return 2
    print(render_text(replay, pov, snapshots[step - 1]), end="")
    return 0


def _league_replay(db: str, game_id: str) -> Replay | None:
    """A league game with every hand (`unonet.league.hands`), or None: not a league database, no such
    game, or hands that cannot be rebuilt (said on stderr: the public view is shown instead)."""
    from unonet.league.hands import HandsUnavailable, league_replay
    from unonet.league.results import is_league_db

    if not is_league_db(db):
        return None
    try:
        return league_replay(db, game_id)
    except HandsUnavailable as error:
        print(f"unonet replay: the hands cannot be shown ({error}); the public view only", file=sys.stderr)
        return None


def _replay_on_screen(replay: Replay, pov: PointOfView) -> int:
    """In a terminal, without --step, `unonet replay` steps through the game on the game screen (V
    switches the point of view there)."""
    import asyncio

    from unonet.client.tui.replay_screen import ReplayScreen

    asyncio.run(ReplayScreen(replay, pov).run())
    return 0


def _stored_events(db: str, table_id: str) -> list[Any]:
    """A table's public events from a host's SQLite file, oldest first (or a game's, from a league's)."""
    from unonet.host.store import SqliteStore
    from unonet.league.results import is_league_db, stored_events
    from unonet.v1 import events_pb2

    if is_league_db(db):
        return stored_events(db, table_id)

    store = SqliteStore(db)
    try:
        return [events_pb2.Event.FromString(blob) for _, blob in store.public_events(table_id)]
    finally:
        store.close()


def _bot_play(args: argparse.Namespace) -> int:
    from unonet.bots.cli import run_play

    return run_play(args)


def _bot_check(args: argparse.Namespace) -> int:
    from unonet.botcheck import main as check_main

    return check_main(args.bot, args.exec_command, seed=args.seed, timeout=args.timeout)


def _pick_table(db: str, command: str) -> str | None:
    """`--db` without a table: list the database's tables and let the person pick one (in a terminal);
    otherwise print the list on stderr and ask for the table by id. None when nothing was picked."""
    from unonet.league.results import is_league_db
    from unonet.stored_tables import describe, pick, stored_tables

    flag = "--table-id" if command == "replay" else "--table"
    if is_league_db(db):
        print(f"{db} is a league's database: give {flag} GAME (`unonet league` lists its games)", file=sys.stderr)
        return None
    rows = stored_tables(db)
    if sys.stdin.isatty() and sys.stderr.isatty():
        return pick(rows, sys.stdin, sys.stderr)
    print(describe(rows) + f"give one of these with {flag} ID", file=sys.stderr)
    return None


def _export(args: argparse.Namespace) -> int:
    """`unonet export`: one table's (or league game's) public log as JSON lines on stdout, or with `--all
    DIR` every one into DIR/ID.jsonl; with neither, a host database's tables are listed to pick from. A
    league game's log carries its seed in the header (`league_seed`), from which `unonet verify --replay`
    replays it. Exit 0, 1 for no such table or game, 2 for bad usage."""
    from unonet.client.audit import write_jsonl
    from unonet.league.results import is_league_db

    one = args.table or args.game
    if one and args.all:
        print("give --table ID (or --game ID), or --all DIR, not both", file=sys.stderr)
        return 2
    if not os.path.isfile(args.db):
        print(f"no database at {args.db}", file=sys.stderr)  # opening it would create an empty one
        return 2
    if not one and not args.all:
        one = _pick_table(args.db, "export")
        if one is None:
            return 2
    logs = _league_logs(args.db) if is_league_db(args.db) else _host_logs(args.db)
    if one:
        found = logs.get(one)
        if found is None:
            kind = "game" if is_league_db(args.db) else "table"
            print(f"no {kind} {one!r} in {args.db}", file=sys.stderr)
            return 1
        events, extra = found()
        write_jsonl(sys.stdout, one, events, extra)
        return 0
    folder = Path(args.all)
    folder.mkdir(parents=True, exist_ok=True)
    for table_id, read in logs.items():
        events, extra = read()
        with (folder / f"{table_id}.jsonl").open("w", encoding="utf-8") as out:
            write_jsonl(out, table_id, events, extra)
    print(f"wrote {len(logs)} logs to {folder}", file=sys.stderr)
    return 0


_Log = Callable[[], tuple[list[Any], dict[str, str]]]


def _league_logs(db: str) -> dict[str, _Log]:
    """Each recorded league game's log (by game id), with its seed for the header."""
    from unonet.league.results import Results, decode_log
    from unonet.v1 import events_pb2

    def read(game_id: str) -> tuple[list[Any], dict[str, str]]:
        with Results(db) as results:
            game = results.game(game_id)
        assert game is not None
        return [events_pb2.Event.FromString(blob) for blob in decode_log(game.log)], {"league_seed": str(game.seed)}

    with Results(db) as results:
        ids = results.game_ids()
    return {game_id: functools.partial(read, game_id) for game_id in ids}


def _host_logs(db: str) -> dict[str, _Log]:
    """Each table's public log in a host's SQLite file (by table id); tables without events are left out."""
    from unonet.host.store import SqliteStore
    from unonet.v1 import events_pb2

    def read(table_id: str) -> tuple[list[Any], dict[str, str]]:
        store = SqliteStore(db)
        try:
            return [events_pb2.Event.FromString(blob) for _, blob in store.public_events(table_id)], {}
        finally:
            store.close()

    store = SqliteStore(db)
    try:
        ids = [table.table_id for table in store.tables() if next(iter(store.public_events(table.table_id)), None)]
    finally:
        store.close()
    return {table_id: functools.partial(read, table_id) for table_id in ids}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="unonet", description="UNO over the network.")
    commands = parser.add_subparsers(dest="command", required=True)
    rules = commands.add_parser("rules", help="the rules engine").add_subparsers(dest="rules_command", required=True)
    check = rules.add_parser(
        "check", help="run scenario files and report each pass or failure",
        epilog="exit status: 0 all passed; 1 some scenario failed a rule; 2 some file could not be run "
               "(a scenario error: its report says ERROR) or no file was found",
    )
    check.add_argument("paths", nargs="+", help="scenario files or folders of them (.toml or .json)")
    check.add_argument("-v", "--verbose", action="store_true", help="also list the scenarios that pass")
    check.set_defaults(func=_rules_check)
    from unonet.host.event_loop import EVENT_LOOPS, default_event_loop  # light: no grpc, no engine

    serve = commands.add_parser("serve", help="run a host")
    serve.add_argument("--listen", default="127.0.0.1:50051", help="address to bind (0.0.0.0:PORT for a LAN)")
    serve.add_argument("--db", default="unonet.db", help="SQLite file holding every table (created if missing)")
    serve.add_argument("--tls-cert", help="PEM certificate chain: serve TLS instead of plaintext")
    serve.add_argument("--tls-key", help="PEM private key for --tls-cert")
    _bot_delay_flag(serve)
    serve.add_argument("--no-fair-shuffle", dest="fair_shuffle", action="store_false",
                       help="new tables deal with a plain seeded shuffle: no commit-reveal, no card commitments "
                            "(unverifiable; for measuring their cost)")
    serve.add_argument("--keep-finished", type=float, default=60.0, metavar="SECONDS",
                       help="how long a finished table nobody watches stays in memory before it is archived "
                            "(still answerable: it is loaded back from its journal when named)")
    serve.add_argument("--commit-interval", type=_commit_interval_ms, metavar="MS",
                       help="a fixed least time between two group commits: more gathers more inputs per commit "
                            "and more replies per write, for at most that much more latency (default: paced by "
                            "load, none while the host is idle and up to 15 ms while it is busy: commit_pacing.py)")
    serve.add_argument("--helper-threads", choices=["batch", "default"], default="batch",
                       help="the scheduling policy of gRPC's helper threads on Linux: batch (the default) keeps "
                            "them from preempting the thread that runs the host's Python, which serves about "
                            "10%% more commands per core; default leaves them as started")
    serve.add_argument("--event-loop", choices=EVENT_LOOPS, default=default_event_loop(),
                       help="the event loop the host runs on: uvloop (the default where installed) runs the "
                            "loop's own work in C, about 9%% less CPU per command than asyncio's loop "
                            "(unonet.host.event_loop)")
    serve.add_argument("--announce", action="store_true",
                       help="announce the host on the LAN over zeroconf (mDNS service _unonet._tcp.local.), so "
                            "`unonet play` lists it")
    serve.add_argument("--name", help="the name the LAN sees with --announce (default: this machine's name)")
    _limit_flags(serve)
    serve.add_argument("--synchronous", choices=["full", "normal"], default="full",
                       help="what an acknowledged command survives: full (the default) fsyncs each group commit, "
                            "so also a power loss; normal survives a kill of the host but may lose the last "
                            "commits to a power loss (bench/durability.py measures the difference)")
    serve.add_argument("--accept-lost-marks", action="store_true",
                       help="serve the tables the host quarantined because their sent marks were lost (the "
                            "database was copied or restored without its .sent file), knowing that their next "
                            "events may take numbers clients already saw with other events (docs/protocol.md)")
    serve.add_argument("--check-db", action="store_true",
                       help="do not serve: replay every table stored in --db and report its state (exit 1 if "
                            "some table is damaged: a serving host quarantines it as TABLE_DAMAGED)")
    serve.set_defaults(func=_serve)
    lan = commands.add_parser(
        "host", help="host a game on the LAN: a host in this process, announced, and a seat for you at a new table")
    lan.add_argument("--listen", default="0.0.0.0:50051",
                     help="address to bind (default every interface, announced with this machine's LAN address)")
    lan.add_argument("--name", help="the name the LAN sees (default: this machine's name)")
    lan.add_argument("--player", default="you", help="your name at the table")
    lan.add_argument("--seats", type=int, default=4, help="seats at the table, yours included (2 to 10)")
    lan.add_argument("--bots", type=int, default=0, help="host bots seated at once (the rest wait for friends)")
    lan.add_argument("--preset", default="standard", help="the rules preset (docs/presets.md)")
    lan.add_argument("--target-score", type=int, default=0, help="points that win the match (0: the preset's)")
    lan.add_argument("--db", help="keep the tables in this SQLite file (default: in memory, gone when it stops)")
    _bot_delay_flag(lan)
    lan.set_defaults(func=_host)
    demo = commands.add_parser("demo", help="bots play a whole match headless, narrated")
    demo.add_argument("--players", type=int, default=4)
    demo.add_argument("--preset", default="standard")
    demo.add_argument("--target-score", type=int, default=200)
    demo.set_defaults(func=_demo)
    play = commands.add_parser("play", help="play in the terminal: the lobby of a host, or a table of it")
    play.add_argument("address", nargs="?", help="the host, HOST:PORT (none: the hosts announced on the LAN)")
    play.add_argument("--tls", action="store_true", help="connect with TLS (the system's root certificates)")
    play.add_argument("--name", help="your display name (default: the config file's, else your user name)")
    play.add_argument("--table", help="go straight to this table id (rejoining your saved seat there, if any)")
    play.add_argument("--seat", type=int, help="with --table: the seat to take (default: the lowest empty one)")
    play.add_argument("--watch", action="store_true", help="with --table: watch as a spectator")
    play.add_argument("--colour-blind", "--color-blind", dest="colour_blind", action="store_true", default=None,
                      help="show each card's colour as a letter too (K toggles it on the screen)")
    _screen_flags(play)
    play.set_defaults(func=_play)
    local = commands.add_parser("local", help="play against bots on an embedded host (what `make play` runs)")
    local.add_argument("--name", help="your display name (default: the config file's, else your user name)")
    local.add_argument("--players", type=int, default=4, help="seats at the table, you included (2 to 10)")
    local.add_argument("--preset", default="standard", help="the ruleset preset (docs/presets.md)")
    local.add_argument("--target-score", type=int, default=0, help="points that win the match (0: the preset's)")
    _bot_delay_flag(local)
    local.add_argument("--turn-time", type=float, default=60.0,
                       help="seconds per turn, so a newcomer reading the help is not timed out (0: no clock)")
    local.add_argument("--db", help="keep the game in this SQLite file (default: local.db in the user's state "
                                     "directory, so an unfinished match is offered again next time)")
    local.add_argument("--bots", default="", metavar="KIND",
                       help="the bots' kind, as ListBotKinds names them (default: the strongest the host offers, "
                            "at level 2, which forgets UNO now and then)")
    again = local.add_mutually_exclusive_group()
    again.add_argument("--resume", dest="resume", action="store_const", const=True, default=None,
                       help="resume the unfinished match without asking")
    again.add_argument("--new", dest="resume", action="store_const", const=False,
                       help="start a new match without asking (bots play the unfinished one out)")
    local.add_argument("--port", type=int, default=0, help="the port on 127.0.0.1 (default: any free one)")
    local.add_argument("--colour-blind", "--color-blind", dest="colour_blind", action="store_true", default=None,
                       help="show each card's colour as a letter too")
    _screen_flags(local)
    local.set_defaults(func=_local)
    verify = commands.add_parser("verify", help="audit a finished game's public event log (docs/fairness.md)")
    verify.add_argument("log", nargs="?", help="a log from `unonet export` (JSON lines) or length-delimited events")
    verify.add_argument("--table-id", help="the table id, for a binary log (a JSON-lines log names it)")
    verify.add_argument("--db", help="audit straight from a host's SQLite file instead (with --table-id)")
    verify.add_argument("--expect-head", action="append", default=[], metavar="N:HASH",
                        help="the hash-chain head another copy of the log showed at event N (docs/fairness.md "
                        "8.2): a different one fails the audit (LOG_FORKED); may be repeated")
    verify.add_argument("--replay", action="store_true",
                        help="also replay the game through the rules engine from the revealed decks and require "
                        "every draw, penalty and score the log holds (docs/fairness.md 8.3)")
    verify.add_argument("--reveal", action="append", default=[], metavar="SEAT:ROUND:HEX",
                        help="a seat's entropy value for a round it says it revealed (its client shows it when "
                        "a reveal it sent was dealt without): checked against the seat's commitment, and fails "
                        "the audit (DROPPED_REVEAL) if the deck did not use it; may be repeated")
    verify.set_defaults(func=_verify)
    replay = commands.add_parser("replay", help="step through a finished game from any seat's point of view, "
                                                "or with every hand open (on the game screen in a terminal, "
                                                "where V switches the view; one step as text with --step)")
    replay.add_argument("log", nargs="?", help="a log from `unonet export` (JSON lines) or length-delimited events")
    replay.add_argument("--table-id", help="the table id, for a binary log or with --db")
    replay.add_argument("--db", help="read the table straight from a host's SQLite file instead (with --table-id, "
                                     "or without it to pick one from the list of its tables)")
    point = replay.add_mutually_exclusive_group()
    point.add_argument("--seat", type=int, help="what this seat saw (default: the public view)")
    point.add_argument("--open", action="store_true",
                       help="every hand open (rounds whose shuffle seed was revealed; the hands are rebuilt "
                            "from the commitments and checked)")
    replay.add_argument("--step", type=int, help="the step to show, 1 = the first event (default: the last)")
    replay.set_defaults(func=_replay)
    export = commands.add_parser("export", help="write a table's or a league game's public event log as JSON lines "
                                                "(to stdout, or every one to a folder)")
    export.add_argument("--db", required=True, help="a host's SQLite file, or a league's results database")
    export.add_argument("--table", help="the table id (without it, or --game or --all: the database's tables "
                                        "are listed to pick from)")
    export.add_argument("--game", help="the league game id (g000001; the same as --table)")
    export.add_argument("--all", metavar="DIR", help="write every table's or game's log to DIR/ID.jsonl")
    export.set_defaults(func=_export)
    _add_bot_commands(commands)
    from unonet.league.cli import add_parser as add_league_parser  # `unonet league ...`: docs/leagues.md

    add_league_parser(commands)
    return parser


def _add_bot_commands(commands: Any) -> None:
    """`unonet bot play` and `unonet bot check` (docs/bots.md)."""
    from unonet.bots.cli import add_play_arguments

    bot = commands.add_parser("bot", help="run a bot at a table, or check one").add_subparsers(
        dest="bot_command", required=True)
    play = bot.add_parser("play", help="play a table with a bot: a kind, a Bot subclass, or any program (--exec)",
                          epilog="exit status: 0 the match ended; 1 the seat could no longer act; 2 bad usage or "
                                 "a refusal")
    add_play_arguments(play)
    play.set_defaults(func=_bot_play)
    check = bot.add_parser("check", help="put a bot through every kind of decision on an embedded host",
                           epilog="exit status: 0 all well; 1 the bot got something wrong; 2 bad usage; 3 no "
                                  "mistake, but some kind of decision did not arise in the matches played")
    check.add_argument("bot", nargs="?", metavar="KIND[:LEVEL]|module:Class", help="the bot to check")
    check.add_argument("--exec", dest="exec_command", metavar="CMD", help="check a JSON-lines program instead")
    check.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    check.add_argument("--timeout", type=float, default=120.0, help="seconds each table may take")
    check.set_defaults(func=_bot_check)


def _screen_flags(parser: argparse.ArgumentParser) -> None:
    """The game screen's settings a run may override (docs/config.md: the config file keeps them)."""
    parser.add_argument("--no-bell", dest="bell", action="store_false", default=None,
                        help="no bell when your turn starts (the config file's `bell`)")
    parser.add_argument("--pace", type=float, metavar="SECONDS",
                        help="the least time between two other players' moves on screen, 0 to 3 (default: the "
                             "config file's `pace`, else 0.6)")


def _default_name() -> str:
    import getpass

    try:
        return getpass.getuser()[:32] or "player"
    except Exception:  # no user name to be had (a container without one): a plain default
        return "player"


def _commit_interval_ms(text: str) -> float:
    """--commit-interval: milliseconds, from 0 (commit every input at once) to 1000."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of milliseconds") from None
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{text} ms is outside 0..1000")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    _quiet_grpc()  # first: building the parser loads grpc (the host's limits and pace give its defaults)
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
