"""Ordering the answers to a reaction window (RULES.md "Reaction windows"; U2, U5, H4, H6/H7, H12).

A race is won by whoever reacted fastest after their own copy of the window arrived. Each answer's
arrival time on the host's clock is turned into a reaction time by taking off the network time the
host forgives that seat (`latency`), the answers are sorted by it, and answers closer than a tolerance
are a tie, broken by a seeded draw. The result is a `Ruling` holding every number it used, so a log
can be audited and the draw replayed.

Tie-breaks use the scheme's own DRBG (`shuffle.shuffled` under `derive_seed(seed, "race-tie", g)`)
rather than `random.Random`, so a verifier in another language can replay them; the host passes a seed
players cannot predict during the round, e.g. `derive_seed(round_seed, "race", window_no)`, which the
host seed reveal makes auditable afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace

from unonet.fairness.base_errors import InvalidInput
from unonet.fairness.encoding import exact_bytes
from unonet.fairness.latency import (
    DEFAULT_MAX_FORGIVEN_S,
    bounded_reaction_time,
    forgiven_round_trip,
    reaction_time,
)
from unonet.fairness.shuffle import derive_seed, shuffled

DEFAULT_TIE_TOLERANCE_S = 0.001
TIE_LABEL = "race-tie"
HOST_ESTIMATE = "host_estimate"
CLIENT_BOUNDED = "client_bounded"


@dataclass(frozen=True, slots=True)
class Reaction:
    """One seat's answer to a window, with the latency figures the host held when the window opened.

    `rtt_s` is the seat's estimated round trip (`LatencyEstimator.rtt`), uncapped: the ruling applies
    the cap. If the client also timed its own reaction (`claimed_reaction_s`), it is used, bounded by
    the slowest recent round trip `max_rtt_s` (or `rtt_s` when that is None); see
    `latency.bounded_reaction_time`.
    """

    seat: int
    arrived_at: float
    rtt_s: float
    max_rtt_s: float | None = None
    claimed_reaction_s: float | None = None

    def __post_init__(self) -> None:
        figures = [self.arrived_at, self.rtt_s, self.max_rtt_s, self.claimed_reaction_s]
        if not all(math.isfinite(f) for f in figures if f is not None):
            raise InvalidInput(f"reaction figures must be finite: {self}")
        if self.seat < 0:
            raise InvalidInput(f"no seat {self.seat}")


@dataclass(frozen=True, slots=True)
class RulingEntry:
    """One answer as ruled: what was measured, what was forgiven, and the resulting reaction time.

    `forgiven_s` is the network time actually credited (arrival - opened - reaction time); `method`
    says whether the host's estimate or the client's bounded claim decided; `tie_group` numbers the
    groups of answers within the tolerance, fastest group 0 (-1 for a late answer).
    """

    seat: int
    arrived_at: float
    rtt_s: float
    max_rtt_s: float | None
    claimed_reaction_s: float | None
    forgiven_s: float
    method: str
    reaction_time_s: float
    tie_group: int


@dataclass(frozen=True, slots=True)
class Ruling:
    """The outcome of a window and every figure used to reach it."""

    window_opened_at: float
    duration_s: float | None
    max_forgiven_s: float
    tie_tolerance_s: float
    seed: bytes
    ranked: tuple[RulingEntry, ...]
    late: tuple[RulingEntry, ...]

    @property
    def order(self) -> tuple[int, ...]:
        """Seats in the order they reacted, fastest first (late answers excluded)."""
        return tuple(entry.seat for entry in self.ranked)

    @property
    def fastest(self) -> int | None:
        return self.ranked[0].seat if self.ranked else None

    @property
    def slowest(self) -> int | None:
        """The slowest seat that answered in time (seats that never answered are the host's business)."""
        return self.ranked[-1].seat if self.ranked else None

    def to_record(self) -> dict[str, object]:
        """A JSON-ready dict for the event log (the seed as hex)."""
        record = asdict(self)
        record["seed"] = self.seed.hex()
        record["order"] = list(self.order)
        return record


def compensate(reaction: Reaction, window_opened_at: float, max_forgiven_s: float) -> RulingEntry:
    """One answer's reaction time, not yet placed in a tie group (`tie_group` is -1).

    Never negative: nobody answers before their copy arrives, so an estimate below 0 (this message was
    faster than the seat's typical round trip, or a claim below 0) means "at once", and the network time
    credited is cut to what the answer actually took. Answers at 0 tie, and the seeded draw orders them.
    """
    if reaction.claimed_reaction_s is None:
        forgiven = forgiven_round_trip(reaction.rtt_s, max_forgiven_s)
        took = reaction_time(window_opened_at, reaction.arrived_at, forgiven)
        method = HOST_ESTIMATE
    else:
        slowest = reaction.rtt_s if reaction.max_rtt_s is None else reaction.max_rtt_s
        allowance = forgiven_round_trip(slowest, max_forgiven_s)
        took = bounded_reaction_time(window_opened_at, reaction.arrived_at, reaction.claimed_reaction_s, allowance)
        forgiven = reaction.arrived_at - window_opened_at - took
        method = CLIENT_BOUNDED
    if took < 0:
        took, forgiven = 0.0, max(reaction.arrived_at - window_opened_at, 0.0)
    return RulingEntry(
        seat=reaction.seat,
        arrived_at=reaction.arrived_at,
        rtt_s=reaction.rtt_s,
        max_rtt_s=reaction.max_rtt_s,
        claimed_reaction_s=reaction.claimed_reaction_s,
        forgiven_s=forgiven,
        method=method,
        reaction_time_s=took,
        tie_group=-1,
    )


def order_reactions(
    window_opened_at: float,
    reactions: Sequence[Reaction],
    *,
    seed: bytes,
    max_forgiven_s: float = DEFAULT_MAX_FORGIVEN_S,
    tie_tolerance_s: float = DEFAULT_TIE_TOLERANCE_S,
    duration_s: float | None = None,
) -> Ruling:
    """Rule a window: compensate every answer, drop late ones, sort, and break ties by the seed.

    An answer is late when `duration_s` is given and its reaction time exceeds it. Ties: walking the
    answers fastest first, a group starts at the fastest unplaced answer and takes every answer within
    `tie_tolerance_s` of it (so a group never spans more than the tolerance); group g's seats, sorted
    ascending, are put in the order `shuffled(seats, derive_seed(seed, "race-tie", g))`.

    Raises InvalidInput for a seat that answers twice (the host keeps only a seat's first answer), a
    negative tolerance, or a seed that is not 32 bytes.
    """
    exact_bytes(seed, "race seed")
    if not tie_tolerance_s >= 0:
        raise InvalidInput(f"tie tolerance must be >= 0, got {tie_tolerance_s}")
    seats = [r.seat for r in reactions]
    if len(set(seats)) != len(seats):
        raise InvalidInput(f"a seat answered twice: {sorted(seats)}")

    entries = [compensate(r, window_opened_at, max_forgiven_s) for r in reactions]
    in_time = sorted(
        (e for e in entries if duration_s is None or e.reaction_time_s <= duration_s),
        key=lambda e: (e.reaction_time_s, e.seat),
    )
    late = tuple(
        sorted(
            (e for e in entries if duration_s is not None and e.reaction_time_s > duration_s),
            key=lambda e: (e.reaction_time_s, e.seat),
        )
    )

    by_seat = {e.seat: e for e in in_time}
    ranked = [replace(by_seat[seat], tie_group=group) for seat, group in
              tie_order([(e.seat, e.reaction_time_s) for e in in_time], seed=seed, tie_tolerance_s=tie_tolerance_s)]

    return Ruling(
        window_opened_at=window_opened_at,
        duration_s=duration_s,
        max_forgiven_s=max_forgiven_s,
        tie_tolerance_s=tie_tolerance_s,
        seed=bytes(seed),
        ranked=tuple(ranked),
        late=late,
    )


def tie_order(
    reactions: Sequence[tuple[int, float]], *, seed: bytes, tie_tolerance_s: float
) -> list[tuple[int, int]]:
    """The ranked order of answers in time, from each seat's reaction time (10.5): (seat, tie group)
    fastest first. What a verifier recomputes from a published ruling.

    Sorted by (reaction time, seat); a group starts at the fastest unplaced answer and takes every answer
    within `tie_tolerance_s` of it; group g's seats, sorted ascending, are drawn in the order
    `shuffled(seats, derive_seed(seed, "race-tie", g))`.
    """
    in_time = sorted(reactions, key=lambda r: (r[1], r[0]))
    order: list[tuple[int, int]] = []
    start, group = 0, 0
    while start < len(in_time):
        anchor = in_time[start][1]
        end = start
        while end < len(in_time) and in_time[end][1] - anchor <= tie_tolerance_s:
            end += 1
        seats = sorted(seat for seat, _ in in_time[start:end])
        order += [(seat, group) for seat in shuffled(seats, derive_seed(seed, TIE_LABEL, group))]
        start, group = end, group + 1
    return order


def window_close_time(opened_at: float, duration: float, forgiven_latencies: Iterable[float]) -> float:
    """When the host stops accepting answers: the deadline plus the largest forgiven round trip.

    A seat whose copy arrived late still gets the full `duration` to react, and its answer needs the
    trip back; so the host waits for the farthest eligible seat. Pass each eligible seat's forgiven
    round trip (or its `max_network_allowance` when clients time their own reactions); both are
    already capped, which bounds how long one far (or lying) seat can hold a window open.
    """
    return opened_at + duration + max((max(f, 0.0) for f in forgiven_latencies), default=0.0)
