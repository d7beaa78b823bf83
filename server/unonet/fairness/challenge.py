"""The challenger's side of a Wild Draw Four challenge (rules T2, B1-B5; docs/fairness.md).

When a Wild Draw Four is challenged the host reveals the accused hand, as it was when the card was
played, to the challenger alone, as card openings. The challenger must not take the host's word for
anything: this module checks that the openings are exactly the commitments the public record says that
seat held (none missing, none extra, none twice), that each one opens its commitment, and recomputes
the verdict from the cards themselves. Every failure is a typed `VerificationError`, collected in a
report so that a client can show all of them, or raised by `verify_challenge`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from unonet.fairness.cards import ALL_CARDS, CardCode, ColorCode, RankCode
from unonet.fairness.commitments import CardOpening, commit, commit_opening
from unonet.fairness.errors import (
    ChangedSalt,
    DuplicateOpening,
    ExtraCard,
    FalseVerdict,
    IncompleteReveal,
    InvalidInput,
    MissingCard,
    VerificationError,
    WrongCard,
)


class WildDrawFourRuleCode(Enum):
    """Rule T2, option `wild_draw_four`: when a Wild Draw Four is fair. Values match the ruleset's.

    Named `...Code` like `CardCode`: the fairness package's own copy of a rule the engine also names
    (`unonet.engine.WildDrawFourRule`), because a client verifies with this package and never imports
    the engine.
    """

    NO_MATCHING_COLOUR = "no_matching_colour"
    NO_MATCH_AT_ALL = "no_match_at_all"
    NO_OTHER_PLAY = "no_other_play"
    ANY_TIME = "any_time"


def is_witness(card: CardCode, *, color_in_force: ColorCode | None, top: CardCode, rule: WildDrawFourRuleCode) -> bool:
    """Whether holding `card` made the Wild Draw Four unfair under `rule` (T2).

    - `no_matching_colour`: a card of the colour in force; never a black card.
    - `no_match_at_all`: a coloured card matching the colour in force, or the top card's number or
      symbol; never a black card.
    - `no_other_play`: any card that could have been played instead (T1): a coloured card matching
      colour, number or symbol, or any black card except another Wild Draw Four, which is subject to
      the same test and so is no alternative.
    - `any_time`: nothing.

    `color_in_force` is None only when no colour is in force (a Sound Wild on top, H12); then nothing
    counts under any rule, exactly as in the engine's `is_wild_draw_four_fair` (the verifier must reach
    the engine's verdict, or an honest host would be accused of a false one).
    """
    if color_in_force is ColorCode.BLACK:
        raise InvalidInput("black is never the colour in force")
    if rule is WildDrawFourRuleCode.ANY_TIME or color_in_force is None:
        return False
    if card.is_black:
        return rule is WildDrawFourRuleCode.NO_OTHER_PLAY and card.rank is not RankCode.WILD_DRAW_FOUR
    same_color = card.color is color_in_force
    if rule is WildDrawFourRuleCode.NO_MATCHING_COLOUR:
        return same_color
    return same_color or (not top.is_black and card.rank is top.rank)


def is_unfair(
    hand: Iterable[CardCode], *, color_in_force: ColorCode | None, top: CardCode, rule: WildDrawFourRuleCode
) -> bool:
    """Whether a Wild Draw Four played from `hand` (the other cards held) was unfair: guilty if challenged."""
    return any(is_witness(card, color_in_force=color_in_force, top=top, rule=rule) for card in hand)


@dataclass(frozen=True, slots=True)
class OpeningCheck:
    """The result for one received opening.

    `true_card` is the card the commitment really holds when that is known: the revealed card if the
    opening is correct, the committed card if the host lied about the card but kept its salt
    (`WrongCard`), None otherwise.
    """

    opening: CardOpening
    is_correct: bool
    true_card: CardCode | None
    failure: VerificationError | None


@dataclass(frozen=True, slots=True)
class ChallengeReport:
    """Everything the challenger's client learned from a reveal, and every check that failed."""

    openings: tuple[OpeningCheck, ...]
    unopened: tuple[bytes, ...]
    claimed_guilty: bool
    recomputed_guilty: bool
    is_conclusive: bool
    witnesses: tuple[CardCode, ...]
    failures: tuple[VerificationError, ...]

    @property
    def is_complete(self) -> bool:
        """Exactly the held commitments were opened: none missing, none extra, none twice."""
        return not any(isinstance(f, IncompleteReveal) for f in self.failures)

    @property
    def is_correct(self) -> bool:
        """Every received opening opened a held commitment (a changed salt or wrong card makes this False)."""
        return all(check.is_correct for check in self.openings)

    @property
    def verdict_matches(self) -> bool:
        """No `FalseVerdict` was proven."""
        return not any(isinstance(f, FalseVerdict) for f in self.failures)

    @property
    def is_valid(self) -> bool:
        """Every check passed: the host's reveal and verdict stand."""
        return not self.failures

    def raise_for_failures(self) -> None:
        """Raise the first failure (in report order), if any."""
        if self.failures:
            raise self.failures[0]


def check_challenge(
    *,
    table_id: str,
    round_no: int,
    held: Collection[bytes],
    openings: Sequence[CardOpening],
    color_in_force: ColorCode | None,
    top: CardCode,
    rule: WildDrawFourRuleCode = WildDrawFourRuleCode.NO_MATCHING_COLOUR,
    claimed_guilty: bool,
) -> ChallengeReport:
    """Check a challenge reveal against the public record and recompute the verdict.

    `held` is the set of commitments the accused seat held, by the public record, when it played the
    Wild Draw Four (with or without the Wild Draw Four's own: it never counts as a witness). `openings`
    is what the host revealed; `color_in_force` and `top` are the colour and top card the Wild Draw
    Four was played on; `claimed_guilty` is the host's verdict (True: the card was unfair).

    Classification, in order: an opening identical in effect to an earlier one is a `DuplicateOpening`; one
    that opens a held commitment is correct; one whose salt and position open a held commitment with
    another card is a `WrongCard` (and that card is known); each remaining bad opening is paired with a
    remaining unopened commitment as a `ChangedSalt`; bad openings left over are `ExtraCard`, unopened
    commitments left over are `MissingCard` (in byte order of the commitment). The verdict is recomputed
    from every card known to be true. `FalseVerdict` is reported when the host claims innocence but a
    true card proves guilt, or when every held card is known and the verdict differs.

    Raises InvalidInput only for a malformed record (a commitment listed twice in `held`).
    """
    held_list = list(held)
    held_set = set(held_list)
    if len(held_set) != len(held_list):
        raise InvalidInput("the public record lists a commitment twice in one hand")
    remaining = set(held_set)
    results: list[OpeningCheck | None] = [None] * len(openings)
    bad: list[int] = []
    failures: list[VerificationError] = []

    claimed: set[bytes] = set()
    for i, opening in enumerate(openings):
        commitment = commit_opening(table_id, round_no, opening)
        if commitment in claimed:
            failure: VerificationError = DuplicateOpening(
                f"{_describe(opening)} repeats an earlier opening", opening=opening
            )
            results[i] = OpeningCheck(opening, False, None, failure)
        elif commitment in remaining:
            claimed.add(commitment)
            remaining.discard(commitment)
            results[i] = OpeningCheck(opening, True, opening.card, None)
        else:
            claimed.add(commitment)
            bad.append(i)

    unresolved: list[int] = []
    for i in bad:
        opening = openings[i]
        committed = _card_behind(table_id, round_no, opening, remaining)
        if committed is None:
            unresolved.append(i)
            continue
        card, commitment = committed
        remaining.discard(commitment)
        failure = WrongCard(
            f"{_describe(opening)} was revealed, but that salt and position commit to {card}",
            opening=opening,
            committed_card=card,
        )
        results[i] = OpeningCheck(opening, False, card, failure)

    unopened = sorted(remaining)
    for n, i in enumerate(unresolved):
        opening = openings[i]
        if n < len(unopened):
            failure = ChangedSalt(
                f"{_describe(opening)} opens none of the held commitments with any card: "
                "its salt or position was changed",
                opening=opening,
            )
        else:
            failure = ExtraCard(
                f"{_describe(opening)} was revealed, but the seat held no such commitment", opening=opening
            )
        results[i] = OpeningCheck(opening, False, None, failure)
    missing = unopened[len(unresolved) :]

    checks = tuple(check for check in results if check is not None)
    failures += [check.failure for check in checks if check.failure is not None]
    failures += [MissingCard(f"held commitment {c.hex()} was not opened", commitment=c) for c in missing]

    known = [check.true_card for check in checks if check.true_card is not None]
    witnesses = tuple(card for card in known if is_witness(card, color_in_force=color_in_force, top=top, rule=rule))
    recomputed = bool(witnesses)
    conclusive = not unopened
    if recomputed != claimed_guilty and (recomputed or conclusive):
        failures.append(
            FalseVerdict(
                f"the host says {_verdict(claimed_guilty)}, but the revealed cards make it "
                f"{_verdict(recomputed)} under {rule.value}"
                + (f" (witnesses: {', '.join(map(str, witnesses))})" if witnesses else ""),
                claimed_guilty=claimed_guilty,
                recomputed_guilty=recomputed,
            )
        )
    return ChallengeReport(
        openings=checks,
        unopened=tuple(unopened),
        claimed_guilty=claimed_guilty,
        recomputed_guilty=recomputed,
        is_conclusive=conclusive,
        witnesses=witnesses,
        failures=tuple(failures),
    )


def verify_challenge(
    *,
    table_id: str,
    round_no: int,
    held: Collection[bytes],
    openings: Sequence[CardOpening],
    color_in_force: ColorCode | None,
    top: CardCode,
    rule: WildDrawFourRuleCode = WildDrawFourRuleCode.NO_MATCHING_COLOUR,
    claimed_guilty: bool,
) -> ChallengeReport:
    """`check_challenge`, raising its first failure (WrongCard, ChangedSalt, DuplicateOpening,
    ExtraCard, MissingCard or FalseVerdict, all VerificationError) instead of returning it."""
    report = check_challenge(
        table_id=table_id,
        round_no=round_no,
        held=held,
        openings=openings,
        color_in_force=color_in_force,
        top=top,
        rule=rule,
        claimed_guilty=claimed_guilty,
    )
    report.raise_for_failures()
    return report


def _card_behind(
    table_id: str, round_no: int, opening: CardOpening, candidates: set[bytes]
) -> tuple[CardCode, bytes] | None:
    """The card that the opening's salt and slot really commit to, if it is one of `candidates`."""
    for card in ALL_CARDS:
        if card == opening.card:
            continue
        commitment = commit(table_id, round_no, opening.position, card, opening.salt, deck_no=opening.deck_no)
        if commitment in candidates:
            return card, commitment
    return None


def _describe(opening: CardOpening) -> str:
    return f"opening of {opening.card} at deck {opening.deck_no} position {opening.position}"


def _verdict(guilty: bool) -> str:
    return "guilty (unfair)" if guilty else "not guilty (fair)"
