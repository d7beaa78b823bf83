"""Four-timestamp pings and the latency estimator, on synthetic timestamps."""

from __future__ import annotations

import math

import pytest

from unonet.fairness import (
    InvalidInput,
    LatencyEstimator,
    PingSample,
    bounded_reaction_time,
    forgiven_round_trip,
    reaction_time,
)

CLIENT_CLOCK_AHEAD = 5.0


def ping(sent: float, down: float, hold: float, up: float, offset: float = CLIENT_CLOCK_AHEAD) -> PingSample:
    """A host-initiated ping: the client's clock reads `offset` seconds ahead of the host's."""
    t1 = sent + down + offset
    t2 = t1 + hold
    return PingSample(sent, t1, t2, sent + down + hold + up)


def test_rtt_excludes_the_responders_hold_time():
    sample = ping(100.0, down=0.030, hold=0.002, up=0.050)
    assert sample.rtt == pytest.approx(0.080)


def test_offset_is_exact_on_a_symmetric_path():
    assert ping(100.0, down=0.040, hold=0.010, up=0.040).offset == pytest.approx(CLIENT_CLOCK_AHEAD)


def test_offset_is_off_by_half_the_asymmetry_on_an_asymmetric_path():
    assert ping(100.0, down=0.030, hold=0.002, up=0.050).offset == pytest.approx(CLIENT_CLOCK_AHEAD - 0.010)


@pytest.mark.parametrize(
    "times",
    [(1.0, 5.0, 5.1, 0.9), (1.0, 5.1, 5.0, 1.2), (1.0, 5.0, 5.5, 1.2), (math.nan, 1.0, 1.0, 1.0)],
    ids=["initiator time runs backwards", "responder time runs backwards", "hold longer than trip", "nan"],
)
def test_impossible_pings_are_refused(times):
    with pytest.raises(InvalidInput):
        PingSample(*times)


def test_an_unmeasured_connection_is_forgiven_nothing():
    est = LatencyEstimator()
    assert est.rtt() is None and est.clock_offset() is None
    assert est.one_way_delay() == 0.0 and est.forgiven_round_trip() == 0.0
    snap = est.snapshot()
    assert snap.samples == 0 and snap.forgiven_round_trip_s == 0.0


def test_the_median_ignores_a_spike_and_the_offset_comes_from_the_fastest_sample():
    est = LatencyEstimator(window=8, max_forgiven_s=1.0)
    est.add(ping(0.0, 0.050, 0.001, 0.050))
    est.add(ping(1.0, 0.045, 0.001, 0.045, offset=CLIENT_CLOCK_AHEAD + 0.003))
    est.add(ping(2.0, 0.055, 0.001, 0.055))
    est.add(ping(3.0, 0.400, 0.001, 0.400))  # a retransmission
    est.add(ping(4.0, 0.052, 0.001, 0.052))
    assert est.rtt() == pytest.approx(0.104)
    assert est.min_rtt() == pytest.approx(0.090)
    assert est.max_rtt() == pytest.approx(0.800)
    assert est.one_way_delay() == pytest.approx(0.052)
    assert est.clock_offset() == pytest.approx(CLIENT_CLOCK_AHEAD + 0.003)


def test_old_samples_fall_out_of_the_window():
    est = LatencyEstimator(window=3)
    for k in range(3):
        est.add(ping(k, 0.200, 0.0, 0.200))
    for k in range(3):
        est.add_timestamps(*(lambda s: (s.t0, s.t1, s.t2, s.t3))(ping(10 + k, 0.010, 0.0, 0.010)))
    assert est.sample_count == 3
    assert est.rtt() == pytest.approx(0.020)


def test_forgiveness_is_capped():
    est = LatencyEstimator(max_forgiven_s=0.100)
    est.add(ping(0.0, 0.300, 0.0, 0.300))
    assert est.one_way_delay() == pytest.approx(0.300), "the estimate itself is not capped"
    assert est.forgiven_round_trip() == pytest.approx(0.200)
    assert est.snapshot().forgiven_round_trip_s == pytest.approx(0.200)
    assert forgiven_round_trip(0.150, 0.100) == pytest.approx(0.150)
    assert forgiven_round_trip(-0.001, 0.100) == 0.0
    with pytest.raises(InvalidInput):
        forgiven_round_trip(0.1, -1.0)
    with pytest.raises(InvalidInput):
        LatencyEstimator(window=0)


def test_reaction_time_is_arrival_minus_sent_minus_forgiven_round_trip():
    # Sent at S = 50.0, 80 ms down, 250 ms reaction, 80 ms up; estimated round trip 160 ms.
    assert reaction_time(50.0, 50.410, 0.160) == pytest.approx(0.250)


def test_a_bounded_claim_is_believed_within_the_allowance_only():
    # Sent at 50.0, arrived 50.410: 410 ms elapsed. Allowance: 200 ms of network time.
    assert bounded_reaction_time(50.0, 50.410, 0.250, 0.200) == pytest.approx(0.250), "honest claim"
    assert bounded_reaction_time(50.0, 50.410, 0.010, 0.200) == pytest.approx(0.210), "liar gains <= allowance"
    assert bounded_reaction_time(50.0, 50.410, 0.900, 0.200) == pytest.approx(0.410), "cannot exceed elapsed"
