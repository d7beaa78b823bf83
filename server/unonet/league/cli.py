"""`unonet league run LEAGUE.toml`, `unonet league sprt A B` and `unonet league deals` (docs/leagues.md).

`run`'s exit status: 0 when the league is complete; 1 when its machinery kept failing and it could not
make progress (`failures.NoProgress`: the message names the last failure; no aborted game was recorded,
what was recorded stays recorded, and a rerun resumes); 2 for a league file, bot, deal book or database
that cannot be used (the message says why; nothing is played); 130 when interrupted (Ctrl-C: the games
in flight and their bots' programs are stopped, what was recorded stays recorded: run the same command
again to resume). `sprt`'s: 0 for H1 (A is better by elo1), 1 for H0, 3 when the game limit came first,
2 and 130 as for `run`, 4 when its machinery could not make progress. `deals`: 0, or 2 for bad options.

Every setting of how games are played (`config.PlaySettings`) and when standings are printed
(`config.Reporting`) can be given in the league file and overridden here, e.g. `--turn-time 2`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser"]

#: The command line's flags for the league file's play and reporting settings: (flag, key, type, help).
SETTING_FLAGS = (
    ("--games-at-once", "games_at_once", int, "games played at the same time (default 8)"),
    ("--turn-time", "turn_time", float, "seconds a bot has for each decision (default 10)"),
    ("--time-bank", "time_bank", float, "extra seconds per seat for a whole game, after a turn's own (default 0)"),
    ("--strikes", "strikes", int, "turns timed out before the seat is forfeited, a time loss; 0 never (default 2)"),
    ("--restarts", "restarts", int, "times a crashed or hung bot is started again in one game (default 3)"),
    ("--game-time-limit", "game_time_limit", float, "seconds before a game still running is a stall (default 300)"),
)
REPORTING_FLAGS = (
    ("--standings-every", "standings_every", int, "print the standings every N games (default 0: off)"),
    ("--standings-interval", "standings_interval", float,
     "print the standings every this many seconds (default 300; 0: off)"),
)


def _setting_flags(parser: argparse.ArgumentParser, flags: tuple[tuple[str, str, type, str], ...]) -> None:
    for flag, key, kind, text in flags:
        parser.add_argument(flag, dest=key, type=kind, default=None, metavar="N" if kind is int else "S",
                            help=f"{text}; overrides the league file's {key}")


def _overrides(args: argparse.Namespace, flags: tuple[tuple[str, str, type, str], ...]) -> dict[str, Any]:
    return {key: getattr(args, key) for _, key, _, _ in flags if getattr(args, key, None) is not None}


def add_parser(commands: Any) -> None:
    """Add `league` (with its `run`, `sprt` and `deals` subcommands) to the `unonet` command's subparsers."""
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
    run.add_argument("--deals", metavar="BOOK", help="deal the games from this deal book (unonet league deals)")
    run.add_argument("--batch", type=int, default=8, help="games per Dask task (with --scheduler; default 8)")
    _setting_flags(run, SETTING_FLAGS)
    _setting_flags(run, REPORTING_FLAGS)
    run.add_argument("--json", action="store_true", help="print the standings as one JSON object (last line)")
    run.add_argument("--csv", metavar="F", help="write the leaderboard to F as CSV")
    run.add_argument("--plot", metavar="F.png", help="write a PNG of each bot's rating over the games to F.png")
    run.add_argument("--matrix", metavar="F.png", help="write a PNG of the head-to-head matrix to F.png")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(func=_run)
    sprt = sub.add_parser("sprt", help="a heads-up GSPRT between two bots: play until H0 or H1 is accepted")
    sprt.add_argument("first", metavar="A", help="a bot kind (greedy, greedy:2), module:Class, exec:CMD or launch:CMD "
                      "(NAME=... names it)")
    sprt.add_argument("second", metavar="B", help="the bot A is measured against")
    sprt.add_argument("--elo0", type=float, default=0.0, help="H0's normalized Elo difference (default 0)")
    sprt.add_argument("--elo1", type=float, default=5.0, help="H1's normalized Elo difference (default 5)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    sprt.add_argument("--independent", action="store_true",
                      help="a fresh deal for every game, scored alone, instead of duplicate pairs")
    sprt.add_argument("--preset", default="standard", help="the ruleset preset (default standard)")
    sprt.add_argument("--seed", type=int, default=0, help="the deals' seed (default 0)")
    sprt.add_argument("--deals", metavar="BOOK", help="deal the games from this deal book (unonet league deals)")
    sprt.add_argument("--max-games", type=int, default=None,
                      help="stop undecided after this many games (default 20000, or what the deal book holds)")
    sprt.add_argument("--db", help="the results database (default: sprt-A-B.sqlite); rerun to resume")
    _setting_flags(sprt, SETTING_FLAGS)
    sprt.add_argument("--json", action="store_true", help="print the outcome as one JSON object (last line)")
    sprt.set_defaults(func=_sprt)
    deals = sub.add_parser("deals", help="write a deal book: a file of deal seeds a league or an SPRT can play")
    deals.add_argument("output", metavar="FILE", help="the deal book to write")
    deals.add_argument("--count", type=int, required=True, help="how many deals")
    deals.add_argument("--seed", type=int, help="the deals a league with this seed plays (default: fresh random deals)")
    deals.set_defaults(func=_deals)


def _quiet() -> None:
    """gRPC's C core writes INFO lines (a GOAWAY when a seats process dies) to stderr, over the bar and the
    league's own lines: errors only, unless the user asked for more; and the league's warnings name their game."""
    from unonet.league import logs

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    logs.install(fmt="league %(levelname)s %(message)s")


def _run(args: argparse.Namespace) -> int:
    import dataclasses

    from rich.console import Console

    from unonet.league import plots, report
    from unonet.league.config import LeagueFileError, load, play_settings, reporting, with_deal_book
    from unonet.league.entrants import EntrantError
    from unonet.league.failures import InfrastructureError
    from unonet.league.progress import LeagueProgress, PeriodicStandings
    from unonet.league.results import Results, ResultsMismatch
    from unonet.league.runner import Player, check_entrants, play_inprocess, run_league
    from unonet.league.standings import standings

    _quiet()
    try:
        config = load(args.file)
        if args.db:
            config = dataclasses.replace(config, db=Path(args.db))
        if args.games is not None:
            if args.games < 1:
                raise LeagueFileError("--games must be positive")
            config = dataclasses.replace(config, games=args.games)
        if args.deals:
            config = with_deal_book(config, Path(args.deals))
        config = dataclasses.replace(
            config, play=play_settings(_overrides(args, SETTING_FLAGS), "--", config.play),
            reporting=reporting(_overrides(args, REPORTING_FLAGS), "--", config.reporting))
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
            periodic = PeriodicStandings(config, bar.progress.console if bar.enabled else err)

            def started(done: int, total: int, leader: str) -> None:
                bar.start(done, total, leader)
                periodic.start(done, total, leader)

            def advanced(result: Any, done: int, total: int, leader: str) -> None:
                bar.advance(result, done, total, leader)
                periodic.advance(result, done, total, leader)

            run_league(config, player, on_start=started, on_game=advanced)
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
        plots.plot_ratings(Path(args.plot), config, results)
    if args.matrix:
        plots.plot_head_to_head(Path(args.matrix), config, results)
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
    from unonet.league.elo import elo_estimate
    from unonet.league.entrants import EntrantError
    from unonet.league.failures import InfrastructureError
    from unonet.league.results import ResultsMismatch
    from unonet.league.runner import Player, check_league
    from unonet.league.sprt import Decision, Sprt
    from unonet.league.sprt_run import run_sprt, sprt_config, uses_programs

    _quiet()
    db = Path(args.db or "".join(ch if ch.isalnum() or ch in "-_." else "_"
                                 for ch in f"sprt-{args.first}-{args.second}")[:120] + ".sqlite")
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
        if args.max_games is not None and args.max_games < 2:
            raise LeagueFileError("--max-games must be at least 2")
        config = sprt_config(args.first, args.second, db=db, seed=args.seed, preset=args.preset,
                             duplicate=not args.independent, max_games=args.max_games or 20_000,
                             deals=Path(args.deals) if args.deals else None, play=_overrides(args, SETTING_FLAGS))
        if config.deal_book is not None and args.max_games is None:  # as many games as the book deals
            import dataclasses

            per_deal = 2 if config.duplicate else 1
            config = dataclasses.replace(config, games=min(config.games, per_deal * len(config.deal_book)))
        player: Player | None = None
        if uses_programs(config):  # a program plays only over gRPC
            check_league(config)
            from unonet.league.network import play_networked

            player = play_networked
        err = Console(stderr=True)
        bar = Progress(TextColumn("[bold]sprt[/] {task.fields[games]} games  LLR {task.fields[llr]:+.2f} "
                                  f"[{test.lower:+.2f}, {test.upper:+.2f}]"), TimeElapsedColumn(), console=err)
        enabled = not args.json and err.is_terminal
        task = bar.add_task("sprt", games=0, llr=0.0)
        if enabled:
            bar.start()
        try:
            outcome = run_sprt(config, test, player=player,
                               on_cycle=lambda games, llr: bar.update(task, games=games, llr=llr))
        finally:
            if enabled:
                bar.stop()
    except (ValueError, EntrantError, ResultsMismatch) as error:
        print(f"unonet league sprt: {error}", file=sys.stderr)
        return 2
    except InfrastructureError as error:
        print(f"unonet league sprt: {error}", file=sys.stderr)
        return 4
    except KeyboardInterrupt:
        print("unonet league sprt: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    first, second = (spec.name for spec in config.bots)
    scoring = "trinomial (independent games)" if args.independent else "pentanomial (duplicate pairs)"
    estimate = elo_estimate(outcome.counts) if any(outcome.counts) else None
    if args.json:
        elo = None if estimate is None else {"elo": estimate.elo, "low": estimate.low, "high": estimate.high,
                                             "los": estimate.los, "model": estimate.model}
        print(json.dumps({"first": first, "second": second, "decision": outcome.decision.value,
                          "games": outcome.games, "llr": round(outcome.llr, 4), "counts": list(outcome.counts),
                          "scoring": scoring, "elo0": args.elo0, "elo1": args.elo1,
                          "bounds": [round(test.lower, 4), round(test.upper, 4)], "elo_estimate": elo}))
    else:
        said = {Decision.H1: f"H1: {first} is better than {second} by at least {args.elo1:g} normalized Elo",
                Decision.H0: f"H0: {first} is not better than {second} by {args.elo1:g} normalized Elo",
                Decision.CONTINUE: "undecided: the game limit came first"}[outcome.decision]
        print(f"{said}, after {outcome.games} games (LLR {outcome.llr:+.3f}, bounds {test.lower:+.3f} / "
              f"{test.upper:+.3f}; {scoring} {list(outcome.counts)})")
        if estimate is not None:
            print(f"{first} against {second}: {estimate.describe()} (logistic Elo, {estimate.model})")
    return {Decision.H1: 0, Decision.H0: 1, Decision.CONTINUE: 3}[outcome.decision]


def _deals(args: argparse.Namespace) -> int:
    from unonet.league.deals import make_book, write_book

    if args.count < 1:
        print("unonet league deals: --count must be at least 1", file=sys.stderr)
        return 2
    seeds = make_book(args.count, args.seed)
    how = f"the deals of a league with seed {args.seed}" if args.seed is not None else "fresh random deals"
    count = write_book(Path(args.output), seeds, f"{args.count} deals: {how}")
    print(f"wrote {count} deals to {args.output}", file=sys.stderr)
    return 0
