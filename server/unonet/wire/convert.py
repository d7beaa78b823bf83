"""Every conversion between engine objects and protobuf messages, under the one name callers import.

The conversions live one family a module: `cards` (colours, ranks, faces, committed cards), `rulesets`,
`enums` (the round's small enums and reaction windows), `events` (engine events as each receiver may see
them), `host_events` (the events the host adds: seats, clocks, chat, race rulings, the fair shuffle),
`legal` (legal actions), `views` (seat views) and `requests` (PlayService requests back to engine
actions). This module re-exports their public names, so `from unonet.wire import convert` keeps reading
as the protocol's one translation layer (STYLE.md) while each family stays small and tested on its own.

Two rules hold throughout:

- Output never leaks. Events are redacted with the engine's own `Event.visible_to` before anything is
  copied, and hand counts come from the unredacted event only where the protocol makes counts public.
- Input is refused precisely. A request that cannot mean anything (an `*_UNSPECIFIED` enum, a black five,
  no cards) raises `MalformedAction` with a machine-readable reason, before the engine sees it.
"""

from __future__ import annotations

from unonet.wire.cards import card_from_pb, card_ref, card_to_pb, color_from_pb, color_to_pb, rank_to_pb, ref_to_pb
from unonet.wire.enums import (
    direction_from_pb,
    direction_to_pb,
    draw_reason_to_pb,
    obligation_kind_from_pb,
    phase_from_pb,
    phase_to_pb,
    window_from_pb,
    window_kind_to_pb,
    window_to_pb,
)
from unonet.wire.events import event_to_pb, set_timestamp
from unonet.wire.host_events import (
    RuledReaction,
    RulingTerms,
    bot_seated,
    chat_message,
    chat_penalty,
    deck_committed,
    events_lost,
    host_event,
    match_started,
    player_joined,
    player_left,
    seat_connection_changed,
    seat_entropy_committed,
    seat_entropy_revealed,
    seat_taken_over,
    shuffle_committed,
    shuffle_legal_actions,
    shuffle_revealed,
    shuffle_timed_out,
    turn_timed_out,
    window_opened_pb,
    window_ruled_pb,
)
from unonet.wire.legal import legal_actions_to_pb
from unonet.wire.requests import action_from_request
from unonet.wire.rulesets import ruleset_from_pb, ruleset_to_pb
from unonet.wire.views import view_to_pb

__all__ = [
    "RuledReaction",
    "RulingTerms",
    "action_from_request",
    "bot_seated",
    "card_from_pb",
    "card_ref",
    "card_to_pb",
    "chat_message",
    "chat_penalty",
    "color_from_pb",
    "color_to_pb",
    "deck_committed",
    "direction_from_pb",
    "direction_to_pb",
    "draw_reason_to_pb",
    "event_to_pb",
    "events_lost",
    "host_event",
    "legal_actions_to_pb",
    "match_started",
    "obligation_kind_from_pb",
    "phase_from_pb",
    "phase_to_pb",
    "player_joined",
    "player_left",
    "rank_to_pb",
    "ref_to_pb",
    "ruleset_from_pb",
    "ruleset_to_pb",
    "seat_connection_changed",
    "seat_entropy_committed",
    "seat_entropy_revealed",
    "seat_taken_over",
    "set_timestamp",
    "shuffle_committed",
    "shuffle_legal_actions",
    "shuffle_revealed",
    "shuffle_timed_out",
    "turn_timed_out",
    "view_to_pb",
    "window_from_pb",
    "window_kind_to_pb",
    "window_opened_pb",
    "window_ruled_pb",
    "window_to_pb",
]
