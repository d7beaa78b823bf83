"""Generate the protocol's Python modules inside the build, so `pip install .` and a wheel work anywhere.

The generated `unonet/v1/*_pb2.py`, `*_pb2_grpc.py` and their `.pyi` stubs are never committed
(STYLE.md), so a fresh clone has none. This `build_py` runs `grpc_tools.protoc` (with mypy-protobuf's
plugins for the stubs) on `protos/unonet/v1/*.proto` straight into the build directory, the way
dm_env_rpc's `setup.py` does; `[build-system].requires` pins both tools to the versions the runtime
pins match. An editable install (`make install`) skips this: there `make protos` generates the
modules next to the `.proto` files, where the editable import finds them.

With `UNONET_USE_MYPYC=1` in the environment the build also compiles the engine's hot modules, the
learning environments' and the host's per-command path (the lists are `[tool.unonet.compiled]` in
pyproject.toml) with mypyc into a platform wheel, as black and mypy build theirs: `make compiled` does so
with `--no-build-isolation` in its own environment, where the dev extra's mypy is installed. The
compiled modules land in the build directory and the wheel, never beside the sources, which stay the
reference the editable install runs.

Everything else about the distribution is in `pyproject.toml`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.egg_info import egg_info

ROOT = Path(__file__).resolve().parent
PROTO_ROOT = ROOT / "protos"
PROTO_PACKAGE = Path("unonet") / "v1"
#: mypy-protobuf's protoc plugins, which write the `.pyi` stubs of messages and of services.
STUB_PLUGINS = {"mypy": "protoc-gen-mypy", "mypy_grpc": "protoc-gen-mypy_grpc"}


class BuildPyWithProtos(build_py):
    """`build_py` that also generates `unonet.v1`'s modules and stubs into the build directory."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            self.generate_protos()

    def generate_protos(self) -> None:
        """Run protoc on every `.proto` of `unonet.v1`, writing into `build_lib`.

        Raises:
            RuntimeError: there is no `.proto` to compile, or a stub plugin is not installed.
            subprocess.CalledProcessError: protoc refused a file (its message is on stderr).
        """
        protos = sorted(str(path.relative_to(PROTO_ROOT)) for path in (PROTO_ROOT / PROTO_PACKAGE).glob("*.proto"))
        if not protos:
            raise RuntimeError(f"no .proto files under {PROTO_ROOT / PROTO_PACKAGE}")
        out = Path(self.build_lib)
        (out / PROTO_PACKAGE).mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_ROOT}"]
        command += [f"--python_out={out}", f"--grpc_python_out={out}"]
        for name, plugin in STUB_PLUGINS.items():
            command += [f"--plugin=protoc-gen-{name}={_find_plugin(plugin)}", f"--{name}_out={out}"]
        self.announce(f"generating {len(protos)} protocol modules into {out / PROTO_PACKAGE}", level=2)
        subprocess.run([*command, *protos], check=True)


class EggInfoApart(egg_info):
    """`egg_info` that, for the compiled build, writes the metadata under `build/compiled-egg-info`.

    An editable install (`make install`) writes `./unonet.egg-info`; `make test` builds the compiled
    wheel while it runs, and two builds writing one folder's files at once could read each other's
    half-written manifest.
    """

    def initialize_options(self) -> None:
        super().initialize_options()
        if os.environ.get("UNONET_USE_MYPYC") == "1":
            self.egg_base = str(Path("build") / "compiled-egg-info")
            Path(self.egg_base).mkdir(parents=True, exist_ok=True)


def _find_plugin(name: str) -> str:
    """The path of the protoc plugin script `name`: on PATH, or beside this interpreter."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        raise RuntimeError(f"{name} is not installed: the build needs mypy-protobuf (see [build-system] requires)")
    return found


def compiled_modules() -> list[Any]:
    """The mypyc extensions of the engine when `UNONET_USE_MYPYC=1`, else none (the pure-Python build).

    Raises ImportError when asked to compile where mypy (which ships mypyc) is not installed.
    """
    if os.environ.get("UNONET_USE_MYPYC") != "1":
        return []
    from mypyc.build import mypycify

    with (ROOT / "pyproject.toml").open("rb") as file:
        compiled = tomllib.load(file)["tool"]["unonet"]["compiled"]
    paths = [f"server/unonet/engine/{name}.py" for name in compiled["modules"]]
    paths += [f"server/unonet/rl/{name}.py" for name in compiled["rl_modules"]]
    paths += [f"server/unonet/host/{name}.py" for name in compiled["host_modules"]]
    paths += [f"server/unonet/wire/{name}.py" for name in compiled["wire_modules"]]
    # gcc's level: mypyc's default 3 for the wheel the benches measure; `make test` asks for 0 (Makefile).
    opt_level = os.environ.get("UNONET_MYPYC_OPT_LEVEL", "3")
    return mypycify(paths, opt_level=opt_level)  # one group: the learning modules call the engine natively


setup(cmdclass={"build_py": BuildPyWithProtos, "egg_info": EggInfoApart}, ext_modules=compiled_modules())
