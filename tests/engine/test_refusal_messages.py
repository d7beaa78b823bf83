"""Refusal messages read as sentences: what a seat must do is said in words, never as an engine
identifier ("seat 0 must after draw now, not turn" was one), and no enum's repr leaks into one.

Random commands, legal or not, by every seat at every step of seeded matches under rulesets that
reach every phase (colours, swaps, five swaps, jump-ins, runs, obligations); every refusal's message
is checked.
"""

from __future__ import annotations

import random
import re

import pytest

from unonet.engine import Match, UnoError, find_ruleset, legal_actions
from unonet.engine import actions as act
from unonet.engine.cards import Card, Color, Rank
from unonet.engine.events import WindowKind
from unonet.engine.phase import DUTIES, Phase

DUTY = "|".join(re.escape(duty) for duty in DUTIES.values())
SHAPES = {
    "WRONG_PHASE": re.compile(rf"seat \d+ (must ({DUTY}) now, not ({DUTY})|cannot play now: it must ({DUTY}))"),
    "WAIT_FOR_EFFECT": re.compile(rf"wait: seat \d+ must ({DUTY}) first"),
}
IDENTIFIERS = [*(phase.value for phase in Phase), *(kind.value for kind in WindowKind)]


def _cards() -> list[Card]:
    cards = []
    for color in Color:
        for rank in Rank:
            try:
                cards.append(Card.of(color, rank))
            except ValueError:
                continue  # no such card
    return cards


def _attempts(rng: random.Random, match: Match, cards: list[Card]) -> list[act.Action]:
    game = match.game
    seat, other = rng.randrange(3), rng.randrange(3)
    card = rng.choice(game.hands[seat]) if game.hands[seat] and rng.random() < 0.7 else rng.choice(cards)
    return [act.Play(seat, (card,)), act.Draw(seat), act.Pass(seat), act.ChooseColor(seat, rng.choice(list(Color))),
            act.CallUno(seat), act.CatchUno(seat, other), act.Challenge(seat), act.React(seat, rng.randrange(6)),
            act.ChooseSwapTarget(seat, other), act.FiveSwap(seat, other, card), act.GiveCard(seat, card)]


@pytest.mark.parametrize("overrides", [
    {},
    {"jump_in": True, "seven_o": True, "five_swap": True, "stacking": True, "skip_escape": True, "bluffing": True},
    {"runs": True, "uno_slap": True, "sound_wilds": True, "silent_two": True, "draw_to_match": True},
])
def test_every_refusal_message_says_what_the_seat_must_do_in_words(overrides: dict[str, bool]) -> None:
    cards = _cards()
    names = "|".join(re.escape(str(card)) for card in sorted(cards, key=lambda card: -len(str(card))))
    seen: set[str] = set()
    for seed in range(6):
        match = Match(find_ruleset("standard", **overrides), 3, random.Random(seed))
        match.start()
        rng = random.Random(seed)
        for _ in range(200):
            if match.is_over or match.is_awaiting_deal:
                break
            for action in _attempts(rng, match, cards):
                try:
                    match.copy().apply(action)
                except UnoError as refusal:
                    message, why = str(refusal), getattr(refusal, "reason", "")
                    seen.add(why)
                    assert "<" not in message, message  # an enum's repr, such as <Color.BLACK: 'black'>
                    words = re.sub(names, "<card>", message)  # cards keep the engine's notation (red draw_two)
                    assert not any(name in words for name in IDENTIFIERS if "_" in name), message
                    if why in SHAPES:
                        assert SHAPES[why].fullmatch(message), message
            game = match.game
            options = legal_actions(game, game.to_act) if game.to_act is not None else []
            if options:
                match.apply(rng.choice(options))
            elif game.windows:
                match.close_window(next(iter(game.windows)))
            else:
                break
    assert {"WRONG_PHASE", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND"} <= seen, seen
