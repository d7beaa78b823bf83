"""The durability the host promises is the one it configures: `unonet serve` fsyncs each group commit."""

from __future__ import annotations

import inspect

import pytest

from unonet.host import server
from unonet.host.store import SERVE_SYNCHRONOUS, SqliteStore


@pytest.mark.parametrize("mode", ["NORMAL", "FULL"])
def test_a_store_runs_with_the_synchronous_mode_it_was_given(tmp_path, mode: str) -> None:
    store = SqliteStore(tmp_path / "t.db", synchronous=mode)
    try:
        assert store.synchronous == mode
    finally:
        store.close()


def test_a_mode_sqlite_has_but_the_host_does_not_promise_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="synchronous must be one of NORMAL, FULL"):
        SqliteStore(tmp_path / "t.db", synchronous="OFF")


def test_unonet_serve_promises_a_power_loss_by_default() -> None:
    assert SERVE_SYNCHRONOUS == "FULL"
    assert inspect.signature(server.serve).parameters["synchronous"].default == "FULL"
