"""The engine is pure: it loads without grpc or any I/O module, and has no global randomness."""

from __future__ import annotations

import subprocess
import sys


def test_engine_imports_without_grpc_or_io() -> None:
    code = (
        "import sys; import unonet.engine, unonet.engine.playout; "
        "bad = [m for m in ('grpc', 'google.protobuf', 'socket', 'asyncio', 'sqlite3') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "", f"the engine imported {out.stdout.strip()}"
