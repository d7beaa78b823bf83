"""The scenario runner reads every value a file names strictly and reports what differs.

Each test pins one promise of docs/scenarios.md: a typo is a scenario error (never a rules failure, never
a silent pass); a failure says what differs; rounds are dealt by an explicit step; refusals inside a
resolved window are reported; a set-up may be expected to be refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from unonet.cli import main
from unonet.scenarios import ScenarioResult, run_file, run_scenario

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"

POSITION: dict[str, Any] = {
    "hands": [["red 5", "red 7"], ["blue 3", "blue 4"]],
    "draw_pile": ["green 1", "green 2", "green 3"],
    "discard": ["yellow 9", "red 1"],
}
PLAY = {"action": "play", "seat": 0, "card": "red 5"}


def scenario(*steps: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"rule": "T1", "players": 2, "setup": dict(POSITION), "steps": list(steps), **top}


def expect(**wanted: Any) -> dict[str, Any]:
    """The red 5 play, expecting `wanted` after it."""
    return {**PLAY, "expect": wanted}


def failed(result: ScenarioResult, *phrases: str) -> None:
    assert result.status == "fail", result.report()
    for phrase in phrases:
        assert phrase in result.report(), result.report()


def errored(result: ScenarioResult, phrase: str) -> None:
    assert result.status == "error", result.report()
    assert result.error is not None and phrase in result.error, result.report()


# ----------------------------------------------------------------- cards in expectations


@pytest.mark.parametrize(
    "wanted",
    [
        {"hand": {"seat": 0, "cards": ["red 77"]}},
        {"hands": [["red 7"], ["blue 3", "bleu 4"]]},
        {"top": "purple 5"},
        {"draw_pile": ["green 1", "green two"]},
        {"discard": ["yellow 9", "red 1", 5]},
        {"events": [{"type": "Played", "cards": ["red5"]}]},
        {"no_events": [{"type": "Played", "cards": ["red 55"]}]},
    ],
    ids=["hand", "hands", "top", "draw_pile", "discard", "events", "no_events"],
)
def test_a_misspelt_expected_card_is_a_scenario_error(wanted: dict[str, Any]) -> None:
    errored(run_scenario(scenario(expect(**wanted))), "card")


def test_expected_cards_are_read_like_set_up_cards_not_compared_as_text() -> None:
    result = run_scenario(scenario(expect(top="RED 5", hands=[["Red 7"], ["blue 4", "BLUE 3"]])))
    assert result.passed, result.report()


@pytest.mark.parametrize(
    ("wanted", "phrase"),
    [
        ({"color": "gren"}, "unknown colour 'gren'"),
        ({"phase": "turns"}, "unknown phase 'turns'"),
        ({"windows": ["jump"]}, "unknown window kind 'jump'"),
        ({"events": [{"type": "Drew", "reason": "obligaton"}]}, "Drew.reason: unknown value 'obligaton'"),
        ({"events": [{"type": "Played", "jump_in": "no"}]}, "Played.jump_in is true or false"),
        ({"obligation": {"target": 1}}, "obligation is {target = SEAT, amount = N}"),
    ],
)
def test_other_misspelt_values_are_scenario_errors(wanted: dict[str, Any], phrase: str) -> None:
    errored(run_scenario(scenario(expect(**wanted))), phrase)


# ----------------------------------------------------------------- event mismatches


def test_an_event_mismatch_shows_the_fields_that_differ() -> None:
    wanted = [{"type": "Played", "seat": 0, "cards": ["red 7"]}, {"type": "TurnStarted", "seat": 1}]
    failed(
        run_scenario(scenario(expect(events=wanted))),
        "expected event Played {seat = 0, cards = ['red 7']} (in order)",
        "event 1 differs in cards: expected ['red 7'], got ['red 5']",
        "the step's events: 1 Played, 2 WindowOpened, 3 TurnStarted",
    )


def test_an_event_of_a_type_the_step_lacks_is_named_with_the_events_it_had() -> None:
    failed(
        run_scenario(scenario(expect(events=[{"type": "Drew", "seat": 0}]))),
        "this step has no Drew; its events: 1 Played, 2 WindowOpened, 3 TurnStarted",
    )


def test_an_event_out_of_order_is_said_to_come_too_early() -> None:
    failed(
        run_scenario(scenario(expect(events=["TurnStarted", {"type": "Played", "seat": 0}]))),
        "event 1 matches but comes before the previous expected event",
    )


def test_a_forbidden_event_with_fields_fails_only_when_they_match() -> None:
    assert run_scenario(scenario(expect(no_events=[{"type": "Played", "seat": 1}]))).passed
    failed(run_scenario(scenario(expect(no_events=[{"type": "Played", "seat": 0}]))), "happened but must not")


# ----------------------------------------------------------------- multisets

DEAL = {"deck": ["red 1", "blue 1", "red 2", "blue 2", "red 3", "blue 3", "red 4", "blue 4", "red 5", "blue 5",
                 "red 6", "blue 6", "red 7", "blue 7", "green 5", "green 6"], "dealer": 1}
DEALT_TO_0 = ["red 1", "red 2", "red 3", "red 4", "red 5", "red 6", "red 7"]


def dealt(cards: Any) -> dict[str, Any]:
    return {"rule": "S3", "players": 2, "setup": DEAL, "expect_start": {"events": [
        {"type": "Dealt", "seat": 0, "cards": cards},
    ]}}


def test_a_list_field_is_compared_in_order_unless_any_order_is_asked() -> None:
    assert run_scenario(dealt(DEALT_TO_0)).passed
    failed(run_scenario(dealt(DEALT_TO_0[::-1])), "event 2 differs in cards")
    assert run_scenario(dealt({"any_order": DEALT_TO_0[::-1]})).passed


def test_any_order_may_stand_for_one_list_inside_another() -> None:
    """One hand of RoundEnded.hands in any order, the other (empty) exactly."""
    def ended(hands: Any) -> dict[str, Any]:
        return {"rule": "P1", "players": 2, "setup": {"hands": [["red 5"], ["blue 3", "blue 4"]], "discard": ["red 1"]},
                "steps": [{**PLAY, "expect": {"events": [{"type": "RoundEnded", "hands": hands}]}}]}

    assert run_scenario(ended([[], {"any_order": ["blue 4", "blue 3"]}])).passed
    failed(run_scenario(ended([[], ["blue 4", "blue 3"]])), "event 2 differs in hands")
    failed(run_scenario(ended([[], {"any_order": ["blue 4", "blue 4"]}])), "differs in hands")


def test_any_order_is_still_a_multiset_of_the_right_cards() -> None:
    failed(run_scenario(dealt({"any_order": [*DEALT_TO_0[:6], "red 1"]})), "any_order")
    failed(run_scenario(dealt({"any_order": DEALT_TO_0[:6]})), "any_order")
    errored(run_scenario(dealt({"any_order": ["red 1", "red 99"]})), "cannot read card 'red 99'")


# ----------------------------------------------------------------- reasons


@pytest.mark.parametrize(
    "data",
    [
        scenario({**PLAY, "card": "blue 3", "error": "CARD_NOT_IN_HAN"}),
        scenario(
            {"action": "resolve_window", "window": "uno_slap", "reactions": [
                {"action": "react", "seat": 0, "window": "uno_slap", "error": "NOT_ELIGABLE"},
            ]},
        ),
        {"rule": "S1", "players": 11, "setup": {"dealer": 0}, "setup_error": "BAD_PLAYERS_COUNT"},
    ],
    ids=["step", "reaction", "setup_error"],
)
def test_an_unknown_reason_is_a_scenario_error_with_a_suggestion(data: dict[str, Any]) -> None:
    result = run_scenario(data)
    errored(result, "unknown reason")
    assert "did you mean" in str(result.error)


# ----------------------------------------------------------------- reactions refused inside resolve_window


def slap(*reactions: dict[str, Any], **wanted: Any) -> dict[str, Any]:
    setup = {
        "hands": [["red 4", "red 6"], ["yellow 1", "yellow 2"], ["green 8", "green 9"]],
        "draw_pile": ["red 1", "red 2", "red 5"],
        "discard": ["red 3"],
    }
    steps = [
        {"action": "play", "seat": 0, "card": "red 4", "call_uno": True},
        {"action": "resolve_window", "window": "uno_slap", "reactions": list(reactions), "expect": wanted},
    ]
    return {"rule": "H13", "players": 3, "options": {"uno_slap": True}, "setup": setup, "steps": steps}


def react(seat: int, **more: Any) -> dict[str, Any]:
    return {"action": "react", "seat": seat, "window": "uno_slap", **more}


def test_a_reaction_refused_inside_resolve_window_is_reported() -> None:
    failed(
        run_scenario(slap(react(2), react(0), react(1))),
        "step 2 (resolve_window): reaction 2 (react by seat 0): refused with NOT_ELIGIBLE",
    )


def test_an_expected_refusal_inside_resolve_window_passes_and_the_others_still_apply() -> None:
    result = run_scenario(slap(react(2), react(0, error="NOT_ELIGIBLE"), react(1), hand_sizes=[1, 4, 2]))
    assert result.passed, result.report()


def test_a_reaction_expected_to_be_refused_must_be() -> None:
    failed(run_scenario(slap(react(2, error="NOT_ELIGIBLE"), react(1))), "reaction 1 (react by seat 2): expected "
           "error NOT_ELIGIBLE, but it was not refused")
    failed(run_scenario(slap(react(2), react(0, error="ALREADY_REACTED"), react(1))),
           "expected error ALREADY_REACTED, got NOT_ELIGIBLE")


def test_expectations_inside_a_reaction_are_a_scenario_error() -> None:
    errored(run_scenario(slap(react(2, expect={"current": 1}))), "expect belongs to the resolve_window step")


# ----------------------------------------------------------------- rounds are dealt by an explicit step

LAST_CARD: dict[str, Any] = {"hands": [["red 5"], ["blue 3", "blue 4"]], "draw_pile": [], "discard": ["red 1"]}


def last_card(*steps: dict[str, Any], **wanted: Any) -> dict[str, Any]:
    return {"rule": "P1", "players": 2, "setup": LAST_CARD, "steps": [{**PLAY, "expect": wanted}, *steps]}


def test_a_round_ending_step_leaves_the_finished_round_in_view() -> None:
    result = run_scenario(last_card(winner=0, phase="round_over", round_no=1, hands=[[], ["blue 3", "blue 4"]],
                                    no_events=["RoundStarted"]))
    assert result.passed, result.report()


def test_the_next_round_is_dealt_only_by_a_next_round_step() -> None:
    deal = {"action": "next_round", "expect": {"round_no": 2, "dealer": 1, "hand_sizes": [7, 7], "winner": "none",
                                               "events": [{"type": "RoundStarted", "round_no": 2, "dealer": 1}]}}
    result = run_scenario(last_card(deal))
    assert result.passed, result.report()


def test_a_step_after_the_round_ended_points_at_next_round() -> None:
    failed(run_scenario(last_card({"action": "draw", "seat": 1})),
           "refused with ROUND_OVER", "a next_round step deals the next")


def test_next_round_during_a_round_is_refused() -> None:
    assert run_scenario(scenario({"action": "next_round", "error": "GAME_OVER"})).passed
    failed(run_scenario(scenario({"action": "next_round"})), "refused with GAME_OVER")


def test_no_winner_is_written_none() -> None:
    assert run_scenario(scenario(expect(winner="none", to_act=1, silence="none"))).passed
    failed(run_scenario(last_card(winner="none")), "winner: expected 'none', got 0")


# ----------------------------------------------------------------- piles


def test_the_draw_pile_and_the_discard_are_checked_card_by_card() -> None:
    assert run_scenario(scenario(expect(draw_pile=["green 1", "green 2", "green 3"],
                                        discard=["yellow 9", "red 1", "red 5"]))).passed
    failed(
        run_scenario(scenario(expect(draw_pile=["green 2", "green 1", "green 3"], discard=["red 1", "red 5"]))),
        "draw_pile: expected ['green 2', 'green 1', 'green 3'], got ['green 1', 'green 2', 'green 3']",
        "discard: expected ['red 1', 'red 5'], got ['yellow 9', 'red 1', 'red 5']",
    )


# ----------------------------------------------------------------- a set-up with an open obligation


def owed(obligation: Any, **setup: Any) -> dict[str, Any]:
    position = {**POSITION, "discard": ["yellow 9", "red draw_two"], "current": 1, "obligation": obligation, **setup}
    return {"rule": "T8", "players": 2, "setup": position, "steps": [{"action": "draw", "seat": 1, "expect": {
        "hand_sizes": [2, 4], "current": 0, "draw_pile": ["green 3"]}}]}


def test_a_set_up_may_open_a_draw_obligation() -> None:
    result = run_scenario(owed({"target": 1}))
    assert result.passed, result.report()


@pytest.mark.parametrize(
    ("obligation", "setup", "phrase"),
    [
        ({"amount": 2}, {}, "setup.obligation has target"),
        ({"target": 1, "amont": 2}, {}, "setup.obligation has target"),
        ({"target": 1, "kind": "skip"}, {}, "kind = 'skip' sets no obligation; kind is one of"),
        ({"target": 1}, {"discard": ["red 1"]}, "the top card red 1 sets no obligation"),
        ({"target": 0, "setter": 1}, {}, "bad set-up: the obligation's target 0 must be the seat to act (1)"),
        ({"target": 1, "bluff": {"hand": ["red 5"], "color": "red"}}, {}, "only the setter of a Wild Draw Four"),
        ({"target": 1, "kind": "wild_draw_four", "bluff": {"hand": []}}, {}, "exactly hand"),
        (
            {"target": 1, "kind": "wild_draw_four", "bluff": {"hand": [], "color": "red"}},
            {"discard": ["wild_draw_four"]},
            "needs the card below the Wild Draw Four",
        ),
    ],
)
def test_an_impossible_obligation_is_a_scenario_error(obligation: Any, setup: dict[str, Any], phrase: str) -> None:
    errored(run_scenario(owed(obligation, **setup)), phrase)


# ----------------------------------------------------------------- a set-up expected to be refused


def refused_setup(reason: str, players: int = 11, **top: Any) -> dict[str, Any]:
    return {"rule": "S1", "players": players, "setup": {"dealer": 0}, "setup_error": reason, **top}


def test_a_set_up_may_be_expected_to_be_refused() -> None:
    assert run_scenario(refused_setup("BAD_PLAYER_COUNT")).passed


def test_a_set_up_refused_for_another_reason_or_accepted_fails() -> None:
    failed(run_scenario(refused_setup("DECK_TOO_SMALL")),
           "expected the set-up to be refused with DECK_TOO_SMALL, got BAD_PLAYER_COUNT")
    failed(run_scenario(refused_setup("BAD_PLAYER_COUNT", players=4)),
           "expected the set-up to be refused with BAD_PLAYER_COUNT, but it was accepted")


def test_a_refused_set_up_has_no_steps() -> None:
    errored(run_scenario(refused_setup("BAD_PLAYER_COUNT", steps=[PLAY])), "has no steps and no expect_start")


def test_without_setup_error_a_refused_set_up_is_a_scenario_error() -> None:
    errored(run_scenario({"rule": "S1", "players": 11, "setup": {"dealer": 0}}), "bad set-up")


# ----------------------------------------------------------------- the command line


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


PASSING = 'rule = "S1"\nplayers = 11\nsetup_error = "BAD_PLAYER_COUNT"\n[setup]\ndealer = 0\n'
FAILING = 'rule = "S1"\nplayers = 4\nsetup_error = "BAD_PLAYER_COUNT"\n[setup]\ndealer = 0\n'
BROKEN = 'rule = "S1"\nplayers = 11\nsetup_error = "BAD_PLAYER_COUNTS"\n[setup]\ndealer = 0\n'


def test_the_exit_status_tells_a_rules_failure_from_a_scenario_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok, bad, broken = (write(tmp_path, f"{n}.toml", t) for n, t in [("ok", PASSING), ("bad", FAILING),
                                                                   ("broken", BROKEN)])
    assert main(["rules", "check", ok]) == 0
    assert main(["rules", "check", ok, bad]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {bad}" in out and "1 passed, 1 failed, 0 scenario errors" in out
    assert main(["rules", "check", ok, bad, broken]) == 2
    out = capsys.readouterr().out
    assert f"ERROR {broken}" in out and "scenario error: setup_error: unknown reason" in out
    assert "1 passed, 1 failed, 1 scenario error" in out


def test_every_toml_example_in_the_format_doc_passes(tmp_path: Path) -> None:
    examples = re.findall(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(examples) >= 2
    for number, text in enumerate(examples):
        result = run_file(Path(write(tmp_path, f"example_{number}.toml", text)))
        assert result.passed, result.report()


@pytest.mark.parametrize(
    ("setup", "phrase"),
    [
        ({**POSITION, "deck": ["red 1"] * 15}, "not both"),
        ({"deck": DEAL["deck"], "dealer": 1, "current": 1}, "['current'] describe a position and need hands"),
    ],
)
def test_set_up_keys_that_would_be_ignored_are_a_scenario_error(setup: dict[str, Any], phrase: str) -> None:
    errored(run_scenario({"rule": "S3", "players": 2, "setup": setup}), phrase)


@pytest.mark.parametrize(
    ("step", "phrase"),
    [
        ({"action": "draw", "seat": 0, "card": "red 5"}, "draw takes no card"),
        ({**PLAY, "reactions": []}, "play takes no reactions"),
        ({**PLAY, "target": 1}, "play takes no target"),
        ({"action": "next_round", "seat": 0}, "next_round takes no seat"),
        ({"action": "close_window", "window": "uno_catch", "seat": 1}, "close_window takes no seat"),
        ({**PLAY, "cards": ["red 5"]}, "card or cards, not both"),
        ({**PLAY, "call_uno": "yes"}, "call_uno is true or false"),
    ],
)
def test_an_argument_the_action_would_ignore_is_a_scenario_error(step: dict[str, Any], phrase: str) -> None:
    errored(run_scenario(scenario(step)), phrase)


def test_an_obligation_amount_must_be_a_number() -> None:
    errored(run_scenario(owed({"target": 1, "amount": "2"})), "amount is a whole number")


def test_the_format_doc_lists_every_reason_the_engine_gives() -> None:
    from unonet.engine import REASONS

    listed = set(re.findall(r"`([A-Z][A-Z_]+)`", DOCS.read_text(encoding="utf-8")))
    assert REASONS - listed == set(), "docs/scenarios.md's reason table misses these"
