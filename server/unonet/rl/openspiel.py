"""UNO as an OpenSpiel Python game, `python_unonet`: import this module, then
`pyspiel.load_game("python_unonet", {"players": 2, "preset": "house"})`.

A game of imperfect information with explicit chance: the first chance node picks the dealer (every seat
alike: S2's draw is symmetric), then one chance node per card lays the deck, top card first, each card
drawn with its share of the cards not yet laid (so the deal is a uniform shuffle). The round is then
played on the engine from that deck (`Match(decks=...)`); a pile rebuilt mid-round (T5) is shuffled by a
stream seeded from the deck, so a state is a function of its history. Decisions follow
`unonet.rl.table`: the player to move is the seat the round asks next (the seat to act, or a seat
offered an out-of-turn chance, which may DECLINE); actions are the fixed indices of
`unonet.rl.actions`, legal ones in ascending order.

Returns: the winner gets 1 and every other seat -1/(N-1), so the game is zero-sum; a round cut short
after `max_steps` decisions returns 0 to everyone.

Observations, for player p (`make_py_observer`):
- `observation_tensor` / `observation_string`: p's vector of `unonet.rl.observation` (as floats; the
  string is its bytes in hex), which holds the public history p remembers;
- `information_state_tensor`: the same vector (it already carries the history a player keeps, so it is
  imperfect recall: states that differ only in history the fields do not keep share a tensor);
  `information_state_string`: that vector plus every decision so far as p saw it (who decided what;
  the card of a 5-swap or a give-back only where p was one of the two), which is perfect recall.

`resample_from_infostate(p, sampler)` deals the cards p cannot see at random, consistently with what it
knows (`unonet.engine.search.determinize` on p's `PublicHistory.knowledge`), from a stream seeded by
`sampler()`: what OpenSpiel's ISMCTS bot needs.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Final

import numpy as np
import pyspiel

from unonet.engine import MalformedAction, Match, determinize, find_ruleset, standard_deck
from unonet.engine.cards import CARDS, Card
from unonet.rl.actions import ACTION_COUNT, ACTION_NAMES, FIVE_SWAP, GIVE_CARD, RUNS
from unonet.rl.observation import ObservationLayout
from unonet.rl.render import render_table
from unonet.rl.table import LearningTable

__all__ = ["GAME_NAME", "UnoGame", "UnoState"]

GAME_NAME: Final = "python_unonet"
_MAX_PLAYERS: Final = 10
_DEFAULTS: Final[dict[str, Any]] = {"players": 2, "preset": "standard", "options": "", "max_steps": 5_000}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="unonet UNO (every preset and house rule)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def parse_options(text: str) -> dict[str, Any]:
    """Rule options as the `options` parameter spells them: `stacking=true,uno_penalty=4,scoring=lowest_wins`.

    Raises ValueError for an item that is not `name=value`."""
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"rule option {item!r} is not name=value")
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            options[name.strip()] = lowered == "true"
        elif lowered.lstrip("-").isdigit():
            options[name.strip()] = int(lowered)
        else:
            options[name.strip()] = value.strip()
    return options


class UnoGame(pyspiel.Game):  # type: ignore[misc]
    """The game, for its parameters: `players`, `preset`, `options` (see `parse_options`), `max_steps`."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        self.players = int(params["players"])
        self.ruleset = find_ruleset(str(params["preset"]), **parse_options(str(params["options"])))
        self.max_steps = int(params["max_steps"])
        self.deck = standard_deck(
            blank_cards=self.ruleset.blank_cards, sound_wilds=self.ruleset.sound_wilds,
            h2o_wilds=self.ruleset.h2o_wilds,
        )  # fmt: skip
        self.layout = ObservationLayout(self.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=max(len(CARDS), self.players),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_steps,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> UnoState:
        return UnoState(self)

    def state_at(self, table: LearningTable) -> UnoState:
        """The state of a round being played at `table` (dealt and played elsewhere: a match between
        an OpenSpiel bot and unonet's bots, bench/ismcts.py), as a copy; its history holds no chance
        outcomes or decisions, and its `information_state_string` records decisions from here on."""
        if table.players != self.players or table.ruleset != self.ruleset:
            raise ValueError("the table plays another game: other rules or another number of seats")
        state = UnoState(self)
        state.round.table = table.copy()
        state.round.dealer = table.game.dealer
        state.round.left = Counter()
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> UnoObserver:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return UnoObserver(self.layout, perfect_recall=perfect_recall)


class _Round:
    """Everything a state holds, copied as one: the deal so far, then the `LearningTable` playing it.

    OpenSpiel clones a Python state by deep-copying each attribute; this copies the engine with
    `Game.copy` (a tenth of a deep copy's cost)."""

    def __init__(self, game: UnoGame) -> None:
        self.game = game
        self.dealer: int | None = None
        self.laid: list[Card] = []
        self.left = Counter(game.deck)
        self.table: LearningTable | None = None
        self.record: list[tuple[int, int]] = []  # (seat, index) of every decision so far

    def __deepcopy__(self, memo: dict[int, Any]) -> _Round:
        clone = _Round.__new__(_Round)
        clone.game = self.game
        clone.dealer = self.dealer
        clone.laid = list(self.laid)
        clone.left = Counter(self.left)
        clone.table = None if self.table is None else self.table.copy()
        clone.record = list(self.record)
        return clone


class UnoState(pyspiel.State):  # type: ignore[misc]
    """One state of the game (see the module)."""

    def __init__(self, game: UnoGame) -> None:
        super().__init__(game)
        self.round = _Round(game)

    # ---------------------------------------------------------------------------------- the API

    def current_player(self) -> int:
        table = self.round.table
        if table is None:
            return int(pyspiel.PlayerId.CHANCE)
        if table.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        assert table.seat is not None
        return table.seat

    def _legal_actions(self, player: int) -> list[int]:
        table = self.round.table
        assert table is not None and player == table.seat
        return sorted(table.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        state = self.round
        if state.dealer is None:
            players = state.game.players
            return [(seat, 1.0 / players) for seat in range(players)]
        total = sum(state.left.values())
        return [(card.index, count / total) for card, count in sorted(state.left.items(), key=lambda c: c[0].index)]

    def _apply_action(self, action: int) -> None:
        state = self.round
        if state.table is None:
            if state.dealer is None:
                state.dealer = int(action)
                return
            card = CARDS[action]
            state.laid.append(card)
            state.left[card] -= 1
            if not state.left[card]:
                del state.left[card]
            if not state.left:
                self._deal()
            return
        seat = state.table.seat
        assert seat is not None
        state.record.append((seat, int(action)))
        state.table.act(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.round.dealer is None else f"lay {CARDS[action]}"
        return ACTION_NAMES[action]

    def is_terminal(self) -> bool:
        table = self.round.table
        return table is not None and table.is_over

    def returns(self) -> list[float]:
        table = self.round.table
        players = self.round.game.players
        if table is None or not table.is_over or table.truncated:
            return [0.0] * players
        winner = table.game.winner
        return [1.0 if seat == winner else -1.0 / (players - 1) for seat in range(players)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> UnoState:
        """A state `player_id` cannot tell from this one, the cards it cannot see dealt at random."""
        clone: UnoState = self.clone()
        table = clone.round.table
        if table is None:  # still dealing: nothing is known yet, any deal will do
            return clone
        rng = random.Random(int(probability_sampler() * 2**53))
        full = table.history.knowledge(player_id)
        for knowledge in (full, type(full)(player_id, excluded=full.excluded), type(full)(player_id)):
            try:
                dealt = determinize(table.game, knowledge, rng)
                break
            except MalformedAction:  # a belief that no deal meets: ask for less
                continue
        else:  # pragma: no cover - the empty belief always has a deal
            raise RuntimeError("no deal fits even an empty belief")
        table.redeal(dealt)
        return clone

    def __str__(self) -> str:
        state = self.round
        if state.table is None:
            dealer = "not chosen" if state.dealer is None else f"seat {state.dealer}"
            return f"dealing: dealer {dealer}, {len(state.laid)} cards laid"
        return render_table(state.table)

    # ---------------------------------------------------------------------------------- internals

    def _deal(self) -> None:
        state = self.round
        game = state.game
        assert state.dealer is not None
        seed = sum(card.index * 131**i for i, card in enumerate(state.laid)) % 2**63  # the deck's own stream
        match = Match(game.ruleset, game.players, random.Random(seed), dealer=state.dealer, decks=[state.laid],
                      auto_deal=False)  # fmt: skip
        table = LearningTable(game.ruleset, game.players, max_steps=game.max_steps)
        table.start(match, seed ^ 0x5EED)
        state.table = table

    def visible_record(self, player: int) -> str:
        """Every decision so far as `player` saw it: a 5-swap's card and the card given back are shown only
        to the two seats of the swap (who gave to whom is public)."""
        state = self.round
        players = state.game.players
        pieces = []
        pair: tuple[int, int] = (-1, -1)
        for seat, index in state.record:
            if FIVE_SWAP <= index < RUNS:
                target = (seat + (index - FIVE_SWAP) // len(CARDS) + 1) % players
                pair = (seat, target)
                pieces.append(f"{seat}:{index}" if player in pair else f"{seat}:five-swap>{target}")
            elif GIVE_CARD <= index < FIVE_SWAP:
                pieces.append(f"{seat}:{index}" if player in pair else f"{seat}:give-back")
            else:
                pieces.append(f"{seat}:{index}")
        return ",".join(pieces)


class UnoObserver:
    """OpenSpiel's Python observer: the tensor is the seat's observation vector (see the module)."""

    def __init__(self, layout: ObservationLayout, *, perfect_recall: bool) -> None:
        self.layout = layout
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def _vector(self, state: UnoState, player: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
        table = state.round.table
        if table is None:
            return np.zeros(self.layout.size, np.uint8)
        offer = table.seat == player and not table.required
        return self.layout.encode(table.game, table.history, player, offer=offer)

    def set_from(self, state: UnoState, player: int) -> None:
        self.tensor[:] = self._vector(state, player)

    def string_from(self, state: UnoState, player: int) -> str:
        text = self._vector(state, player).tobytes().hex()
        if self.perfect_recall:
            return f"p{player} {text} [{state.visible_record(player)}]"
        return f"p{player} {text}"


pyspiel.register_game(_GAME_TYPE, UnoGame)
