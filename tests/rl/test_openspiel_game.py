"""The OpenSpiel game `python_unonet`: OpenSpiel's own random-simulation test on several presets, the
chance deal, zero-sum returns, resampling from an information state, and OpenSpiel's ISMCTS bot on it."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import unonet.rl.openspiel  # registers python_unonet
from unonet.rl.openspiel import parse_options


def load(**params):
    return pyspiel.load_game(unonet.rl.openspiel.GAME_NAME, params)


def dealt(game, seed: int):
    """A state past the chance nodes (the dealer and the deck), dealt from `seed`."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probabilities)))
    return state


@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("standard", 2, ""),
        ("house", 3, ""),
        ("russian", 4, ""),
        ("serbian", 2, ""),
        ("polish", 3, ""),
        ("french", 2, "stacking=false,uno_slap=true"),
        ("standard", 10, ""),
    ],
)
def test_random_sim_test_passes(preset, players, options):
    game = load(preset=preset, players=players, options=options, max_steps=300)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_the_deal_is_chance_a_dealer_then_every_card():
    game = load(players=3)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    state.apply_action(1)
    laid = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
        state.apply_action(outcomes[0][0])
        laid += 1
    assert laid == 108
    assert state.round.table.game.dealer == 1


def test_returns_are_zero_sum_and_tensors_have_the_declared_shape():
    game = load(preset="house", players=4, max_steps=20_000)
    state = dealt(game, 3)
    rng = random.Random(3)
    while not state.is_terminal():
        for player in range(4):
            assert len(state.observation_tensor(player)) == game.observation_tensor_size()
            assert len(state.information_state_tensor(player)) == game.information_state_tensor_size()
        state.apply_action(rng.choice(state.legal_actions()))
    returns = state.returns()
    assert abs(sum(returns)) < 1e-9 and sorted(returns)[-1] == 1.0


def test_resampling_keeps_what_the_player_knows_and_deals_the_rest_anew():
    game = load(preset="standard", players=3)
    state = dealt(game, 5)
    player = state.current_player()
    key = state.information_state_string(player)
    others = {tuple(map(str, state.round.table.game.hands[s])) for s in range(3) if s != player}
    changed = False
    for i in range(5):
        sample = state.resample_from_infostate(player, random.Random(i).random)
        assert sample.information_state_string(player) == key
        assert sample.legal_actions() == state.legal_actions()
        hands = sample.round.table.game.hands
        assert hands[player] == state.round.table.game.hands[player]
        changed |= {tuple(map(str, hands[s])) for s in range(3) if s != player} != others
    assert changed
    assert state.information_state_string(player) == key  # the state itself is untouched


def test_openspiels_ismcts_bot_plays_the_game():
    game = load(preset="standard", players=2, max_steps=400)
    state = dealt(game, 1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(1))
    for _ in range(3):
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_options_are_read_from_the_parameter_string():
    assert parse_options("stacking=true, uno_penalty=4,scoring=lowest_wins") == {
        "stacking": True,
        "uno_penalty": 4,
        "scoring": "lowest_wins",
    }
    with pytest.raises(ValueError, match="name=value"):
        parse_options("stacking")
    assert load(preset="house", options="stacking=false").ruleset.stacking is False
