"""Which ErrorDetail reasons the host sent during a run, counted in one process or across xdist's workers.

Every refusal the host sends passes through `unonet.host.errors.abort`, which asks `status_for` for its
code and reason. `ReasonsSent` wraps `status_for` for the whole session (in-process hosts only: a host
started as a subprocess is not seen) and collects each reason, so a check at the end of a whole,
unfiltered run can say which documented reasons no test produced (tests/test_error_reasons.py). A
new test that produces a reason is counted without anyone listing it.

Run alone, the check is an ordinary test, collected last. Under `pytest -n` (pytest-xdist) each
worker sees only its share of the suite, so no worker can judge: the workers leave that test out,
send the reasons they saw back to the controller with their results (`workeroutput`), and the
controller runs the same check on the union once every worker is done and reports it under the
test's own name, failed or passed. So the count of tests is the same either way, and the check is as
strong: a reason no worker produced, or a worker whose reasons never came back, fails the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from unonet.host import errors

WORKER_OUTPUT_KEY = "unonet_reasons_sent"
Check = Callable[[set[str]], list[str]]


def is_whole_suite(config: pytest.Config, tests: Path) -> bool:
    """True when this run names the whole test folder (or the checkout) and filters nothing out (`--fast`,
    tests/support/slow_first.py, leaves the slow tests out)."""
    arguments = [Path(arg.split("::")[0]).resolve() for arg in config.args] or [tests]
    return (
        all(path in (tests, tests.parent) for path in arguments)
        and not config.getoption("fast", default=False)
        and not config.option.keyword
        and not config.option.markexpr
        and not getattr(config.option, "lf", False)
        and not getattr(config.option, "deselect", None)
        and not getattr(config.option, "ignore", None)
        and not getattr(config.option, "ignore_glob", None)
    )


def is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def is_xdist_controller(config: pytest.Config) -> bool:
    return config.pluginmanager.getplugin("dsession") is not None


class ReasonsSent:
    """The plugin: counts the reasons this process's hosts send, and runs `check` on the whole run's.

    `check_file` is the test module whose function `check_name` judges the reasons in a run without
    workers; under xdist the controller reports `check(reasons)` under that test's id instead.
    """

    def __init__(self, tests: Path, check_file: str, check_name: str, check: Check) -> None:
        self.tests = tests
        self.check_file = check_file
        self.check_name = check_name
        self.check = check
        self.sent: set[str] = set()
        self.whole_suite = False
        self.from_workers: dict[str, list[str] | None] = {}
        self._original: Callable[[Exception], Any] | None = None

    def install(self) -> None:
        """Wrap `status_for` for the rest of this process's session (undone by `uninstall`)."""
        original = self._original = errors.status_for
        sent = self.sent

        def recording(error: Exception) -> Any:
            code, reason, message = original(error)
            sent.add(reason)
            return code, reason, message

        errors.status_for = recording  # type: ignore[assignment]

    def uninstall(self) -> None:
        if self._original is not None:
            errors.status_for = self._original  # type: ignore[assignment]
            self._original = None

    def pytest_unconfigure(self) -> None:
        self.uninstall()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """The check's module runs last; a worker of a whole run leaves the check to the controller."""
        self.whole_suite = is_whole_suite(config, self.tests)
        last = [item for item in items if item.path.name == self.check_file]
        if self.whole_suite and is_xdist_worker(config):
            last = [item for item in last if item.name != self.check_name]
        items[:] = [item for item in items if item.path.name != self.check_file] + last

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        """A worker finished (or died): keep what it sent back, or None when nothing came."""
        output = getattr(node, "workeroutput", None) or {}
        self.from_workers[str(node.gateway.id)] = output.get(WORKER_OUTPUT_KEY)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        config = session.config
        if is_xdist_worker(config):
            config.workeroutput[WORKER_OUTPUT_KEY] = sorted(self.sent)  # type: ignore[attr-defined]
        elif is_xdist_controller(config) and is_whole_suite(config, self.tests) and self._ran_through(exitstatus):
            problems = self.check(self.union()) + [
                f"worker {worker} sent no reasons back (it died?): its share of the suite is not counted"
                for worker, reasons in sorted(self.from_workers.items()) if reasons is None
            ]
            self._report(session, problems)

    def union(self) -> set[str]:
        return set().union(*(reasons for reasons in self.from_workers.values() if reasons is not None))

    @staticmethod
    def _ran_through(exitstatus: int) -> bool:
        """False when the run ended early (-x, Ctrl-C, an internal error): the reasons of the tests that
        never ran are not missing."""
        return exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)

    def _report(self, session: pytest.Session, problems: Iterable[str]) -> None:
        """Report the controller's check as the test it stands for, and fail the run if it failed."""
        problems = list(problems)
        path = (self.tests / self.check_file).relative_to(session.config.rootpath).as_posix()
        nodeid = f"{path}::{self.check_name}"
        location = (path, None, self.check_name)
        hook = session.config.hook
        session.testscollected += 1  # the workers collected it, then left it here: count it in the progress
        hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
        longrepr = "the controller's check of every worker's reasons failed:\n" + "\n".join(problems)
        for when, outcome in (("setup", "passed"), ("call", "failed" if problems else "passed"),
                              ("teardown", "passed")):
            report = pytest.TestReport(nodeid, location, {}, outcome, longrepr if outcome == "failed" else None,
                                       when)  # type: ignore[arg-type]
            hook.pytest_runtest_logreport(report=report)
        hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
        if problems:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
