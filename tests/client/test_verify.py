"""The client's Verifier against real event streams from a real host, honest and tampered.

A whole match of host bots is played in-process (`fair_games`), and each seat's stream and the
spectator's are fed to a `Verifier`: an honest host verifies clean. Then the host is made to lie, one
way at a time, by editing the events it sent (a wrong card, a missing card or a changed salt in a Wild
Draw Four reveal, a false verdict, a wrong Merkle root or seed, a played card that was never dealt),
and each lie is caught with the typed `unonet.fairness` error that names it.
"""

from __future__ import annotations

import pytest
from fair_games import TABLE_ID, play_match, play_match_with, stream

from unonet.client.verify import Verifier, card_code, verify_events
from unonet.fairness import (
    ALL_CARDS,
    ChangedSalt,
    EntropyMismatch,
    FalseVerdict,
    MerkleMismatch,
    MissingCard,
    SeedMismatch,
    UnknownCommitment,
    VerificationError,
    WrongCard,
)
from unonet.v1 import cards_pb2, events_pb2


@pytest.fixture(scope="module")
def table():
    """A fair-shuffled match with a challenged Wild Draw Four whose reveal shows a hand, which the
    challenge tests tamper with (the host's seeds differ run to run: `play_match_with`)."""
    return play_match_with(lambda events: any(kind(e) == "hand_revealed" and e.hand_revealed.hand.count > 0
                                              for e in events), "a challenge revealing a hand", 0, target_score=200)


def kind(event: events_pb2.Event) -> str:
    return event.WhichOneof("payload") or ""


def first(events: list[events_pb2.Event], name: str, where=lambda e: True) -> int:
    return next(i for i, e in enumerate(events) if kind(e) == name and where(e))


def challenger_stream(table) -> tuple[int, list[events_pb2.Event], int]:
    """A challenger's stream and the index of a HandRevealed that shows it a non-empty hand."""
    public = stream(table, None)
    i = first(public, "hand_revealed", lambda e: e.hand_revealed.hand.count > 0)
    seat = public[i].hand_revealed.challenger_seat
    return seat, stream(table, seat), i


def other_card(card: cards_pb2.Card) -> cards_pb2.Card:
    code = card_code(card)
    other = next(c for c in ALL_CARDS if c != code)
    return cards_pb2.Card(color=int(other.color), rank=int(other.rank) + 1)


def test_an_honest_game_verifies_clean_for_every_seat_and_the_public(table) -> None:
    seats = len(table.seats)
    for seat in [None, *range(seats)]:
        verifier = verify_events(TABLE_ID, stream(table, seat), seat)
        rounds = table.match.round_no
        assert verifier.checks["host seed opens its commitment"] == rounds
        assert verifier.checks["pile recomputed from the revealed seeds"] >= rounds
        assert verifier.checks["opening matches its commitment"] > 0
        assert len(verifier.notes) >= rounds
    seat, events, _ = challenger_stream(table)
    assert verify_events(TABLE_ID, events, seat).checks["challenge reveal complete and correct, verdict recomputed"]


def test_hidden_cards_carry_commitments_only_and_shown_cards_their_openings(table) -> None:
    spectator = stream(table, None)
    dealt = [e for e in spectator if kind(e) == "cards_dealt"]
    assert dealt and all(
        ref.commitment and not ref.salt and not ref.HasField("card") for e in dealt for h in e.cards_dealt.hands
        for ref in h.cards
    )
    for seat in range(len(table.seats)):
        dealt_to_me = [e for e in stream(table, seat) if kind(e) == "cards_dealt"]
        own = [h for e in dealt_to_me for h in e.cards_dealt.hands if h.seat == seat]
        assert own and all(ref.HasField("card") and len(ref.salt) == 32 for h in own for ref in h.cards)
    played = [ref for e in spectator if kind(e) == "cards_played" for ref in e.cards_played.cards]
    assert played and all(ref.HasField("card") and len(ref.salt) == 32 and ref.commitment for ref in played)
    revealed = [e.hand_revealed for e in spectator if kind(e) == "hand_revealed"]
    assert revealed and all(not r.hand.cards for r in revealed), "only the challenger may see the accused hand"


def expect(error: type[VerificationError], events: list[events_pb2.Event], seat: int | None = None) -> None:
    with pytest.raises(error):
        verify_events(TABLE_ID, events, seat)


def test_a_wrong_card_in_the_challenge_reveal_is_caught(table) -> None:
    seat, events, i = challenger_stream(table)
    ref = events[i].hand_revealed.hand.cards[0]
    ref.card.CopyFrom(other_card(ref.card))
    expect(WrongCard, events, seat)


def test_a_missing_card_in_the_challenge_reveal_is_caught(table) -> None:
    seat, events, i = challenger_stream(table)
    del events[i].hand_revealed.hand.cards[0]
    expect(MissingCard, events, seat)


def test_a_changed_salt_in_the_challenge_reveal_is_caught(table) -> None:
    seat, events, i = challenger_stream(table)
    events[i].hand_revealed.hand.cards[0].salt = bytes(32)
    expect(ChangedSalt, events, seat)


def test_a_false_verdict_is_caught(table) -> None:
    seat, events, i = challenger_stream(table)
    j = first(events[i:], "challenge_resolved") + i
    events[j].challenge_resolved.guilty = not events[j].challenge_resolved.guilty
    expect(FalseVerdict, events, seat)


def test_a_reveal_of_another_wild_draw_four_is_caught(table) -> None:
    seat, events, i = challenger_stream(table)
    events[i].hand_revealed.played_event_number -= 1
    expect(UnknownCommitment, events, seat)


def test_a_wrong_merkle_root_is_caught_before_the_deal(table) -> None:
    events = stream(table, None)
    i = first(events, "deck_committed")
    root = bytearray(events[i].deck_committed.merkle_root)
    root[0] ^= 1
    events[i].deck_committed.merkle_root = bytes(root)
    verifier = Verifier(TABLE_ID)
    with pytest.raises(MerkleMismatch):
        verifier.feed_all(events)
    assert verifier.number == events[i].number, "caught at the DeckCommitted itself, before any card is dealt"


def test_a_seed_that_does_not_open_its_commitment_is_caught(table) -> None:
    events = stream(table, None)
    i = first(events, "shuffle_revealed")
    events[i].shuffle_revealed.seed = bytes(32)
    expect(SeedMismatch, events)


def test_a_host_that_ignores_the_seats_entropy_is_caught_after_the_reveal(monkeypatch) -> None:
    # A host that picks the deck from its own seed alone (so it knew the deck before the seats spoke),
    # consistently committed and dealt: every opening holds during the round, but once the seed is
    # revealed the piles recomputed from all the seeds have another root.
    from unonet.fairness import combine_seed
    from unonet.host.shuffles import ShuffleRound

    monkeypatch.setattr(ShuffleRound, "round_seed", lambda self: combine_seed(self.host_seed, {}))
    table = play_match(1, seats=3, target_score=100)
    events = stream(table, None)
    verifier = Verifier(TABLE_ID)
    with pytest.raises(MerkleMismatch):
        verifier.feed_all(events)
    assert kind(events[verifier.number - 1]) == "shuffle_revealed"


def test_a_host_that_never_reveals_its_seed_fails_the_audit(table) -> None:
    events = [e for e in stream(table, None) if kind(e) != "shuffle_revealed"]
    expect(SeedMismatch, events)


def test_a_played_card_that_is_not_the_committed_one_is_caught(table) -> None:
    events = stream(table, None)
    i = first(events, "cards_played")
    ref = events[i].cards_played.cards[0]
    ref.card.CopyFrom(other_card(ref.card))
    expect(WrongCard, events)


def test_a_card_played_by_a_seat_that_does_not_hold_it_is_caught(table) -> None:
    events = stream(table, None)
    i = first(events, "cards_played")
    played = events[i].cards_played
    played.seat = (played.seat + 1) % len(table.seats)
    expect(UnknownCommitment, events)


def test_a_card_dealt_from_the_middle_of_the_pile_is_caught(table) -> None:
    # The host may not pick which committed slot a seat gets: draws come off the top, in order.
    events = stream(table, None)
    draws = [i for i, e in enumerate(events) if kind(e) == "cards_drawn" and e.cards_drawn.cards]
    a, b = draws[0], draws[1]
    first_ref, second_ref = events[a].cards_drawn.cards[0], events[b].cards_drawn.cards[0]
    saved = cards_pb2.CardRef()
    saved.CopyFrom(first_ref)
    first_ref.CopyFrom(second_ref)
    second_ref.CopyFrom(saved)
    expect(UnknownCommitment, events)


def test_a_tampered_entropy_reveal_is_caught(table) -> None:
    events = stream(table, None)
    i = first(events, "seat_entropy_revealed")
    events[i].seat_entropy_revealed.entropy = bytes(32)
    expect(EntropyMismatch, events)


def test_a_hand_shown_at_the_end_of_the_round_with_a_card_left_out_is_caught(table) -> None:
    events = stream(table, None)
    i = first(events, "round_ended", lambda e: any(h.cards for h in e.round_ended.hands))
    hand = next(h for h in events[i].round_ended.hands if h.cards)
    del hand.cards[0]
    expect(MissingCard, events)


def test_a_changed_salt_on_an_own_drawn_card_is_caught(table) -> None:
    events = stream(table, 0)
    i = first(events, "cards_drawn", lambda e: e.cards_drawn.seat == 0 and e.cards_drawn.cards)
    events[i].cards_drawn.cards[0].salt = bytes(32)
    expect(ChangedSalt, events, 0)


@pytest.mark.parametrize("preset", ["house", "polish", "russian", "serbian"])
def test_house_rules_verify_clean(preset: str) -> None:
    # Seven-O hand swaps and rotations, five swaps, take-backs, rebuilt piles: the record follows them.
    table = play_match(3, preset=preset, target_score=150)
    for seat in [None, *range(len(table.seats))]:
        verify_events(TABLE_ID, stream(table, seat), seat)
