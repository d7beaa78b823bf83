"""The compiled environment the benches measure: `.venv-compiled` as `make compiled` builds it.

`make test` builds the same environment for its compiled tier with gcc at -O0 (mypyc's `opt_level`,
the Makefile's `MYPYC_OPT_LEVEL`): the same C, so the same behaviour, and 40 s of CPU quicker to build,
but its engine runs ~20% slower than the -O3 wheel the benches report (bench/README.md). The Makefile's
stamp names the level it built at; a bench runs on the environment only when it is the -O3 build.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVIRONMENT = ROOT / ".venv-compiled"
PYTHON = ENVIRONMENT / "bin" / "python"
#: Written by the Makefile when the wheel built at mypyc's default level is installed.
BENCH_STAMP = ENVIRONMENT / ".installed-O3"
NOT_FOR_BENCHES = (f"{ENVIRONMENT} holds a build that is not the one the benches measure (make test builds it "
                   "at -O0 for its tests): run `make compiled` first")


def built_for_benches(python: Path = PYTHON) -> bool:
    """False only for this checkout's compiled environment when `make compiled` did not build it last;
    another interpreter (a bench's `--compiled-python`) is taken as given."""
    return python.resolve() != PYTHON.resolve() or BENCH_STAMP.exists()
