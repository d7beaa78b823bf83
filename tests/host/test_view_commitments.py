"""Every card reference in a view carries its commitment (docs/protocol.md, "Fairness fields").

At a table with provably fair shuffles a seat's view (what GetView returns and a snapshot carries) shows
its hand, the top card and each open window's card as openings: commitment, salt, pile and position,
so a client that resumes from a snapshot can check its own cards. Checked after every input of whole
matches with jump-ins and skip escapes, against the record a `Verifier` keeps from the same seat's
stream: the hand's commitments are the ones the seat holds, the top card's is the discard pile's, and
each window's card is the one it is about (the ReactionWindowOpened events carry it too, and the
Verifier checks they name the top of the pile).
"""

from __future__ import annotations

import random
from collections import Counter

from fair_games import TABLE_ID, new_table

from unonet.client.verify import Verifier, card_code
from unonet.engine import UnoError, legal_actions
from unonet.fairness import CardOpening, verify_opening
from unonet.host import journal
from unonet.host.bots import choose_action, reaction_for
from unonet.host.errors import HostError
from unonet.v1 import cards_pb2, views_pb2

SEATS = 3


def _opens(ref: cards_pb2.CardRef, round_no: int) -> bool:
    opening = CardOpening(card_code(ref.card), ref.salt, ref.position, ref.deck_number)
    return verify_opening(ref.commitment, TABLE_ID, round_no, opening)


def test_views_show_every_card_they_list_as_an_opening_of_its_commitment() -> None:
    # The fair shuffle mixes in fresh entropy, so a seeded match can still end in one round: matches are
    # played until enough of each kind of card was checked (one nearly always does).
    seen: Counter[str] = Counter()
    window_cards_checked = 0
    for seed in range(11, 17):
        window_cards_checked += play_and_check_views(seed, seen)
        if seen["hand"] > 500 and seen["top"] > 500 and seen["window"] > 20 and window_cards_checked > 20:
            break
    assert seen["hand"] > 500 and seen["top"] > 500, seen
    assert seen["window"] > 20 and seen["window event"] > 20, seen
    assert window_cards_checked > 20


def play_and_check_views(seed: int, seen: Counter[str]) -> int:
    """One match, every seat's view checked after every input; returns how many windows' cards the
    Verifiers found to be the top of the discard pile."""
    host, table, clock = new_table(seed, seats=SEATS, jump_in=True, skip_escape=True, five_swap=True,
                                   target_score=300)
    for seat in range(SEATS):
        table.join(f"p{seat}", None, False)
    table.record(journal.Start())
    verifiers = [Verifier(TABLE_ID, seat) for seat in range(SEATS)]
    fed = [0] * SEATS
    rng = random.Random(seed)
    for step in range(3000):
        match = table.match
        assert match is not None
        if match.is_over:
            break
        for seat, verifier in enumerate(verifiers):
            for event in table.events.rendered_since(fed[seat], seat):
                verifier.feed(event)
                if event.HasField("reaction_window_opened") and event.reaction_window_opened.window.HasField("card"):
                    assert event.reaction_window_opened.window.card.commitment
                    seen["window event"] += 1
            fed[seat] = table.last_number
            _check_view(table.view(seat), verifier, seen)
        if table.shuffle is not None or not match.round_no or table.window_deadlines or match.game.to_act is None:
            wait = host._step(table)
            if wait:
                clock[0] += int(wait * 1e9) + 1
            continue
        game = match.game
        actor = game.to_act
        assert actor is not None
        reactions = [(other, reaction_for(game, other, legal_actions(game, other))) for other in range(SEATS)]
        turn = (actor, choose_action(game, actor, legal_actions(game, actor), rng))
        seat, action = next(((other, action) for other, action in reactions
                             if action is not None and other != actor and rng.random() < 0.5), turn)
        cid = f"c{step}"
        try:
            if table.races.submit(table, seat, cid, (action,), arrived_ns=clock[0]) is None:
                table.command(seat, cid, (action,))
        except (HostError, UnoError):
            continue
    return sum(verifier.checks["window card is the top of the discard pile"] for verifier in verifiers)


def _check_view(view: views_pb2.SeatView, verifier: Verifier, seen: Counter[str]) -> None:
    round_no = view.round_number
    if verifier.current is None or verifier.current.number != round_no or not verifier.current.piles:
        return  # between a round's end and the next deal
    hand = list(view.hand)
    for ref in hand:
        assert ref.commitment and len(ref.salt) == 32 and _opens(ref, round_no), ref
        seen["hand"] += 1
    assert Counter(ref.commitment for ref in hand) == Counter(verifier.held.get(view.seat, [])), (
        "the view's hand is the hand the seat's events gave it")
    top = view.top_card
    if verifier.discard:
        assert top.commitment == verifier.discard[-1] and _opens(top, round_no)
        seen["top"] += 1
    for window in view.open_windows:
        if window.HasField("card"):
            assert window.card.commitment and _opens(window.card, round_no), window
            seen["window"] += 1
