"""Seat views on the wire: one seat's (or a spectator's) view of the table, as GetView and snapshots send
it, with its legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence

from unonet.engine.actions import (
    React,
)
from unonet.engine.events import WindowKind
from unonet.engine.game import Phase
from unonet.engine.views import SeatView
from unonet.v1 import (
    actions_pb2,
    table_pb2,
    views_pb2,
)
from unonet.wire.cards import card_ref, color_to_pb
from unonet.wire.enums import direction_to_pb, obligation_pb, phase_to_pb, window_to_pb
from unonet.wire.legal import legal_actions_to_pb


def view_to_pb(
    view: SeatView,
    *,
    table_id: str,
    event_number: int,
    seats: Sequence[table_pb2.SeatState],
    settings: table_pb2.TableSettings,
    status: table_pb2.TableStatus.ValueType,
) -> views_pb2.SeatView:
    """One seat's (or a spectator's) view of the table, as GetView and Snapshot send it.

    The engine's view is already per seat; this adds the table's facts the engine does not know
    (`table_id`, `event_number`, `seats`, `settings`, `status`). Each seat's `hand_size` is taken from
    the engine, which is authoritative; the rest of each SeatState is the caller's. A spectator
    (`view.seat is None`) gets `is_spectator`, no hand and no legal actions. The host's clocks (view
    time, deadlines) are left for the caller.
    """
    is_spectator = view.seat is None
    msg = views_pb2.SeatView(
        table_id=table_id,
        event_number=event_number,
        is_spectator=is_spectator,
        seat=view.seat or 0,
        settings=settings,
        status=status,
        round_number=view.round_no,
        dealer=view.dealer,
        top_card=card_ref(view.top),
        current_color=color_to_pb(view.color),
        direction=direction_to_pb(view.direction),
        draw_pile_size=view.draw_pile_size,
        discard_pile_size=view.discard_size,
        winners=view.match_winners,
        open_windows=[window_to_pb(window) for window in view.windows],
    )
    for state in seats:
        copy = msg.seats.add()
        copy.CopyFrom(state)
        if state.seat < len(view.hand_sizes):
            copy.hand_size = view.hand_sizes[state.seat]
    if view.match_winners:
        msg.phase = views_pb2.PHASE_MATCH_OVER
    elif view.to_act is None and view.phase is not Phase.ROUND_OVER:
        msg.phase = views_pb2.PHASE_WINDOW
    else:
        msg.phase = phase_to_pb(view.phase)
    if view.to_act is not None and not view.match_winners:
        msg.seat_to_act = view.to_act
    if view.obligation is not None:
        obligation = view.obligation
        msg.draw_obligation.CopyFrom(
            obligation_pb(
                amount=obligation.amount,
                kind=obligation.kind,
                target=obligation.target,
                setter=obligation.setter,
                challengeable=obligation.can_challenge,
            )
        )
    if view.silence is not None:
        msg.silence_seat = view.silence
    if view.phase is Phase.GIVE_CARD and view.to_act is not None:
        # H11: the giver is the player whose turn it is; the card itself is not in the engine's view.
        msg.five_swap.CopyFrom(
            views_pb2.PendingFiveSwap(seat=view.current, target_seat=view.to_act, card=card_ref(view.swap_card))
        )
    if view.seat is not None:
        msg.hand.extend(card_ref(card) for card in view.hand)
        msg.legal_actions.CopyFrom(_view_legal_actions(view, view.seat, settings))
    return msg


def _view_legal_actions(view: SeatView, seat: int, settings: table_pb2.TableSettings) -> actions_pb2.LegalActions:
    """The seat's legal actions, with the context `legal_actions_to_pb` needs taken from the view."""
    run_cut = next((w.id for w in view.windows if w.kind is WindowKind.RUN_CUT), None)
    escape = next((w.id for w in view.windows if w.kind is WindowKind.SKIP_ESCAPE and w.target == seat), None)
    jump = next((w.id for w in view.windows if w.kind is WindowKind.JUMP_IN), None)
    obligation = view.obligation
    required = view.to_act == seat or any(isinstance(action, React) for action in view.legal_actions)
    return legal_actions_to_pb(
        view.legal_actions,
        required=required and bool(view.legal_actions),
        current_seat=view.current,
        run_cut_window=run_cut,
        jump_in_window=escape if escape is not None else jump,
        obligation_target=obligation.target if obligation is not None else None,
        obligation_amount=obligation.amount if obligation is not None else 0,
        draw_to_match=settings.ruleset.draw_to_match,
        bluff=view.bluff,
        catch_windows={w.target: w.id for w in view.windows if w.kind is WindowKind.UNO_CATCH and w.target is not None},
    )
