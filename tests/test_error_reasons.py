"""Every reason `errors.proto` documents is produced by some test (counted by the plugin in conftest.py).

The check counts only at the end of a whole, unfiltered run (`make test`, `pytest tests`): a partial run
produces only some reasons. Under `pytest -n` the controller runs it on every worker's reasons together
and reports it under this test's name (tests/support/reasons_sent.py). The lists of reasons deferred or
never sent here are in tests/support/documented_reasons.py.
"""

from __future__ import annotations

import pytest
from documented_reasons import DEFERRED, NEVER_SENT_HERE, documented_reasons, problems


def test_the_documented_reasons_are_read_from_errors_proto() -> None:
    reasons = documented_reasons()
    assert {"NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "TABLE_NOT_FOUND", "STORE_FAILED", "ILLEGAL_ACTION"} <= reasons
    assert set(DEFERRED) | set(NEVER_SENT_HERE) <= reasons
    assert {"TOO_MANY_TABLES", "TOO_MANY_SUBSCRIBERS", "RATE_LIMITED", "MALFORMED_REQUEST"} <= reasons


def test_every_documented_reason_is_produced_by_some_test(reasons_sent: set[str], whole_suite: bool) -> None:
    if not whole_suite:
        pytest.skip("counts only at the end of a whole, unfiltered run")
    assert problems(reasons_sent) == []


def test_the_check_names_reasons_missing_wrongly_sent_and_undocumented() -> None:
    expected = documented_reasons() - set(DEFERRED) - set(NEVER_SENT_HERE)
    assert problems(expected) == []
    (missing,) = problems(expected - {"NOT_YOUR_TURN"})
    assert "no test made the host send" in missing and "NOT_YOUR_TURN" in missing
    (wrong,) = problems(expected | {"ILLEGAL_ACTION"})
    assert "never sends ['ILLEGAL_ACTION']" in wrong
    (undocumented,) = problems(expected | {"NO_SUCH_REASON"})
    assert "does not document: ['NO_SUCH_REASON']" in undocumented
