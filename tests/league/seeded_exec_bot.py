"""A tiny `exec` league bot whose every choice comes from its seed: UNONET_SEED, by the launch convention.

For each required decision it answers a random index of the listed actions, from a generator seeded
with UNONET_SEED; it lets every optional chance go (so it never races). Without UNONET_SEED it exits
with status 3 at once, so a runner that forgot the seed sees a crashing program, not a working one.
"""

from __future__ import annotations

import json
import os
import random
import sys


def main() -> int:
    seed = os.environ.get("UNONET_SEED")
    if seed is None:
        print("seeded_exec_bot: no UNONET_SEED", file=sys.stderr)
        return 3
    rng = random.Random(int(seed))
    for line in sys.stdin:
        question = json.loads(line)
        answer = rng.randrange(len(question["actions"])) if question["required"] else None
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
