"""Per-connection latency from four-timestamp pings, and the reaction time it implies.

Reaction windows (RULES.md) must be won by the player who reacted fastest after *their own* copy of the
window arrived, not by the player nearest the host. The host cannot see when a copy arrived, so it
estimates each connection's round trip from pings and subtracts it from the answer's arrival time.

One ping is four timestamps, NTP style: t0 the initiator sends, t1 the responder receives, t2 the
responder sends, t3 the initiator receives (t0, t3 on the initiator's clock; t1, t2 on the
responder's). Then `rtt = (t3 - t0) - (t2 - t1)` and the responder's clock offset is
`((t1 - t0) + (t2 - t3)) / 2`. The host should be the initiator: t0 and t3 are then its own clock, and
all a client controls is its claimed hold time t2 - t1.

Estimator (`LatencyEstimator`): the last `window` samples. The round trip used for compensation is
their *median*; the clock offset comes from the sample with the *lowest* round trip. Why:
- The median estimates the delay the next message will typically see and ignores spikes (a
  retransmission, a GC pause) that an EWMA would smear into the estimate for many samples, over-
  forgiving a player right after a hiccup.
- The minimum round trip would be the network's floor, and compensating only the floor charges every
  player their average jitter; with equal jitter that cancels out, with unequal jitter it punishes
  the jittery connection. The median does not.
- For the offset the lowest-delay sample is the right one (NTP's clock filter): the less time a
  packet spent queued, the less room for asymmetry to bias the offset.
Both assume the path is symmetric: a one-way delay is half the round trip. What it forgives is capped
(`max_forgiven_s`, one way), because a client can always pretend to be farther away than it is.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from statistics import median

from unonet.fairness.base_errors import InvalidInput

DEFAULT_WINDOW = 16
DEFAULT_MAX_FORGIVEN_S = 0.100


@dataclass(frozen=True, slots=True)
class PingSample:
    """One four-timestamp ping, in seconds. Refused (InvalidInput) if impossible:
    a timestamp that is not finite, time running backwards on either side, or a responder claiming to
    have held the ping longer than the whole round trip took."""

    t0: float
    t1: float
    t2: float
    t3: float

    def __post_init__(self) -> None:
        if not all(math.isfinite(t) for t in (self.t0, self.t1, self.t2, self.t3)):
            raise InvalidInput(f"ping timestamps must be finite: {self}")
        if self.t3 < self.t0 or self.t2 < self.t1:
            raise InvalidInput(f"ping timestamps run backwards: {self}")
        if self.rtt < 0:
            raise InvalidInput(f"the responder claims a hold time longer than the round trip: {self}")

    @property
    def rtt(self) -> float:
        """Time on the wire, both ways: (t3 - t0) - (t2 - t1)."""
        return (self.t3 - self.t0) - (self.t2 - self.t1)

    @property
    def offset(self) -> float:
        """The responder's clock minus the initiator's: ((t1 - t0) + (t2 - t3)) / 2."""
        return ((self.t1 - self.t0) + (self.t2 - self.t3)) / 2


def forgiven_round_trip(rtt_s: float, max_forgiven_s: float) -> float:
    """How much of a measured round trip a race forgives: the round trip, capped at twice the one-way cap.

    Raises InvalidInput for a negative cap.
    """
    if not max_forgiven_s >= 0:
        raise InvalidInput(f"max_forgiven_s must be >= 0, got {max_forgiven_s}")
    return min(max(rtt_s, 0.0), 2 * max_forgiven_s)


def reaction_time(window_sent_at: float, answer_arrived_at: float, forgiven_round_trip_s: float) -> float:
    """How long the player took to react, as far as the host can tell (all times on the host's clock).

    The window left the host at S and the answer arrived at A; in between it travelled down, the
    player reacted, and the answer travelled up. So reaction = A - S - (down + up), and down + up is
    estimated by the forgiven round trip. May be slightly negative when this message was faster than
    the estimate; the ordering needs the true sign, so it is not clamped.
    """
    return answer_arrived_at - window_sent_at - forgiven_round_trip_s


def bounded_reaction_time(
    window_sent_at: float, answer_arrived_at: float, claimed_reaction_s: float, max_network_s: float
) -> float:
    """The client's own measurement of its reaction time, believed only as far as the host can check.

    A client can time its reaction exactly (from its copy's arrival to its answer, on its own clock),
    free of this message's jitter, which `reaction_time` cannot remove. But it could lie. The host knows
    A - S = down + reaction + up, so a claim c implies the network took A - S - c. The claim is
    accepted while that is between 0 and `max_network_s` (the slowest recent round trip, capped); a
    client claiming to be faster than that gets A - S - max_network_s instead. So lying gains at most
    the cap, as with `reaction_time`, while honest clients are judged on their true reaction.
    """
    elapsed = answer_arrived_at - window_sent_at
    return min(elapsed, max(claimed_reaction_s, elapsed - max_network_s))


@dataclass(frozen=True, slots=True)
class LatencyEstimate:
    """A snapshot of one connection's latency, for rulings, logs and the per-player view.

    The `_s` fields are None until the first sample; `forgiven_round_trip_s` is then 0.0: a connection
    that has not been measured gets no compensation, so the host pings every connection on arrival.
    """

    samples: int
    rtt_s: float | None
    min_rtt_s: float | None
    max_rtt_s: float | None
    one_way_s: float | None
    offset_s: float | None
    max_forgiven_s: float
    forgiven_round_trip_s: float
    max_network_allowance_s: float


class LatencyEstimator:
    """The latency of one connection over its last `window` pings (see the module docstring for why)."""

    def __init__(self, *, window: int = DEFAULT_WINDOW, max_forgiven_s: float = DEFAULT_MAX_FORGIVEN_S) -> None:
        """Raises InvalidInput for a window below 1 or a negative cap."""
        if window < 1:
            raise InvalidInput(f"window must be at least 1 sample, got {window}")
        if not max_forgiven_s >= 0:
            raise InvalidInput(f"max_forgiven_s must be >= 0, got {max_forgiven_s}")
        self._samples: deque[PingSample] = deque(maxlen=window)
        self.max_forgiven_s = max_forgiven_s

    def add(self, sample: PingSample) -> None:
        """Record a ping; the oldest falls out once `window` are kept."""
        self._samples.append(sample)

    def add_timestamps(self, t0: float, t1: float, t2: float, t3: float) -> None:
        """Record a ping from its four timestamps. Raises InvalidInput for an impossible ping."""
        self.add(PingSample(t0, t1, t2, t3))

    @property
    def sample_count(self) -> int:
        return len(self._samples)

    def has_samples(self) -> bool:
        return bool(self._samples)

    def rtt(self) -> float | None:
        """Median round trip of the kept samples, or None before the first."""
        return median(s.rtt for s in self._samples) if self._samples else None

    def min_rtt(self) -> float | None:
        """Lowest round trip of the kept samples, or None before the first."""
        return min(s.rtt for s in self._samples) if self._samples else None

    def max_rtt(self) -> float | None:
        """Highest round trip of the kept samples, or None before the first."""
        return max(s.rtt for s in self._samples) if self._samples else None

    def clock_offset(self) -> float | None:
        """The remote clock minus ours, from the lowest-round-trip sample, or None before the first."""
        if not self._samples:
            return None
        return min(self._samples, key=lambda s: s.rtt).offset

    def one_way_delay(self) -> float:
        """Estimated one-way delay (half the median round trip, uncapped); 0.0 before the first sample."""
        rtt = self.rtt()
        return 0.0 if rtt is None else rtt / 2

    def forgiven_round_trip(self) -> float:
        """What a race subtracts for this connection: the median round trip capped at 2 x max_forgiven_s."""
        rtt = self.rtt()
        return 0.0 if rtt is None else forgiven_round_trip(rtt, self.max_forgiven_s)

    def max_network_allowance(self) -> float:
        """The most network time `bounded_reaction_time` will accept: the slowest kept round trip, capped."""
        slowest = self.max_rtt()
        return 0.0 if slowest is None else forgiven_round_trip(slowest, self.max_forgiven_s)

    def snapshot(self) -> LatencyEstimate:
        """All the figures at once, frozen, for a ruling or a view."""
        rtt = self.rtt()
        return LatencyEstimate(
            samples=len(self._samples),
            rtt_s=rtt,
            min_rtt_s=self.min_rtt(),
            max_rtt_s=self.max_rtt(),
            one_way_s=None if rtt is None else rtt / 2,
            offset_s=self.clock_offset(),
            max_forgiven_s=self.max_forgiven_s,
            forgiven_round_trip_s=self.forgiven_round_trip(),
            max_network_allowance_s=self.max_network_allowance(),
        )
