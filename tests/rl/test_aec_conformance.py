"""PettingZoo's own checkers on the AEC environment: every preset, several table sizes, and rulesets drawn
from every option of RULES.md (small cycle counts: `make test` runs them all)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from pettingzoo.test import api_test, render_test, seed_test
from rulesets import any_ruleset

from unonet.engine import PRESETS, Ruleset
from unonet.rl import env


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_advice():
    # api_test advises Box observations; a dict with an action mask is PettingZoo's own masked convention
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_api_test_passes_on_every_preset(preset, players):
    api_test(env(preset=preset, players=players), num_cycles=60)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_seed_test_passes_on_every_preset(preset):
    seed_test(lambda: env(preset=preset, players=3), num_cycles=60)


def test_api_test_passes_with_ten_players_and_points():
    api_test(env(preset="house", players=10, reward="points"), num_cycles=20)


def test_render_test_passes():
    render_test(lambda render_mode=None: env(render_mode=render_mode, preset="house", players=3))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ruleset=any_ruleset())
def test_api_test_passes_on_rulesets_drawn_from_every_option(ruleset: Ruleset):
    api_test(env(players=3, **ruleset.options()), num_cycles=40)
