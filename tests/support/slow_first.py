"""Run the slowest tests first, so a run in parallel (`pytest -n`) does not end waiting on one long test.

pytest-xdist hands tests to its workers in the order they are collected. A 40-second test handed out
last keeps one worker busy for 40 seconds after the others ran out of work; handed out first, it runs
while the others work through the short ones. `tests/durations.json` holds how long each slow test took
(seconds, measured on a shared 2-core machine: only the order matters), and this plugin sorts the
collection by it, slowest first, leaving every test it does not list in its place.

A module with a fixture shared by its tests (scope module, class or package: a match played once for
the module, say) is kept in one piece, in its place by its total time, and marked as one xdist group,
so `--dist loadgroup` gives it to one worker: split, each worker would build the fixture again, and
a reordered run would build it again between its tests. Tests a module marks as an xdist group itself
(they share what no fixture holds: a suite class's cache of the games it played) are kept together too.

`pytest --store-durations` (any run, in parallel or not) writes the times of the tests that took a
quarter of a second or more back into the file, keeping the entries of tests it did not run, and
`pytest --fast` (`make check`) leaves out every test the file lists: what is left is most of the suite,
the unit tests, in well under a minute.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

SHARED_SCOPES = {"class", "module", "package"}
STORE_AT_LEAST_S = 0.25
# The suffix --dist loadgroup adds to a grouped test's id in its reports (the group is named after its module).
GROUP_SUFFIX = re.compile(r"@tests/[^@]*\.py$")


def shares_a_fixture(item: pytest.Item) -> bool:
    """True when `item` uses a fixture that lives longer than one test and shorter than the session."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(definitions[-1].scope in SHARED_SCOPES for definitions in info.name2fixturedefs.values()
               if definitions)


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def group_of(item: pytest.Item) -> str | None:
    """The xdist group `item` is marked with (by its module, or by this plugin), if any."""
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return None
    return str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))


def add_options(parser: pytest.Parser) -> None:
    """`--store-durations` and `--fast` (from a conftest's `pytest_addoption`: options exist before plugins)."""
    parser.addoption("--store-durations", action="store_true",
                     help="write the times of the tests that took 0.25 s or more to tests/durations.json")
    parser.addoption("--fast", action="store_true",
                     help="leave out the tests tests/durations.json lists as slow (make check)")


class SlowFirst:
    """The plugin: sorts the collection by `durations` (a JSON file of seconds by test id)."""

    def __init__(self, durations: Path) -> None:
        self.path = durations
        self.seconds: dict[str, float] = json.loads(durations.read_text()) if durations.exists() else {}
        self.measured: dict[str, float] = defaultdict(float)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        blocks: dict[str, list[pytest.Item]] = {}
        for item in items:
            group = group_of(item)
            if group is None and shares_a_fixture(item):
                group = module_of(item)
                item.add_marker(pytest.mark.xdist_group(group))
            blocks.setdefault(group if group is not None else item.nodeid, []).append(item)
        order = sorted(blocks.values(), key=lambda block: -self.seconds_of(block))
        if config.getoption("fast"):  # a module sharing a fixture goes whole: its first test pays for it
            config.hook.pytest_deselected(items=[item for block in order if self.seconds_of(block) for item in block])
            order = [block for block in order if not self.seconds_of(block)]
        items[:] = [item for block in order for item in block]

    def seconds_of(self, block: list[pytest.Item]) -> float:
        return sum(self.seconds.get(item.nodeid, 0.0) for item in block)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.measured[GROUP_SUFFIX.sub("", report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not session.config.getoption("store_durations") or hasattr(session.config, "workerinput"):
            return
        seconds = dict(self.seconds)
        for nodeid, duration in self.measured.items():
            seconds.pop(nodeid, None)
            if duration >= STORE_AT_LEAST_S:
                seconds[nodeid] = round(duration, 1)
        self.path.write_text(json.dumps(dict(sorted(seconds.items())), indent=0) + "\n")
