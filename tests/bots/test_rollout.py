"""The strong bot's playout policy plays greedy's game: at every decision of recorded greedy rounds it
picks the action greedy's own command turns into, from the position the seat's events rebuild; and the
belief's deals of an open Wild Draw Four are fair but at the accused's bluff rate."""

from __future__ import annotations

import random

import pytest

from unonet.bots.arena import play_round
from unonet.bots.belief import BLUFF_PRIOR, Belief
from unonet.bots.greedy_bot import GreedyBot
from unonet.bots.kinds import make_bot
from unonet.bots.policy import Bot, BotState
from unonet.bots.policy_seat import engine_actions
from unonet.bots.rollout import greedy_policy, remembered_lacks
from unonet.client import commands as cmd
from unonet.engine import (
    Action,
    BluffRecord,
    CallUno,
    Card,
    CatchUno,
    Challenge,
    Color,
    Draw,
    Game,
    Knowledge,
    Obligation,
    Play,
    Rank,
    React,
    find_ruleset,
    legal_actions,
    standard_deck,
)
from unonet.v1 import events_pb2, views_pb2

STANDARD = find_ruleset("standard")


class Twin(Bot):
    """Greedy at the table; at each of its decisions, what the playout policy picks from the position
    its events rebuild, beside the action greedy's command turns into."""

    kind = "twin"

    def __init__(self, seed: int) -> None:
        self.greedy = GreedyBot(seed)
        self.belief: Belief | None = None
        self.backlog: list[events_pb2.Event] = []
        self.pairs: list[tuple[Action, Action]] = []

    def on_event(self, event: events_pb2.Event) -> None:
        self.greedy.on_event(event)
        if self.belief is None:
            self.backlog.append(event)
        else:
            self.belief.observe(event)

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        command = self.greedy.decide(view, state)
        if self.belief is None:
            self.belief = Belief(state.seat)
            for event in self.backlog:
                self.belief.observe(event)
        game, _ = self.belief.position(view)
        options = [a for a in legal_actions(game, state.seat) if not isinstance(a, CallUno | CatchUno | React)]
        if command is not None and len(options) > 1:
            memory = self.greedy.memory
            rates = {seat: memory.bluff_rate(seat) for seat in range(game.num_players)}
            pick = greedy_policy(random.Random(0), 0.0, remembered_lacks(memory), rates)(game, options)
            self.pairs.append((pick, engine_actions(state.seat, command)[0]))
        return command


@pytest.mark.parametrize("players", [2, 4])
def test_the_playout_policy_picks_greedys_action_at_each_of_greedys_decisions(players):
    pairs: list[tuple[Action, Action]] = []
    for seed in range(12):
        twin = Twin(seed)
        bots: list[Bot] = [twin, *(make_bot("greedy", seed * 10 + s) for s in range(1, players))]
        play_round(STANDARD, bots, seed, dealer=seed % players)
        pairs += twin.pairs
    assert len(pairs) > 100
    assert [pair for pair in pairs if pair[0] != pair[1]] == []


def _accused_position(hand_one: list[Card]) -> tuple[Game, Knowledge]:
    """Seat 0 must answer seat 1's Wild Draw Four, played on a red 5 with `hand_one` left."""
    deck = standard_deck()
    wd4, red5 = Card.of(Color.BLACK, Rank.WILD_DRAW_FOUR), Card.of(Color.RED, Rank.FIVE)
    mine = [Card.of(Color.BLUE, Rank.ONE), Card.of(Color.GREEN, Rank.TWO)]
    for card in [wd4, red5, *mine, *hand_one]:
        deck.remove(card)
    record = BluffRecord(accused=1, hand=tuple(hand_one), is_fair=not any(c.color is Color.RED for c in hand_one),
                         card=wd4, previous_color=Color.RED)
    game = Game.from_position(
        STANDARD, random.Random(1), hands=[mine, list(hand_one)], draw_pile=deck, discard=[red5, wd4],
        color=Color.GREEN, current=0,
        obligation=Obligation(4, Rank.WILD_DRAW_FOUR, target=0, setter=1, skips=True, bluff=record),
    )
    return game, Knowledge(0)


def test_deals_of_an_open_wild_draw_four_are_fair_but_at_the_accused_bluff_rate():
    reds = [Card.of(Color.RED, Rank(str(n))) for n in range(1, 7)]
    game, knowledge = _accused_position(reds)
    assert game.obligation is not None and game.obligation.bluff is not None
    assert not game.obligation.bluff.is_fair
    belief = Belief(0, trust=1.0)
    rng = random.Random(3)
    def fair_share() -> float:
        deals = [belief.sample(game, knowledge, rng).obligation for _ in range(300)]
        return sum(obligation.bluff.is_fair for obligation in deals) / len(deals)  # type: ignore[union-attr]

    prior = fair_share()
    assert BLUFF_PRIOR <= prior < 1.0  # made fair but at the prior bluff rate (and by chance after it)
    for _ in range(6):  # a seat found innocent six times is trusted more
        belief.observe(events_pb2.Event(challenge_resolved=events_pb2.ChallengeResolved(
            challenger_seat=0, accused_seat=1, guilty=False)))
    assert belief.bluff_rate(1) < 0.2
    assert fair_share() > prior + 0.2


def test_the_policy_challenges_by_greedys_odds_and_draws_otherwise():
    game, _ = _accused_position([Card.of(Color.RED, Rank(str(n))) for n in range(1, 7)])
    options = legal_actions(game, 0)
    assert {type(a) for a in options} == {Draw, Challenge}
    bluffer = greedy_policy(random.Random(0), bluff_rates={1: 0.9})(game, options)
    honest = greedy_policy(random.Random(0), bluff_rates={1: 0.01})(game, options)
    assert isinstance(bluffer, Challenge) and isinstance(honest, Draw)
    assert not isinstance(greedy_policy(random.Random(0))(game, [*options]), Play)
