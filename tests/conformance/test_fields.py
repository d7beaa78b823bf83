"""Every documented field filled, every event sent (`unonet.client.conformance.FieldsSuite`), by our host."""

from __future__ import annotations

import contextlib

import pytest
from conformance_host import serve_conformance_host

from unonet.client import conformance
from unonet.client.conformance.fields import GAME_TIMEOUT

pytestmark = pytest.mark.timeout(GAME_TIMEOUT + 60)  # the first test to ask plays every game


class TestFieldsOnOurHost(conformance.FieldsSuite):
    def serve(self) -> contextlib.AbstractAsyncContextManager[str]:
        return serve_conformance_host()
