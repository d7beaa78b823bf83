"""unonet.rl: UNO for learners, on the full rules and every house rule (docs/rl.md).

- `env(preset=..., players=N, **options)`: a PettingZoo AEC environment (`unonet.rl.aec`);
- `UnoGymEnv` (registered as `unonet/Uno-v0`): one seat against built-in bots (`unonet.rl.gym_env`);
- `unonet.rl.openspiel`: the game for OpenSpiel (`pyspiel.load_game("python_unonet")`).

All three share one action space (`unonet.rl.actions`), one observation (`unonet.rl.observation`) and one
rule for turning races into turns (`unonet.rl.table`). Needs the `rl` extra: `pip install 'unonet[rl]'`.
"""

from __future__ import annotations

from unonet.rl.aec import UnoEnv, env, raw_env
from unonet.rl.gym_env import ENV_ID, UnoGymEnv, register

register()

__all__ = ["ENV_ID", "UnoEnv", "UnoGymEnv", "env", "raw_env"]
