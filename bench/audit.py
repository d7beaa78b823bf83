"""What the audit costs per event: the hash chain, the Verifier, and the replay through the engine.

A benchmark, not a test. It plays seeded matches of host bots in process (every preset, fair shuffles
on), takes each one's public log, and times, per event, in this process:

- `chain`: `LogChain.feed` (the public form, the canonical encoding, one SHA-256), which every SDK
  stream and every Verifier now does for each event;
- `serialize` (the peer): `Event.SerializeToString()`, what the host and the SDK already pay for every
  event on the wire, so `chain_ratio` = chain / serialize says what the chain adds in those units;
- `verifier`: a spectator's `Verifier.feed` over the whole log (the chain included) and `finish`;
- `replay`: `unonet.verify_replay.replay_log`, the `--replay` audit (offline, once per log).

    .venv/bin/python bench/audit.py            # a readable table
    .venv/bin/python bench/audit.py --json     # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from fair_games import TABLE_ID, play_match, stream

from unonet.client.logchain import LogChain
from unonet.client.verify import verify_events
from unonet.host import shuffles
from unonet.verify_replay import replay_log

PRESETS = ["standard", "house", "serbian", "french", "russian", "polish"]


def _per_event(seconds: float, events: int) -> float:
    return seconds / events * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument("--repeat", type=int, default=5, help="passes over each log for chain/serialize")
    args = parser.parse_args()
    shuffles.secrets = SimpleNamespace(token_bytes=random.Random(1).randbytes)  # type: ignore[assignment]
    logs = {preset: stream(play_match(5, preset=preset, target_score=150), None) for preset in PRESETS}
    total = sum(len(events) for events in logs.values())
    timings = {"chain": 0.0, "serialize": 0.0, "verifier": 0.0, "replay": 0.0}
    for _ in range(args.repeat):  # chain and its peer alternate, so a drifting machine affects both
        for events in logs.values():
            start = time.perf_counter()
            chain = LogChain(TABLE_ID)
            for event in events:
                chain.feed(event)
            timings["chain"] += time.perf_counter() - start
            start = time.perf_counter()
            for event in events:
                event.SerializeToString()
            timings["serialize"] += time.perf_counter() - start
    for events in logs.values():
        start = time.perf_counter()
        verify_events(TABLE_ID, events)
        timings["verifier"] += time.perf_counter() - start
        start = time.perf_counter()
        replay_log(TABLE_ID, events)
        timings["replay"] += time.perf_counter() - start
    result = {
        "events": total,
        "chain_us_per_event": round(_per_event(timings["chain"], total * args.repeat), 2),
        "serialize_us_per_event": round(_per_event(timings["serialize"], total * args.repeat), 2),
        "verifier_us_per_event": round(_per_event(timings["verifier"], total), 2),
        "replay_us_per_event": round(_per_event(timings["replay"], total), 2),
    }
    result["chain_ratio"] = round(result["chain_us_per_event"] / result["serialize_us_per_event"], 2)
    for name, value in result.items():
        print(f"{name:24s} {value}")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
