"""A seat's LegalActions written as protobuf's bytes directly, for the usual options.

Every command computes every seat's legal actions, and the seat whose turn it is (or who may jump in)
gets a LegalActions built by `wire.legal.legal_actions_to_pb`, its deadline set, then serialized: at
100 tables 10 of the 30 us `Table.legal_for_all` took a command (issue 33). This writes the same bytes
from the engine's actions for what nearly every turn offers: plays, a draw, a pass, a colour to choose,
UNO to call, a Wild Draw Four to challenge, with `required` and the deadline. Anything else (an UNO
catch, a reaction, a swap or a gift) gives None, and the caller builds the message.

The bytes must be exactly `legal_actions_to_pb(...).SerializeToString()` with the deadline set: a seat
compares its copy with the one it was sent last, and the stored renderings are chained into the log's
head (loghead.py). tests/host/test_legal_bytes.py compares both for every seat at every step of matches
under every preset and house rule. The grouping is `legal_actions_to_pb`'s: a play listed with and
without `call_uno` is one option, in the engine's order; its kind is said by whose turn it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from unonet.engine.actions import Action, CallUno, Challenge, ChooseColor, Draw, Pass, Play
from unonet.engine.cards import Card, Rank
from unonet.host.event_bytes import card_bytes
from unonet.host.framing import field_key, length_delimited, scalar_field, time_fields
from unonet.v1 import actions_pb2
from unonet.wire.legal import needs_color, play_kind

_LEGAL = actions_pb2.LegalActions.DESCRIPTOR
PLAYS, CHOOSE_COLOR, DRAW = field_key(_LEGAL, "plays"), field_key(_LEGAL, "choose_color"), field_key(_LEGAL, "draw")
PASS_TURN, CALL_UNO = field_key(_LEGAL, "pass_turn"), field_key(_LEGAL, "call_uno")
CHALLENGE = field_key(_LEGAL, "challenge")
REQUIRED, DEADLINE = field_key(_LEGAL, "required"), field_key(_LEGAL, "deadline")

_OPTION = actions_pb2.PlayOption.DESCRIPTOR
OPTION_CARDS, OPTION_KIND = field_key(_OPTION, "cards"), field_key(_OPTION, "kind")
OPTION_NEEDS_COLOR, OPTION_BLUFF = field_key(_OPTION, "needs_color"), field_key(_OPTION, "is_bluff")
OPTION_WINDOW = field_key(_OPTION, "reaction_window_id")

_DRAW = actions_pb2.DrawOption.DESCRIPTOR
DRAW_COUNT, DRAW_ACCEPTS = field_key(_DRAW, "count"), field_key(_DRAW, "accepts_obligation")
DRAW_UNTIL_PLAYABLE = field_key(_DRAW, "until_playable")

_TRUE = b"\x01"


def legal_actions_bytes(
    actions: Sequence[Action],
    *,
    required: bool,
    current_seat: int,
    run_cut_window: int | None,
    jump_in_window: int | None,
    obligation_target: int | None,
    obligation_amount: int,
    draw_to_match: bool,
    bluff: bool,
    deadline_ns: int | None,
) -> bytes | None:
    """`legal_actions_to_pb` with the same arguments, its `deadline` set to `deadline_ns` (None: left
    out), serialized; None if `actions` hold anything but plays, draws, passes, colour choices, UNO
    calls and challenges (the message is then the caller's to build)."""
    try:
        return _legal_actions_bytes(actions, required, current_seat, run_cut_window, jump_in_window,
                                    obligation_target, obligation_amount, draw_to_match, bluff, deadline_ns)
    except ValueError:  # a negative number (not written here)
        return None


def _legal_actions_bytes(actions: Sequence[Action], required: bool, current_seat: int, run_cut_window: int | None,
                         jump_in_window: int | None, obligation_target: int | None, obligation_amount: int,
                         draw_to_match: bool, bluff: bool, deadline_ns: int | None) -> bytes | None:
    plays: dict[tuple[Card, ...], Play] = {}
    draw = b""
    choose_color = pass_turn = call_uno = challenge = False
    for action in actions:
        if isinstance(action, Play):
            plays.setdefault(action.cards, action)
        elif isinstance(action, Draw):  # the last one listed is the one the message keeps
            accepts = obligation_target is not None and obligation_target == action.seat
            draw = length_delimited(DRAW, scalar_field(DRAW_COUNT, obligation_amount if accepts else 1)
                                    + (DRAW_ACCEPTS + _TRUE if accepts else b"")
                                    + (DRAW_UNTIL_PLAYABLE + _TRUE if draw_to_match and not accepts else b""))
        elif isinstance(action, ChooseColor):
            choose_color = True
        elif isinstance(action, Pass):
            pass_turn = True
        elif isinstance(action, CallUno):
            call_uno = True
        elif isinstance(action, Challenge):
            challenge = True
        else:
            return None
    parts = [_option(play, current_seat, run_cut_window, jump_in_window, bluff) for play in plays.values()]
    if choose_color:
        parts.append(CHOOSE_COLOR + _TRUE)
    parts.append(draw)
    if pass_turn:
        parts.append(PASS_TURN + _TRUE)
    if call_uno:
        parts.append(CALL_UNO + _TRUE)
    if challenge:
        parts.append(CHALLENGE + _TRUE)
    if required:
        parts.append(REQUIRED + _TRUE)
    if deadline_ns is not None:
        parts.append(length_delimited(DEADLINE, time_fields(deadline_ns)))
    return b"".join(parts)


def _option(play: Play, current_seat: int, run_cut_window: int | None, jump_in_window: int | None,
            bluff: bool) -> bytes:
    """One PlayOption field of `LegalActions.plays`."""
    kind, window = play_kind(play, current_seat, run_cut_window, jump_in_window)
    cards = play.cards
    body = b"".join([length_delimited(OPTION_CARDS, card_bytes(card)) for card in cards])
    body += scalar_field(OPTION_KIND, kind)
    if needs_color(cards[-1]):
        body += OPTION_NEEDS_COLOR + _TRUE
    if bluff and any(card.rank is Rank.WILD_DRAW_FOUR for card in cards):
        body += OPTION_BLUFF + _TRUE
    return length_delimited(PLAYS, body + scalar_field(OPTION_WINDOW, window))
