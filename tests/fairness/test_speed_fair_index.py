"""The fast paths of the commitment bookkeeping give exactly what the plain definitions give.

`RoundCards` indexes each hand by card so that finding a played card's commitment costs the cards
played, not the hand; the index must stay in step with the hand through every way hidden cards move
(seven-O swaps, zero rotations, five swaps, take-backs, draws) and must pick the very ref a scan of the
hand in order picks, because that ref's commitment is published. The fairness primitives encode fields
once per pile instead of once per card and build the Merkle tree level by level; their outputs (and
their errors) must be those of the definitions in docs/fairness.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from unonet.engine import UnoError, legal_actions
from unonet.engine.actions import Play
from unonet.engine.cards import Card, standard_deck
from unonet.fairness import (
    ALL_CARDS,
    Drbg,
    InvalidInput,
    commit,
    commit_cards,
    derive_salts,
    merkle_root,
    shuffled,
    uniform_below,
)
from unonet.fairness.cards import canonical_order
from unonet.fairness.encoding import encode, field, tagged_hash, text
from unonet.fairness.merkle import _root_of_hashes, leaf_hash
from unonet.host import journal, shuffles
from unonet.host.bots import choose_action, reaction_for
from unonet.host.host import Host
from unonet.host.shuffles import Hand, MirrorError, RoundCards
from unonet.host.table import TableSettings
from unonet.wire.refs import Ref

# ------------------------------------------------------------------------------------ hands


def _scan(hand: Sequence[Ref], cards: Sequence[Card]) -> list[Ref] | None:
    """What `_find` did before the index: the first not yet chosen ref of each card, in hand order."""
    chosen: list[Ref] = []
    for card in cards:
        ref = next((r for r in hand if r.card == card and all(r is not c for c in chosen)), None)
        if ref is None:
            return None
        chosen.append(ref)
    return chosen


_EVERY_CARD = sorted(set(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)), key=str)


def _check_hand(hand: Hand, rng: random.Random) -> None:
    by_card: dict[Card, list[Ref]] = {}
    for ref in hand.refs:
        by_card.setdefault(ref.card, []).append(ref)
    assert hand._by_card == by_card
    for card in {*by_card, *rng.sample(_EVERY_CARD, 3)}:
        assert hand.find([card]) == _scan(hand.refs, [card])
    several = [ref.card for ref in hand.refs] + [rng.choice(hand.refs).card] if hand.refs else []
    rng.shuffle(several)
    for n in {1, 2, 3, len(several)}:
        got, scanned = hand.find(several[:n]), _scan(hand.refs, several[:n])
        assert (got is None) == (scanned is None)
        assert all(a is b for a, b in zip(got or [], scanned or [], strict=True))


class _Checked:
    """Wraps `RoundCards.on_event`: after every event the index of every hand matches the hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: Counter[str] = Counter()
        self.rng = random.Random(0)
        original = RoundCards.on_event

        def on_event(cards: RoundCards, event: Any, number: int) -> Any:
            out = original(cards, event, number)
            name = type(event).__name__
            self.seen[name] += 1
            if hasattr(RoundCards, f"_on_{name}"):  # the events the mirror follows
                for hand in cards.hands.values():
                    _check_hand(hand, self.rng)
            return out

        monkeypatch.setattr(RoundCards, "on_event", on_event)


async def _play(preset: str, overrides: dict[str, Any], seed: int) -> None:
    """A 4-seat match of host bots, plus now and then a random card from a random hand played by a
    random seat (jump-ins, wrong jump-ins and illegal plays where the rules have them; refused
    otherwise). After every command the mirror's hands hold exactly the engine's cards."""
    host = Host()
    settings = TableSettings(
        name="t", seat_count=4, preset=preset, overrides={"target_score": 1, **overrides}, turn_time_s=600
    )
    table = host.create_table(settings, seed=seed)
    await host.stop()  # no driver: this test moves the table itself
    for i in range(4):
        table.join(f"p{i}", None, False)
    rng = random.Random(seed)
    steps = 0
    while table.match is not None and not table.match.is_over and steps < 3000:
        steps += 1
        if table.window_deadlines:
            table.record(journal.Close(min(table.window_deadlines)))
            continue
        game = table.match.game
        seat = game.to_act
        wild = rng.randrange(4)
        if rng.random() < 0.15 and game.hands[wild]:
            with contextlib.suppress(UnoError):  # refused: it changes nothing
                table.command(wild, f"x{steps}", (Play(wild, (rng.choice(game.hands[wild]),)),))
        elif seat is None:
            for other in range(4):
                action = reaction_for(game, other, legal_actions(game, other))
                if action is not None:
                    table.command(other, f"r{steps}", (action,))
                    break
            else:
                break
        else:
            table.command(seat, f"c{steps}", (choose_action(game, seat, legal_actions(game, seat), rng),))
        if table.cards is not None and not table.cards.is_over and table.match is not None:
            game = table.match.game
            aside = Counter([table.cards.aside.card] if table.cards.aside is not None else [])
            for owner, hand in table.cards.hands.items():
                held, engine = Counter(ref.card for ref in hand.refs), Counter(game.hands[owner])
                assert held == engine or held + aside == engine  # a five swap's card is held aside


HOUSE_GAMES = [
    ("house", {}),  # seven-O swaps, zero rotations, five swaps, jump-ins, bluffs
    ("standard", {"seven_o": True, "five_swap": True, "jump_in": True, "bluffing": True}),
    ("standard", {"bluff_penalty": "take_back", "bluffing": True, "illegal_play_penalty": True}),
    ("serbian", {}),
]


async def test_the_hand_index_follows_every_move_of_hidden_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = _Checked(monkeypatch)
    seeded = random.Random(7)  # the host's seeds, so the decks (and the moves this test sees) repeat
    monkeypatch.setattr(shuffles, "secrets", SimpleNamespace(token_bytes=seeded.randbytes))
    for preset, overrides in HOUSE_GAMES:
        for seed in range(1, 5):
            await _play(preset, overrides, seed)
    moved = {
        *("HandsSwapped", "HandsRotated", "SwapOffered", "CardsExchanged", "CardTakenBack", "HandRevealed"),
        *("Drew", "Played", "WrongJumpIn", "IllegalPlay", "Reshuffled"),
    }
    assert moved <= set(checked.seen), checked.seen


def _ref(card: Card, n: int) -> Ref:
    return Ref(card, bytes([n]) * 32, bytes(32), 0, n)


def test_identical_cards_go_out_earliest_held_first() -> None:
    red5, blue2 = Card.parse("red 5"), Card.parse("blue 2")
    hand = Hand()
    refs = [_ref(red5, 0), _ref(blue2, 1), _ref(red5, 2), _ref(red5, 3)]
    for ref in refs:
        hand.add(ref)
    assert hand.find([red5]) == [refs[0]]
    assert hand.find([red5, blue2, red5]) == [refs[0], refs[1], refs[2]]
    assert hand.find([blue2, blue2]) is None
    hand.remove(refs[2])  # not the earliest: the index drops exactly that ref
    assert hand.refs == [refs[0], refs[1], refs[3]]
    assert hand.find([red5, red5]) == [refs[0], refs[3]]
    hand.remove(refs[1])
    assert hand.find([blue2]) is None and blue2 not in hand._by_card
    with pytest.raises(MirrorError):
        hand.remove(refs[1])


def test_a_card_the_hand_does_not_hold_is_named() -> None:
    cards = RoundCards("t", 1, bytes(32), bytes(32), standard_deck())
    cards.hands = {0: Hand()}
    red5, blue2 = Card.parse("red 5"), Card.parse("blue 2")
    cards.hands[0].add(_ref(red5, 0))
    with pytest.raises(MirrorError, match="holds no committed blue 2"):
        cards._find(0, [red5, blue2, red5])
    with pytest.raises(MirrorError, match="holds no committed red 5"):
        cards._find(0, [red5, red5, blue2])
    with pytest.raises(MirrorError, match="seat 3 holds no committed red 5"):
        cards._find(3, [red5])


def test_card_code_is_the_fairness_encoding_of_every_engine_card() -> None:
    for card in set(standard_deck(blank_cards=True, sound_wilds=True, h2o_wilds=True)):
        code = shuffles.card_code(card)
        assert (code.color.name, code.rank.name) == (card.color.name, card.rank.name)
    assert len({shuffles.card_code(card) for card in shuffles._CODES}) == len(ALL_CARDS)


def test_a_deal_commits_the_dealt_cards_at_their_positions() -> None:
    deck = standard_deck()
    cards = RoundCards("table-1", 3, bytes(range(32)), bytes(32), deck)
    pile = cards.piles[0]
    assert [ref.position for ref in pile.refs] == list(range(len(deck)))
    assert [shuffles.card_code(ref.card) for ref in pile.refs] == list(pile.deck.cards)
    for ref in pile.refs:
        assert ref.commitment == commit("table-1", 3, ref.position, shuffles.card_code(ref.card), ref.salt)
    assert Counter(cards.deal_cards) == Counter(deck)


# ------------------------------------------------------------------------------------ primitives


def _reference_hash(tag: str, *fields: bytes) -> bytes:
    digest = hashlib.sha256(field(text(tag)))
    for value in fields:
        digest.update(field(value))
    return digest.digest()


def test_tagged_hash_is_the_definition() -> None:
    rng = random.Random(1)
    for _ in range(200):
        tag = rng.choice(["unonet/v1/card", "t", "", "é/v9"])
        fields = [rng.randbytes(rng.randrange(0, 80)) for _ in range(rng.randrange(0, 8))]
        assert tagged_hash(tag, *fields) == _reference_hash(tag, *fields)
        assert encode(tag, *fields) == b"".join(field(f) for f in [text(tag), *fields])
    assert tagged_hash("t", bytearray(b"x")) == _reference_hash("t", b"x")


def test_commit_cards_is_commit_per_card() -> None:
    rng = random.Random(2)
    for n in (0, 1, 2, 7, 108, 130):
        cards = [rng.choice(ALL_CARDS) for _ in range(n)]
        salts = [rng.randbytes(32) for _ in range(n)]
        table_id, round_no, deck_no = rng.choice(["table-1", "", "tablé"]), rng.randrange(2**64), rng.randrange(9)
        expected = [
            commit(table_id, round_no, p, c, s, deck_no=deck_no)
            for p, (c, s) in enumerate(zip(cards, salts, strict=True))
        ]
        assert commit_cards(table_id, round_no, cards, salts, deck_no=deck_no) == expected


@pytest.mark.parametrize(
    ("cards", "salts", "round_no", "message"),
    [
        (["x", ALL_CARDS[0]], [bytes(32)] * 2, -1, "commit needs a CardCode"),  # the card is checked first
        ([ALL_CARDS[0]], [bytes(32)], -1, "round_no"),
        ([ALL_CARDS[0], "x"], [bytes(32)] * 2, 1, "commit needs a CardCode"),
        ([ALL_CARDS[0], ALL_CARDS[1]], [bytes(32), bytes(31)], 1, "salt must be exactly 32 bytes, got 31"),
        ([ALL_CARDS[0]], ["x" * 32], 1, "salt must be exactly 32 bytes, got str"),
    ],
)
def test_commit_cards_refuses_what_commit_refuses(
    cards: list[Any], salts: list[Any], round_no: int, message: str
) -> None:
    with pytest.raises(InvalidInput, match=message):
        commit_cards("t", round_no, cards, salts)
    assert commit_cards("t", -1, [], []) == []  # nothing to commit: nothing checked, as before


def test_shuffles_and_salts_read_the_drbg_stream() -> None:
    rng = random.Random(3)
    for n in (0, 1, 2, 10, 108, 300):
        seed = rng.randbytes(32)
        drbg = Drbg(seed)
        expected = list(range(n))
        for i in range(n - 1, 0, -1):
            j = uniform_below(i + 1, drbg.read)
            expected[i], expected[j] = expected[j], expected[i]
        assert shuffled(range(n), seed) == expected
        drbg = Drbg(seed)
        assert derive_salts(seed, n) == [drbg.read(32) for _ in range(n)]
    with pytest.raises(InvalidInput):
        shuffled([], bytes(31))


def test_drbg_reads_of_any_size_follow_the_stream() -> None:
    rng = random.Random(4)
    seed = rng.randbytes(32)
    stream = b"".join(_reference_hash("unonet/v1/drbg", seed, i.to_bytes(8, "big")) for i in range(200))
    drbg, at = Drbg(seed), 0
    while at < len(stream) - 100:
        n = rng.choice([0, 1, 3, 4, 31, 32, 33, 64, 65])
        assert drbg.read(n) == stream[at : at + n]
        at += n


def test_merkle_root_level_by_level_is_rfc_6962() -> None:
    rng = random.Random(5)
    for n in [*range(0, 140), 255, 256, 257, 1000]:
        leaves = [rng.randbytes(rng.randrange(0, 40)) for _ in range(n)]
        assert merkle_root(leaves) == _root_of_hashes([leaf_hash(leaf) for leaf in leaves])


def test_canonical_order_is_byte_order() -> None:
    rng = random.Random(6)
    cards = [rng.choice(ALL_CARDS) for _ in range(200)]
    assert canonical_order(cards) == sorted(cards, key=lambda c: c.to_bytes())
    assert canonical_order(iter(cards)) == sorted(cards)
