"""`unonet serve`'s console is the host's log: its own lines, not gRPC core's INFO chatter. A host that
seats a searching bot starts a worker process, and gRPC's C core wrote "skipping fork() handlers" for each
one, because the CLI asked gRPC for errors only in the commands' handlers, after building the parser had
loaded grpc already (too late: it reads GRPC_VERBOSITY as it loads). A GRPC_VERBOSITY the user set is kept."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from host_process import host_process, seat_bot_workers

from unonet.client.table_client import TableClient

TIMEOUT = 10.0
START_TIMEOUT = 90.0  # worker processes importing grpc and the bots on a loaded 2-core machine
GRPC_FORK_LINE = "skipping fork() handlers"


async def _serve_with_two_workers(tmp_path: Path) -> str:
    """Serve a table of two `strong:1` bots (each a worker process), stop the host once both run; its log."""
    log = tmp_path / "serve.log"
    async with (host_process(tmp_path / "unonet.db", log, "--bot-delay", "1") as host,
                await TableClient.connect(f"127.0.0.1:{host.port}", timeout=TIMEOUT) as client):
        await seat_bot_workers(host, client, "strong:1", timeout=START_TIMEOUT)
        host.process.send_signal(signal.SIGTERM)
        assert await host.process.wait() == 0
    return log.read_text(errors="replace")


@pytest.mark.timeout(START_TIMEOUT + 60)
async def test_unonet_serve_starting_bot_workers_writes_no_grpc_core_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRPC_VERBOSITY", raising=False)
    said = await _serve_with_two_workers(tmp_path)
    assert GRPC_FORK_LINE not in said, said
    assert "unonet.host.server: shutting down" in said  # the host's own lines still come


@pytest.mark.timeout(START_TIMEOUT + 60)
async def test_a_grpc_verbosity_the_user_set_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRPC_VERBOSITY", "INFO")
    said = await _serve_with_two_workers(tmp_path)
    # gRPC's INFO lines reach the console: its fork line, or (should no gRPC call be in flight at a fork)
    # the warning it prints at start for INFO
    assert GRPC_FORK_LINE in said or "INFO is not suitable for production" in said, said
