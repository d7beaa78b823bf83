"""Every reason `errors.proto` documents is produced by some test (counted by the plugin in conftest.py).

The check counts only at the end of a whole, unfiltered run (`make test`, `pytest tests`): a partial run
produces only some reasons. Reasons that no test can produce yet are listed in `DEFERRED`, each with why.
"""

from __future__ import annotations

import re
from pathlib import Path

import grpc
import pytest

ERRORS_PROTO = Path(__file__).resolve().parents[1] / "protos" / "unonet" / "v1" / "errors.proto"

# Documented, but no test can produce them yet (each with why). The limits' reasons (TOO_MANY_TABLES,
# TOO_MANY_SUBSCRIBERS, RATE_LIMITED) were here until the host enforced them (tests/host/test_limits.py).
DEFERRED: dict[str, str] = {}
# Documented for other hosts; errors.proto says this one never sends them (checked: it must not).
NEVER_SENT_HERE = {
    "ILLEGAL_ACTION": "every rule refusal of this host has a more specific reason",
    "ALREADY_REACTED": "every window is refereed as a race, whose second answer is ALREADY_ANSWERED",
    "WINDOW_OPEN": "a command a blocking window would refuse waits for the window's ruling, then applies",
}

def documented_reasons() -> set[str]:
    """The reasons ErrorDetail's comment lists, from "The reasons defined today" to the gRPC library's
    own statuses: every UPPER_SNAKE_CASE word there that is not a gRPC status code."""
    text = ERRORS_PROTO.read_text()
    section = text[text.index("The reasons defined today"):text.index("A status produced by the gRPC library")]
    words = set(re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]{4,}\b", section))
    return words - {code.name for code in grpc.StatusCode} - {"UPPER_SNAKE_CASE", "ASCII"}


def test_the_documented_reasons_are_read_from_errors_proto() -> None:
    reasons = documented_reasons()
    assert {"NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "TABLE_NOT_FOUND", "STORE_FAILED", "ILLEGAL_ACTION"} <= reasons
    assert set(DEFERRED) | set(NEVER_SENT_HERE) <= reasons
    assert {"TOO_MANY_TABLES", "TOO_MANY_SUBSCRIBERS", "RATE_LIMITED", "MALFORMED_REQUEST"} <= reasons


def test_every_documented_reason_is_produced_by_some_test(reasons_sent: set[str], whole_suite: bool) -> None:
    if not whole_suite:
        pytest.skip("counts only at the end of a whole, unfiltered run")
    sent = reasons_sent
    missing = sorted(documented_reasons() - sent - set(DEFERRED) - set(NEVER_SENT_HERE))
    assert not missing, f"no test made the host send these reasons: {missing}"
    wrongly_sent = sorted(sent & set(NEVER_SENT_HERE))
    assert not wrongly_sent, f"errors.proto says this host never sends {wrongly_sent}"
    undocumented = sorted(sent - documented_reasons())
    assert not undocumented, f"the host sent reasons errors.proto does not document: {undocumented}"
