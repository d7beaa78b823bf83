"""The `unonet` command: rule checks today; serving, demos and audits join as they land."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _rules_check(args: argparse.Namespace) -> int:
    from unonet.scenarios import run_file, scenario_files

    files = scenario_files(args.paths)
    if not files:
        print("no scenario files found", file=sys.stderr)
        return 2
    results = [run_file(path) for path in files]
    for result in results:
        if not result.passed or args.verbose:
            print(result.report())
    failed = sum(not result.passed for result in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="unonet", description="UNO over the network.")
    commands = parser.add_subparsers(dest="command", required=True)
    rules = commands.add_parser("rules", help="the rules engine").add_subparsers(dest="rules_command", required=True)
    check = rules.add_parser("check", help="run scenario files and report each pass or failure")
    check.add_argument("paths", nargs="+", help="scenario files or folders of them (.toml or .json)")
    check.add_argument("-v", "--verbose", action="store_true", help="also list the scenarios that pass")
    check.set_defaults(func=_rules_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
