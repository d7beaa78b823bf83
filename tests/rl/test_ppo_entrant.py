"""The learning example's trained policy (examples/rl): its committed export is the trained model, and it
plays league games as a `python = "module:Class"` entrant, with neither torch nor stable-baselines3."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from unonet.league import config as league_config
from unonet.league.inprocess import play_game
from unonet.league.runner import check_entrants
from unonet.league.schedule import schedule
from unonet.rl.actions import BASIC_ACTION_COUNT
from unonet.rl.observation import ObservationLayout

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl"
POLICY = EXAMPLE / "policy.npz"


@pytest.fixture
def example(monkeypatch):
    """examples/rl on the import path, as `PYTHONPATH=examples/rl` puts it for the league's entrant."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import numpy_policy
    import ppo_entrant

    yield numpy_policy, ppo_entrant
    for name in ("numpy_policy", "ppo_entrant"):
        sys.modules.pop(name, None)


def test_the_committed_policy_is_compact_and_chooses_as_the_trained_model_did(example):
    numpy_policy, _ = example
    assert POLICY.stat().st_size < 2_000_000
    policy = numpy_policy.NumpyPolicy.load(POLICY)
    layout = ObservationLayout(2)
    assert (policy.players, policy.preset, policy.observation_size) == (2, "standard", layout.size)
    assert policy.action_count == BASIC_ACTION_COUNT
    assert np.array_equal(policy.divisor, np.clip(layout.high.astype(np.float32), 1.0, 16.0))  # common.Scaled's
    with np.load(POLICY) as data:
        observations, masks, actions = data["check_observations"], data["check_masks"], data["check_actions"]
    assert len(actions) >= 200 and len(set(actions.tolist())) > 10  # many positions, many kinds of move
    chosen = [policy.act(observation, mask) for observation, mask in zip(observations, masks, strict=True)]
    assert chosen == actions.tolist()  # the MaskablePPO model's own deterministic actions


def test_a_mask_that_allows_nothing_is_refused(example):
    numpy_policy, _ = example
    policy = numpy_policy.NumpyPolicy.load(POLICY)
    with pytest.raises(ValueError, match="no action"):
        policy.act(np.zeros(policy.observation_size, np.uint8), np.zeros(policy.action_count, np.bool_))


def test_the_entrant_plays_league_games_by_its_network(example, tmp_path):
    _, ppo_entrant = example
    path = tmp_path / "league.toml"
    path.write_text(
        '[league]\nname = "ppo"\nseed = 5\ngames = 4\ntable_size = 2\npreset = "standard"\n\n'
        '[[bot]]\nname = "ppo"\npython = "ppo_entrant:PPOBot"\n\n[[bot]]\nname = "random"\nkind = "random"\n'
    )
    config = league_config.load(path)
    built = check_entrants(config)  # imports ppo_entrant:PPOBot as the league does
    bots: list[ppo_entrant.PPOBot] = []

    def keep(name):
        def make(seed):
            bot = built[name](seed)
            if isinstance(bot, ppo_entrant.PPOBot):
                bots.append(bot)
            return bot

        return make

    specs = schedule(config)
    assert len(specs) == 4
    for spec in specs:
        result = play_game(config, spec, [keep(name) for name in spec.seats])
        assert result.outcomes == ("played", "played")
        assert sorted(result.ranks) == [1, 2]
    assert len(bots) == 4
    assert all(bot.decisions > 0 for bot in bots)  # every game, the network chose its plays


def test_the_entrant_needs_no_training_dependency():
    """In a process where torch, stable-baselines3 and sb3-contrib cannot be imported, the entrant loads."""
    script = (
        "import sys\n"
        "for name in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "    sys.modules[name] = None  # import fails\n"
        "import ppo_entrant\n"
        "print(ppo_entrant.PPOBot(1).policy.action_count)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=EXAMPLE, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(BASIC_ACTION_COUNT)
