"""The AEC environment's own promises (unonet.rl.aec, docs/rl.md): masks, refusals, seeds, rewards, races."""

from __future__ import annotations

import numpy as np
import pytest

from unonet.engine import PRESETS, MalformedAction, RulesetError
from unonet.rl import raw_env
from unonet.rl.actions import ACTION_COUNT, DECLINE


def play(environment, picks, *, limit=20_000):
    """Step every agent with `picks(mask)` until the episode ends; yields (agent, observation, action)."""
    for agent in environment.agent_iter(limit):
        observation, _reward, terminated, truncated, _info = environment.last()
        action = None if terminated or truncated else picks(observation["action_mask"])
        yield agent, observation, action
        environment.step(action)


def _random_picker(seed):
    rng = np.random.default_rng(seed)
    return lambda mask: rng.choice(np.flatnonzero(mask))


def test_only_the_selected_agent_has_legal_actions():
    environment = raw_env(preset="house", players=4)
    environment.reset(seed=3)
    for _ in range(200):
        selected = environment.agent_selection
        if environment.terminations[selected]:
            break
        for agent in environment.agents:
            mask = environment.observe(agent)["action_mask"]
            assert mask.shape == (ACTION_COUNT,) and mask.dtype == np.int8
            assert mask.any() == (agent == selected)
        legal = np.flatnonzero(environment.observe(selected)["action_mask"])
        environment.step(int(legal[0]))


def test_a_masked_action_is_refused_and_changes_nothing():
    environment = raw_env(players=2)
    environment.reset(seed=5)
    agent = environment.agent_selection
    before = environment.observe(agent)
    masked = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        environment.step(masked)
    after = environment.observe(agent)
    assert environment.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


def test_bad_arguments_fail_loudly():
    with pytest.raises(RulesetError):
        raw_env(preset="klingon")
    with pytest.raises(RulesetError):
        raw_env(stacking="yes")
    with pytest.raises(MalformedAction):
        raw_env(players=11)
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="glory")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_the_same_seed_plays_the_same_round_and_another_seed_another():
    def trace(seed):
        environment = raw_env(preset="serbian", players=3)
        environment.reset(seed=seed)
        rng = np.random.default_rng(0)
        steps = [
            (agent, observation["observation"].tobytes(), action)
            for agent, observation, action in play(environment, lambda m: rng.choice(np.flatnonzero(m)))
        ]
        return steps, environment.table.rewards

    assert trace(11) == trace(11)
    assert trace(11) != trace(12)


@pytest.mark.parametrize("reward", ["win", "points"])
def test_the_round_ends_with_every_agent_terminated_and_rewarded(reward):
    environment = raw_env(preset="standard", players=3, reward=reward)
    environment.reset(seed=2)
    rng = np.random.default_rng(1)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    for agent, _observation, _action in play(environment, lambda m: rng.choice(np.flatnonzero(m))):
        totals[agent] += environment._cumulative_rewards.get(agent, 0.0)
    table = environment.table
    winner = table.game.winner
    assert not environment.agents  # every terminated agent was stepped with None and removed
    if reward == "win":
        assert table.rewards == [1.0 if seat == winner else -1.0 for seat in range(3)]
    else:
        hands = table.game.hands
        assert table.rewards[winner] == sum(card.points for seat, hand in enumerate(hands) for card in hand)
        assert all(table.rewards[seat] == 0 for seat in range(3) if seat != winner)


def test_offers_carry_decline_and_required_decisions_never_do():
    environment = raw_env(preset="house", players=4)
    offers = 0
    for seed in range(6):
        environment.reset(seed=seed)
        pick = _random_picker(seed)
        for _agent, observation, action in play(environment, pick):
            if action is None:
                continue
            offer = observation["observation"][environment.layout.offset("offer")]
            assert bool(observation["action_mask"][DECLINE]) == bool(offer)
            offers += int(offer)
    assert offers > 0


def test_a_declined_offer_is_not_offered_again_until_something_changes():
    environment = raw_env(preset="house", players=4)
    declined = 0
    for seed in range(10):
        environment.reset(seed=seed)
        shown: list[object] = []
        while environment.agents and not environment.terminations[environment.agent_selection]:
            table = environment.table
            if not table.required:
                key = (
                    table.seat,
                    tuple(sorted(table.legal)),
                    tuple(table.game.windows),
                    table.game.to_act,
                    table.game.current,
                    len(table.game.discard),
                )
                assert key not in shown, "the same chance was offered twice"
                shown.append(key)
                environment.step(DECLINE)
                declined += 1
            else:
                shown.clear()
                environment.step(min(table.legal))
    assert declined > 0


@pytest.mark.parametrize("preset", ["russian", "serbian", "house"])
def test_every_unmasked_action_is_one_the_engine_accepts(preset):
    environment = raw_env(preset=preset, players=3)
    for seed in range(3):
        environment.reset(seed=seed)
        pick = _random_picker(seed)
        for _agent, _observation, action in play(environment, pick):
            if action is None:
                continue
            table = environment.table
            for index, engine_action in table.legal.items():
                if index == DECLINE and not table.required:
                    continue
                table.game.copy().apply(engine_action)  # raises if the rules refuse it


def test_every_preset_constructs_with_its_own_rules():
    for preset in PRESETS:
        assert raw_env(preset=preset).ruleset == PRESETS[preset]


@pytest.mark.parametrize("players", [2, 4])
def test_last_is_pettingzoos_own_last(players):
    """`UnoEnv.last` (its own, observing in one call) returns what PettingZoo's `AECEnv.last` returns, at
    every step of rounds (cut short at 250 steps, or ended), the done agents' last steps included, observing or not."""
    from pettingzoo import AECEnv

    environment = raw_env(preset="house", players=players, reward="points", max_steps=250)
    compared = 0
    for seed in range(2):
        environment.reset(seed=seed)
        for _agent in environment.agent_iter():
            ours, theirs = environment.last(), AECEnv.last(environment)
            assert ours[1:] == theirs[1:]
            assert ours[0].keys() == theirs[0].keys()
            assert all(np.array_equal(ours[0][key], theirs[0][key]) for key in ours[0])
            assert environment.last(observe=False) == (None, *theirs[1:])
            compared += 1
            terminated, truncated, info = ours[2], ours[3], ours[4]
            environment.step(None if terminated or truncated else info["legal_actions"][-1])
    assert compared > 2 * players
