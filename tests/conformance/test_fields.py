"""Every documented field filled, every event sent (`unonet.client.conformance.FieldsSuite`), by our host."""

from __future__ import annotations

import contextlib

import pytest
from conformance_host import serve_conformance_host

from unonet.client import conformance
from unonet.client.conformance.fields import GAME_LIMIT_FACTOR, GAME_TIMEOUT, RACE_RETRIES

# The first test to ask plays every game, each bounded by GAME_LIMIT_FACTOR * GAME_TIMEOUT, then every
# game again up to RACE_RETRIES times while a field is still unseen: a loaded machine takes those turns,
# so the test's own bound leaves room for all of them instead of cutting the retries short. The tests
# share the games through the suite class (FieldsSuite.coverage), not a fixture: one worker runs them
# all, or each worker running one plays every game again (13 to 56 s of CPU each, measured).
pytestmark = [pytest.mark.timeout((1 + RACE_RETRIES) * GAME_LIMIT_FACTOR * GAME_TIMEOUT + 60),
              pytest.mark.xdist_group("tests/conformance/test_fields.py")]


class TestFieldsOnOurHost(conformance.FieldsSuite):
    def serve(self) -> contextlib.AbstractAsyncContextManager[str]:
        return serve_conformance_host()
