"""The one registry of bot kinds: each kind's name, what it does in a sentence, and its policy factory.

`python -m unonet.bots --kind` builds a policy from it, and the host reads it too: `ListBotKinds`
lists the public kinds at each of their levels, and `AddBots` / a takeover accept only those names.

Names on the wire: ``KIND:LEVEL`` (``greedy:2``; `unonet.bots.levels`: 1 is the weakest and slowest,
3 the policy itself). A bare ``KIND`` is its top level and is seated as ``KIND:3``. A kind without
levels (``random``) has one name, its own. A kind that is not public (``oracle``, which sees every
hand) is never listed or seated by a host; only in-process tables (`bench/bots.py`) make it.

A new kind is one `BotKind` line below; nothing else lists kinds. A kind that searches registers with
``in_worker=True`` (a host then plays it in a worker process, never on its event loop), the
``decision_s`` its decisions take at most at each level, and the cheap ``fallback`` kind a host plays
a decision by when the worker does not make it in time (`unonet.host.bot_watch`); and, if its full
budget is too slow for `bench/bots.py --quick`, ``quick_level`` naming the smaller fixed budget the
quick run seats it at; the bench pairs it against the baselines by itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from unonet.bots.basic_bot import BasicBot
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.levels import LEVELS, TOP_LEVEL, Level, Leveled, parse_kind, reaction_seconds
from unonet.bots.oracle_bot import OracleBot
from unonet.bots.policy import Bot
from unonet.bots.random_bot import RandomBot
from unonet.bots.strong import StrongBot, decision_seconds_at, level_note, strong_at_level

__all__ = [
    "BOT_KINDS",
    "DEFAULT_BOT_KIND",
    "BotKind",
    "UnknownBotKind",
    "bench_kinds",
    "canonical_name",
    "decision_seconds",
    "describe",
    "fallback_kind",
    "level_of",
    "make_bot",
    "public_names",
    "race_reaction_seconds",
    "runs_in_worker",
]


class UnknownBotKind(ValueError):
    """A bot kind name that names no public kind, or a level that kind does not have."""


@dataclass(frozen=True, slots=True)
class BotKind:
    """A kind of bot: its name on the wire, a sentence for people choosing one, and its policy.

    Attributes:
        name: the family name (``greedy``); levels add ``:N``.
        description: one sentence for people choosing a kind.
        factory: called as ``factory(seed)``; gives the policy a `BotRunner` plays.
        public: offered by hosts (ListBotKinds, AddBots, takeovers); False for measurement-only kinds.
        levels: whether the kind takes a level (``KIND:N``).
        quick_level: the name `bench/bots.py --quick` seats it by, when not its top level (a search
            kind at a smaller fixed budget).
        in_worker: a host plays it in a worker process of its own, over loopback, never on its event
            loop (`unonet.host.bot_workers`): for kinds that search.
        at_level: ``at_level(level, seed)`` builds the kind at a level below the top by its own means
            (a search with a smaller budget); None wraps `factory`'s policy in `levels.Leveled`.
        level_note: for a kind with `at_level`, a sentence on what a level changes (its budget), for
            `describe`; None says what `levels.Leveled` changes.
        decision_s: for an `in_worker` kind, ``decision_s(level)``: the longest one decision takes at
            that level on an idle machine, its pause included (a host's worker watch allows this plus
            its grace).
        fallback: for an `in_worker` kind, the public kind a host plays a decision by when the worker
            does not make it in time, and the whole seat by once the worker keeps failing: one cheap
            enough for the host's event loop.
    """

    name: str
    description: str
    factory: Callable[[int | None], Bot]
    public: bool = True
    levels: bool = True
    quick_level: str | None = None
    in_worker: bool = False
    at_level: Callable[[int, int | None], Bot] | None = None
    level_note: Callable[[int], str] | None = None
    decision_s: Callable[[int], float] | None = None
    fallback: str | None = None


BOT_KINDS: Mapping[str, BotKind] = MappingProxyType({kind.name: kind for kind in (
    BotKind(RandomBot.kind, "Uniformly random among the plays, else among the other moves: the literature's "
            "baseline (RLCard's random agent); never catches, calls UNO only by chance.", RandomBot, levels=False),
    BotKind(BasicBot.kind, "Plays a random legal card whenever it can, names its most-held colour, never "
            "forgets UNO, catches others.", BasicBot),
    BotKind(GreedyBot.kind, "Sound heuristics: sheds points and action cards early, holds wilds, keeps its "
            "colour in force, defends against a player on one card, challenges by the odds.", GreedyBot),
    BotKind(StrongBot.kind, "Searches: plays each choice out over deals of the unseen cards drawn from what the "
            "table showed, greedy playing the rest of each round.",
            StrongBot, quick_level="strong:1", in_worker=True, at_level=strong_at_level, level_note=level_note,
            decision_s=decision_seconds_at, fallback=f"{GreedyBot.kind}:{TOP_LEVEL}"),
    BotKind(OracleBot.kind, "Greedy that sees every hand: cheats, for measurement in-process only.", OracleBot,
            public=False, levels=False),
)})
"""Every bot kind, by family name."""

DEFAULT_BOT_KIND = f"{BasicBot.kind}:{TOP_LEVEL}"
"""The kind of a seat filled or taken over without a kind named (the habits of the host's old bot)."""


def _kind_of(name: str, *, public_only: bool) -> tuple[BotKind, int]:
    try:
        family, level = parse_kind(name)
    except ValueError as error:
        raise UnknownBotKind(str(error)) from None
    kind = BOT_KINDS.get(family)
    if kind is None or (public_only and not kind.public):
        known = ", ".join(public_names())
        raise UnknownBotKind(f"no bot kind {name!r}; known: {known}")
    if not kind.levels and ":" in name:
        raise UnknownBotKind(f"{family!r} takes no level; name it {family!r}")
    return kind, level


def canonical_name(name: str) -> str:
    """The name a public kind is seated by: ``greedy`` -> ``greedy:3``. Raises UnknownBotKind."""
    kind, level = _kind_of(name, public_only=True)
    return f"{kind.name}:{level}" if kind.levels else kind.name


def make_bot(name: str, seed: int | None = None, *, public_only: bool = False) -> Bot:
    """The policy for `name` (any registered kind, the measurement-only ones too unless `public_only`).

    Raises UnknownBotKind.
    """
    kind, level = _kind_of(name, public_only=public_only)
    if not kind.levels or level == TOP_LEVEL:
        return kind.factory(seed)
    if kind.at_level is not None:
        return kind.at_level(level, seed)
    return Leveled(kind.factory(seed), LEVELS[level], seed)


def describe(name: str) -> str:
    """A sentence or two on how `name` plays: its kind's description, and what its level changes."""
    kind, level = _kind_of(name, public_only=False)
    if not kind.levels:
        return kind.description
    detail = LEVELS[level]
    races = f" With a person at the table it answers a race in about {detail.reaction_s:g} s."
    if kind.level_note is not None:
        return f"{kind.description} Level {level} of {TOP_LEVEL}: {kind.level_note(level)}{races}"
    if level == TOP_LEVEL:
        return f"{kind.description} Level {level} of {TOP_LEVEL}: its full strength, no pause.{races}"
    return (f"{kind.description} Level {level} of {TOP_LEVEL}: a random play {detail.blunder:.0%} of the time, "
            f"forgets UNO {detail.forget_uno:.0%} of the time, thinks about {detail.think_s:g} s a move.{races}")


def level_of(name: str) -> Level:
    """The level a seat of `name` plays at, for what a runner times by it (its reaction time in races,
    `levels.reaction_seconds`): ``greedy:2`` level 2; a bare kind, a kind without levels and a name
    this registry does not know (a restored journal's), the top level."""
    try:
        _, level = _kind_of(name, public_only=False)
    except UnknownBotKind:
        return LEVELS[TOP_LEVEL]
    return LEVELS[level]


def race_reaction_seconds(name: str, rng: random.Random) -> float:
    """One race's reaction time of a seat of kind `name` at a table with a person: a draw from `rng` of
    its level's distribution (`levels.reaction_seconds` at `level_of(name)`)."""
    return reaction_seconds(level_of(name), rng)


def runs_in_worker(name: str) -> bool:
    """Whether a host plays `name` in a worker process (`BotKind.in_worker`); False for unknown names."""
    try:
        kind, _ = _kind_of(name, public_only=False)
    except UnknownBotKind:
        return False
    return kind.in_worker


def fallback_kind(name: str) -> str:
    """The kind a host plays `name`'s decisions by when its worker fails (`BotKind.fallback`); the
    default kind for a kind with none, or a name the registry does not know."""
    try:
        kind, _ = _kind_of(name, public_only=False)
    except UnknownBotKind:
        return DEFAULT_BOT_KIND
    return canonical_name(kind.fallback) if kind.fallback else DEFAULT_BOT_KIND


def decision_seconds(name: str) -> float:
    """The longest one decision of `name` takes on an idle machine, its pause included
    (`BotKind.decision_s`); 0 for a kind that does not say, or an unknown name."""
    try:
        kind, level = _kind_of(name, public_only=False)
    except UnknownBotKind:
        return 0.0
    return kind.decision_s(level) if kind.decision_s is not None else 0.0


def public_names() -> list[str]:
    """Every name a host offers, each public kind at each of its levels, weakest level first."""
    names: list[str] = []
    for kind in BOT_KINDS.values():
        if kind.public:
            names.extend([f"{kind.name}:{level}" for level in sorted(LEVELS)] if kind.levels else [kind.name])
    return names


def bench_kinds(*, quick: bool = False) -> dict[str, str]:
    """Every registered kind, public or not, by family -> the name a benchmark seats it by."""
    return {name: (kind.quick_level if quick and kind.quick_level else name) for name, kind in BOT_KINDS.items()}
