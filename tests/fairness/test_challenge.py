"""A Wild Draw Four challenge checked on the challenger's side (B1-B5, T2), honest and tampering hosts."""

from __future__ import annotations

import hashlib

import pytest

from unonet.fairness import (
    ALL_CARDS,
    CardCode,
    CardOpening,
    ChangedSalt,
    ColorCode,
    DuplicateOpening,
    ExtraCard,
    FalseVerdict,
    IncompleteReveal,
    InvalidInput,
    MissingCard,
    RankCode,
    VerificationError,
    WildDrawFourRuleCode,
    WrongCard,
    check_challenge,
    commit_opening,
    is_unfair,
    is_witness,
    verify_challenge,
)

R, Y, G, B, K = ColorCode.RED, ColorCode.YELLOW, ColorCode.GREEN, ColorCode.BLUE, ColorCode.BLACK
TABLE, ROUND = "table-1", 2
RULE = WildDrawFourRuleCode


def card(color: ColorCode, rank: RankCode) -> CardCode:
    return CardCode(color, rank)


def salt(i: int) -> bytes:
    return hashlib.sha256(b"salt" + bytes([i])).digest()


def opening(i: int, c: CardCode) -> CardOpening:
    return CardOpening(c, salt(i), position=10 + i)


def hand(*cards: CardCode) -> list[CardOpening]:
    return [opening(i, c) for i, c in enumerate(cards)]


def record(openings: list[CardOpening]) -> set[bytes]:
    """The commitments the public record shows the seat holding."""
    return {commit_opening(TABLE, ROUND, o) for o in openings}


# The accused played a Wild Draw Four on a red 7 (red in force).
TOP = card(R, RankCode.SEVEN)
FAIR_HAND = hand(card(B, RankCode.SEVEN), card(G, RankCode.TWO), card(K, RankCode.WILD))
GUILTY_HAND = hand(card(B, RankCode.THREE), card(R, RankCode.SKIP), card(K, RankCode.WILD))


def check(held, openings, *, claimed_guilty, rule=RULE.NO_MATCHING_COLOUR, color=R, top=TOP):
    return check_challenge(
        table_id=TABLE,
        round_no=ROUND,
        held=held,
        openings=openings,
        color_in_force=color,
        top=top,
        rule=rule,
        claimed_guilty=claimed_guilty,
    )


def failure_types(report):
    return [type(f) for f in report.failures]


# ---- the verdict itself (T2) -------------------------------------------------------------------------


def test_t2_no_matching_colour_counts_only_cards_of_the_colour_in_force():
    w = lambda c: is_witness(c, color_in_force=R, top=TOP, rule=RULE.NO_MATCHING_COLOUR)  # noqa: E731
    assert w(card(R, RankCode.ONE))
    assert w(card(R, RankCode.DRAW_TWO)), "an action card of the current colour counts"
    assert not w(card(B, RankCode.SEVEN)), "matching only the number does not count"
    assert not w(card(K, RankCode.WILD)), "a black card never counts"
    assert not w(card(K, RankCode.WILD_DRAW_FOUR))


def test_t2_no_match_at_all_counts_colour_number_or_symbol_but_no_black_card():
    w = lambda c, top=TOP: is_witness(c, color_in_force=R, top=top, rule=RULE.NO_MATCH_AT_ALL)  # noqa: E731
    assert w(card(R, RankCode.ONE))
    assert w(card(B, RankCode.SEVEN))
    assert w(card(G, RankCode.SKIP), card(R, RankCode.SKIP))
    assert not w(card(G, RankCode.SIX))
    assert not w(card(K, RankCode.WILD))
    assert not w(card(B, RankCode.SEVEN), card(K, RankCode.WILD)), "after a Wild only the named colour matches"


def test_t2_no_other_play_counts_any_card_that_could_have_been_played_instead():
    w = lambda c, color=R: is_witness(c, color_in_force=color, top=TOP, rule=RULE.NO_OTHER_PLAY)  # noqa: E731
    assert w(card(R, RankCode.ONE))
    assert w(card(B, RankCode.SEVEN))
    assert w(card(K, RankCode.WILD)), "a Wild may always be played"
    assert w(card(K, RankCode.SOUND_WILD))
    assert not w(card(K, RankCode.WILD_DRAW_FOUR)), "another Wild Draw Four is no alternative"
    assert not w(card(G, RankCode.SIX))
    assert not w(card(G, RankCode.SIX), None), "no colour in force (Sound Wild, H12): fair, as in the engine"


def test_t2_any_time_is_never_unfair():
    cards = [o.card for o in GUILTY_HAND]
    assert not is_unfair(cards, color_in_force=R, top=TOP, rule=RULE.ANY_TIME)
    assert is_unfair(cards, color_in_force=R, top=TOP, rule=RULE.NO_MATCHING_COLOUR)


def test_black_is_never_the_colour_in_force():
    with pytest.raises(InvalidInput):
        is_witness(card(R, RankCode.ONE), color_in_force=K, top=TOP, rule=RULE.NO_MATCHING_COLOUR)


def test_b1_a_last_card_wild_draw_four_leaves_an_empty_hand_that_is_fair():
    report = check(set(), [], claimed_guilty=False)
    assert report.is_valid and report.is_conclusive and not report.recomputed_guilty


# ---- honest hosts -------------------------------------------------------------------------------------


def test_b2_an_honest_innocent_reveal_passes_every_check():
    report = verify_challenge(
        table_id=TABLE,
        round_no=ROUND,
        held=record(FAIR_HAND),
        openings=FAIR_HAND,
        color_in_force=R,
        top=TOP,
        claimed_guilty=False,
    )
    assert report.is_valid and report.is_complete and report.is_correct and report.verdict_matches
    assert report.is_conclusive and not report.recomputed_guilty and report.witnesses == ()


def test_b3_an_honest_guilty_reveal_passes_and_names_the_witness():
    report = check(record(GUILTY_HAND), list(reversed(GUILTY_HAND)), claimed_guilty=True)
    assert report.is_valid
    assert report.witnesses == (card(R, RankCode.SKIP),)


@pytest.mark.parametrize(
    ("rule", "guilty"),
    [
        (RULE.NO_MATCHING_COLOUR, False),
        (RULE.NO_MATCH_AT_ALL, True),
        (RULE.NO_OTHER_PLAY, True),
        (RULE.ANY_TIME, False),
    ],
)
def test_the_verdict_is_recomputed_under_the_table_rule(rule, guilty):
    """FAIR_HAND holds a blue 7 on a red 7 and a Wild: fair only by colour."""
    assert check(record(FAIR_HAND), FAIR_HAND, claimed_guilty=guilty, rule=rule).is_valid
    assert FalseVerdict in failure_types(check(record(FAIR_HAND), FAIR_HAND, claimed_guilty=not guilty, rule=rule))


def test_the_wild_draw_four_itself_in_the_record_changes_nothing():
    wd4 = opening(9, card(K, RankCode.WILD_DRAW_FOUR))
    for rule in RULE:
        guilty = rule in (RULE.NO_MATCH_AT_ALL, RULE.NO_OTHER_PLAY)
        assert check(record([*FAIR_HAND, wd4]), [*FAIR_HAND, wd4], claimed_guilty=guilty, rule=rule).is_valid


# ---- tampering hosts ----------------------------------------------------------------------------------


def test_a_wrong_card_is_caught_and_the_true_card_recovered():
    """The host hides the red skip by claiming it was a blue skip, keeping the salt, and says innocent."""
    lie = CardOpening(card(B, RankCode.SKIP), GUILTY_HAND[1].salt, GUILTY_HAND[1].position)
    report = check(record(GUILTY_HAND), [GUILTY_HAND[0], lie, GUILTY_HAND[2]], claimed_guilty=False)
    assert failure_types(report) == [WrongCard, FalseVerdict]
    wrong = report.failures[0]
    assert isinstance(wrong, WrongCard) and wrong.committed_card == card(R, RankCode.SKIP)
    assert report.recomputed_guilty and report.is_conclusive and report.is_complete and not report.is_correct
    with pytest.raises(WrongCard):
        report.raise_for_failures()


def test_a_missing_card_is_caught():
    report = check(record(GUILTY_HAND), [GUILTY_HAND[0], GUILTY_HAND[2]], claimed_guilty=False)
    assert failure_types(report) == [MissingCard]
    assert report.failures[0].commitment == commit_opening(TABLE, ROUND, GUILTY_HAND[1])
    assert not report.is_complete and not report.is_conclusive
    assert report.unopened == (commit_opening(TABLE, ROUND, GUILTY_HAND[1]),)


def test_a_changed_salt_is_caught():
    forged = CardOpening(card(B, RankCode.FOUR), salt(99), GUILTY_HAND[1].position)
    report = check(record(GUILTY_HAND), [GUILTY_HAND[0], forged, GUILTY_HAND[2]], claimed_guilty=False)
    assert failure_types(report) == [ChangedSalt]
    assert report.failures[0].opening == forged
    assert not report.is_correct and not report.is_conclusive


def test_a_changed_salt_on_the_true_card_is_caught_too():
    tweaked = CardOpening(GUILTY_HAND[0].card, salt(98), GUILTY_HAND[0].position)
    report = check(record(GUILTY_HAND), [tweaked, *GUILTY_HAND[1:]], claimed_guilty=True)
    assert failure_types(report) == [ChangedSalt]


def test_an_extra_card_is_caught():
    extra = opening(7, card(G, RankCode.NINE))
    report = check(record(FAIR_HAND), [*FAIR_HAND, extra], claimed_guilty=False)
    assert failure_types(report) == [ExtraCard]
    assert report.failures[0].opening == extra
    assert not report.is_complete


def test_an_extra_card_that_would_make_an_innocent_player_guilty_is_caught():
    """Planting a red card: the plant is an extra, and the verdict from the true cards says innocent."""
    planted = opening(7, card(R, RankCode.NINE))
    report = check(record(FAIR_HAND), [*FAIR_HAND, planted], claimed_guilty=True)
    assert ExtraCard in failure_types(report) and FalseVerdict in failure_types(report)
    assert not report.recomputed_guilty and report.is_conclusive


def test_a_duplicate_opening_padding_a_missing_card_is_caught():
    report = check(record(GUILTY_HAND), [GUILTY_HAND[0], GUILTY_HAND[0], GUILTY_HAND[2]], claimed_guilty=False)
    assert sorted(t.__name__ for t in failure_types(report)) == ["DuplicateOpening", "MissingCard"]
    assert all(isinstance(f, IncompleteReveal) for f in report.failures)


def test_a_duplicated_wrong_card_is_still_a_duplicate():
    lie = CardOpening(card(B, RankCode.SKIP), GUILTY_HAND[1].salt, GUILTY_HAND[1].position)
    report = check(record(GUILTY_HAND), [GUILTY_HAND[0], lie, lie, GUILTY_HAND[2]], claimed_guilty=True)
    assert failure_types(report) == [WrongCard, DuplicateOpening]


def test_a_false_innocent_verdict_is_caught():
    report = check(record(GUILTY_HAND), GUILTY_HAND, claimed_guilty=False)
    assert failure_types(report) == [FalseVerdict]
    verdict = report.failures[0]
    assert isinstance(verdict, FalseVerdict) and verdict.recomputed_guilty and not verdict.claimed_guilty


def test_a_false_guilty_verdict_is_caught():
    report = check(record(FAIR_HAND), FAIR_HAND, claimed_guilty=True)
    assert failure_types(report) == [FalseVerdict]
    with pytest.raises(FalseVerdict):
        report.raise_for_failures()


def test_guilt_proven_by_part_of_a_reveal_is_enough_to_catch_a_false_innocent_verdict():
    report = check(record(GUILTY_HAND), GUILTY_HAND[1:2], claimed_guilty=False)
    assert set(failure_types(report)) == {MissingCard, FalseVerdict}


def test_an_incomplete_reveal_alone_does_not_claim_a_false_guilty_verdict():
    """With a card missing the challenger cannot prove innocence; the missing card is the failure."""
    report = check(record(GUILTY_HAND), [GUILTY_HAND[0], GUILTY_HAND[2]], claimed_guilty=True)
    assert failure_types(report) == [MissingCard]


def test_openings_for_another_table_or_round_fail():
    report = check_challenge(
        table_id="other",
        round_no=ROUND,
        held=record(FAIR_HAND),
        openings=FAIR_HAND,
        color_in_force=R,
        top=TOP,
        claimed_guilty=False,
    )
    assert failure_types(report) == [ChangedSalt] * 3


@pytest.mark.parametrize(
    ("openings", "error"),
    [
        ([GUILTY_HAND[0], GUILTY_HAND[2]], MissingCard),
        ([*GUILTY_HAND, opening(7, card(G, RankCode.NINE))], ExtraCard),
        ([GUILTY_HAND[0], CardOpening(GUILTY_HAND[1].card, salt(50), 11), GUILTY_HAND[2]], ChangedSalt),
    ],
)
def test_verify_challenge_raises_the_typed_failure(openings, error):
    with pytest.raises(error) as caught:
        verify_challenge(
            table_id=TABLE,
            round_no=ROUND,
            held=record(GUILTY_HAND),
            openings=openings,
            color_in_force=R,
            top=TOP,
            claimed_guilty=True,
        )
    assert isinstance(caught.value, VerificationError)
    assert caught.value.reason == error.default_reason


def test_a_record_listing_a_commitment_twice_is_malformed():
    c = commit_opening(TABLE, ROUND, FAIR_HAND[0])
    with pytest.raises(InvalidInput):
        check([c, c], FAIR_HAND[:1], claimed_guilty=False)


def test_the_verdict_agrees_with_the_engine_for_every_card_colour_top_and_rule():
    """The client's recomputation must reach the engine's verdict, or an honest host looks like a liar.

    Also proves the adapter rule: engine cards map to codes by enum member name.
    """
    from unonet.engine.cards import Card, Color, Rank
    from unonet.engine.rules import is_wild_draw_four_fair
    from unonet.engine.ruleset import WildDrawFourRule as EngineRule

    def to_engine(code: CardCode) -> Card:
        return Card.of(Color[code.color.name], Rank[code.rank.name])

    tops = [card(R, RankCode.SEVEN), card(B, RankCode.SKIP), card(K, RankCode.WILD), card(K, RankCode.SOUND_WILD)]
    for rule in RULE:
        for color in (R, Y, G, B, None):
            for top in tops:
                for code in ALL_CARDS:
                    ours = is_unfair([code], color_in_force=color, top=top, rule=rule)
                    engine_color = None if color is None else Color[color.name]
                    theirs = not is_wild_draw_four_fair(
                        [to_engine(code)], engine_color, to_engine(top), EngineRule(rule.value)
                    )
                    assert ours == theirs, (rule, color, top, code)
