"""A wheel built from a fresh clone carries the generated protocol modules, and installs and imports.

The generated `unonet/v1/*_pb2*` files are never committed, so this test copies only what git would
clone (tracked and not-ignored files, so a fresh clone's tree, with this checkout's edits) into a
temporary folder, builds a wheel there with pip (setup.py's `build_py` runs protoc inside the build,
in pip's isolated build environment from `[build-system].requires`), installs it with no
dependencies into a target folder of its own, and imports it from there in a child interpreter whose
other packages (grpcio, protobuf) come from this environment.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT = 300.0  # seconds: pip may first fetch the build requirements
STEP_TIMEOUT = 60.0
#: What the wheel must hold: every kind of generated file, and the SDK and runner modules.
EXPECTED = [
    "unonet/v1/events_pb2.py",
    "unonet/v1/events_pb2.pyi",
    "unonet/v1/play_service_pb2_grpc.py",
    "unonet/v1/play_service_pb2_grpc.pyi",
    "unonet/v1/events.proto",
    "unonet/client/table_client.py",
    "unonet/client/tui/screen.py",
    "unonet/client/conformance/contract.py",
    "unonet/v1/trailers.py",
    "unonet/client/py.typed",
    "unonet/bots/runner.py",
]


def clone_like_copy(destination: Path) -> None:
    """Copy the files a fresh clone of this checkout would have (git's view: no ignored file)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=STEP_TIMEOUT,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in this checkout is not in the clone either
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.mark.timeout(BUILD_TIMEOUT + 3 * STEP_TIMEOUT)
def test_a_wheel_from_a_fresh_clone_has_the_generated_modules_and_imports(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to know which files a clone has")
    source, dist, site = tmp_path / "clone", tmp_path / "dist", tmp_path / "site"
    clone_like_copy(source)
    assert not list((source / "protos/unonet/v1").glob("*_pb2*")), "the copy must start without generated code"

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(dist), str(source)],
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    (wheel,) = dist.glob("unonet-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [name for name in EXPECTED if name not in names] == []
    assert not any(name.startswith(("tests/", "protos/")) for name in names)

    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(site), str(wheel)],
        check=True,
        timeout=STEP_TIMEOUT,
    )
    probe = (
        "import unonet.v1.events_pb2 as events, unonet.client as client, unonet.bots as bots\n"
        "event = events.Event(number=3)\n"
        "assert events.Event.FromString(event.SerializeToString()).number == 3\n"
        "assert client.TableClient and bots.BotRunner\n"
        "print(events.__file__); print(client.__file__); print(bots.__file__)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
    )
    # Imported from the installed wheel, not from this checkout's editable install.
    assert [Path(line).is_relative_to(site) for line in ran.stdout.split()] == [True, True, True]
