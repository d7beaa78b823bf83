"""Check a host's fairness from its events alone: one seat's stream, a spectator's, or a saved public log.

A `Verifier` is fed the events of one table in order, from event 1, as one receiver got them. It keeps
the public record the events describe (which committed slot of which pile each seat holds, the discard
pile, the colour in force, the hand a Wild Draw Four was played from) and checks, as each event arrives
(docs/fairness.md sections 7 to 9):

- every seat's revealed entropy against its commitment, and every pile's Merkle root against the
  commitments published with it;
- every card reference against the commitment published for its slot, no slot used twice (unless a
  forfeit put its card back under the pile), the deal from the top of the deck and every draw from the
  top of the pile;
- every opening it is shown (its own cards, played cards, the hands at the end of a round) against the
  commitment it already holds for that seat; a played card must be one the seat holds; a reaction
  window's card must be the top of the discard pile;
- a snapshot's cards (a stream resumed with one): each opening against its commitment, and against its
  published slot where this copy saw the round's piles; from a snapshot on, the record starts again
  with the next round's shuffle (the snapshot shows no other seat's hand);
- as the challenger, the accused hand of a Wild Draw Four challenge: exactly the commitments that seat
  held when it played, each opened correctly, and the verdict recomputed from the cards;
- after ShuffleRevealed, the host's seed against its commitment, then every pile of the round
  recomputed from the seeds: every commitment and every root.

Each failure raises the typed `unonet.fairness.VerificationError` that names it (`WrongCard`,
`ChangedSalt`, `MissingCard`, `FalseVerdict`, `MerkleMismatch`, `SeedMismatch`, ...), with the event
number in the message. Every check that passed is counted in `checks`, and `notes` says what was
verified round by round, for `unonet verify` to print.

This module imports only the generated protocol (`unonet.v1`) and `unonet.fairness`, never the host:
it trusts nothing but the bytes it receives.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from google.protobuf import duration_pb2, timestamp_pb2

from unonet.client.logchain import LogChain
from unonet.fairness import (
    ALL_CARDS,
    CardCode,
    CardOpening,
    ChangedSalt,
    ColorCode,
    CommitmentMismatch,
    DroppedReveal,
    EntropyMismatch,
    ExcludedSeat,
    FalseVerdict,
    MerkleMismatch,
    RankCode,
    RepeatedShuffle,
    SeedMismatch,
    SteeredDeal,
    UnknownCommitment,
    VerificationError,
    WildDrawFourRuleCode,
    WrongCard,
    WrongPenalty,
    WrongRebuild,
    WrongRuling,
    check_challenge,
    commit,
    derive_deck,
    derive_seed,
    is_unfair,
    standard_card_codes,
    tie_order,
    verified_combined_seed,
    verify_deck_root,
    verify_opening,
    verify_seat_entropy,
)
from unonet.v1 import cards_pb2, events_pb2, rules_pb2, table_pb2

__all__ = ["Verifier", "card_code", "verify_events"]

_RULES = {
    rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCHING_COLOR: WildDrawFourRuleCode.NO_MATCHING_COLOUR,
    rules_pb2.WILD_DRAW_FOUR_RULE_NO_MATCH_AT_ALL: WildDrawFourRuleCode.NO_MATCH_AT_ALL,
    rules_pb2.WILD_DRAW_FOUR_RULE_NO_OTHER_PLAY: WildDrawFourRuleCode.NO_OTHER_PLAY,
    rules_pb2.WILD_DRAW_FOUR_RULE_ANY_TIME: WildDrawFourRuleCode.ANY_TIME,
}


HAND_SIZE = 7
"""S3: seven cards each."""

BLUFF_EXTRA = 2
"""B3, B4: the two cards a lost challenge or `draw_six` adds to the obligation."""


# What a verifier resumed from a snapshot still follows until the next round's shuffle starts a record
# again: who is in the match, a bot, or connected (7.1 step 1 checks the next shuffle asks them all).
_FOLLOWED_AFTER_SNAPSHOT = frozenset({
    "match_started", "bot_seated", "seat_connection_changed", "seat_taken_over", "player_eliminated",
    "shuffle_committed", "snapshot",
})

_ROUNDING_NS = 2
"""How far a published reaction time may sit from its parts: each is rounded to the nanosecond."""


def _ns(value: timestamp_pb2.Timestamp | duration_pb2.Duration) -> int:
    return value.seconds * 1_000_000_000 + value.nanos


def card_code(card: cards_pb2.Card) -> CardCode:
    """The fairness encoding of a protocol card: colour numbers are the colour bytes, rank = byte + 1."""
    return CardCode(ColorCode(card.color), RankCode(card.rank - 1))


@dataclass
class _Round:
    """What the verifier knows about one round's shuffle and piles."""

    number: int
    seed_commitment: bytes
    entropy_commitments: dict[int, bytes] = field(default_factory=dict)
    entropy_values: dict[int, bytes] = field(default_factory=dict)
    contributing: tuple[int, ...] = ()
    piles: list[list[bytes]] = field(default_factory=list)
    roots: list[bytes] = field(default_factory=list)
    sources: list[list[bytes]] = field(default_factory=list)
    used: set[tuple[int, int]] = field(default_factory=set)
    openings: list[tuple[CardOpening, bytes]] = field(default_factory=list)
    revealed: bool = False
    interrupted: bool = False  # a snapshot came mid-round: the rest of the round was not followed
    # Every challenge verdict of the round, to recompute once the seed opens every hand (9, 8.1).
    verdicts: list[_Verdict] = field(default_factory=list)
    # Every ruled race's window id and tie seed, to check against the round seed (10.5).
    tie_seeds: list[tuple[int, bytes]] = field(default_factory=list)


@dataclass(frozen=True)
class _Verdict:
    """A challenge's verdict as the host announced it, with what the record knew when the card landed."""

    number: int
    accused: int
    held: tuple[bytes, ...]
    color: ColorCode | None
    top: CardCode
    claimed_guilty: bool


@dataclass
class _Penalty:
    """The draw a challenge's verdict owes (B3-B5), until its CardsDrawn comes."""

    seat: int
    cards: int
    reason: int
    take_back: bool


class Verifier:
    """Follows one receiver's events of one table and checks every fairness claim in them.

    `table_id` is the table's id (every commitment hashes it in); `seat` is the receiver's seat, or None
    for a spectator or a public log. Feed it every event from number 1 with `feed`; call `finish` at the
    end of a finished game's log to require that every round's seed was revealed.
    """

    def __init__(self, table_id: str, seat: int | None = None) -> None:
        self.table_id = table_id
        self.seat = seat
        self.checks: Counter[str] = Counter()
        self.notes: list[str] = []
        self.rule = WildDrawFourRuleCode.NO_MATCHING_COLOUR
        self.bluff_penalty: int = rules_pb2.BLUFF_PENALTY_DRAW_FOUR
        # Who is in the match, played by a bot, and connected, as the public events say (7.1 step 1).
        self.bots: set[int] = set()
        self.connected: set[int] = set()
        self.eliminated: set[int] = set()
        self.deck_contents: list[CardCode] = standard_card_codes()
        self.rounds: dict[int, _Round] = {}
        # The opening of every card of every round whose seed was revealed and checked, by commitment:
        # what `unonet replay` opens hands with.
        self.revealed: dict[bytes, CardOpening] = {}
        self.current: _Round | None = None
        self.number = 0
        # The hash chain of this receiver's copy (8.2); None once a gap or a Snapshot broke it.
        self.chain: LogChain | None = LogChain(table_id)
        self.schemes: set[str] = set()  # every ShuffleCommitted's scheme
        # This seat's own reveals: the event that showed each, by round, and the event number the host
        # acknowledged each with (`sent_reveal`) while the log has not shown it yet.
        self.my_reveals: dict[int, int] = {}
        self.acked_reveals: dict[int, int] = {}
        self.resumed = False  # a snapshot broke the record: only public membership is followed until a shuffle
        self._reset_record()

    def _reset_record(self) -> None:
        self.held: dict[int, list[bytes]] = {}
        self.discard: list[bytes] = []
        self.aside: bytes | None = None
        self.swap_seats: tuple[int, int] | None = None  # the giver and the target of the card held aside
        self.color: ColorCode | None = None
        self.top: CardCode | None = None
        self.bluff: tuple[int, tuple[bytes, ...], ColorCode | None, CardCode, int] | None = None
        self.pending_reveal: tuple[int, list[CardOpening]] | None = None
        self.where: dict[bytes, tuple[int, int]] = {}
        self.queue: deque[tuple[int, int]] = deque()  # the draw pile's slots, top first
        self.last_kind = ""
        self.deal_order: list[int] = []
        self.obligation: tuple[int, int, int] | None = None  # the open one's amount, target and setter
        self.penalty: _Penalty | None = None
        self.rebuild: tuple[set[bytes], set[tuple[int, int]]] | None = None  # its sources, the old pile's slots
        self.returned = b""  # the first card returned (S4), shuffled back with the undrawn pile

    # ---------------------------------------------------------------------------------- feeding

    def feed_all(self, events: Iterable[events_pb2.Event]) -> None:
        for event in events:
            self.feed(event)

    def feed(self, event: events_pb2.Event) -> None:
        """Check one event. Raises the VerificationError of the first check it fails."""
        self.number = event.number
        kind = event.WhichOneof("payload")
        chain = self.chain
        if chain is not None:
            if kind != "snapshot" and event.number == chain.number + 1:
                chain.feed(event)
            else:
                self.chain = None  # events were lost: the chain (like the record) cannot go on
        if self.acked_reveals:
            try:
                self._check_acked_reveals(kind, event)
            except VerificationError as error:
                error.args = (f"event {event.number} ({kind}): {error.args[0] if error.args else error}",)
                raise
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None or kind is None or (self.resumed and kind not in _FOLLOWED_AFTER_SNAPSHOT):
            return
        try:
            handler(getattr(event, kind))
        except VerificationError as error:
            error.args = (f"event {event.number} ({kind}): {error.args[0] if error.args else error}",)
            raise
        finally:
            self.last_kind = kind or ""

    def finish(self) -> None:
        """The log is complete: every round that was dealt must have had its seed revealed."""
        for number, state in sorted(self.rounds.items()):
            if state.piles and not state.revealed and not state.interrupted:
                raise SeedMismatch(f"round {number}: the host never revealed its shuffle seed")

    @property
    def head(self) -> tuple[int, bytes] | None:
        """The event number and hash-chain head of the events fed so far (8.2), None if it broke."""
        return (self.chain.number, self.chain.head) if self.chain is not None else None

    def sent_reveal(self, round_no: int, event_number: int) -> None:
        """This seat's RevealEntropy for `round_no` was applied: the host answered that `event_number`
        records it. Raises DroppedReveal if the events already say otherwise; later events are checked
        as they come (a ShuffleTimedOut naming this seat, a deal without it, another event there)."""
        if self.seat is None or round_no in self.my_reveals:
            return
        if event_number <= self.number:
            raise self._dropped(round_no, event_number, f"event {event_number} is not that reveal")
        self.acked_reveals[round_no] = event_number

    def _dropped(self, round_no: int, event_number: int, how: str) -> DroppedReveal:
        return DroppedReveal(
            f"the host acknowledged seat {self.seat}'s entropy reveal for round {round_no} as event {event_number}, "
            f"but {how}: it dealt without a value it received. The seat's value opens its published commitment: "
            "show it, so anyone can check that (docs/fairness.md 12)")

    def _check_acked_reveals(self, kind: str | None, event: events_pb2.Event) -> None:
        for round_no, number in list(self.acked_reveals.items()):
            if event.number == number:
                shown = event.seat_entropy_revealed.seat == self.seat if kind == "seat_entropy_revealed" else False
                if not shown:
                    raise self._dropped(round_no, number, f"event {number} is a {kind}, not that reveal")
                del self.acked_reveals[round_no]

    def _ok(self, check: str, count: int = 1) -> None:
        self.checks[check] += count

    # ---------------------------------------------------------------------------------- the shuffle

    def _on_match_started(self, msg: events_pb2.MatchStarted) -> None:
        rules = msg.settings.ruleset
        self.rule = _RULES.get(rules.wild_draw_four, WildDrawFourRuleCode.NO_MATCHING_COLOUR)
        self.deck_contents = standard_card_codes(
            blank_cards=rules.blank_cards, sound_wilds=rules.sound_wilds, h2o_wilds=rules.h2o_wilds
        )
        if rules.HasField("bluff_penalty"):
            self.bluff_penalty = rules.bluff_penalty
        self.bots = {state.seat for state in msg.seats if state.is_bot}
        self.connected = {state.seat for state in msg.seats if state.connected and not state.is_bot}
        self.eliminated = {state.seat for state in msg.seats if state.eliminated}

    def _on_bot_seated(self, msg: events_pb2.BotSeated) -> None:
        self.bots.add(msg.seat)

    def _on_seat_connection_changed(self, msg: events_pb2.SeatConnectionChanged) -> None:
        (self.connected.add if msg.connected else self.connected.discard)(msg.seat)

    def _on_seat_taken_over(self, msg: events_pb2.SeatTakenOver) -> None:
        if msg.policy == table_pb2.TAKEOVER_POLICY_BOT:
            self.bots.add(msg.seat)

    def _on_shuffle_committed(self, msg: events_pb2.ShuffleCommitted) -> None:
        if self.rounds and msg.round_number <= max(self.rounds):
            raise RepeatedShuffle(
                f"a shuffle for round {msg.round_number} was begun after round {max(self.rounds)}'s: an aborted "
                "deal lets a host try decks until it likes one")
        # 7.1 step 1: every seat in the match that a bot plays, or whose player the events last showed
        # connected, is asked (a seat asked that is not connected only costs a timeout).
        asked = set(msg.entropy_seats)
        due = (self.bots | self.connected) - self.eliminated
        if not due <= asked:
            raise ExcludedSeat(
                f"round {msg.round_number}: seat(s) {sorted(due - asked)} are in the match and connected (or a "
                f"bot) but were not asked for entropy (asked: {sorted(asked)})")
        self._ok("every connected seat asked for entropy", len(due))
        self.schemes.add(msg.scheme)
        self.current = self.rounds[msg.round_number] = _Round(msg.round_number, msg.seed_commitment)
        self.resumed = False
        self._reset_record()

    def _round(self) -> _Round:
        if self.current is None:
            raise UnknownCommitment("a fairness event came before any ShuffleCommitted")
        return self.current

    def _on_seat_entropy_committed(self, msg: events_pb2.SeatEntropyCommitted) -> None:
        self._round().entropy_commitments[msg.seat] = msg.commitment

    def _on_seat_entropy_revealed(self, msg: events_pb2.SeatEntropyRevealed) -> None:
        state = self._round()
        commitment = state.entropy_commitments.get(msg.seat)
        if commitment is None or not verify_seat_entropy(
            commitment, msg.seat, msg.entropy, table_id=self.table_id, round_no=state.number
        ):
            raise EntropyMismatch(f"seat {msg.seat} revealed entropy that does not open its commitment")
        state.entropy_values[msg.seat] = msg.entropy
        if msg.seat == self.seat:
            self.my_reveals[state.number] = self.number
        self._ok("seat entropy opens its commitment")

    def _on_shuffle_timed_out(self, msg: events_pb2.ShuffleTimedOut) -> None:
        if msg.revealing and self.seat in msg.seats and msg.round_number in self.acked_reveals:
            raise self._dropped(msg.round_number, self.acked_reveals[msg.round_number],
                                "a ShuffleTimedOut says the seat did not reveal in time")

    def _on_deck_committed(self, msg: events_pb2.DeckCommitted) -> None:
        state = self._round()
        commitments = list(msg.card_commitments)
        if msg.deck_number != len(state.piles) or msg.deck_size != len(commitments):
            raise MerkleMismatch(
                f"pile {msg.deck_number} of {msg.deck_size} cards published with {len(commitments)} "
                f"commitments after {len(state.piles)} piles"
            )
        verify_deck_root(msg.merkle_root, commitments)
        self._ok("pile root covers its commitments")
        if msg.deck_number == 0:
            state.contributing = tuple(msg.contributing_seats)
            if state.number in self.acked_reveals and self.seat not in state.contributing:
                raise self._dropped(state.number, self.acked_reveals[state.number],
                                    "the deck was derived without the seat's value")
            for seat in state.contributing:
                if seat not in state.entropy_values:
                    raise EntropyMismatch(f"seat {seat} is said to contribute but never revealed its entropy")
            left_out = sorted(set(state.entropy_values) - set(state.contributing))
            if left_out:
                raise EntropyMismatch(f"seat(s) {left_out} revealed entropy that the deck leaves out")
            if len(commitments) != len(self.deck_contents):
                raise MerkleMismatch(
                    f"the deck has {len(commitments)} cards; the ruleset's has {len(self.deck_contents)}"
                )
        else:
            self._check_sources(list(msg.source_commitments), len(commitments))
            self._check_pile_made(msg.source_commitments)
        for position, commitment in enumerate(commitments):
            self.where[commitment] = (msg.deck_number, position)
        slots = [(msg.deck_number, position) for position in range(len(commitments))]
        if self.last_kind == "first_card_returned":  # S4: the whole undrawn pile was shuffled again
            self.queue = deque(slots)
        else:  # the deal's deck, or T5: a rebuilt pile goes under what the old one still holds
            self.queue.extend(slots)
        state.piles.append(commitments)
        state.roots.append(msg.merkle_root)
        state.sources.append(list(msg.source_commitments))

    def _check_pile_made(self, sources: Iterable[bytes]) -> None:
        """T5 and S4 (7.1 step 6): a later pile is made from exactly the cards the rules shuffle."""
        state = self._round()
        if self.last_kind == "first_card_returned":
            due = {state.piles[deck][position] for deck, position in self.queue} | {self.returned}
        elif self.last_kind == "pile_reshuffled" and self.rebuild is not None:
            due = self.rebuild[0]
        else:
            raise WrongRebuild(f"a later pile came after {self.last_kind or 'nothing'}, not after a "
                               "PileReshuffled or FirstCardReturned")
        if set(sources) != due:
            raise WrongRebuild(f"the new pile was shuffled from {len(set(sources))} card(s), not the {len(due)} "
                               "the rules put into it")
        self._ok("later pile made from exactly the cards the rules shuffle")

    def _on_pile_reshuffled(self, msg: events_pb2.PileReshuffled) -> None:
        """T5: every discard but the top card (under `take_back`, while the top Wild Draw Four may still
        be taken back, but the top two) goes into the new pile, and `draw_pile_size` says how many."""
        if self.current is None:
            return
        keeps = [1, 2] if self._may_take_back() else [1]
        sources = next((self.discard[:-keep] for keep in keeps if len(self.discard[:-keep]) == msg.draw_pile_size),
                       None)
        if not sources:
            raise WrongRebuild(
                f"a rebuilt pile of {msg.draw_pile_size} card(s), but the discards under the top card are "
                f"{max(len(self.discard) - 1, 0)}")
        self.rebuild = (set(sources), set(self.queue))

    def _may_take_back(self) -> bool:
        """B3 `take_back`: the card under a Wild Draw Four on top stays with it while a challenge may
        still take it back (the verifier allows it whenever a Wild Draw Four is on top)."""
        return (self.bluff_penalty == rules_pb2.BLUFF_PENALTY_TAKE_BACK and self.top is not None
                and self.top.rank is RankCode.WILD_DRAW_FOUR)

    def _check_pile_drawn(self) -> None:
        """After a draw (T5): a pile rebuilt during it came once the old one was drawn to its end, and a
        pile drawn to its end was rebuilt if the discards allowed it."""
        if self.rebuild is not None:
            old, self.rebuild = self.rebuild[1], None
            if old & set(self.queue):
                raise WrongRebuild("the draw pile was rebuilt before its last card was drawn")
        if not self.queue and len(self.discard) > (2 if self._may_take_back() else 1):
            raise WrongRebuild(f"the draw pile ran out with {len(self.discard) - 1} discard(s) under the top card, "
                               "and was not rebuilt")
        self._ok("draw pile rebuilt exactly when it ran out")

    def _check_sources(self, sources: list[bytes], size: int) -> None:
        """A later pile is shuffled from cards on the discard pile or still undrawn, never from a hand."""
        in_hands = {c for hand in self.held.values() for c in hand}
        if len(sources) != size or len(set(sources)) != size:
            raise UnknownCommitment(f"a pile of {size} cards lists {len(sources)} source cards")
        for commitment in sources:
            if commitment not in self.where or commitment in in_hands or commitment == self.aside:
                raise UnknownCommitment(
                    f"card {commitment.hex()[:16]} was shuffled into a new pile but is not on a pile",
                    commitment=commitment,
                )
            if commitment in self.discard:
                self.discard.remove(commitment)
            self._round().used.add(self.where[commitment])  # its old slot can never be dealt again
        self._ok("new pile shuffled from cards the record has on a pile", size)

    def _on_shuffle_revealed(self, msg: events_pb2.ShuffleRevealed) -> None:
        state = self.rounds.get(msg.round_number)
        if state is None:
            raise SeedMismatch(f"round {msg.round_number}'s seed was revealed but never committed")
        seats = state.contributing
        round_seed = verified_combined_seed(
            table_id=self.table_id,
            round_no=state.number,
            host_seed_commitment=state.seed_commitment,
            host_seed=msg.seed,
            seat_commitments={seat: state.entropy_commitments[seat] for seat in seats},
            seat_values={seat: state.entropy_values[seat] for seat in seats},
        )
        self._ok("host seed opens its commitment")
        cards_behind: dict[bytes, CardCode] = {}
        openings: dict[bytes, CardOpening] = {}
        for deck_no, published in enumerate(state.piles):
            if deck_no == 0:
                contents = self.deck_contents
            else:
                try:
                    contents = [cards_behind[c] for c in state.sources[deck_no]]
                except KeyError:
                    raise UnknownCommitment(f"pile {deck_no} lists a source card from no earlier pile") from None
            deck = derive_deck(self.table_id, state.number, contents, round_seed, deck_no=deck_no)
            if deck.root != state.roots[deck_no]:
                raise MerkleMismatch(
                    f"round {state.number} pile {deck_no}: the revealed seeds give root {deck.root.hex()}, "
                    f"but {state.roots[deck_no].hex()} was published"
                )
            if list(deck.commitments) != published:
                raise CommitmentMismatch(f"round {state.number} pile {deck_no}: recomputed commitments differ")
            cards_behind.update(zip(deck.commitments, deck.cards, strict=True))
            openings.update((c, deck.opening(position)) for position, c in enumerate(deck.commitments))
            self._ok("pile recomputed from the revealed seeds")
        for opening, commitment in state.openings:
            if cards_behind.get(commitment) != opening.card:
                raise WrongCard(
                    f"{opening.card} was shown for a slot that holds {cards_behind.get(commitment)}",
                    opening=opening,
                    committed_card=cards_behind.get(commitment, opening.card),
                )
        self._ok("card seen is the recomputed card", len(state.openings))
        for verdict in state.verdicts:
            hand = [cards_behind[c] for c in verdict.held]
            guilty = is_unfair(hand, color_in_force=verdict.color, top=verdict.top, rule=self.rule)
            if guilty != verdict.claimed_guilty:
                raise FalseVerdict(
                    f"event {verdict.number}: seat {verdict.accused}'s Wild Draw Four was ruled "
                    f"{'guilty' if verdict.claimed_guilty else 'not guilty'}, but the hand it was played from, "
                    f"opened by the revealed seed, makes it {'guilty' if guilty else 'not guilty'}",
                    claimed_guilty=verdict.claimed_guilty, recomputed_guilty=guilty)
        self._ok("challenge verdict recomputed from the revealed hand", len(state.verdicts))
        for window_id, tie_seed in state.tie_seeds:
            if derive_seed(round_seed, "race", window_id) != tie_seed:
                raise WrongRuling(f"window {window_id}'s tie seed is not derive_seed(round_seed, \"race\", "
                                  f"{window_id}) of round {state.number}")
        self._ok("race tie seed derived from the round seed", len(state.tie_seeds))
        state.revealed = True
        self.revealed.update(openings)
        self.notes.append(
            f"round {state.number}: seed opens its commitment; {len(state.piles)} pile(s) recomputed, roots match; "
            f"{len(state.openings)} card(s) seen match; {len(seats)} seat(s) contributed entropy; "
            f"{len(state.verdicts)} challenge verdict(s) recomputed"
        )

    # ---------------------------------------------------------------------------------- cards

    def _ref(self, ref: cards_pb2.CardRef, *, need_opening: bool = False) -> bytes:
        """Check one card reference against its published slot, and its opening when shown."""
        state = self._round()
        commitment = ref.commitment
        deck, position = ref.deck_number, ref.position
        if deck >= len(state.piles) or position >= len(state.piles[deck]) or state.piles[deck][position] != commitment:
            raise UnknownCommitment(
                f"commitment {commitment.hex()[:16]} is not the one published for pile {deck} position {position}",
                commitment=commitment,
            )
        if ref.HasField("card"):
            self._opening(ref, commitment)
        elif need_opening:
            raise UnknownCommitment(f"a public card at pile {deck} position {position} came without its face")
        return commitment

    def _opening(self, ref: cards_pb2.CardRef, commitment: bytes, round_no: int | None = None) -> CardCode:
        """Check that `ref`'s face and salt open `commitment` (in round `round_no`, else the current one)."""
        number = self._round().number if round_no is None else round_no
        card = card_code(ref.card)
        if len(ref.salt) != 32:
            raise ChangedSalt(
                f"{card} at pile {ref.deck_number} position {ref.position} came with a salt of {len(ref.salt)} bytes",
                opening=CardOpening(card, bytes(32), ref.position, ref.deck_number),
            )
        opening = CardOpening(card, ref.salt, ref.position, ref.deck_number)
        if not verify_opening(commitment, self.table_id, number, opening):
            for other in ALL_CARDS:
                if other != card and commit(
                    self.table_id, number, ref.position, other, ref.salt, deck_no=ref.deck_number
                ) == commitment:
                    raise WrongCard(f"{card} was shown, but its slot commits to {other}", opening=opening,
                                    committed_card=other)
            raise ChangedSalt(f"the opening of {card} at pile {ref.deck_number} position {ref.position} "
                              "opens nothing with any card", opening=opening)
        known = self.rounds.get(number)
        if known is not None:
            known.openings.append((opening, commitment))
        self._ok("opening matches its commitment")
        return card

    def _on_snapshot(self, msg: events_pb2.Snapshot) -> None:
        """A snapshot (a stream resumed with one, after lost events): every card it shows with its
        commitment (this seat's hand, the top card, each open window's card, a five swap's card) must
        open it, and where this copy saw the round's piles published, sit in the slot it names; a
        hand card must not appear twice. The stream's record cannot go on from a snapshot, which shows no
        other seat's hand: what follows is not checked (a client verifies again from the next round's
        events, or reads the whole log from event 1)."""
        view = msg.view
        known = self.rounds.get(view.round_number)
        shown = [*view.hand, view.top_card, *(window.card for window in view.open_windows), view.five_swap.card]
        slots: set[tuple[int, int]] = set()
        for ref in shown:
            if not ref.commitment or not ref.HasField("card"):
                continue
            deck, position = ref.deck_number, ref.position
            if known is not None and deck < len(known.piles):
                if position >= len(known.piles[deck]) or known.piles[deck][position] != ref.commitment:
                    raise UnknownCommitment(f"the snapshot's {card_code(ref.card)} commits to "
                                            f"{ref.commitment.hex()[:16]}, not what pile {deck} published for "
                                            f"position {position}", commitment=ref.commitment)
                self._ok("snapshot card sits in its published slot")
            self._opening(ref, ref.commitment, view.round_number)
        for ref in view.hand:
            if ref.commitment and (ref.deck_number, ref.position) in slots:
                raise UnknownCommitment(f"the snapshot's hand holds pile {ref.deck_number} position "
                                        f"{ref.position} twice", commitment=ref.commitment)
            slots.add((ref.deck_number, ref.position))
        for state in (known, self.current):
            if state is not None and not state.revealed:
                state.interrupted = True
        self.bots = {state.seat for state in view.seats if state.is_bot}
        self.connected = {state.seat for state in view.seats if state.connected and not state.is_bot}
        self.eliminated = {state.seat for state in view.seats if state.eliminated}
        self.current, self.resumed = None, True  # until the next shuffle, no event is checked against a record
        self._reset_record()

    def _draw(self, ref: cards_pb2.CardRef, *, dealing: bool = False) -> bytes:
        commitment = self._ref(ref)
        slot = (ref.deck_number, ref.position)
        if slot in self._round().used:
            raise UnknownCommitment(f"pile {slot[0]} position {slot[1]} was dealt twice", commitment=commitment)
        self._round().used.add(slot)
        if dealing:  # S3: the position was checked against the dealing order (`_on_cards_dealt`)
            self.queue.remove(slot)
        elif not self.queue or self.queue[0] != slot:
            top = self.queue[0] if self.queue else None
            raise UnknownCommitment(f"pile {slot[0]} position {slot[1]} was drawn, but the top of the pile is {top}")
        else:
            self.queue.popleft()
        self._ok("card comes from the top of a committed pile")
        return commitment

    def _held(self, seat: int, ref: cards_pb2.CardRef, *, need_opening: bool) -> bytes:
        commitment = self._ref(ref, need_opening=need_opening)
        if commitment not in self.held.get(seat, []):
            raise UnknownCommitment(f"seat {seat} does not hold card {commitment.hex()[:16]}", commitment=commitment)
        self._ok("card played or shown is held by its seat")
        return commitment

    def _set_top(self, ref: cards_pb2.CardRef) -> None:
        card = card_code(ref.card)
        self.top = card
        if card.rank is RankCode.SOUND_WILD:
            self.color = None
        elif not card.is_black:
            self.color = card.color

    def _on_round_started(self, msg: events_pb2.RoundStarted) -> None:
        # S3: one card at a time, from the dealer's left (the next seat up, wrapping round) to the dealer
        span = max([*msg.seats_in_play, msg.dealer_seat]) + 1
        self.deal_order = sorted(msg.seats_in_play, key=lambda seat: (seat - msg.dealer_seat - 1) % span)

    def _on_cards_dealt(self, msg: events_pb2.CardsDealt) -> None:
        if self.current is None:
            return  # a host without commitments
        seats = len(self.deal_order)
        for hand in msg.hands:
            if hand.seat not in self.deal_order:
                raise SteeredDeal(f"seat {hand.seat} was dealt a hand but is not in the round")
            first = self.deal_order.index(hand.seat)
            due = [(0, first + k * seats) for k in range(HAND_SIZE)]
            got = [(ref.deck_number, ref.position) for ref in hand.cards]
            if got != due:
                raise SteeredDeal(
                    f"seat {hand.seat}, number {first + 1} from the dealer's left, was dealt deck positions "
                    f"{[p for _, p in got]}; the deal gives it {[p for _, p in due]}")
            self.held[hand.seat] = [self._draw(ref, dealing=True) for ref in hand.cards]
            self._ok("hand dealt from the positions the dealing order gives its seat")

    def _on_first_card_turned(self, msg: events_pb2.FirstCardTurned) -> None:
        if self.current is None or not msg.card.commitment:
            return
        self.discard.append(self._draw_public(msg.card))
        self._set_top(msg.card)

    def _draw_public(self, ref: cards_pb2.CardRef) -> bytes:
        commitment = self._draw(ref)
        if not ref.HasField("card"):
            raise UnknownCommitment("a card turned face up came without its opening", commitment=commitment)
        return commitment

    def _on_first_card_returned(self, msg: events_pb2.FirstCardReturned) -> None:
        if self.current is None or not msg.card.commitment:
            return
        self.returned = self._draw_public(msg.card)  # back into the pile the next DeckCommitted shuffles

    def _on_cards_drawn(self, msg: events_pb2.CardsDrawn) -> None:
        owed = self.penalty
        if owed is not None and msg.reason == owed.reason:
            self.penalty = None
            if msg.seat != owed.seat or msg.count + msg.forgiven != owed.cards or owed.take_back:
                raise WrongPenalty(
                    f"the challenge's verdict owes seat {owed.seat} {owed.cards} card(s)"
                    f"{' and its Wild Draw Four back' if owed.take_back else ''}; seat {msg.seat} drew "
                    f"{msg.count} (+{msg.forgiven} forgiven)")
            self._ok("challenge penalty drawn as the verdict and the rules owe it")
        if self.current is None:
            return
        self.held.setdefault(msg.seat, []).extend(self._draw(ref) for ref in msg.cards if ref.commitment)
        self._check_pile_drawn()

    def _on_cards_played(self, msg: events_pb2.CardsPlayed) -> None:
        if self.current is None or not msg.cards or not msg.cards[0].commitment:
            return
        hand = self.held.setdefault(msg.seat, [])
        played = []
        for ref in msg.cards:
            commitment = self._held(msg.seat, ref, need_opening=True)
            if commitment in played:
                raise UnknownCommitment("the same card was played twice in one play", commitment=commitment)
            played.append(commitment)
        if card_code(msg.cards[0].card).rank is RankCode.WILD_DRAW_FOUR and self.top is not None:
            rest = tuple(c for c in hand if c != played[0])
            self.bluff = (msg.seat, rest, self.color, self.top, self.number)
        for commitment in played:
            hand.remove(commitment)
            self.discard.append(commitment)
        self._set_top(msg.cards[-1])

    def _on_draw_obligation_changed(self, msg: events_pb2.DrawObligationChanged) -> None:
        if msg.HasField("obligation"):
            ob = msg.obligation
            self.obligation = (ob.amount, ob.target_seat, ob.setter_seat)

    def _on_color_chosen(self, msg: events_pb2.ColorChosen) -> None:
        self.color = ColorCode(msg.color)

    def _on_card_taken_back(self, msg: events_pb2.CardTakenBack) -> None:
        if self.current is None or not msg.card.commitment:
            return
        commitment = self._ref(msg.card, need_opening=True)
        if not self.discard or self.discard[-1] != commitment:
            raise UnknownCommitment("the card taken back is not the top of the discard pile", commitment=commitment)
        self.discard.pop()
        self.held.setdefault(msg.seat, []).append(commitment)
        if self.penalty is not None and self.penalty.take_back and msg.seat == self.penalty.seat:
            self.penalty.take_back = False
        if self.bluff is not None:  # B3: the top card and colour from before the Wild Draw Four again
            self.color, self.top = self.bluff[2], self.bluff[3]

    def _regroup(self, hands: dict[int, list[bytes]]) -> None:
        before = Counter(c for seat in hands for c in self.held.get(seat, []))
        after = Counter(c for cards in hands.values() for c in cards)
        if before != after:
            raise UnknownCommitment("hands were passed on, but the cards passed are not the cards held")
        self.held.update(hands)
        self._ok("hands passed on are the hands held")

    def _on_hands_rotated(self, msg: events_pb2.HandsRotated) -> None:
        if self.current is None:
            return
        self._regroup({hand.seat: [self._ref(r) for r in hand.cards] for hand in msg.hands if hand.seat in self.held})

    def _on_hands_swapped(self, msg: events_pb2.HandsSwapped) -> None:
        if self.current is None:
            return
        self._regroup({
            msg.seat: [self._ref(r) for r in msg.seat_hand.cards],
            msg.target_seat: [self._ref(r) for r in msg.target_hand.cards],
        })

    def _on_five_swap_offered(self, msg: events_pb2.FiveSwapOffered) -> None:
        if self.current is None or not msg.card.commitment:
            return
        commitment = self._held(msg.seat, msg.card, need_opening=False)
        self.held[msg.seat].remove(commitment)
        self.aside, self.swap_seats = commitment, (msg.seat, msg.target_seat)

    def _on_cards_exchanged(self, msg: events_pb2.CardsExchanged) -> None:
        if self.current is None or not msg.given.commitment:
            return
        given = self._ref(msg.given)
        if given != self.aside:
            raise UnknownCommitment("the card given in a five swap is not the card offered", commitment=given)
        received = self._held(msg.target_seat, msg.received, need_opening=False)
        self.held[msg.target_seat].remove(received)
        self.held[msg.target_seat].append(given)
        self.held[msg.seat].append(received)
        self.aside = self.swap_seats = None

    def _to_pile(self, commitment: bytes, *, top: bool) -> None:
        """A held card goes back onto the draw pile (its top, or under the rest), to be drawn once more."""
        slot = self.where[commitment]
        self._round().used.discard(slot)
        if top:
            self.queue.appendleft(slot)
        else:
            self.queue.append(slot)

    def _on_player_eliminated(self, msg: events_pb2.PlayerEliminated) -> None:
        """A forfeit mid-round: the seat's whole hand goes under the draw pile, in the order listed (drawn
        first to last), and a five swap it was part of is cut short (H11): the card held aside goes back
        to its giver, or onto the top of the draw pile if the giver is the one who left."""
        self.eliminated.add(msg.seat)
        if self.current is None or not msg.returned_cards:
            return  # out by score once a round ended, or between rounds: no card moves (a forfeit that
            # hid its cards is caught at RoundEnded, where the seat's hand shows less than it holds)
        returned = [self._ref(ref) for ref in msg.returned_cards]
        held = self.held.get(msg.seat, [])
        if Counter(returned) != Counter(held) or len(set(returned)) != len(returned):
            raise UnknownCommitment(
                f"seat {msg.seat} forfeited, but the {len(returned)} card(s) put under the pile are not "
                f"the {len(held)} card(s) it holds")
        self._ok("forfeited hand put under the pile is exactly the hand held")
        self.held[msg.seat] = []
        for commitment in returned:  # back on the pile: each slot may be drawn once more
            self._to_pile(commitment, top=False)
        if self.aside is not None and self.swap_seats is not None and msg.seat in self.swap_seats:
            giver = self.swap_seats[0]
            if giver == msg.seat:
                self._to_pile(self.aside, top=True)
            else:
                self.held[giver].append(self.aside)
            self.aside = self.swap_seats = None

    def _on_wrong_jump_in(self, msg: events_pb2.WrongJumpIn) -> None:
        for ref in msg.cards:
            if self.current is not None and ref.commitment:
                self._held(msg.seat, ref, need_opening=True)

    def _on_illegal_play(self, msg: events_pb2.IllegalPlay) -> None:
        for ref in msg.cards:
            if self.current is not None and ref.commitment:
                self._held(msg.seat, ref, need_opening=True)

    # ---------------------------------------------------------------------------------- races

    def _on_reaction_window_opened(self, msg: events_pb2.ReactionWindowOpened) -> None:
        """A window about a card (a jump-in, a skip escape, a run cut, a Sound Wild) names the card that
        just landed: with its commitment, the top of the discard pile, opened."""
        ref = msg.window.card
        if not ref.commitment or self.current is None:
            return  # no commitments at this table, or from a host that did not send them
        commitment = self._ref(ref, need_opening=True)
        if not self.discard or self.discard[-1] != commitment:
            raise UnknownCommitment(f"window {msg.window.id} is about card {commitment.hex()[:16]}, which is not "
                                    "the top of the discard pile", commitment=commitment)
        self._ok("window card is the top of the discard pile")

    def _on_reaction_window_closed(self, msg: events_pb2.ReactionWindowClosed) -> None:
        """10.6: a ruling published in full is checked against its own figures; the arrival and send
        times and the round trips in it remain the host's measurements."""
        if not msg.reactions or not msg.HasField("tie_tolerance"):
            return  # closed without a ruling, or recorded before rulings were published in full
        if self.current is not None:
            self._round().tie_seeds.append((msg.window_id, msg.tie_seed))
        cap, tolerance = _ns(msg.max_latency_forgiven), _ns(msg.tie_tolerance)
        duration = _ns(msg.duration) if msg.HasField("duration") else None
        lates = [reaction.late for reaction in msg.reactions]
        if lates != sorted(lates):
            raise WrongRuling(f"window {msg.window_id}: a late answer is listed before a ranked one")
        for reaction in msg.reactions:
            took, forgiven = _ns(reaction.reaction_time), _ns(reaction.latency_forgiven)
            if forgiven > cap + 1:
                raise WrongRuling(f"window {msg.window_id}: seat {reaction.seat} was forgiven {forgiven} ns, above "
                                  f"the cap of {cap} ns")
            if reaction.HasField("send_time"):
                taken = _ns(reaction.receive_time) - _ns(reaction.send_time)
                if abs(taken - 2 * forgiven - took) > _ROUNDING_NS:
                    raise WrongRuling(
                        f"window {msg.window_id}: seat {reaction.seat}'s answer took {taken} ns, less twice the "
                        f"{forgiven} ns forgiven is not its reaction time of {took} ns")
            if duration is not None and (took > duration + 1 if not reaction.late else took < duration - 1):
                raise WrongRuling(f"window {msg.window_id}: seat {reaction.seat} reacted in {took} ns of a {duration} "
                                  f"ns window, but is {'' if reaction.late else 'not '}listed late")
            if duration is None and reaction.late:
                raise WrongRuling(f"window {msg.window_id} has no duration, yet seat {reaction.seat} is late")
        ranked = [reaction for reaction in msg.reactions if not reaction.late]
        if len(msg.tie_seed) != 32:
            raise WrongRuling(f"window {msg.window_id}'s tie seed is {len(msg.tie_seed)} bytes, not 32")
        due = tie_order([(r.seat, _ns(r.reaction_time)) for r in ranked], seed=msg.tie_seed, tie_tolerance_s=tolerance)
        if [(r.seat, r.tie_group) for r in ranked] != due:
            raise WrongRuling(
                f"window {msg.window_id}: the answers are ranked {[(r.seat, r.tie_group) for r in ranked]}, but their "
                f"reaction times, the tie tolerance and the tie seed rank them {due} (seat, tie group)")
        self._ok("race ruling follows from its published figures")

    # ---------------------------------------------------------------------------------- the challenge

    def _on_hand_revealed(self, msg: events_pb2.HandRevealed) -> None:
        self.pending_reveal = None
        if self.current is None or self.seat is None or msg.challenger_seat != self.seat:
            return
        if self.bluff is None or self.bluff[0] != msg.hand.seat or msg.played_event_number != self.bluff[4]:
            raise UnknownCommitment(
                f"the hand revealed is said to be from event {msg.played_event_number}, but the record's last "
                f"Wild Draw Four of seat {msg.hand.seat} was event {self.bluff[4] if self.bluff else 'none'}"
            )
        openings = [
            CardOpening(card_code(ref.card), ref.salt if len(ref.salt) == 32 else bytes(32), ref.position,
                        ref.deck_number)
            for ref in msg.hand.cards
        ]
        self.pending_reveal = (msg.hand.seat, openings)

    def _on_challenge_resolved(self, msg: events_pb2.ChallengeResolved) -> None:
        self._check_challenger_reveal(msg)
        self._check_penalty(msg)
        if self.current is not None and self.bluff is not None and self.bluff[0] == msg.accused_seat:
            seat, held, color, top, _ = self.bluff
            self._round().verdicts.append(_Verdict(self.number, seat, held, color, top, msg.guilty))

    def _check_penalty(self, msg: events_pb2.ChallengeResolved) -> None:
        """B3-B5: who pays and how much follows from the verdict, the obligation the Wild Draw Four left
        open (the chain's total under stacking) and the table's `bluff_penalty`."""
        if self.obligation is None:
            raise WrongPenalty("a challenge was resolved with no draw obligation open")
        amount, target, setter = self.obligation
        self.obligation = None
        if (msg.challenger_seat, msg.accused_seat) != (target, setter):
            raise WrongPenalty(
                f"seat {msg.challenger_seat} challenged seat {msg.accused_seat}, but the open obligation was "
                f"set by seat {setter} on seat {target}")
        if msg.bluff_penalty != self.bluff_penalty:
            raise WrongPenalty(f"the challenge names bluff penalty {msg.bluff_penalty}, the table's is "
                               f"{self.bluff_penalty}")
        if msg.guilty:
            seat = msg.accused_seat
            cards = amount + (BLUFF_EXTRA if self.bluff_penalty == rules_pb2.BLUFF_PENALTY_DRAW_SIX else 0)
            reason = events_pb2.DRAW_REASON_BLUFF_CAUGHT
        else:
            seat, cards, reason = msg.challenger_seat, amount + BLUFF_EXTRA, events_pb2.DRAW_REASON_CHALLENGE_LOST
        if (msg.penalized_seat, msg.penalty_cards) != (seat, cards):
            raise WrongPenalty(
                f"a {'guilty' if msg.guilty else 'not guilty'} verdict on an obligation of {amount} makes seat "
                f"{seat} draw {cards}; the host says seat {msg.penalized_seat} draws {msg.penalty_cards}")
        take_back = msg.guilty and self.bluff_penalty == rules_pb2.BLUFF_PENALTY_TAKE_BACK
        self.penalty = _Penalty(seat, cards, reason, take_back)
        self._ok("challenge penalty follows from the verdict and the rules")

    def _check_challenger_reveal(self, msg: events_pb2.ChallengeResolved) -> None:
        pending, self.pending_reveal = self.pending_reveal, None
        if pending is None or self.bluff is None:
            return
        seat, openings = pending
        _, held, color, top, _ = self.bluff
        report = check_challenge(
            table_id=self.table_id, round_no=self._round().number, held=held, openings=openings,
            color_in_force=color, top=top, rule=self.rule, claimed_guilty=msg.guilty,
        )
        report.raise_for_failures()
        for check in report.openings:
            self._round().openings.append((check.opening, commit(
                self.table_id, self._round().number, check.opening.position, check.opening.card,
                check.opening.salt, deck_no=check.opening.deck_no)))
        self._ok("challenge reveal complete and correct, verdict recomputed")
        self.notes.append(
            f"event {self.number}: the Wild Draw Four challenge against seat {seat}: {len(openings)} opening(s) "
            f"are exactly the hand held; verdict {'guilty' if msg.guilty else 'not guilty'} recomputed"
        )

    # ---------------------------------------------------------------------------------- end of round

    def _on_round_ended(self, msg: events_pb2.RoundEnded) -> None:
        if self.current is None:
            return
        for hand in msg.hands:
            if not hand.cards and not self.held.get(hand.seat):
                continue
            openings = []
            for ref in hand.cards:
                self._ref(ref, need_opening=True)
                openings.append(CardOpening(card_code(ref.card), ref.salt, ref.position, ref.deck_number))
            report = check_challenge(
                table_id=self.table_id, round_no=self._round().number, held=self.held.get(hand.seat, []),
                openings=openings, color_in_force=None, top=ALL_CARDS[0], rule=WildDrawFourRuleCode.ANY_TIME,
                claimed_guilty=False,
            )
            report.raise_for_failures()
            self._ok("hand shown at the end of the round is exactly the hand held")


def verify_events(table_id: str, events: Iterable[events_pb2.Event], seat: int | None = None) -> Verifier:
    """Feed a whole finished log to a new Verifier and require every seed revealed; returns it."""
    verifier = Verifier(table_id, seat)
    verifier.feed_all(events)
    verifier.finish()
    return verifier

