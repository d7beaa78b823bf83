"""The standard rich error status: every refusal also travels in `grpc-status-details-bin`, as a
google.rpc.Status with the ErrorDetail packed in its details, which stock gRPC libraries decode
(`grpc_status.rpc_status.from_call` here; `tests/node/read_refusal.js` with @grpc/grpc-js)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status
from host_stubs import TIMEOUT, reason_of

from unonet.v1 import errors_pb2, lobby_service_pb2, table_pb2

ROOT = Path(__file__).resolve().parents[2]
NODE_SCRIPT = ROOT / "tests" / "node" / "read_refusal.js"


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


async def test_a_refusal_carries_the_standard_status_with_the_error_detail_packed_in_it(stubs) -> None:
    error = await refused(stubs.lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id="nope"), timeout=TIMEOUT))

    status = rpc_status.from_call(error)  # also checks that code and message agree with the call's
    assert status is not None
    assert (status.code, status.message) == (grpc.StatusCode.NOT_FOUND.value[0], error.details())
    (packed,) = status.details
    assert packed.type_url == "type.googleapis.com/unonet.v1.ErrorDetail"
    detail = errors_pb2.ErrorDetail()
    assert packed.Unpack(detail)
    assert detail.reason == "TABLE_NOT_FOUND" == reason_of(error)  # the same detail as unonet-error-bin


async def test_the_error_detail_names_the_field_at_fault_in_both_trailers(stubs) -> None:
    error = await refused(stubs.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
        statuses=[table_pb2.TABLE_STATUS_UNSPECIFIED]), timeout=TIMEOUT))
    status = rpc_status.from_call(error)
    assert status is not None
    detail = errors_pb2.ErrorDetail()
    status.details[0].Unpack(detail)
    legacy = next(errors_pb2.ErrorDetail.FromString(value)
                  for key, value in error.trailing_metadata() or () if key == "unonet-error-bin")
    assert detail == legacy
    assert (detail.reason, dict(detail.metadata)) == ("UNSPECIFIED_ENUM", {"field": "statuses"})


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (CI has it)")
async def test_a_node_grpc_js_client_reads_the_reason_from_the_standard_trailer(stubs) -> None:
    """The script's packages come from package-lock.json (`make pytest` runs `npm ci` first)."""
    process = await asyncio.create_subprocess_exec(
        "node", str(NODE_SCRIPT), stubs.address, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await asyncio.wait_for(process.wait(), TIMEOUT)
    assert process.returncode == 0, err.decode()
    assert json.loads(out) == {"code": grpc.StatusCode.INVALID_ARGUMENT.value[0], "reason": "UNSPECIFIED_ENUM",
                               "metadata": {"field": "statuses"}}
