"""The event loop `unonet serve` runs its host on (unonet.host.event_loop): uvloop by default where it is
installed, asyncio's own when told, and a host served on either answers the same calls."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from pathlib import Path

import grpc
import pytest

from unonet.cli import build_parser
from unonet.host.event_loop import EVENT_LOOPS, default_event_loop, runner
from unonet.v1 import lobby_service_pb2, lobby_service_pb2_grpc

HAS_UVLOOP = importlib.util.find_spec("uvloop") is not None
START_TIMEOUT = 30.0
LISTENING = re.compile(r"unonet host listening on \S+:(\d+)")


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


@pytest.mark.skipif(not HAS_UVLOOP, reason="uvloop is not installed here (it has no Windows build)")
def test_uvloop_is_the_default_where_installed_and_its_runner_runs_on_it() -> None:
    assert default_event_loop() == "uvloop"
    assert build_parser().parse_args(["serve"]).event_loop == "uvloop"
    with runner("uvloop") as loop:
        assert loop.run(_loop_module()).startswith("uvloop")


def test_asyncio_names_the_standard_loop() -> None:
    assert build_parser().parse_args(["serve", "--event-loop", "asyncio"]).event_loop == "asyncio"
    with runner("asyncio") as loop:
        assert loop.run(_loop_module()).startswith("asyncio")


def test_an_unknown_loop_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="no event loop named 'trio'"):
        runner("trio")
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--event-loop", "trio"])
    assert exited.value.code == 2
    assert "--event-loop" in capsys.readouterr().err


@pytest.mark.parametrize("name", [name for name in EVENT_LOOPS if name != "uvloop" or HAS_UVLOOP])
async def test_a_host_served_on_each_loop_creates_and_joins_a_table_and_stops_on_sigterm(
    tmp_path: Path, name: str,
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "unonet.cli", "serve", "--listen", "127.0.0.1:0", "--db", str(tmp_path / "h.db"),
        "--event-loop", name, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)).decode()
        found = LISTENING.search(line)
        assert found, line
        async with grpc.aio.insecure_channel(f"127.0.0.1:{found.group(1)}") as channel:
            lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
            created = await lobby.CreateTable(lobby_service_pb2.CreateTableRequest(name="t", seat_count=2),
                                              timeout=START_TIMEOUT)
            joined = await lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
                table_id=created.table.table_id, name="ann", role=lobby_service_pb2.JOIN_ROLE_PLAYER),
                timeout=START_TIMEOUT)
        assert joined.token and joined.event_number == 1
        process.terminate()
        assert await asyncio.wait_for(process.wait(), START_TIMEOUT) == 0  # a clean shutdown on SIGTERM
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
