"""The `strong` search bot: whole legal rounds on what a networked seat receives, reproducible decisions
at a fixed budget, a time budget read from an injectable clock, and a belief whose deals never move a
card the seat has seen and keep every hand's size."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from unonet.bots.arena import play_round
from unonet.bots.belief import Belief, pinned_cards
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.kinds import canonical_name, make_bot, public_names, runs_in_worker
from unonet.bots.policy import Bot, BotState
from unonet.bots.strong import Budget, StrongBot
from unonet.client import commands as cmd
from unonet.engine import Card, Color, Game, Knowledge, Rank, find_ruleset, standard_deck
from unonet.v1 import events_pb2, views_pb2
from unonet.wire import convert

STANDARD = find_ruleset("standard")


class Recorder(Bot):
    """Greedy at the table; at each decision it keeps the events so far, the view and the state."""

    kind = "recorder"

    def __init__(self, seed: int) -> None:
        self.greedy = GreedyBot(seed)
        self.events: list[events_pb2.Event] = []
        self.decisions: list[tuple[list[events_pb2.Event], views_pb2.SeatView, BotState]] = []

    def on_event(self, event: events_pb2.Event) -> None:
        self.events.append(event)
        self.greedy.on_event(event)

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        copy = views_pb2.SeatView()
        copy.CopyFrom(view)
        self.decisions.append((list(self.events), copy, BotState(seat=state.seat)))
        return self.greedy.decide(view, state)


def _recorded(players: int, seed: int) -> Recorder:
    recorder = Recorder(seed)
    bots: list[Bot] = [recorder, *(make_bot("random", seed * 10 + s) for s in range(1, players))]
    play_round(STANDARD, bots, seed)
    return recorder


@pytest.mark.parametrize("players", [2, 4])
def test_strong_plays_whole_rounds_legally_and_searches_its_decisions(players):
    for seed in range(2):
        strong = StrongBot(seed, budget=Budget(playouts=16))
        bots: list[Bot] = [strong, *(make_bot("basic", seed * 10 + s) for s in range(1, players))]
        result = play_round(STANDARD, bots, seed, dealer=seed % players)
        assert 0 <= result.winner < players
        assert result.refused == 0
        assert strong.searches > 0
        assert strong.unsearchable == 0  # every position it met was rebuilt from its events


def test_strong_handles_every_house_rule_decision_without_a_refusal():
    house = find_ruleset("standard", stacking=True, deflecting=True, runs=True, multi_play=True, jump_in=True,
                         skip_escape=True, seven_o=True, five_swap=True, uno_slap=True, sound_wilds=True,
                         blank_cards=True, h2o_wilds=True).replace(name="house_for_strong")
    for seed in range(2):
        bots: list[Bot] = [StrongBot(seed * 10 + seat, budget=Budget(playouts=8)) for seat in range(4)]
        result = play_round(house, bots, seed)
        assert 0 <= result.winner < 4
        assert result.refused == 0


def _replay(seed: int, budget: Budget, events: list[events_pb2.Event], view: views_pb2.SeatView,
            seat: int) -> tuple[cmd.Command | None, StrongBot]:
    bot = StrongBot(seed, budget=budget)
    for event in events:
        bot.on_event(event)
    return bot.decide(view, BotState(seat=seat)), bot


def test_a_fixed_budget_gives_the_same_decision_for_the_same_seed_and_events():
    recorder = _recorded(2, 3)
    searched = 0
    for events, view, state in recorder.decisions:
        budget = Budget(playouts=40)
        first, bot = _replay(11, budget, events, view, state.seat)
        again, _ = _replay(11, budget, events, view, state.seat)
        assert first == again
        assert bot.last_playouts <= budget.playouts
        if bot.searches:
            searched += 1
            assert bot.last_playouts > 0
    assert searched >= 3


def test_the_time_budget_stops_the_search_by_the_injected_clock():
    recorder = _recorded(2, 3)
    events, view, state = next(
        (e, v, s) for e, v, s in recorder.decisions if len(v.legal_actions.plays) >= 2
    )
    ticks = iter(range(0, 10_000, 10))  # every reading is 10 s on: the deadline passes at once
    bot = StrongBot(5, budget=Budget(playouts=10_000, seconds=1.0), clock=lambda: float(next(ticks)))
    for event in events:
        bot.on_event(event)
    command = bot.decide(view, BotState(seat=state.seat))
    assert bot.searches == 1 and bot.last_playouts == 0
    assert command is not None  # greedy's choice stands when nothing was played out


def test_strong_is_registered_public_with_levels_and_plays_in_a_worker():
    assert {"strong:1", "strong:2", "strong:3"} <= set(public_names())
    assert canonical_name("strong") == "strong:3"
    assert runs_in_worker("strong:2")
    low = make_bot("strong:1", seed=1)
    assert isinstance(low, StrongBot) and low.budget.seconds is None and low.think_seconds(views_pb2.SeatView()) > 0
    top = make_bot("strong", seed=1)
    assert isinstance(top, StrongBot) and top.budget.seconds is not None
    assert top.think_seconds(views_pb2.SeatView()) == 0


# ------------------------------------------------------------------------------------- the belief


def _deals(players: int, seed: int, count: int) -> list[tuple[views_pb2.SeatView, Belief, Game, Knowledge, Game]]:
    """For each decision of a recorded round, the belief's position and `count` deals from it."""
    out = []
    recorder = _recorded(players, seed)
    rng = random.Random(seed)
    for events, view, state in recorder.decisions:
        belief = Belief(state.seat, trust=1.0)
        for event in events:
            belief.observe(event)
        game, knowledge = belief.position(view)
        out += [(view, belief, game, knowledge, belief.sample(game, knowledge, rng)) for _ in range(count)]
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_a_deal_never_moves_a_card_the_seat_has_seen_and_keeps_every_hand_size(players):
    for view, belief, game, knowledge, deal in _deals(players, 7, 3):
        me = belief.seat
        assert Counter(deal.hands[me]) == Counter(convert.card_from_pb(ref.card) for ref in view.hand)
        assert deal.discard == game.discard
        sizes = {state.seat: state.hand_size for state in view.seats}
        assert [len(hand) for hand in deal.hands] == [sizes[seat] for seat in range(players)]
        assert len(deal.draw_pile) == view.draw_pile_size
        seen = Counter(deal.hands[me]) + Counter(deal.discard)
        others = Counter(card for s, hand in enumerate(deal.hands) if s != me for card in hand)
        elsewhere = others + Counter(deal.draw_pile)
        deck = Counter(standard_deck())
        assert elsewhere + seen == deck  # every card once, and the seen ones only where they were seen
        for seat, cards in enumerate(knowledge.known):
            assert not Counter(cards) - Counter(deal.hands[seat])  # known cards stay in their hands


def test_a_seat_that_drew_on_its_turn_is_dealt_none_of_what_it_could_have_played():
    checked = 0
    for _, belief, game, knowledge, deal in _deals(2, 9, 4):
        for seat, unlikely in belief.unlikely.items():
            obligation = deal.obligation
            if obligation is not None and obligation.bluff is not None and obligation.bluff.accused == seat:
                continue  # an accused hand is dealt to judge its challenge (tests/bots/test_rollout.py)
            pinned = Counter(pinned_cards(seat, game, knowledge))  # known, drawn, or judging a challenge
            suspects = Counter(card for card in deal.hands[seat] if card in unlikely) - pinned
            if belief.fresh[seat] == 0 and any(card not in unlikely for card in deal.draw_pile):
                assert sum(suspects.values()) == 0
                checked += 1
    assert checked > 0


def test_fresh_cards_may_be_unlikely_ones_and_trust_zero_changes_nothing():
    game = Game(STANDARD, 2, random.Random(1))
    knowledge = Knowledge(0)
    reds = frozenset(card for card in standard_deck() if card.color is Color.RED)
    belief = Belief(0, trust=1.0)
    belief.unlikely[1], belief.fresh[1] = reds, 2
    for seed in range(20):
        deal = belief.sample(game, knowledge, random.Random(seed))
        assert sum(card in reds for card in deal.hands[1]) <= 2
        assert len(deal.hands[1]) == len(game.hands[1])
    blind = Belief(0, trust=0.0)
    blind.unlikely[1], blind.fresh[1] = reds, 0
    dealt = [sum(card in reds for card in blind.sample(game, knowledge, random.Random(s)).hands[1]) for s in range(40)]
    assert max(dealt) > 0  # a belief that trusts nothing deals by the hard facts alone
    with pytest.raises(ValueError, match="probability"):
        Belief(0, trust=1.5)


def test_a_draw_on_a_turn_marks_what_the_drawer_could_have_played():
    belief = Belief(0)
    top = Card.of(Color.BLUE, Rank.EIGHT)
    belief.tracker.discard, belief.tracker.color = [top], Color.BLUE
    drawn = events_pb2.Event(cards_drawn=events_pb2.CardsDrawn(seat=1, count=1, reason=events_pb2.DRAW_REASON_TURN,
                                                                hand_size=8))
    belief.observe(drawn)
    assert Card.of(Color.BLUE, Rank.TWO) in belief.unlikely[1] and Card.of(Color.RED, Rank.EIGHT) in belief.unlikely[1]
    assert Card.of(Color.RED, Rank.TWO) not in belief.unlikely[1]
    assert belief.fresh[1] == 0
    owed = events_pb2.CardsDrawn(seat=1, count=2, reason=events_pb2.DRAW_REASON_OBLIGATION, hand_size=10)
    penalty = events_pb2.Event(cards_drawn=owed)
    belief.observe(penalty)
    assert belief.fresh[1] == 2
    belief.observe(events_pb2.Event(round_started=events_pb2.RoundStarted(round_number=2)))
    assert not belief.unlikely


def test_strong_draws_on_a_proven_honest_players_wild_draw_four_and_challenges_a_caught_bluffer():
    answers = []
    for seed in range(40):
        recorder = Recorder(seed)
        play_round(STANDARD, [recorder, make_bot("greedy", seed + 1)], seed)  # greedy never bluffs
        for events, view, state in recorder.decisions:
            if not view.legal_actions.challenge:
                continue
            bot = StrongBot(seed, budget=Budget(playouts=64))
            for event in events:
                bot.on_event(event)
            accused = view.draw_obligation.setter_seat
            for _ in range(6):  # greedy never bluffs, and this table saw the accused found innocent six times
                bot.on_event(events_pb2.Event(challenge_resolved=events_pb2.ChallengeResolved(
                    challenger_seat=state.seat, accused_seat=accused, guilty=False)))
            honest = bot.decide(view, BotState(seat=state.seat))
            caught = StrongBot(seed, budget=Budget(playouts=64))
            for event in events:
                caught.on_event(event)
            for _ in range(6):  # ... but this table saw the accused caught bluffing six times
                caught.on_event(events_pb2.Event(challenge_resolved=events_pb2.ChallengeResolved(
                    challenger_seat=state.seat, accused_seat=accused, guilty=True)))
            answers.append((honest, caught.decide(view, BotState(seat=state.seat))))
        if len(answers) >= 6:
            break
    assert len(answers) >= 6
    assert all(isinstance(honest, cmd.Draw) for honest, _ in answers)
    assert any(isinstance(suspicious, cmd.Challenge) for _, suspicious in answers)
