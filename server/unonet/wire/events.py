"""Engine events on the wire: each engine event as one receiver may see it, with the committed cards of a
fair shuffle attached.

Output never leaks: events are redacted with the engine's own `Event.visible_to` before anything is
copied, and hand counts come from the unredacted event only where the protocol makes counts public.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from unonet.engine import events as ev
from unonet.engine.game import ILLEGAL_PLAY_PENALTY
from unonet.v1 import (
    actions_pb2,
    cards_pb2,
    events_pb2,
    views_pb2,
)
from unonet.wire.cards import COLOR_TO_PB, RANK_TO_PB, card_ref, color_to_pb, ref_to_pb, seat_hand
from unonet.wire.enums import (
    MATCH_END_REASON_TO_PB,
    direction_to_pb,
    draw_reason_to_pb,
    obligation_pb,
    window_kind_to_pb,
    window_to_pb,
)
from unonet.wire.lookup import lookup
from unonet.wire.refs import EventRefs, Ref
from unonet.wire.rulesets import BLUFF_PENALTY_TO_PB


def event_to_pb(event: ev.Event, seat: int | None, *, refs: EventRefs | None = None) -> events_pb2.Event:
    """The payload of one engine event as `seat` (None: a spectator) may see it.

    With `refs` (the host runs provably fair shuffles, `unonet.host.shuffles`, `unonet.wire.refs`), every
    card of the event carries its commitment, pile and position for everyone, and its salt wherever its
    face is shown, so a shown card is an opening anyone can check (docs/fairness.md). Hidden hands then list one CardRef
    per card (SeatHand's rule), with the commitment only. A revealed hand (B2) carries the
    commitments for the challenger only: everyone else learns the verdict and the count.

    The engine decides what is hidden (`Event.visible_to`); this only copies what survives. When the
    engine says an event is not the receiver's to see at all (a HandRevealed for anyone but the
    challenger), an event of the same kind still goes out with the hidden parts removed, because the
    protocol promises every subscriber every event number.

    Only the payload is set: the caller sets `number`, `time` and `your_legal_actions`, and the facts
    only the host knows: a TurnStarted's clock, a revealed hand's `played_event_number` (from `refs`),
    a ruled window's measurements (racebook.py). Everything else comes from the engine event.

    Raises TypeError for an event class this module does not know (a new engine event must be added).
    """
    converter = _EVENT_CONVERTERS.get(type(event))
    if converter is None:
        raise TypeError(f"no protocol event for {type(event).__name__}: add it to unonet.wire.events")
    visible = event.visible_to(seat)
    msg = converter(event, visible, seat)
    if refs is not None:
        attach = _REF_ATTACHERS.get(type(event))
        if attach is not None:
            attach(msg, refs)
        if isinstance(event, ev.HandRevealed):
            msg.hand_revealed.played_event_number = refs.played_event
    return msg


def set_timestamp(target: Any, ns: int) -> None:
    """`target.FromNanoseconds(ns)` for a non-negative time, without its Python-level checks: every
    rendered event has one."""
    target.seconds, target.nanos = divmod(ns, 1_000_000_000)


def _fill_refs(target: Any, group: Sequence[Ref], *, hidden_too: bool = True) -> None:
    """Complete a repeated CardRef field from its group: the shown ones get their openings, and a hidden
    list (left empty by the converter) gets one commitment per card."""
    if len(target) == 0:
        if hidden_too:
            add = target.add
            for ref in group:
                add(commitment=ref.commitment, deck_number=ref.deck_no, position=ref.position)
        return
    for msg, ref in zip(target, group, strict=True):  # set in place: what ref_to_pb would give
        msg.commitment, msg.deck_number, msg.position = ref.commitment, ref.deck_no, ref.position
        if msg.HasField("card"):
            msg.card.color, msg.card.rank = COLOR_TO_PB[ref.card.color], RANK_TO_PB[ref.card.rank]
            msg.salt = ref.salt
        else:
            msg.ClearField("salt")


def _fill_ref(target: cards_pb2.CardRef, group: Sequence[Ref], *, show: bool | None = None) -> None:
    if group:
        target.CopyFrom(ref_to_pb(group[0], show=target.HasField("card") if show is None else show))


def _refs_hands(hands: Any, groups: Sequence[Sequence[Ref]]) -> None:
    for hand in hands:
        if hand.seat < len(groups):
            _fill_refs(hand.cards, groups[hand.seat])


def _refs_taken_back(msg: events_pb2.CardTakenBack, refs: EventRefs) -> None:
    _fill_ref(msg.card, refs.groups[0])
    _fill_ref(msg.top_card, refs.groups[1], show=True)


def _refs_exchanged(msg: events_pb2.CardsExchanged, refs: EventRefs) -> None:
    _fill_ref(msg.given, refs.groups[0])
    _fill_ref(msg.received, refs.groups[1])


def _refs_swapped(msg: events_pb2.HandsSwapped, refs: EventRefs) -> None:
    _fill_refs(msg.seat_hand.cards, refs.groups[0])
    _fill_refs(msg.target_hand.cards, refs.groups[1])


_REF_ATTACHERS: dict[type[ev.Event], Callable[[events_pb2.Event, EventRefs], None]] = {
    ev.Dealt: lambda m, r: _fill_refs(m.cards_dealt.hands[0].cards, r.groups[0]),
    ev.Drew: lambda m, r: _fill_refs(m.cards_drawn.cards, r.groups[0]),
    ev.Played: lambda m, r: _fill_refs(m.cards_played.cards, r.groups[0]),
    ev.WrongJumpIn: lambda m, r: _fill_refs(m.wrong_jump_in.cards, r.groups[0]),
    ev.IllegalPlay: lambda m, r: _fill_refs(m.illegal_play.cards, r.groups[0]),
    ev.FirstCardTurned: lambda m, r: _fill_ref(m.first_card_turned.card, r.groups[0]),
    ev.FirstCardReturned: lambda m, r: _fill_ref(m.first_card_returned.card, r.groups[0]),
    ev.SwapOffered: lambda m, r: _fill_ref(m.five_swap_offered.card, r.groups[0]),
    ev.CardTakenBack: lambda m, r: _refs_taken_back(m.card_taken_back, r),
    ev.CardsExchanged: lambda m, r: _refs_exchanged(m.cards_exchanged, r),
    ev.HandsSwapped: lambda m, r: _refs_swapped(m.hands_swapped, r),
    ev.HandsRotated: lambda m, r: _refs_hands(m.hands_rotated.hands, r.groups),
    ev.RoundEnded: lambda m, r: _refs_hands(m.round_ended.hands, r.groups),
    ev.HandRevealed: lambda m, r: _fill_refs(m.hand_revealed.hand.cards, r.groups[0], hidden_too=False),
    ev.PlayerEliminated: lambda m, r: _fill_refs(m.player_eliminated.returned_cards, r.groups[0]),
}


_Converter = Callable[[Any, Any, "int | None"], events_pb2.Event]
_EVENT_CONVERTERS: dict[type[ev.Event], _Converter] = {}


def _converts(cls: type[ev.Event]) -> Callable[[_Converter], _Converter]:
    def register(fn: _Converter) -> _Converter:
        _EVENT_CONVERTERS[cls] = fn
        return fn

    return register


@_converts(ev.DealerChosen)
def _dealer_chosen(event: ev.DealerChosen, _visible: ev.DealerChosen, _seat: int | None) -> events_pb2.Event:
    # S2: within one pass each contender draws until it shows a number; a seat that already showed a
    # number in this pass drawing again means the tied seats have started the next pass.
    draws = []
    pass_no = 0
    counted: set[int] = set()
    for drawer, card in event.draws:
        if drawer in counted:
            pass_no += 1
            counted.clear()
        counts = card.rank.is_number
        if counts:
            counted.add(drawer)
        draws.append(events_pb2.DealerDraw(seat=drawer, card=card_ref(card), counts=counts, **{"pass": pass_no}))
    return events_pb2.Event(dealer_chosen=events_pb2.DealerChosen(draws=draws, dealer_seat=event.dealer))


@_converts(ev.RoundStarted)
def _round_started(event: ev.RoundStarted, _visible: ev.RoundStarted, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        round_started=events_pb2.RoundStarted(
            round_number=event.round_no, dealer_seat=event.dealer, seats_in_play=event.seats
        )
    )


@_converts(ev.Dealt)
def _dealt(event: ev.Dealt, visible: ev.Dealt | None, _seat: int | None) -> events_pb2.Event:
    cards = visible.cards if visible is not None else ()
    hand = seat_hand(event.seat, event.count, cards, show=bool(cards))
    return events_pb2.Event(
        cards_dealt=events_pb2.CardsDealt(dealer_seat=event.dealer, hands=[hand], draw_pile_size=event.draw_pile)
    )


@_converts(ev.FirstCardTurned)
def _first_card_turned(event: ev.FirstCardTurned, _v: ev.FirstCardTurned, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(first_card_turned=events_pb2.FirstCardTurned(card=card_ref(event.card)))


@_converts(ev.FirstCardReturned)
def _first_card_returned(event: ev.FirstCardReturned, _v: ev.FirstCardReturned, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(first_card_returned=events_pb2.FirstCardReturned(card=card_ref(event.card)))


@_converts(ev.Played)
def _played(event: ev.Played, _visible: ev.Played, _seat: int | None) -> events_pb2.Event:
    if event.run_cut:
        kind = actions_pb2.PLAY_KIND_RUN_CUT
    elif event.jump_in:
        kind = actions_pb2.PLAY_KIND_JUMP_IN
    else:
        kind = actions_pb2.PLAY_KIND_TURN
    return events_pb2.Event(
        cards_played=events_pb2.CardsPlayed(
            seat=event.seat,
            cards=[card_ref(card) for card in event.cards],
            kind=kind,
            reaction_window_id=event.window,
            hand_size=event.hand_size,
            called_uno=event.called_uno,
        )
    )


@_converts(ev.ColorChosen)
def _color_chosen(event: ev.ColorChosen, _visible: ev.ColorChosen, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(color_chosen=events_pb2.ColorChosen(seat=event.seat, color=color_to_pb(event.color)))


@_converts(ev.Drew)
def _drew(event: ev.Drew, visible: ev.Drew | None, _seat: int | None) -> events_pb2.Event:
    cards = visible.cards if visible is not None else ()
    return events_pb2.Event(
        cards_drawn=events_pb2.CardsDrawn(
            seat=event.seat,
            count=event.count,
            reason=draw_reason_to_pb(event.reason),
            cards=[card_ref(card) for card in cards],
            hand_size=event.hand_size,
            forgiven=event.forgiven,
        )
    )


@_converts(ev.DrawnCardKept)
def _drawn_card_kept(event: ev.DrawnCardKept, _visible: ev.DrawnCardKept, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(drawn_card_kept=events_pb2.DrawnCardKept(seat=event.seat))


@_converts(ev.Reshuffled)
def _reshuffled(event: ev.Reshuffled, _visible: ev.Reshuffled, _seat: int | None) -> events_pb2.Event:
    # T5: the pile is rebuilt only once it is empty, so the new pile is exactly the cards shuffled in.
    return events_pb2.Event(pile_reshuffled=events_pb2.PileReshuffled(draw_pile_size=event.count))


@_converts(ev.Skipped)
def _skipped(event: ev.Skipped, _visible: ev.Skipped, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(turn_skipped=events_pb2.TurnSkipped(seat=event.seat))


@_converts(ev.DirectionChanged)
def _direction_changed(event: ev.DirectionChanged, _v: ev.DirectionChanged, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(direction_reversed=events_pb2.DirectionReversed(direction=direction_to_pb(event.direction)))


@_converts(ev.TurnStarted)
def _turn_started(event: ev.TurnStarted, _visible: ev.TurnStarted, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(turn_started=events_pb2.TurnStarted(seat=event.seat))


@_converts(ev.DrawObligation)
def _draw_obligation(event: ev.DrawObligation, _visible: ev.DrawObligation, _seat: int | None) -> events_pb2.Event:
    obligation = obligation_pb(
        amount=event.amount,
        kind=event.kind,
        target=event.target,
        setter=event.setter,
        challengeable=event.challengeable,
    )
    return events_pb2.Event(draw_obligation_changed=events_pb2.DrawObligationChanged(obligation=obligation))


@_converts(ev.UnoCalled)
def _uno_called(event: ev.UnoCalled, _visible: ev.UnoCalled, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(uno_called=events_pb2.UnoCalled(seat=event.seat))


@_converts(ev.UnoCaught)
def _uno_caught(event: ev.UnoCaught, _visible: ev.UnoCaught, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        uno_caught=events_pb2.UnoCaught(
            catcher_seat=event.catcher, target_seat=event.target, penalty_cards=event.penalty
        )
    )


@_converts(ev.FalseCatch)
def _false_catch(event: ev.FalseCatch, _visible: ev.FalseCatch, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        false_catch=events_pb2.FalseCatch(
            catcher_seat=event.catcher, target_seat=event.target, penalty_cards=event.penalty
        )
    )


@_converts(ev.Challenged)
def _challenged(event: ev.Challenged, _visible: ev.Challenged, _seat: int | None) -> events_pb2.Event:
    penalized = event.accused if event.guilty else event.challenger
    return events_pb2.Event(
        challenge_resolved=events_pb2.ChallengeResolved(
            challenger_seat=event.challenger,
            accused_seat=event.accused,
            guilty=event.guilty,
            penalized_seat=penalized,
            penalty_cards=event.penalty,
            bluff_penalty=lookup(BLUFF_PENALTY_TO_PB, event.bluff_penalty, "bluff penalty"),
        )
    )


@_converts(ev.HandRevealed)
def _hand_revealed(event: ev.HandRevealed, visible: ev.HandRevealed | None, _seat: int | None) -> events_pb2.Event:
    # Everyone learns that the hand was shown and its size; only the challenger sees the faces.
    cards = visible.cards if visible is not None else ()
    hand = seat_hand(event.seat, len(event.cards), cards, show=visible is not None)
    return events_pb2.Event(hand_revealed=events_pb2.HandRevealed(challenger_seat=event.to_seat, hand=hand))


@_converts(ev.CardTakenBack)
def _card_taken_back(event: ev.CardTakenBack, _visible: ev.CardTakenBack, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        card_taken_back=events_pb2.CardTakenBack(
            seat=event.seat, card=card_ref(event.card), top_card=card_ref(event.top), color=color_to_pb(event.color)
        )
    )


@_converts(ev.HandsRotated)
def _hands_rotated(event: ev.HandsRotated, visible: ev.HandsRotated | None, _seat: int | None) -> events_pb2.Event:
    # Counts are public (they come from the unredacted event); faces only where the engine left them.
    shown = visible.hands if visible is not None else tuple(() for _ in event.hands)
    hands = [
        seat_hand(owner, len(hand), shown[owner], show=bool(shown[owner])) for owner, hand in enumerate(event.hands)
    ]
    return events_pb2.Event(
        hands_rotated=events_pb2.HandsRotated(direction=direction_to_pb(event.direction), hands=hands)
    )


@_converts(ev.HandsSwapped)
def _hands_swapped(event: ev.HandsSwapped, visible: ev.HandsSwapped | None, _seat: int | None) -> events_pb2.Event:
    seat_cards = visible.seat_hand if visible is not None else ()
    target_cards = visible.target_hand if visible is not None else ()
    return events_pb2.Event(
        hands_swapped=events_pb2.HandsSwapped(
            seat=event.seat,
            target_seat=event.target,
            seat_hand=seat_hand(event.seat, len(event.seat_hand), seat_cards, show=bool(seat_cards)),
            target_hand=seat_hand(event.target, len(event.target_hand), target_cards, show=bool(target_cards)),
        )
    )


@_converts(ev.SwapOffered)
def _swap_offered(event: ev.SwapOffered, visible: ev.SwapOffered | None, _seat: int | None) -> events_pb2.Event:
    card = visible.card if visible is not None else None
    return events_pb2.Event(
        five_swap_offered=events_pb2.FiveSwapOffered(seat=event.seat, target_seat=event.target, card=card_ref(card))
    )


@_converts(ev.CardsExchanged)
def _cards_exchanged(event: ev.CardsExchanged, visible: ev.CardsExchanged | None, _s: int | None) -> events_pb2.Event:
    given = visible.given if visible is not None else None
    received = visible.received if visible is not None else None
    return events_pb2.Event(
        cards_exchanged=events_pb2.CardsExchanged(
            seat=event.seat, target_seat=event.target, given=card_ref(given), received=card_ref(received)
        )
    )


@_converts(ev.WindowOpened)
def _window_opened(event: ev.WindowOpened, _visible: ev.WindowOpened, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(reaction_window_opened=events_pb2.ReactionWindowOpened(window=window_to_pb(event.window)))


@_converts(ev.WindowClosed)
def _window_closed(event: ev.WindowClosed, _visible: ev.WindowClosed, _seat: int | None) -> events_pb2.Event:
    closed = events_pb2.ReactionWindowClosed(
        window_id=event.window,
        kind=window_kind_to_pb(event.kind) if event.kind is not None else views_pb2.REACTION_WINDOW_KIND_UNSPECIFIED,
        reactions=[events_pb2.Reaction(seat=seat) for seat in event.order],
        penalized_seats=event.penalised,
    )
    # The engine rules a window in one of two ways: a race that everyone must answer (slap, Sound Wild)
    # always makes someone pay, and a race won by one answer (a run cut) lists that answer and nobody
    # pays. So a ruling with answers and no penalty names its winner.
    if event.order and not event.penalised:
        closed.winner_seat = event.order[0]
    return events_pb2.Event(reaction_window_closed=closed)


@_converts(ev.RaceLost)
def _race_lost(event: ev.RaceLost, _visible: ev.RaceLost, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(race_lost=events_pb2.RaceLost(seat=event.seat, window_id=event.window))


@_converts(ev.WrongJumpIn)
def _wrong_jump_in(event: ev.WrongJumpIn, _visible: ev.WrongJumpIn, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        wrong_jump_in=events_pb2.WrongJumpIn(
            seat=event.seat,
            cards=[card_ref(event.card)],
            penalty_cards=event.penalty_cards,
            penalty_points=event.penalty_points,
        )
    )


@_converts(ev.IllegalPlay)
def _illegal_play(event: ev.IllegalPlay, _visible: ev.IllegalPlay, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        illegal_play=events_pb2.IllegalPlay(
            seat=event.seat, cards=[card_ref(event.card)], penalty_cards=ILLEGAL_PLAY_PENALTY
        )
    )


@_converts(ev.PenaltyPoints)
def _penalty_points(event: ev.PenaltyPoints, _visible: ev.PenaltyPoints, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(
        penalty_points=events_pb2.PenaltyPoints(seat=event.seat, points=event.points, total=event.total)
    )


@_converts(ev.SilenceStarted)
def _silence_started(event: ev.SilenceStarted, _visible: ev.SilenceStarted, _seat: int | None) -> events_pb2.Event:
    return events_pb2.Event(silence_started=events_pb2.SilenceStarted(seat=event.seat))


@_converts(ev.RoundEnded)
def _round_ended(event: ev.RoundEnded, _visible: ev.RoundEnded, _seat: int | None) -> events_pb2.Event:
    # Every hand is public at the end of a round (P1). hand_points are the printed values (C3); the P3
    # single-zero rule needs the ruleset, which the caller applies when it is on.
    scores = [
        events_pb2.SeatScore(
            seat=owner,
            hand_points=sum(card.points for card in event.hands[owner]) if owner < len(event.hands) else 0,
            round_points=points,
            total=total,
            eliminated=owner in event.eliminated,
        )
        for owner, (points, total) in enumerate(zip(event.points, event.totals, strict=True))
    ]
    hands = [seat_hand(owner, len(hand), hand, show=True) for owner, hand in enumerate(event.hands)]
    return events_pb2.Event(
        round_ended=events_pb2.RoundEnded(
            round_number=event.round_no, winner_seat=event.winner, scores=scores, hands=hands
        )
    )


@_converts(ev.PlayerEliminated)
def _player_eliminated(event: ev.PlayerEliminated, _v: ev.PlayerEliminated, _s: int | None) -> events_pb2.Event:
    return events_pb2.Event(player_eliminated=events_pb2.PlayerEliminated(seat=event.seat, total=event.total))


@_converts(ev.MatchEnded)
def _match_ended(event: ev.MatchEnded, _visible: ev.MatchEnded, _seat: int | None) -> events_pb2.Event:
    scores = [
        events_pb2.SeatScore(seat=owner, total=total, eliminated=owner in event.eliminated)
        for owner, total in enumerate(event.totals)
    ]
    return events_pb2.Event(
        match_ended=events_pb2.MatchEnded(
            winner_seats=event.winners,
            scores=scores,
            reason=lookup(MATCH_END_REASON_TO_PB, event.reason, "match end reason"),
        )
    )
