"""The client SDK and the bots speak only the protocol: they load without the host (STYLE.md)."""

from __future__ import annotations

import subprocess
import sys


def loaded_unonet_modules(*imports: str) -> set[str]:
    """The `unonet.*` modules a fresh interpreter holds after importing `imports`."""
    listing = "print(' '.join(m for m in sys.modules if m.startswith('unonet.')))"
    code = f"import sys; import {', '.join(imports)}; {listing}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return set(out.stdout.split())


def test_the_client_sdk_loads_without_the_host_or_the_engine() -> None:
    loaded = loaded_unonet_modules("unonet.client", "unonet.client.audit", "unonet.client.narrate")
    assert "unonet.client.table_client" in loaded
    assert sorted(m for m in loaded if m.startswith(("unonet.host", "unonet.engine"))) == []


def test_the_conformance_suites_load_without_the_host_or_the_engine() -> None:
    """A mock author runs them without any host of ours: they speak only the wire."""
    loaded = loaded_unonet_modules("unonet.client.conformance")
    assert {"unonet.client.conformance.contract", "unonet.client.conformance.fields"} <= loaded
    assert sorted(m for m in loaded if m.startswith(("unonet.host", "unonet.engine"))) == []


def test_the_bots_and_their_runner_load_without_the_host() -> None:
    loaded = loaded_unonet_modules("unonet.bots", "unonet.bots.__main__")
    assert {"unonet.bots.policy", "unonet.bots.runner", "unonet.client.table_client"} <= loaded
    assert sorted(m for m in loaded if m.startswith("unonet.host")) == []


def test_the_fairness_primitives_a_client_verifies_with_load_without_the_engine() -> None:
    """So `unonet.fairness` keeps its own names for what the engine also names (`standard_card_codes`
    beside the engine's `standard_deck`, `WildDrawFourRuleCode` beside `WildDrawFourRule`)."""
    loaded = loaded_unonet_modules("unonet.fairness")
    assert "unonet.fairness.challenge" in loaded
    assert sorted(m for m in loaded if m.startswith(("unonet.host", "unonet.engine", "unonet.client"))) == []
