"""The reasons check of tests/test_error_reasons.py holds under `pytest -n`: it adds up every worker's reasons,
and it still fails a run (tests/support/reasons_sent.py).

Each case runs a small suite of its own in a child pytest: two test files, each making the host's
`status_for` produce one reason, and a check that wants both. With two workers and `--dist loadfile`,
each file goes to its own worker, so only the sum of the workers' reasons holds both.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SUPPORT = Path(__file__).resolve().parent / "support"
RUN_TIMEOUT = 120.0

CONFTEST = '''
from pathlib import Path

import pytest
from reasons_sent import ReasonsSent

WANTED = {"NOT_YOUR_TURN", "TABLE_NOT_FOUND"}
KEY = pytest.StashKey[ReasonsSent]()


def check(sent):
    missing = sorted(WANTED - sent)
    return [f"no test sent {missing}"] if missing else []


def pytest_configure(config):
    plugin = ReasonsSent(Path(__file__).resolve().parent, "test_zz_check.py", "test_check", check)
    plugin.install()
    config.pluginmanager.register(plugin, "reasons")
    config.stash[KEY] = plugin


@pytest.fixture
def plugin(pytestconfig):
    return pytestconfig.stash[KEY]
'''
SENDS = '''
import os
from pathlib import Path

from unonet.engine import NotYourTurn
from unonet.host import errors


def test_{name}():
    Path(os.environ["WHERE"], "{name}").write_text(os.environ.get("PYTEST_XDIST_WORKER", "alone"))
    if os.environ.get("CASE") == "dies" and "{name}" == "b":
        os._exit(3)  # the worker dies: what it saw never reaches the controller
    if os.environ.get("CASE") != "silent" or "{name}" == "a":
        errors.status_for({error})
'''
CHECK = '''
from conftest import check


def test_check(plugin):
    assert plugin.whole_suite
    assert check(plugin.sent) == []
'''


def run_suite(tmp_path: Path, case: str, *workers: str) -> tuple[int, str, dict[str, str]]:
    """Run the small suite (`case`: "sends", "silent" or "dies") with `workers` options; the exit code, the
    output and, for each sending test, the worker it ran on."""
    tests = tmp_path / "tests"
    where = tmp_path / "where"
    tests.mkdir()
    where.mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\nasyncio_default_fixture_loop_scope = function\n")
    (tests / "conftest.py").write_text(CONFTEST)
    (tests / "test_a.py").write_text(SENDS.format(name="a", error='NotYourTurn("not now")'))
    (tests / "test_b.py").write_text(SENDS.format(name="b", error='errors.not_found("TABLE_NOT_FOUND", "no table")'))
    (tests / "test_zz_check.py").write_text(CHECK)
    inherited = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_XDIST")}  # ours, if any
    env = {**inherited, "PYTHONPATH": os.pathsep.join([str(SUPPORT), str(tests)]), "WHERE": str(where), "CASE": case}
    # Without hypothesis' plugin, which imports hypothesis in every process (0.7 s of CPU each; 10 processes here).
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-q",
                           *workers],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    ran_on = {path.name: path.read_text() for path in where.iterdir()}
    return done.returncode, done.stdout + done.stderr, ran_on


TWO_WORKERS = ("-n", "2", "--dist", "loadfile", "--max-worker-restart", "0")


def test_alone_the_check_is_an_ordinary_test(tmp_path: Path) -> None:
    code, out, ran_on = run_suite(tmp_path, "sends")
    assert code == 0, out
    assert "3 passed" in out and ran_on == {"a": "alone", "b": "alone"}


def test_under_xdist_the_controller_checks_what_every_worker_saw(tmp_path: Path) -> None:
    code, out, ran_on = run_suite(tmp_path, "sends", *TWO_WORKERS)
    assert code == 0, out
    assert ran_on["a"] != ran_on["b"], f"both files ran on one worker, so nothing was added up: {ran_on}"
    assert "3 passed" in out, out  # the check is reported under its own name, so the count is the same


@pytest.mark.parametrize(("case", "says"), [
    ("silent", "no test sent ['TABLE_NOT_FOUND']"),
    ("dies", "sent no reasons back (it died?)"),
])
def test_under_xdist_a_missing_reason_still_fails_the_run(tmp_path: Path, case: str, says: str) -> None:
    code, out, _ = run_suite(tmp_path, case, *TWO_WORKERS)
    assert code == pytest.ExitCode.TESTS_FAILED, out
    assert says in out
    assert "FAILED tests/test_zz_check.py::test_check" in out
