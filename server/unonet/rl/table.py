"""`LearningTable`: one round of UNO as a sequence of single-seat decisions, the core of every env here.

The engine is not turn-based everywhere: a catch, a jump-in, a run cut or a slap is a race between seats
(RULES.md, "Reaction windows"), which a host rules by reaction time. A learning environment asks one
seat at a time, so races become turns by one fixed rule, the rule the league's in-process tables play
by (`unonet.bots.engine_table.StepRaces`):

- **Optional chances come first.** Before the seat the game waits for decides, every other seat that has
  an out-of-turn chance (a catch, an UNO call of its own, a jump-in, a skip escape, a run cut, a slap)
  is offered it, one at a time, in turn order from the seat after the one that acted last. Its legal
  actions then include `DECLINE` (index 144, no engine action). A seat is offered the same chance once:
  it is offered again only when what it may do, or the set of open windows, has changed. The first
  seat that takes a chance wins the race (a jump-in moves the turn; a catch settles the UNO window for
  everyone), and the offers go on from the new position.
- **Then the required decision.** The seat `Game.to_act` names decides; DECLINE is not among its actions.
  Its own out-of-turn options (catching the previous player, say) are listed with its turn's actions:
  taking one keeps the turn with it.
- **Blocking windows** (an UNO slap, a Sound Wild: everyone must react and the slowest draws two) are
  offered to their eligible seats in an order drawn from the table's seed for each window, so that no
  seat is always last; the order of the reactions is the order they are taken in, and the last one to
  react, or everyone who declined, draws (U5, H12). A run's cut window is offered to its one cutter.
  Once nobody is left to offer, the window is closed as a host closes it at its deadline.

So the environment's turn order is the engine's, plus these offers; the seat asked next is `seat`, with
`required` telling a decision from an offer and `legal` mapping each unmasked index to its action.

One episode is one round, dealt by a `Match` from the seed (S2 picks the dealer). Rewards come when
the round ends: `"win"` gives the winner 1 and every other seat -1; `"points"` gives each seat what
the round scores for it (`unonet.engine.round_points`), positive under `winner_takes` and negative under
`lowest_wins` and `elimination`, where points count against a seat.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final, Literal

from unonet.engine import (
    Action,
    Event,
    Game,
    Match,
    Phase,
    Ruleset,
    Scoring,
    WindowKind,
    legal_actions,
    round_points,
)
from unonet.engine.cards import Card, standard_deck
from unonet.engine.round_state import shuffle_like_random
from unonet.rl.actions import DECLINE, legal_indices
from unonet.rl.history import PublicHistory

__all__ = ["REWARDS", "LearningTable", "RewardKind"]

RewardKind = Literal["win", "points"]
REWARDS: Final = ("win", "points")
_ROUND_OVER: Final = Phase.ROUND_OVER
_REACT_WINDOWS: Final = (WindowKind.UNO_SLAP, WindowKind.SOUND_WILD)


def _dealer_pile(rng: random.Random) -> list[Card]:
    """The deck S2's dealer is drawn from, shuffled as `choose_dealer` shuffles it (`rng.shuffle` of a
    standard deck, drawn from its end) but by the engine's compiled shuffle, draw for draw the same
    (`shuffle_like_random`): the interpreted `Random.shuffle` of 108 cards was most of a reset's time."""
    deck = standard_deck()
    shuffle_like_random(rng, deck)
    deck.reverse()  # `choose_dealer` draws a given pile from its start
    return deck


class LearningTable:
    """One round at a time, one seat's decision at a time (see the module).

    Args:
        ruleset: the rules (`unonet.engine.find_ruleset`).
        players: 2 to 10 seats.
        reward: "win" or "points" (see the module).
        max_steps: past this many decisions and offers the round is cut short (`truncated`).

    Raises ValueError for an unknown reward; the engine's MalformedAction for a bad player count.
    """

    game: Game
    match: Match

    def __init__(
        self, ruleset: Ruleset, players: int, *, reward: str = "win", max_steps: int = 10_000, _copy: bool = False
    ) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if not _copy:  # `copy`'s blank table is of a table that was checked
            Match(ruleset, players, random.Random(0))  # checks the player count now, not at the first reset
        self.ruleset = ruleset
        self.players = players
        self.reward_kind = reward
        self.max_steps = max_steps
        self.history = PublicHistory(players, ruleset.wild_draw_four)
        self.seat: int | None = None
        self.required = True
        self.legal: dict[int, Action] = {}
        self.rewards: list[float] = [0.0] * players
        self.truncated = False
        self.steps = 0
        self.last_events: list[Event] = []
        #: Called with every batch of events the round produces, the deal's first (opponent bots follow them).
        self.listeners: list[Callable[[list[Event]], None]] = []
        self._order_rng = random.Random(0)  # each blocking window's order of offers (`start` seeds it)
        self._shown: list[object] = [None] * players  # what each seat was last offered
        self._orders: dict[int, list[int]] = {}  # the order of offers of each blocking window, by id
        self._last = 0  # the seat that acted last

    @property
    def is_over(self) -> bool:
        """The round has ended, or was cut short."""
        return self.seat is None

    def reset(self, seed: int) -> None:
        """Deal a new round from `seed`: the same seed deals the same cards and rules every race alike."""
        rng = random.Random(seed)
        deals = random.Random(rng.getrandbits(64))
        match = Match(self.ruleset, self.players, deals, auto_deal=False, dealer_pile=_dealer_pile(deals))
        self.start(match, rng.getrandbits(64))

    def start(self, match: Match, races_seed: int) -> None:
        """Play the round `match` deals next (a match not started yet, with `auto_deal` off: the caller
        may stack its deck and name its dealer), the blocking windows' orders drawn from `races_seed`."""
        self._order_rng = random.Random(races_seed)
        self.history = PublicHistory(self.players, self.ruleset.wild_draw_four)
        events = match.start() + match.deal()
        self.match = match
        self.game = match.game
        self.rewards = [0.0] * self.players
        self.truncated = False
        self.steps = 0
        self._shown = [None] * self.players
        self._orders = {}
        self._last = self.game.dealer
        self._take(events)
        self._advance()

    def copy(self) -> LearningTable:
        """An independent copy that goes on exactly as this table would (a search's, OpenSpiel's clone);
        its listeners are not copied."""
        clone = LearningTable(self.ruleset, self.players, reward=self.reward_kind, max_steps=self.max_steps, _copy=True)
        clone.match = self.match.copy()
        clone.game = clone.match.game
        clone.history = self.history.copy()
        clone.seat = self.seat
        clone.required = self.required
        clone.legal = dict(self.legal)
        clone.rewards = list(self.rewards)
        clone.truncated = self.truncated
        clone.steps = self.steps
        clone._order_rng.setstate(self._order_rng.getstate())
        clone._shown = list(self._shown)
        clone._orders = dict(self._orders)
        clone._last = self._last
        return clone

    def redeal(self, game: Game) -> None:
        """Go on from `game`, this round with other cards where the seat asked cannot see them
        (`unonet.engine.determinize`): a search's sampled position. The seat asked keeps its hand, so
        it is asked the same question."""
        self.game = game
        self.match = Match(self.ruleset, self.players, random.Random(0), dealer=game.dealer, first_round=game)
        seat = self.seat
        if seat is not None:
            legal = legal_actions(game, seat)
            self.legal = legal_indices(legal, seat, self.players, game.windows)
            if not self.required:
                self.legal[DECLINE] = legal[0]

    def act(self, index: int) -> None:
        """`seat` takes the action at `index`. Raises ValueError (nothing changed) for a masked index or
        when the round is over."""
        seat = self.seat
        if seat is None:
            raise ValueError("the round is over: reset first")
        if index == DECLINE and not self.required:
            self.last_events = []
        else:
            action = self.legal.get(index)
            if action is None:
                raise ValueError(f"action {index} is not legal for seat {seat} now")
            self._take(self.game.apply(action))
            self._last = seat
        self.steps += 1
        self._advance()

    def act_actions(self, actions: Sequence[Action]) -> None:
        """`seat` takes engine actions as one command (a play and the colour it names, as a bot sends
        them), all or nothing. Raises the engine's UnoError, nothing changed, when the rules refuse it,
        and ValueError when the round is over or another seat's action is given."""
        seat = self.seat
        if seat is None:
            raise ValueError("the round is over: reset first")
        if any(action.seat != seat for action in actions):
            raise ValueError(f"seat {seat} is asked, not {sorted({a.seat for a in actions})}")
        self._take(self.game.apply_command(actions))
        self._last = seat
        self.steps += 1
        self._advance()

    def decline(self) -> None:
        """`seat` lets an offered chance go (DECLINE). Raises ValueError for a required decision."""
        self.act(DECLINE)

    def legal_for(self, seat: int) -> Sequence[Action]:
        """The engine's legal actions of any seat now (without the env's DECLINE)."""
        return legal_actions(self.game, seat)

    # ---------------------------------------------------------------------------------- internals

    def _take(self, events: list[Event]) -> None:
        self.last_events = events
        self.history.follow(events, self.game)
        for listener in self.listeners:
            listener(events)

    def _advance(self) -> None:
        """Find who is asked next (see the module), closing blocking windows nobody is left to answer."""
        game = self.game
        while True:
            if game.phase is _ROUND_OVER:
                self._finish()
                return
            if self.steps >= self.max_steps:
                self.truncated = True
                self.seat = None
                self.legal = {}
                return
            to_act = game.to_act
            if game.windows or game.catchable:
                if self._offer(game, to_act):
                    return
                if to_act is None:
                    blocking = next(w for w in game.windows.values() if w.is_blocking)
                    self._take(game.close_window(blocking.id))
                    continue
            assert to_act is not None, "no blocking window is open, so a seat is to act"
            self.seat = to_act
            self.required = True
            self.legal = legal_indices(legal_actions(game, to_act), to_act, self.players, game.windows)
            return

    def _offer(self, game: Game, to_act: int | None) -> bool:
        """Offer the next seat with an optional chance it was not shown yet; False when there is none."""
        n = self.players
        windows = game.windows
        order: Sequence[int] | None = None
        for window in windows.values():
            if window.is_blocking and window.kind in _REACT_WINDOWS:
                order = self._orders.get(window.id)
                if order is None:
                    order = list(range(n))
                    self._order_rng.shuffle(order)
                    self._orders[window.id] = order
                break
        if order is None:
            order = [(self._last + k) % n for k in range(1, n + 1)]
        in_play = game.in_play
        for seat in order:
            if seat == to_act or not in_play[seat]:
                continue
            legal = legal_actions(game, seat)
            if not legal:
                self._shown[seat] = None
                continue
            key = (tuple(legal), tuple(windows))
            if key == self._shown[seat]:
                continue
            self._shown[seat] = key
            indices = legal_indices(legal, seat, n, windows)
            indices[DECLINE] = legal[0]  # a placeholder: `act` applies nothing for DECLINE
            self.seat = seat
            self.required = False
            self.legal = indices
            return True
        return False

    def _finish(self) -> None:
        game = self.game
        self.seat = None
        self.legal = {}
        winner = game.winner
        assert winner is not None
        if self.reward_kind == "win":
            self.rewards = [1.0 if s == winner else -1.0 for s in range(self.players)]
        else:
            sign = 1.0 if self.ruleset.scoring is Scoring.WINNER_TAKES else -1.0
            self.rewards = [sign * p for p in round_points(game, winner)]
