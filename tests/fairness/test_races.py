"""Ordering reactions in a window: compensation, caps, ties by seed, late answers, the audit record."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from unonet.fairness import (
    InvalidInput,
    LatencyEstimator,
    PingSample,
    Reaction,
    order_reactions,
    window_close_time,
)

SEED = hashlib.sha256(b"race seed").digest()
NEAR, FAR = 0, 1


def arrival(opened: float, one_way: float, reacted_after: float) -> float:
    return opened + one_way + reacted_after + one_way


def test_a_far_player_who_truly_reacted_faster_wins():
    opened = 10.0
    near = Reaction(NEAR, arrival(opened, 0.005, 0.220), rtt_s=0.010)
    far = Reaction(FAR, arrival(opened, 0.080, 0.200), rtt_s=0.160)
    assert far.arrived_at > near.arrived_at, "the far answer arrives last"
    ruling = order_reactions(opened, [near, far], seed=SEED, max_forgiven_s=0.100)
    assert ruling.order == (FAR, NEAR) and ruling.fastest == FAR and ruling.slowest == NEAR
    assert ruling.ranked[0].reaction_time_s == pytest.approx(0.200)
    assert ruling.ranked[1].reaction_time_s == pytest.approx(0.220)


def test_without_compensation_the_near_player_would_have_won():
    opened = 10.0
    near = Reaction(NEAR, arrival(opened, 0.005, 0.220), rtt_s=0.010)
    far = Reaction(FAR, arrival(opened, 0.080, 0.200), rtt_s=0.160)
    assert order_reactions(opened, [near, far], seed=SEED, max_forgiven_s=0.0).order == (NEAR, FAR)


def test_the_cap_bounds_what_a_client_pretending_to_be_far_can_gain():
    opened = 0.0
    honest = Reaction(NEAR, arrival(opened, 0.005, 0.100), rtt_s=0.010)
    liar = Reaction(FAR, arrival(opened, 0.005, 0.350), rtt_s=2.000)  # claims a 2 s round trip
    ruling = order_reactions(opened, [honest, liar], seed=SEED, max_forgiven_s=0.100)
    assert ruling.order == (NEAR, FAR)
    assert ruling.ranked[1].forgiven_s == pytest.approx(0.200)


def test_a_client_timed_reaction_is_used_within_its_bounds():
    opened = 0.0
    # The far player's answer was delayed by jitter (+15 ms) but it timed its own 200 ms reaction.
    far = Reaction(FAR, 0.080 + 0.200 + 0.095, rtt_s=0.160, max_rtt_s=0.180, claimed_reaction_s=0.200)
    near = Reaction(NEAR, arrival(opened, 0.005, 0.215), rtt_s=0.010, claimed_reaction_s=0.215, max_rtt_s=0.012)
    ruling = order_reactions(opened, [near, far], seed=SEED)
    assert ruling.order == (FAR, NEAR)
    assert ruling.ranked[0].method == "client_bounded"
    assert ruling.ranked[0].reaction_time_s == pytest.approx(0.200)


def test_a_client_claiming_an_impossible_reaction_gets_only_its_allowance():
    liar = Reaction(FAR, 0.500, rtt_s=0.010, max_rtt_s=0.012, claimed_reaction_s=0.0)
    entry = order_reactions(0.0, [liar], seed=SEED).ranked[0]
    assert entry.reaction_time_s == pytest.approx(0.488) and entry.forgiven_s == pytest.approx(0.012)


def _tied():
    return [Reaction(seat, 1.0 + seat * 0.0002, rtt_s=0.0) for seat in range(4)]


def test_ties_are_broken_by_the_seed_reproducibly():
    orders = {order_reactions(0.0, _tied(), seed=hashlib.sha256(bytes([k])).digest()).order for k in range(40)}
    assert len(orders) > 5, "different seeds give different orders"
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders)
    first = order_reactions(0.0, _tied(), seed=SEED)
    assert order_reactions(0.0, list(reversed(_tied())), seed=SEED) == first
    assert {entry.tie_group for entry in first.ranked} == {0}


def test_answers_beyond_the_tolerance_are_not_ties():
    reactions = [Reaction(seat, 1.0 + seat * 0.002, rtt_s=0.0) for seat in range(4)]
    for k in range(10):
        ruling = order_reactions(0.0, reactions, seed=hashlib.sha256(bytes([k])).digest())
        assert ruling.order == (0, 1, 2, 3)
        assert [e.tie_group for e in ruling.ranked] == [0, 1, 2, 3]


def test_a_tie_group_is_anchored_at_its_fastest_answer():
    # 0.0, 0.8 and 1.6 ms: the third is within 1 ms of the second but not of the first.
    reactions = [Reaction(seat, 1.0 + seat * 0.0008, rtt_s=0.0) for seat in range(3)]
    ruling = order_reactions(0.0, reactions, seed=SEED)
    groups = {e.seat: e.tie_group for e in ruling.ranked}
    assert groups == {0: 0, 1: 0, 2: 1}
    assert ruling.order[2] == 2


def test_late_answers_are_left_out_of_the_order():
    reactions = [Reaction(NEAR, 0.700, rtt_s=0.010), Reaction(FAR, 0.300, rtt_s=0.160)]
    ruling = order_reactions(0.0, reactions, seed=SEED, duration_s=0.5)
    assert ruling.order == (FAR,)
    assert [e.seat for e in ruling.late] == [NEAR]


def test_the_ruling_is_a_complete_json_record():
    ruling = order_reactions(0.0, _tied(), seed=SEED, duration_s=2.0)
    record = json.loads(json.dumps(ruling.to_record()))
    assert record["seed"] == SEED.hex()
    assert record["order"] == list(ruling.order)
    assert {"seat", "arrived_at", "rtt_s", "forgiven_s", "reaction_time_s", "tie_group", "method"} <= set(
        record["ranked"][0]
    )
    assert record["max_forgiven_s"] == pytest.approx(0.100) and record["tie_tolerance_s"] == pytest.approx(0.001)


def test_malformed_windows_are_refused():
    with pytest.raises(InvalidInput):
        order_reactions(0.0, [Reaction(0, 1.0, 0.0), Reaction(0, 1.1, 0.0)], seed=SEED)
    with pytest.raises(InvalidInput):
        order_reactions(0.0, [], seed=b"short")
    with pytest.raises(InvalidInput):
        Reaction(0, float("inf"), 0.0)


def test_the_window_closes_at_the_deadline_plus_the_largest_forgiven_latency():
    assert window_close_time(10.0, 2.0, [0.020, 0.160, 0.050]) == pytest.approx(12.160)
    assert window_close_time(10.0, 2.0, []) == pytest.approx(12.0)


def _race(rng: random.Random, estimators: dict[int, LatencyEstimator], *, client_timed: bool, cap: float):
    """One window: seat 1 (80 ms away) truly reacts 20 ms faster than seat 0 (5 ms away); +-10 ms jitter."""
    one_way = {NEAR: 0.005, FAR: 0.080}
    react = {NEAR: 0.250 + rng.uniform(0, 0.05)}
    react[FAR] = react[NEAR] - 0.020
    reactions = []
    for seat in (NEAR, FAR):
        down = max(0.0, one_way[seat] + rng.uniform(-0.010, 0.010))
        up = max(0.0, one_way[seat] + rng.uniform(-0.010, 0.010))
        est = estimators[seat]
        reactions.append(
            Reaction(
                seat,
                100.0 + down + react[seat] + up,
                rtt_s=est.rtt() or 0.0,
                max_rtt_s=est.max_rtt(),
                claimed_reaction_s=react[seat] if client_timed else None,
            )
        )
    return order_reactions(100.0, reactions, seed=SEED, max_forgiven_s=cap).fastest


@pytest.mark.parametrize(
    ("client_timed", "cap", "at_least", "at_most"),
    [
        (False, 0.0, 0.0, 0.05),
        (False, 0.100, 0.90, 1.0),
        (True, 0.100, 0.99, 1.0),
    ],
)
def test_the_truly_faster_far_player_wins_most_simulated_races(client_timed, cap, at_least, at_most):
    """Deterministic simulation of issue 4's benchmark setting (the real one runs over loopback)."""
    rng = random.Random(4)
    estimators = {seat: LatencyEstimator(max_forgiven_s=0.100) for seat in (NEAR, FAR)}
    for k in range(16):
        for seat, one_way in ((NEAR, 0.005), (FAR, 0.080)):
            down = max(0.0, one_way + rng.uniform(-0.010, 0.010))
            up = max(0.0, one_way + rng.uniform(-0.010, 0.010))
            estimators[seat].add(PingSample(k, k + down, k + down, k + down + up))
    wins = sum(_race(rng, estimators, client_timed=client_timed, cap=cap) == FAR for _ in range(500))
    assert at_least <= wins / 500 <= at_most


def test_a_reaction_time_is_never_negative() -> None:
    """A message faster than the seat's typical round trip, or a claim below 0, means "at once": the
    ruling shows 0 and credits only the network time the answer took, and two such answers tie."""
    quick = Reaction(seat=0, arrived_at=0.030, rtt_s=0.080)  # 50 ms faster than its usual round trip
    claims = Reaction(seat=1, arrived_at=0.010, rtt_s=0.0, max_rtt_s=0.050, claimed_reaction_s=-0.5)
    ruling = order_reactions(0.0, [quick, claims], seed=SEED, max_forgiven_s=0.100)
    by_seat = {entry.seat: entry for entry in ruling.ranked}
    assert by_seat[0].reaction_time_s == 0.0 and by_seat[0].forgiven_s == pytest.approx(0.030)
    assert by_seat[1].reaction_time_s == 0.0 and by_seat[1].forgiven_s == pytest.approx(0.010)
    assert {entry.tie_group for entry in ruling.ranked} == {0}
