"""`unonet league run LEAGUE.toml [--inprocess] [--scheduler tcp://ADDR] [--json] [--csv F] [--plot F.png]`
and `unonet league sprt A B [--elo0 E0] [--elo1 E1] [--independent] [--db F] [--json]`.

`run`'s exit status: 0 when the league is complete, 2 for a league file, bot or database that cannot be used
(the message says why; nothing is played), 130 when interrupted (what was recorded stays recorded: run
the same command again to resume). `sprt`'s: 0 for H1 (A is better by elo1), 1 for H0, 3 when the game
limit came first, 2 and 130 as for `run`.
"""

from __future__ import annotations

import argparse
import os
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
    sprt = sub.add_parser("sprt", help="a heads-up GSPRT between two bots: play until H0 or H1 is accepted")
    sprt.add_argument("first", metavar="A", help="a bot kind (greedy, greedy:2) or module:Class")
    sprt.add_argument("second", metavar="B", help="the bot A is measured against")
    sprt.add_argument("--elo0", type=float, default=0.0, help="H0's normalized Elo difference (default 0)")
    sprt.add_argument("--elo1", type=float, default=5.0, help="H1's normalized Elo difference (default 5)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    sprt.add_argument("--independent", action="store_true",
                      help="a fresh deal for every game, scored alone, instead of duplicate pairs")
    sprt.add_argument("--preset", default="standard", help="the ruleset preset (default standard)")
    sprt.add_argument("--seed", type=int, default=0, help="the deals' seed (default 0)")
    sprt.add_argument("--max-games", type=int, default=20_000, help="stop undecided after this many games")
    sprt.add_argument("--db", help="the results database (default: sprt-A-B.sqlite); rerun to resume")
    sprt.add_argument("--json", action="store_true", help="print the outcome as one JSON object (last line)")
    sprt.set_defaults(func=_sprt)


def _run(args: argparse.Namespace) -> int:
    import dataclasses

    from rich.console import Console

    from unonet.league import logs, report
    from unonet.league.config import LeagueFileError, load
    from unonet.league.entrants import EntrantError
    from unonet.league.failures import InfrastructureError
    from unonet.league.progress import LeagueProgress
    from unonet.league.results import Results, ResultsMismatch
    from unonet.league.runner import Player, check_entrants, play_inprocess, run_league
    from unonet.league.standings import standings

    # gRPC's C core writes INFO lines (a GOAWAY when a seats process dies) to stderr, over the bar and the
    # league's own lines: errors only, unless the user asked for more.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    logs.install(fmt="league %(levelname)s %(message)s")
    try:
        config = load(args.file)
        if args.db:
            config = dataclasses.replace(config, db=Path(args.db))
        if args.games is not None:
            if args.games < 1:
                raise LeagueFileError("--games must be positive")
            config = dataclasses.replace(config, games=args.games)
        if args.inprocess:
            check_entrants(config)  # an exec or launch program is refused here, before anything is opened
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
    except InfrastructureError as error:
        print(f"unonet league: {error}", file=sys.stderr)
        return 1
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


def _sprt(args: argparse.Namespace) -> int:
    import json

    from rich.console import Console
    from rich.progress import Progress, TextColumn, TimeElapsedColumn

    from unonet.league.config import LeagueFileError
    from unonet.league.entrants import EntrantError
    from unonet.league.results import ResultsMismatch
    from unonet.league.sprt import Decision, Sprt
    from unonet.league.sprt_run import run_sprt, sprt_config

    db = Path(args.db or f"sprt-{args.first}-{args.second}.sqlite".replace(":", "_"))
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
        if args.max_games < 2:
            raise LeagueFileError("--max-games must be at least 2")
        config = sprt_config(args.first, args.second, db=db, seed=args.seed, preset=args.preset,
                             duplicate=not args.independent, max_games=args.max_games)
        err = Console(stderr=True)
        bar = Progress(TextColumn("[bold]sprt[/] {task.fields[games]} games  LLR {task.fields[llr]:+.2f} "
                                  f"[{test.lower:+.2f}, {test.upper:+.2f}]"), TimeElapsedColumn(), console=err)
        enabled = not args.json and err.is_terminal
        task = bar.add_task("sprt", games=0, llr=0.0)
        if enabled:
            bar.start()
        try:
            outcome = run_sprt(config, test, on_cycle=lambda games, llr: bar.update(task, games=games, llr=llr))
        finally:
            if enabled:
                bar.stop()
    except (ValueError, EntrantError, ResultsMismatch) as error:
        print(f"unonet league sprt: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("unonet league sprt: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    first, second = (spec.name for spec in config.bots)
    scoring = "trinomial (independent games)" if args.independent else "pentanomial (duplicate pairs)"
    if args.json:
        print(json.dumps({"first": first, "second": second, "decision": outcome.decision.value,
                          "games": outcome.games, "llr": round(outcome.llr, 4), "counts": list(outcome.counts),
                          "scoring": scoring, "elo0": args.elo0, "elo1": args.elo1,
                          "bounds": [round(test.lower, 4), round(test.upper, 4)]}))
    else:
        said = {Decision.H1: f"H1: {first} is better than {second} by at least {args.elo1:g} normalized Elo",
                Decision.H0: f"H0: {first} is not better than {second} by {args.elo1:g} normalized Elo",
                Decision.CONTINUE: "undecided: the game limit came first"}[outcome.decision]
        print(f"{said}, after {outcome.games} games (LLR {outcome.llr:+.3f}, bounds {test.lower:+.3f} / "
              f"{test.upper:+.3f}; {scoring} {list(outcome.counts)})")
    return {Decision.H1: 0, Decision.H0: 1, Decision.CONTINUE: 3}[outcome.decision]
