"""`unonet league run LEAGUE.toml [--inprocess] [--scheduler tcp://ADDR] [--json] [--csv F] [--plot F.png]`.

Exit status: 0 when the league is complete, 2 for a league file, bot or database that cannot be used
(the message says why; nothing is played), 130 when interrupted (what was recorded stays recorded: run
the same command again to resume).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    """Add `league` (with its `run` subcommand) to the `unonet` command's subparsers."""
    league = commands.add_parser("league", help="bot-vs-bot leagues: ratings, duplicate deals, crash-safe results")
    sub = league.add_subparsers(dest="league_command", required=True)
    run = sub.add_parser("run", help="play a league file's games not recorded yet, then print the leaderboard")
    run.add_argument("file", help="the league file (TOML; see docs/leagues.md)")
    run.add_argument("--inprocess", action="store_true",
                     help="play trusted Python bots straight on the engine (no host); with --scheduler, on the workers")
    run.add_argument("--scheduler", metavar="tcp://ADDR",
                     help="play batches of games on the Dask cluster whose scheduler is at ADDR")
    run.add_argument("--db", help="the results database (default: the file's league.db, else LEAGUE.sqlite)")
    run.add_argument("--games", type=int, help="play at least this many games instead of the file's league.games")
    run.add_argument("--batch", type=int, default=8, help="games per Dask task (with --scheduler; default 8)")
    run.add_argument("--json", action="store_true", help="print the standings as one JSON object (last line)")
    run.add_argument("--csv", metavar="F", help="write the leaderboard to F as CSV")
    run.add_argument("--plot", metavar="F.png", help="write a PNG of each bot's rating over the games to F.png")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import dataclasses

    from rich.console import Console

    from unonet.league import report
    from unonet.league.config import LeagueFileError, load
    from unonet.league.entrants import EntrantError
    from unonet.league.progress import LeagueProgress
    from unonet.league.results import Results, ResultsMismatch
    from unonet.league.runner import Player, play_inprocess, run_league
    from unonet.league.standings import standings

    try:
        config = load(args.file)
        if args.db:
            config = dataclasses.replace(config, db=Path(args.db))
        if args.games is not None:
            if args.games < 1:
                raise LeagueFileError("--games must be positive")
            config = dataclasses.replace(config, games=args.games)
        player: Player
        if args.scheduler:
            from unonet.league.cluster import dask_player

            if args.batch < 1:
                raise LeagueFileError("--batch must be positive")
            player = dask_player(args.scheduler, batch=args.batch, inprocess=args.inprocess)
        elif args.inprocess:
            player = play_inprocess
        else:
            from unonet.league.network import play_networked

            player = play_networked
        err = Console(stderr=True)
        with LeagueProgress(err, enabled=not args.no_progress and not args.json and err.is_terminal) as bar:
            run_league(config, player, on_start=bar.start, on_game=bar.advance)
    except (LeagueFileError, EntrantError, ResultsMismatch) as error:
        print(f"unonet league: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("unonet league: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    with Results(config.db, config.fingerprint()) as db:
        results = db.games()
    names = [spec.name for spec in config.bots]
    if args.csv:
        report.write_csv(Path(args.csv), standings(results, names))
    if args.plot:
        report.plot_ratings(Path(args.plot), config, results)
    if args.json:
        print(report.dumps(report.summary(config, results)))
    else:
        report.leaderboard(config, results, Console())
    return 0
