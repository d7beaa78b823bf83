"""The ErrorDetail reasons errors.proto documents, and the check that a whole run produced each of them.

tests/test_error_reasons.py runs `problems` on the reasons of a run without workers; under xdist the
controller runs it on every worker's reasons together (`reasons_sent.ReasonsSent`). Reasons that no
test can produce yet are listed in `DEFERRED`, each with why.
"""

from __future__ import annotations

import re
from pathlib import Path

import grpc

ERRORS_PROTO = Path(__file__).resolve().parents[2] / "protos" / "unonet" / "v1" / "errors.proto"

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


def problems(sent: set[str]) -> list[str]:
    """What is wrong with the reasons `sent` by a whole run's hosts (nothing: an empty list)."""
    found = []
    missing = sorted(documented_reasons() - sent - set(DEFERRED) - set(NEVER_SENT_HERE))
    if missing:
        found.append(f"no test made the host send these reasons: {missing}")
    wrongly_sent = sorted(sent & set(NEVER_SENT_HERE))
    if wrongly_sent:
        found.append(f"errors.proto says this host never sends {wrongly_sent}")
    undocumented = sorted(sent - documented_reasons())
    if undocumented:
        found.append(f"the host sent reasons errors.proto does not document: {undocumented}")
    return found
