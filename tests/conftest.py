"""Suite-wide bookkeeping: which ErrorDetail reasons the host sent during the run (`tests/test_error_reasons.py`).

Every refusal the host sends passes through `unonet.host.errors.abort`, which asks `status_for` for its
code and reason. This plugin wraps `status_for` for the whole session (in-process hosts only: a host
started as a subprocess is not seen) and collects each reason, so a check at the end of a full run can
say which reasons of `errors.proto` no test produced. A new test that produces a reason is counted
without anyone listing it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REASONS_SENT = pytest.StashKey[set[str]]()
WHOLE_SUITE = pytest.StashKey[bool]()
REASONS_TEST = "test_error_reasons.py"
TESTS = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    sent: set[str] = set()
    config.stash[REASONS_SENT] = sent
    config.stash[WHOLE_SUITE] = False
    from unonet.host import errors

    original: Callable[[Exception], Any] = errors.status_for

    def recording(error: Exception) -> Any:
        code, reason, message = original(error)
        sent.add(reason)
        return code, reason, message

    errors.status_for = recording  # type: ignore[assignment]


@pytest.fixture
def reasons_sent(pytestconfig: pytest.Config) -> set[str]:
    """Every ErrorDetail reason an in-process host sent so far in this run."""
    return pytestconfig.stash[REASONS_SENT]


@pytest.fixture
def whole_suite(pytestconfig: pytest.Config) -> bool:
    """True when this run collected the whole suite, unfiltered."""
    return pytestconfig.stash[WHOLE_SUITE]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The reasons check runs last, and only counts when the whole suite was collected unfiltered."""
    last = [item for item in items if item.path.name == REASONS_TEST]
    items[:] = [item for item in items if item.path.name != REASONS_TEST] + last
    arguments = [Path(arg.split("::")[0]).resolve() for arg in config.args] or [TESTS]
    config.stash[WHOLE_SUITE] = (
        all(path in (TESTS, TESTS.parent) for path in arguments)
        and not config.option.keyword
        and not config.option.markexpr
        and not getattr(config.option, "lf", False)
        and not getattr(config.option, "deselect", None)
        and not getattr(config.option, "ignore", None)
        and not getattr(config.option, "ignore_glob", None)
    )
