"""`make pytest` keeps a module's tests on one xdist worker when they share something (tests/support/slow_first.py).

Each case runs a small suite of its own in a child pytest with the suite's own plugin and its options
(`-n 2 --dist loadgroup --no-loadscope-reorder`): a module whose tests share a module-scoped fixture, one
whose tests share what no fixture holds (it marks itself as an xdist group, as tests/conformance/
test_fields.py does), and single tests around them. Grouping depends on xdist naming each test's group in
its id, which pytest 9.2 silently stopped reading (xdist 3.8 sets `item._nodeid`; pytest 9.2 reads
`item._id`): every group was split across the workers, and a shared fixture built on each, with no
error anywhere. This test fails on such a pair of versions.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

SUPPORT = Path(__file__).resolve().parent / "support"
RUN_TIMEOUT = 120.0

CONFTEST = '''
from pathlib import Path

from slow_first import SlowFirst, add_options


def pytest_addoption(parser):
    add_options(parser)


def pytest_configure(config):
    config.pluginmanager.register(SlowFirst(Path(__file__).resolve().parent / "durations.json"), "slow-first")
'''
SHARED_FIXTURE = '''
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def built():
    Path(os.environ["WHERE"], "built-" + os.environ["PYTEST_XDIST_WORKER"]).touch()
    return 1


@pytest.mark.parametrize("n", range(6))
def test_uses_it(built, n):
    Path(os.environ["WHERE"], f"fixture-{n}").write_text(os.environ["PYTEST_XDIST_WORKER"])
'''
MARKED = '''
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("marked")


@pytest.mark.parametrize("n", range(6))
def test_shares_a_cache(n):
    Path(os.environ["WHERE"], f"marked-{n}").write_text(os.environ["PYTEST_XDIST_WORKER"])
'''
LONE = '''
import time

import pytest


@pytest.mark.parametrize("n", range(12))
def test_alone(n):
    time.sleep(0.05)  # long enough that every worker takes some of them
'''


def test_a_shared_fixture_and_a_marked_module_each_stay_on_one_worker(tmp_path: Path) -> None:
    tests, where = tmp_path / "tests", tmp_path / "where"
    tests.mkdir()
    where.mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\nasyncio_default_fixture_loop_scope = function\n")
    (tests / "conftest.py").write_text(CONFTEST)
    (tests / "test_fixture.py").write_text(SHARED_FIXTURE)
    (tests / "test_marked.py").write_text(MARKED)
    (tests / "test_lone.py").write_text(LONE)
    inherited = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_XDIST")}  # ours, if any
    env = {**inherited, "PYTHONPATH": os.pathsep.join([str(SUPPORT), str(tests)]), "WHERE": str(where)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q",
                           "-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder"],  # hypothesis: 0.7 s a process
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "24 passed" in out, out
    ran_on = {path.name: path.read_text() for path in where.iterdir() if not path.name.startswith("built-")}
    for module in ("fixture", "marked"):
        workers = Counter(worker for name, worker in ran_on.items() if name.startswith(f"{module}-"))
        assert sum(workers.values()) == 6 and len(workers) == 1, f"{module}'s tests were split: {workers}"
    built = [path.name for path in where.iterdir() if path.name.startswith("built-")]
    assert len(built) == 1, f"the module's fixture was built on {built}"
