"""Suite-wide plugins: the order tests run in, and which ErrorDetail reasons the host sent during the run.

- tests/support/slow_first.py runs the slowest tests first (from tests/durations.json) and keeps a
  module whose tests share a fixture on one xdist worker (`make pytest` runs `pytest -n`);
- tests/support/reasons_sent.py wraps `unonet.host.errors.status_for` for the whole session and
  collects each reason, so a check at the end of a whole run can say which reasons of `errors.proto`
  no test produced (`tests/test_error_reasons.py`), in one process or across xdist's workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from documented_reasons import problems
from reasons_sent import ReasonsSent
from slow_first import SlowFirst, add_options

TESTS = Path(__file__).resolve().parent
PLUGIN = pytest.StashKey[ReasonsSent]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SlowFirst(TESTS / "durations.json"), "unonet-slow-first")
    plugin = ReasonsSent(TESTS, "test_error_reasons.py", "test_every_documented_reason_is_produced_by_some_test",
                         problems)
    plugin.install()
    config.pluginmanager.register(plugin, "unonet-reasons-sent")
    config.stash[PLUGIN] = plugin


@pytest.fixture
def reasons_sent(pytestconfig: pytest.Config) -> set[str]:
    """Every ErrorDetail reason an in-process host sent so far in this run (this worker's, under xdist)."""
    return pytestconfig.stash[PLUGIN].sent


@pytest.fixture
def whole_suite(pytestconfig: pytest.Config) -> bool:
    """True when this run collected the whole suite, unfiltered."""
    return pytestconfig.stash[PLUGIN].whole_suite
