"""The events the host adds to the engine's (seats, clocks, chat, race rulings, the fair shuffle), built
here from the table's plain values, so no module of the host builds a protocol event.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from unonet.engine import events as ev
from unonet.engine.events import Window
from unonet.v1 import (
    actions_pb2,
    events_pb2,
    table_pb2,
)
from unonet.wire.events import event_to_pb


def host_event(**payload: Any) -> events_pb2.Event:
    """A host event: `payload` names the Event oneof's field and its message, as built below."""
    return events_pb2.Event(**payload)


def player_joined(seat: int, name: str) -> events_pb2.Event:
    return host_event(player_joined=events_pb2.PlayerJoined(seat=seat, name=name))


def player_left(seat: int, name: str) -> events_pb2.Event:
    return host_event(player_left=events_pb2.PlayerLeft(seat=seat, name=name))


def seat_connection_changed(seat: int, connected: bool) -> events_pb2.Event:
    return host_event(seat_connection_changed=events_pb2.SeatConnectionChanged(seat=seat, connected=connected))


def bot_seated(seat: int, name: str, bot_kind: str) -> events_pb2.Event:
    return host_event(bot_seated=events_pb2.BotSeated(seat=seat, name=name, bot_kind=bot_kind))


def seat_taken_over(seat: int, *, forfeits: bool, bot_kind: str, strikes: bool) -> events_pb2.Event:
    """A seat handed to a bot of `bot_kind`, or forfeited (`forfeits`), because its player left or, with
    `strikes`, ran out of time too often."""
    return host_event(
        seat_taken_over=events_pb2.SeatTakenOver(
            seat=seat,
            policy=table_pb2.TAKEOVER_POLICY_FORFEIT if forfeits else table_pb2.TAKEOVER_POLICY_BOT,
            bot_kind="" if forfeits else bot_kind,
            reason=events_pb2.TAKEOVER_REASON_STRIKES if strikes else events_pb2.TAKEOVER_REASON_LEFT,
        )
    )


def match_started(settings: table_pb2.TableSettings, seats: Sequence[table_pb2.SeatState]) -> events_pb2.Event:
    return host_event(match_started=events_pb2.MatchStarted(settings=settings, seats=seats))


def turn_timed_out(seat: int, strikes: int, strikes_before_takeover: int) -> events_pb2.Event:
    return host_event(
        turn_timed_out=events_pb2.TurnTimedOut(
            seat=seat, strikes=strikes, strikes_before_takeover=strikes_before_takeover
        )
    )


def chat_message(seat: int | None, name: str, text: str) -> events_pb2.Event:
    return host_event(chat_message=events_pb2.ChatMessage(seat=seat, name=name, text=text))


def events_lost(first: int, last: int) -> events_pb2.Event:
    """The marker for an event number the host sent and its store then lost (one per lost number)."""
    return host_event(events_lost=events_pb2.EventsLost(first_number=first, last_number=last))


def chat_penalty(seat: int, penalty_cards: int) -> events_pb2.Event:
    return host_event(chat_penalty=events_pb2.ChatPenalty(seat=seat, penalty_cards=penalty_cards))


def shuffle_timed_out(round_no: int, seats: Sequence[int], *, revealing: bool) -> events_pb2.Event:
    return host_event(
        shuffle_timed_out=events_pb2.ShuffleTimedOut(round_number=round_no, seats=seats, revealing=revealing)
    )


def window_opened_pb(window: Window, *, opened_ns: int, deadline_ns: int | None, allowance_ns: int) -> events_pb2.Event:
    """A race window as the host opens it: the engine's window with the host's timing."""
    out = event_to_pb(ev.WindowOpened(window), None)
    sent = out.reaction_window_opened.window
    sent.open_time.FromNanoseconds(opened_ns)
    if deadline_ns is not None:
        sent.deadline.FromNanoseconds(deadline_ns)
    sent.latency_allowance.FromNanoseconds(allowance_ns)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class RuledReaction:
    """One answer of a ruled race, with the measurements the ruling used (racebook.py)."""

    seat: int
    late: bool
    tie_group: int
    receive_ns: int
    forgiven_s: float  # the round-trip latency forgiven; half of it is each way's
    reaction_time_s: float
    rtt_s: float
    claimed_reaction_s: float | None
    send_ns: int | None = None  # when the seat's copy left (None: a ruling recorded before it was published)


@dataclasses.dataclass(frozen=True, slots=True)
class RulingTerms:
    """The figures a whole ruling used (docs/fairness.md 10.6), published from ruling version 3 on."""

    duration_s: float | None
    max_forgiven_s: float
    tie_tolerance_s: float


def window_ruled_pb(
    closed: ev.WindowClosed,
    reactions: Sequence[RuledReaction],
    *,
    tie_seed: bytes,
    compensated: bool,
    winner: int | None,
    terms: RulingTerms | None = None,
) -> events_pb2.Event:
    """The WindowClosed of a ruled race, with every answer's measurements and the winner (None: none),
    and, given `terms`, the window's duration, the forgiveness cap and the tie tolerance."""
    out = event_to_pb(closed, None)
    msg = out.reaction_window_closed
    del msg.reactions[:]
    for ruled in reactions:
        reaction = msg.reactions.add(seat=ruled.seat, tie_group=max(ruled.tie_group, 0), late=ruled.late)
        reaction.receive_time.FromNanoseconds(ruled.receive_ns)
        reaction.latency_forgiven.FromNanoseconds(round(ruled.forgiven_s / 2 * 1e9))
        reaction.reaction_time.FromNanoseconds(round(ruled.reaction_time_s * 1e9))
        reaction.round_trip.FromNanoseconds(round(ruled.rtt_s * 1e9))
        if ruled.claimed_reaction_s is not None:
            reaction.client_reaction_time.FromNanoseconds(round(ruled.claimed_reaction_s * 1e9))
        if ruled.send_ns is not None:
            reaction.send_time.FromNanoseconds(ruled.send_ns)
    if terms is not None:
        if terms.duration_s is not None:
            msg.duration.FromNanoseconds(round(terms.duration_s * 1e9))
            msg.duration.SetInParent()
        msg.max_latency_forgiven.FromNanoseconds(round(terms.max_forgiven_s * 1e9))
        msg.max_latency_forgiven.SetInParent()
        msg.tie_tolerance.FromNanoseconds(round(terms.tie_tolerance_s * 1e9))
        msg.tie_tolerance.SetInParent()
    msg.tie_seed = tie_seed
    msg.latency_compensated = compensated
    msg.ClearField("winner_seat")
    if winner is not None:
        msg.winner_seat = winner
    return out


def shuffle_committed(
    round_no: int, seed_commitment: bytes, scheme: str, entropy_seats: Sequence[int]
) -> events_pb2.Event:
    return host_event(
        shuffle_committed=events_pb2.ShuffleCommitted(
            round_number=round_no, seed_commitment=seed_commitment, scheme=scheme, entropy_seats=entropy_seats
        )
    )


def seat_entropy_committed(seat: int, commitment: bytes) -> events_pb2.Event:
    return host_event(seat_entropy_committed=events_pb2.SeatEntropyCommitted(seat=seat, commitment=commitment))


def seat_entropy_revealed(seat: int, value: bytes) -> events_pb2.Event:
    return host_event(seat_entropy_revealed=events_pb2.SeatEntropyRevealed(seat=seat, entropy=value))


def deck_committed(
    round_no: int,
    *,
    merkle_root: bytes,
    deck_size: int,
    card_commitments: Sequence[bytes],
    deck_no: int,
    contributing_seats: Sequence[int],
    source_commitments: Sequence[bytes],
) -> events_pb2.Event:
    """A committed pile's announcement, before any card of it is used (shuffles.py)."""
    return host_event(
        deck_committed=events_pb2.DeckCommitted(
            round_number=round_no,
            merkle_root=merkle_root,
            deck_size=deck_size,
            card_commitments=card_commitments,
            deck_number=deck_no,
            contributing_seats=contributing_seats,
            source_commitments=source_commitments,
        )
    )


def shuffle_revealed(round_no: int, host_seed: bytes) -> events_pb2.Event:
    return host_event(shuffle_revealed=events_pb2.ShuffleRevealed(round_number=round_no, seed=host_seed))


def shuffle_legal_actions(
    seats: int,
    waiting_for: Iterable[int],
    *,
    revealing: bool,
    deadline_ns: int | None,
) -> dict[int, actions_pb2.LegalActions]:
    """Each seat's legal actions during a shuffle: commit (or, `revealing`, reveal) for the seats the
    phase waits for, by its deadline; nothing for the others."""
    out = {seat: actions_pb2.LegalActions() for seat in range(seats)}
    for seat in waiting_for:
        legal = out[seat]
        legal.commit_entropy = not revealing
        legal.reveal_entropy = revealing
        legal.required = True
        if deadline_ns is not None:
            legal.deadline.FromNanoseconds(deadline_ns)
    return out
