"""Scenario files: `unonet rules check` settles a dispute with a file a newcomer can write from
docs/scenarios.md, shows a readable diff when the file is wrong, and reports a file it
cannot run as a scenario error (never a traceback, never a silent pass).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from unonet.cli import main
from unonet.scenarios import run_file, run_scenario

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
DOC_EXAMPLE = re.search(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)


def doc_example(tmp_path: Path) -> Path:
    assert DOC_EXAMPLE, "docs/scenarios.md has no whole TOML example"
    path = tmp_path / "dispute.toml"
    path.write_text(DOC_EXAMPLE.group(1), encoding="utf-8")
    return path


def test_the_documented_example_settles_its_dispute(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "check", "-v", str(doc_example(tmp_path))]) == 0
    assert "PASS" in capsys.readouterr().out


def test_a_wrong_expectation_fails_with_a_readable_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = doc_example(tmp_path)
    text = path.read_text(encoding="utf-8").replace("hand_sizes = [2, 6, 2]", "hand_sizes = [2, 2, 2]")
    path.write_text(text.replace('error = "MUST_ANSWER_OBLIGATION"', 'error = "CARD_DOES_NOT_MATCH"'), encoding="utf-8")
    assert main(["rules", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "step 3 (play by seat 1): expected error CARD_DOES_NOT_MATCH, got MUST_ANSWER_OBLIGATION" in out
    assert "step 4 (draw by seat 1): hand_sizes: expected [2, 2, 2], got [2, 6, 2]" in out
    assert "0 passed, 1 failed" in out


POSITION: dict[str, Any] = {"hands": [["red 5", "red 7"], ["blue 3"]], "discard": ["red 1"]}


def scenario(steps: Any = None, **top: Any) -> dict[str, Any]:
    return {"rule": "T1", "players": 2, "setup": dict(POSITION), "steps": steps or [], **top}


PLAY = {"action": "play", "seat": 0, "card": "red 5"}
MALFORMED = [
    (scenario(players="two"), "players must be a whole number"),
    (scenario(players=11, setup={"dealer": 0}), "UNO is played by 2 to 10 players, not 11"),
    (scenario(setup={"deck": ["red 5"], "dealer": 0}), "the deck is too small"),
    (scenario(setup={**POSITION, "current": 7}), "current must be a seat from 0 to 1, not 7"),
    (scenario(setup={"hands": POSITION["hands"]}), "setup needs 'discard'"),
    (scenario(steps="play"), "steps must be a list of tables"),
    (scenario([{"action": "play", "seat": 0}]), "play needs card (or cards)"),
    (scenario([{"action": "catch_uno", "seat": 0}]), "catch_uno needs target"),
    (scenario([{"action": "draw"}]), "draw needs seat"),
    (scenario([{"action": "play", "seat": "zero", "card": "red 5"}]), "seat must be a seat number, not 'zero'"),
    (scenario([{"action": "fly", "seat": 0}]), "unknown action 'fly'"),
    (scenario([{"action": "catch", "seat": 0, "target": 1}]), "the action 'catch' is now 'catch_uno'"),
    (scenario([{"action": "swap", "seat": 0, "target": 1}]), "the action 'swap' is now 'choose_swap_target'"),
    (scenario([{**PLAY, "expected": {"current": 0}}]), "unknown keys ['expected']"),
    (scenario([{**PLAY, "expect": {"no_events": ["Plaid"]}}]), "unknown event 'Plaid'"),
    (scenario([{**PLAY, "expect": {"events": [{"type": "Played", "colour": "red"}]}}]), "Played has no field colour"),
    (scenario([{**PLAY, "expect": {"hand": {"seat": 5, "cards": []}}}]), "hand must be {seat = 0..1"),
    (scenario([{**PLAY, "expect": {"size": 1}}]), "cannot check unknown key 'size'"),
    (
        scenario([{"action": "resolve_window", "window": "uno_slap", "reactions": [{"action": "react"}]}]),
        "reaction 1: react needs window, seat",
    ),
    (scenario(ruleset="spanish"), "unknown ruleset 'spanish'"),
    (scenario(options={"stacking_mixed": True}), "stacking_mixed needs stacking"),
    (scenario([{**PLAY, "card": "purple 5"}]), "cannot read card 'purple 5'"),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_a_file_that_cannot_run_is_a_scenario_error(data: dict[str, Any], message: str) -> None:
    result = run_scenario(data)
    assert not result.passed
    assert result.error is not None and message in result.error, result.report()


def test_unreadable_toml_is_a_scenario_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('rule = "T1"\n[setup\n', encoding="utf-8")
    result = run_file(path)
    assert not result.passed and result.error and "cannot read" in result.error


def test_expectations_after_a_refusal_describe_the_unchanged_state() -> None:
    refused = {"action": "play", "seat": 0, "card": "blue 3", "error": "CARD_NOT_IN_HAND"}
    assert run_scenario(scenario([{**refused, "expect": {"current": 0, "hand_sizes": [2, 1]}}])).passed
    result = run_scenario(scenario([{**refused, "expect": {"current": 1}}]))
    assert not result.passed and "current: expected 1, got 0" in result.report()
