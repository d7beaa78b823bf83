"""`unonet serve` options that tune the store: parsed and checked before anything starts."""

from __future__ import annotations

import pytest

from unonet.cli import build_parser


def test_commit_interval_is_milliseconds_and_defaults_to_the_hosts() -> None:
    assert build_parser().parse_args(["serve"]).commit_interval is None  # serve() uses the store's default
    assert build_parser().parse_args(["serve", "--commit-interval", "0"]).commit_interval == 0.0
    assert build_parser().parse_args(["serve", "--commit-interval", "2.5"]).commit_interval == 2.5


@pytest.mark.parametrize("bad", ["-1", "1001", "soon", "nan"])
def test_a_commit_interval_outside_0_to_1000_ms_is_refused(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", "--commit-interval", bad])
    assert exited.value.code == 2
    assert "--commit-interval" in capsys.readouterr().err
