"""A digest of many seeded random matches: events, legal actions and views, for comparing engine builds.

Speed work must not change behaviour, in this process or any other: the host replays journals on
restart. This plays seeded random matches over every preset, several random rulesets and 2 to 10
players, with out-of-turn actions (jump-ins, catches, run cuts, reactions) as well as turns, refused
actions, blocking windows both resolved and closed, `Game.copy()` and per-seat views, and hashes the
repr of everything the engine returned. Run it under two `PYTHONHASHSEED`s, or against two commits,
and compare the printed digests:

    PYTHONHASHSEED=1 python bench/replay_digest.py
    PYTHONHASHSEED=2 python bench/replay_digest.py

`--skip-fingerprints` leaves `Game.fingerprint()` out of the hash: its form is internal (a refactor
may name a state differently or add one it left out), so this compares behaviour alone across
engines whose fingerprints differ in form.
"""

from __future__ import annotations

import argparse
import hashlib
import random
from dataclasses import fields, replace

from unonet.engine import Match, Ruleset, UnoError
from unonet.engine.actions import Draw, Pass, Play, React
from unonet.engine.ruleset import BluffPenalty, FirstWild, JumpInPenalty, Scoring, WildDrawFourRule

BOOL_OPTIONS = [f.name for f in fields(Ruleset) if f.type in ("bool", bool) and f.name != "name"]

# Fixed here rather than taken from the presets, which may change: the digest compares engines.
BASES = {
    "standard": Ruleset(name="standard"),
    "house": Ruleset(name="house", stacking=True, jump_in=True, seven_o=True, runs=True),
    "serbian": Ruleset(
        name="serbian",
        sound_wilds=True,
        wild_draw_four=WildDrawFourRule.NO_OTHER_PLAY,
        uno_penalty=4,
        bluff_penalty=BluffPenalty.DRAW_SIX,
        scoring=Scoring.LOWEST_WINS,
        stacking=True,
        deflecting=True,
        runs=True,
        jump_in=True,
        super_jump_in=True,
        jump_in_penalty=JumpInPenalty.POINTS,
        seven_o=True,
    ),
    "french": Ruleset(name="french", first_wild=FirstWild.REDRAW, illegal_play_penalty=True),
    "russian": Ruleset(
        name="russian",
        blank_cards=True,
        h2o_wilds=True,
        false_call_penalty=True,
        uno_slap=True,
        scoring=Scoring.LOWEST_WINS,
        russian_scoring=True,
        stacking=True,
        deflecting=True,
        multi_play=True,
        jump_in=True,
        jump_in_penalty=JumpInPenalty.CARDS,
        skip_escape=True,
        seven_o=True,
        five_swap=True,
        silent_two=True,
        illegal_play_penalty=True,
    ),
    "polish": Ruleset(
        name="polish",
        first_wild=FirstWild.REDRAW,
        wild_draw_four=WildDrawFourRule.NO_MATCH_AT_ALL,
        draw_to_match=True,
        uno_penalty=4,
        scoring=Scoring.ELIMINATION,
    ),
}


def random_ruleset(rng: random.Random) -> Ruleset:
    ruleset = BASES[rng.choice(sorted(BASES))]
    for name in rng.sample(BOOL_OPTIONS, 8):
        try:
            ruleset = ruleset.replace(**{name: rng.random() < 0.5})
        except UnoError:
            continue
    return ruleset.replace(target_score=200)


def play(
    ruleset: Ruleset, players: int, seed: int, out: hashlib._Hash, max_steps: int, *, fingerprints: bool = True
) -> int:
    chooser = random.Random(seed * 31 + 7)
    match = Match(ruleset, players, random.Random(seed))
    out.update(repr(match.start()).encode())
    steps = 0
    while not match.is_over and steps < max_steps:
        steps += 1
        game = match.game
        if fingerprints and steps % 97 == 0:  # a copy plays on exactly like the original
            clone = game.copy()
            out.update(repr(clone.fingerprint()).encode())
        if steps % 13 == 0:  # views of every seat and a spectator
            for seat in [*range(players), None]:
                out.update(repr(match.view_for(seat)).encode())
        per_seat = [match.legal_actions(seat) for seat in range(players)]
        out.update(repr(per_seat).encode())
        to_act = game.to_act
        if to_act is None:
            window = next(w for w in game.windows.values() if w.is_blocking)
            if chooser.random() < 0.6:
                reactions = [
                    a
                    for seat in window.eligible
                    for a in per_seat[seat]
                    if isinstance(a, Play) or (isinstance(a, React) and a.window == window.id)
                ]
                chooser.shuffle(reactions)
                out.update(repr(match.resolve_window(window.id, reactions[:3])).encode())
            else:
                out.update(repr(match.close_window(window.id)).encode())
            continue
        others = [a for seat in range(players) if seat != to_act for a in per_seat[seat]]
        if others and chooser.random() < 0.15:
            action = chooser.choice(others)
        else:
            options = per_seat[to_act]
            keen = [a for a in options if not isinstance(a, Draw | Pass)]
            action = chooser.choice(keen if keen and chooser.random() < 0.8 else options)
        if chooser.random() < 0.03:  # a refused action: a card from another hand, or out of turn
            wrong = chooser.choice([a for seat in range(players) for a in per_seat[seat]] or [action])
            wrong = replace(wrong, seat=chooser.randrange(players))  # the same action by another seat
            try:
                out.update(repr(match.apply(wrong)).encode())
            except UnoError as error:
                out.update(f"{type(error).__name__}:{error}".encode())
            continue
        out.update(repr(match.apply(action)).encode())
    if fingerprints:
        out.update(repr(match.game.fingerprint()).encode())
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--max-steps", type=int, default=4_000)
    parser.add_argument("--skip-fingerprints", action="store_true", help="hash behaviour only, not the state's form")
    args = parser.parse_args()
    digest = hashlib.sha256()
    rng = random.Random(2026)
    steps = 0
    for number in range(args.matches):
        fixed = number < len(BASES)
        ruleset = BASES[sorted(BASES)[number]].replace(target_score=200) if fixed else random_ruleset(rng)
        players = 2 + number % 9
        steps += play(ruleset, players, 1000 + number, digest, args.max_steps, fingerprints=not args.skip_fingerprints)
    print(f"{args.matches} matches, {steps} steps: {digest.hexdigest()}")


if __name__ == "__main__":
    main()
