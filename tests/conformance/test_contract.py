"""The protocol contract (`unonet.client.conformance.ContractSuite`), held against our host (README.md here)."""

from __future__ import annotations

import contextlib

from conformance_host import serve_conformance_host

from unonet.client import conformance


class TestContractOnOurHost(conformance.ContractSuite):
    def serve(self) -> contextlib.AbstractAsyncContextManager[str]:
        return serve_conformance_host()
