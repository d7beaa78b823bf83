"""Export a MaskablePPO policy's network to `policy.npz`, and check the export plays as the model does.

    ../../.venv/bin/python export_policy.py --model run/policy.zip --out policy.npz --deals 20

Needs the training dependencies (requirements.txt); what it writes does not (`numpy_policy.py`, the
league entrant). It keeps only what choosing an action needs: the policy network's two hidden layers
and its action layer, float32 as trained, and the observations' divisor (`common.scale_for`). The
value network and the optimiser's state, three quarters of the model file, stay behind.

The check: heads-up rounds against `random` and `greedy` from both seats, on deals training never saw,
the model choosing every action; at each of the learner's decisions both the model
(`predict(..., deterministic=True)`) and the export choose, and the script prints how often they agree
and the largest difference between their logits. A sample of those observations goes into the file with
the model's actions, for tests/rl/test_ppo_entrant.py to replay without torch. Exits with an error,
writing nothing, when the two disagree on any decision (the export would not be the trained policy).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
import torch
from common import make_env, scale_for
from numpy_policy import NumpyPolicy
from sb3_contrib import MaskablePPO

HERE = Path(__file__).resolve().parent
CHECK_SAMPLE = 300  # observations kept in the file for the test


def extract(model: MaskablePPO, divisor: np.ndarray) -> NumpyPolicy:
    """The policy network of `model` as a `NumpyPolicy`. Raises SystemExit for a network that is not two
    tanh layers and an action layer (what numpy_policy.py computes)."""
    policy = model.policy
    layers = list(policy.mlp_extractor.policy_net)
    hidden = [layer for layer in layers if isinstance(layer, torch.nn.Linear)]
    activations = [layer for layer in layers if not isinstance(layer, torch.nn.Linear)]
    if len(hidden) != 2 or len(activations) != 2 or not all(isinstance(a, torch.nn.Tanh) for a in activations):
        raise SystemExit(f"numpy_policy.py computes two tanh layers, not {policy.mlp_extractor.policy_net}")
    linear = [*hidden, policy.action_net]
    return NumpyPolicy(
        [layer.weight.detach().numpy().astype(np.float32) for layer in linear],
        [layer.bias.detach().numpy().astype(np.float32) for layer in linear],
        divisor,
        timesteps=int(model.num_timesteps),
    )


def save(exported: NumpyPolicy, out: Path, checks: dict[str, np.ndarray]) -> None:
    """Write `policy.npz` (its arrays are listed in numpy_policy.py)."""
    layers = {}
    for i, (weight, bias) in enumerate(zip(exported.weights, exported.biases, strict=True)):
        layers[f"layer{i}_weight"], layers[f"layer{i}_bias"] = weight, bias
    np.savez_compressed(
        out,
        **layers,
        divisor=exported.divisor,
        timesteps=np.int64(exported.timesteps),
        players=np.int64(exported.players),
        preset=np.str_(exported.preset),
        **checks,
    )


def compare(model: MaskablePPO, exported: NumpyPolicy, deals: range) -> tuple[dict[str, np.ndarray], int, int, float]:
    """Play `deals` with the model; the sample for the file, decisions, agreements and the largest logit gap."""
    observations, masks, actions = [], [], []
    agreed = decisions = 0
    gap = 0.0
    for opponent in ("random", "greedy"):
        for seat in (0, 1):
            env = make_env(opponent, seat=seat)
            divisor = env.divisor
            for deal in deals:
                scaled, _ = env.reset(seed=deal)
                while True:
                    mask = env.action_masks()
                    raw = np.rint(scaled * divisor).astype(np.uint8)
                    assert np.array_equal(raw.astype(np.float32) / divisor, scaled)
                    action = int(model.predict(scaled, action_masks=mask, deterministic=True)[0])
                    mine = exported.act(raw, mask)
                    with torch.no_grad():
                        features = torch.as_tensor(scaled[None])
                        latent = model.policy.mlp_extractor.forward_actor(features)
                        theirs = model.policy.action_net(latent).numpy()[0]
                    gap = max(gap, float(np.abs(theirs - exported.logits(raw)).max()))
                    decisions += 1
                    agreed += action == mine
                    observations.append(raw)
                    masks.append(mask)
                    actions.append(action)
                    scaled, _reward, terminated, truncated, _ = env.step(action)
                    if terminated or truncated:
                        break
    sample = sorted(random.Random(0).sample(range(decisions), min(CHECK_SAMPLE, decisions)))
    checks = {
        "check_observations": np.stack([observations[i] for i in sample]),
        "check_masks": np.stack([masks[i] for i in sample]),
        "check_actions": np.array([actions[i] for i in sample], np.int64),
    }
    return checks, decisions, agreed, gap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=HERE / "run" / "policy.zip")
    parser.add_argument("--out", type=Path, default=HERE / "policy.npz")
    parser.add_argument("--deals", type=int, default=20, help="deals per opponent and seat")
    parser.add_argument("--first-deal", type=int, default=20_000_000, help="deals training never saw")
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = MaskablePPO.load(args.model, device="cpu")
    exported = extract(model, scale_for(make_env().unwrapped))
    checks, decisions, agreed, gap = compare(model, exported, range(args.first_deal, args.first_deal + args.deals))
    print(
        f"the export chose the model's action on {agreed:,} of {decisions:,} decisions ({agreed / decisions:.2%}); "
        f"largest logit difference {gap:.2e}"
    )
    if agreed != decisions:
        raise SystemExit(f"the export does not play as the model does: {args.out} not written")
    save(exported, args.out, checks)
    print(f"wrote {args.out}: {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
