"""A match: rounds with dealer rotation and scoring until someone wins (S2, P1–P3).

`Match` owns the totals and starts each round's `Game`; everything a seat does goes through
`Match.apply`, so callers never juggle rounds themselves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from unonet.engine import events as ev
from unonet.engine.actions import Action
from unonet.engine.cards import Card, standard_deck
from unonet.engine.draws import SeatDraws
from unonet.engine.errors import GameOver, MalformedAction
from unonet.engine.events import Event
from unonet.engine.game import Game, Shuffle, WindowOutcome
from unonet.engine.legal import legal_actions
from unonet.engine.ruleset import Ruleset, Scoring
from unonet.engine.scoring import round_points
from unonet.engine.views import SeatView, build_view


def choose_dealer(
    seats: Sequence[int], rng: random.Random, pile: Sequence[Card] = ()
) -> tuple[int, tuple[tuple[int, Card], ...]]:
    """S2: every player draws in seat order; highest number deals; action or black cards draw again;
    tied highest players draw again until one is highest. Returns the dealer and every draw made.

    `pile` stacks the cards drawn (first drawn first); once it runs out, shuffled decks follow.
    """
    pile = list(pile)[::-1]
    draws: list[tuple[int, Card]] = []
    contenders = list(seats)
    while True:
        values: dict[int, int] = {}
        for seat in contenders:
            while True:
                if not pile:
                    pile = standard_deck()
                    rng.shuffle(pile)
                card = pile.pop()
                draws.append((seat, card))
                if card.rank.is_number:
                    values[seat] = card.rank.number
                    break
        best = max(values.values())
        contenders = [seat for seat in contenders if values[seat] == best]
        if len(contenders) == 1:
            return contenders[0], tuple(draws)


class Match:
    """Rounds of UNO between `num_players` seats until the match is won (P2)."""

    def __init__(
        self,
        ruleset: Ruleset,
        num_players: int,
        rng: random.Random,
        *,
        dealer: int | None = None,
        decks: Sequence[Sequence[Card]] = (),
        totals: Sequence[int] | None = None,
        dealer_pile: Sequence[Card] = (),
        first_round: Game | None = None,
        auto_deal: bool = True,
        window_ids_per_round: bool = False,
        draws: SeatDraws | None = None,
    ) -> None:
        """`decks` stacks the deck of the first rounds (first card dealt first); `totals` starts the scores.

        Nothing is dealt until `start()`, so the caller collects every event from the first. With
        `auto_deal` off, no round is dealt by itself: the caller deals each with `deal()` once it has
        run whatever must come first (a host's commit-reveal shuffle). Reaction window ids are unique
        within the match (each round goes on from the last); `window_ids_per_round` restarts them at 1
        every round, as matches recorded before did, so their journals replay unchanged. `draws`
        picks the cards seats draw, each round by its own `draws.for_round(round_no)` (a league's
        per-seat draw streams, `unonet.engine.draws`); None takes the top of the pile.
        Raises MalformedAction for a player count outside 2-10 (S1) or totals for another number of seats.
        """
        if not 2 <= num_players <= 10:
            raise MalformedAction(f"UNO is played by 2 to 10 players, not {num_players}", reason="BAD_PLAYER_COUNT")
        if totals is not None and len(totals) != num_players:
            raise MalformedAction(f"{len(totals)} totals for {num_players} players", reason="BAD_TOTALS")
        self.ruleset = ruleset
        self.num_players = num_players
        self.rng = rng
        self.totals = list(totals) if totals is not None else [0] * num_players
        # A round set up by hand with some seats out of play continues a match those seats have left.
        self.eliminated: set[int] = (
            set() if first_round is None else {s for s in range(num_players) if not first_round.in_play[s]}
        )
        self.round_no = 0
        self.winners: tuple[int, ...] = ()
        self._dealer = dealer
        self._decks = list(decks)
        self._dealer_pile = dealer_pile
        self._game: Game | None = first_round
        self.auto_deal = auto_deal
        self.window_ids_per_round = window_ids_per_round
        self.draws = draws

    @property
    def game(self) -> Game:
        """The current (or last) round. Raises GameOver before `start()`."""
        if self._game is None:
            raise GameOver("the match has not started")
        return self._game

    def copy(self) -> Match:
        """An independent copy for bots that search: the round's `Game.copy()`, the scores, and a random
        stream that continues the same way (so the copy deals its next round as this match would)."""
        clone = object.__new__(Match)
        clone.__dict__.update(self.__dict__)
        clone.rng = random.Random.__new__(random.Random)  # not Random(): it seeds from os.urandom first
        clone.rng.setstate(self.rng.getstate())
        clone.totals = list(self.totals)
        clone.eliminated = set(self.eliminated)
        clone._decks = list(self._decks)
        clone._game = None if self._game is None else self._game.copy()
        clone.draws = None  # like Game.copy: a search never reads the draws to come
        return clone

    @property
    def is_over(self) -> bool:
        return bool(self.winners)

    @property
    def is_awaiting_deal(self) -> bool:
        """True when the next round must be dealt with `deal()` (only with `auto_deal` off)."""
        return not self.is_over and (self._game is None or self._game.is_over)

    @property
    def next_dealer(self) -> int:
        """Who deals the round `deal()` would deal now."""
        if self._game is None:
            if self._dealer is None:
                raise GameOver("the dealer is chosen by start()")
            return self._dealer
        return self._next_dealer(self._game.dealer)

    def deal(self, deck: Sequence[Card] | None = None, shuffle: Shuffle | None = None) -> list[Event]:
        """Deal the next round from `deck` (first card dealt first), shuffling later piles with `shuffle`.

        Raises GameOver when no round is waiting to be dealt.
        """
        if not self.is_awaiting_deal:
            raise GameOver("no round is waiting to be dealt")
        return self._deal(self.next_dealer, deck, shuffle)

    def start(self) -> list[Event]:
        """Choose the dealer (S2) unless one was given, and deal the first round."""
        if self._game is not None:  # a round set up by hand
            self.round_no = self._game.round_no
            return self._game._out
        out: list[Event] = []
        if self._dealer is None:
            self._dealer, draws = choose_dealer(range(self.num_players), self.rng, self._dealer_pile)
            out.append(ev.DealerChosen(draws, self._dealer))
        if self.auto_deal:
            out += self._deal(self._dealer)
        return out

    def apply(self, action: Action) -> list[Event]:
        """Apply a seat's action to the current round; scores and deals on when the round ends."""
        if self.is_over:
            raise GameOver(f"the match is over; {action} was not applied")
        return self._settle(self.game.apply(action))

    def close_window(self, window_id: int) -> list[Event]:
        return self._settle(self.game.close_window(window_id))

    def apply_command(self, actions: Sequence[Action]) -> list[Event]:
        """Apply one command's actions all or nothing (`Game.apply_command`); scores and deals on when
        the round ends, after the command, so no follow-up ever lands in the next round."""
        if self.is_over:
            raise GameOver(f"the match is over; {actions} was not applied")
        return self._settle(self.game.apply_command(actions))

    def resolve_window(
        self, window_id: int, reactions: Sequence[Action | Sequence[Action]], *, as_recorded_before: bool = False
    ) -> list[Event]:
        """`Game.resolve_window`, then scoring and the next deal if the round ended."""
        return self._settle(self.game.resolve_window(window_id, reactions, as_recorded_before=as_recorded_before))

    def resolve_window_outcome(
        self, window_id: int, reactions: Sequence[Action | Sequence[Action]], *, as_recorded_before: bool = False
    ) -> WindowOutcome:
        """`Game.resolve_window_outcome` on the current round: the events (scored and dealt on as by
        `resolve_window`) and the answers the rules refused."""
        outcome = self.game.resolve_window_outcome(window_id, reactions, as_recorded_before=as_recorded_before)
        return WindowOutcome(self._settle(outcome.events), outcome.refused)

    def forfeit(self, seat: int) -> list[Event]:
        """Take a player out of the match for good (a table's forfeit policy); the last one left wins.

        Raises GameOver once the match is over, MalformedAction for a seat not in the match.
        """
        if self.is_over:
            raise GameOver("the match is over")
        if not 0 <= seat < self.num_players or seat in self.eliminated:
            raise MalformedAction(f"seat {seat!r} is not in the match", reason="BAD_SEAT")
        self.eliminated.add(seat)
        game = self._game
        if game is not None and not game.is_over and game.in_play[seat]:
            out = self._with_totals(game.forfeit(seat))
        else:
            out = [ev.PlayerEliminated(seat, self.totals[seat])]
        remaining = [s for s in range(self.num_players) if s not in self.eliminated]
        if len(remaining) == 1:
            self.winners = (remaining[0],)
            return [
                *out,
                ev.MatchEnded(
                    self.winners,
                    tuple(self.totals),
                    ev.MatchEndReason.LAST_SEAT_STANDING,
                    tuple(sorted(self.eliminated)),
                ),
            ]
        return self._settle(out)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action `seat` may take now; raises MalformedAction for a seat not at the table."""
        self._check_seat(seat)
        return [] if self.is_over else legal_actions(self.game, seat)

    def view_for(self, seat: int | None) -> SeatView:
        """What `seat` may know (None: a spectator): own hand, public facts, legal actions."""
        if seat is not None:
            self._check_seat(seat)
        return build_view(self.game, seat, tuple(self.totals), self.winners)

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.num_players:
            raise MalformedAction(f"seat {seat!r} is not one of seats 0 to {self.num_players - 1}", reason="BAD_SEAT")

    # ------------------------------------------------------------------------------------------

    def _deal(self, dealer: int, deck: Sequence[Card] | None = None, shuffle: Shuffle | None = None) -> list[Event]:
        self.round_no += 1
        seats = [seat for seat in range(self.num_players) if seat not in self.eliminated]
        if deck is None and self._decks:
            deck = self._decks.pop(0)
        self._game = Game(
            self.ruleset,
            self.num_players,
            self.rng,
            dealer=dealer,
            round_no=self.round_no,
            seats_in_play=seats,
            deck=deck,
            shuffle=shuffle,
            first_window_id=self._first_window_id(),
            draws=None if self.draws is None else self.draws.for_round(self.round_no),
        )
        return self._game._out

    def _first_window_id(self) -> int:
        """Where the next round numbers its windows: on from the last round's, unless the match numbers
        them per round (`window_ids_per_round`, tables recorded before ids were unique per table)."""
        if self._game is None or self.window_ids_per_round:
            return 1
        return self._game.next_window_id

    def _settle(self, out: list[Event]) -> list[Event]:
        game = self.game
        out = self._with_totals(out)
        if game.is_over and game.winner is not None and not self.is_over:
            out = out + self._score_round(game, game.winner)
        return out

    def _with_totals(self, out: list[Event]) -> list[Event]:
        """Fill in the match totals the round cannot know: a PenaltyPoints' total counting the round's
        penalty points so far (added under lowest_wins and elimination, taken off under winner_takes,
        P2), and a forfeited seat's total in its PlayerEliminated."""
        if not any(type(event) is ev.PenaltyPoints or type(event) is ev.PlayerEliminated for event in out):
            return out
        game = self.game
        sign = -1 if self.ruleset.scoring is Scoring.WINNER_TAKES else 1
        # The round's penalty points before this step: the step's own are counted as they come.
        charged = list(game.penalty_points)
        for event in out:
            if type(event) is ev.PenaltyPoints:
                charged[event.seat] -= event.points
        filled: list[Event] = []
        for event in out:
            if type(event) is ev.PenaltyPoints:
                charged[event.seat] += event.points
                event = ev.PenaltyPoints(event.seat, event.points, self.totals[event.seat] + sign * charged[event.seat])
            elif type(event) is ev.PlayerEliminated:
                event = ev.PlayerEliminated(event.seat, self.totals[event.seat], event.returned)
            filled.append(event)
        return filled

    def _score_round(self, game: Game, winner: int) -> list[Event]:
        """P2/P3: score the round, eliminate, decide the match or deal the next round."""
        seats = game.seats()
        points = round_points(game, winner)
        for seat in seats:
            self.totals[seat] += points[seat]
        decided = self._decide(seats)  # eliminations (their PlayerEliminated follow the RoundEnded)
        hands = tuple(tuple(h) for h in game.hands)
        out: list[Event] = [
            ev.RoundEnded(
                self.round_no, winner, tuple(points), tuple(self.totals), hands, tuple(sorted(self.eliminated))
            )
        ]
        out += decided
        if not self.is_over:
            if self.auto_deal:
                out += self._deal(self._next_dealer(game.dealer))
        return out

    def _next_dealer(self, dealer: int) -> int:
        """S2: the deal passes to the left, skipping eliminated players."""
        nxt = (dealer + 1) % self.num_players
        while nxt in self.eliminated:
            nxt = (nxt + 1) % self.num_players
        return nxt

    def _decide(self, seats: list[int]) -> list[Event]:
        target = self.ruleset.target_score
        reached = [seat for seat in seats if self.totals[seat] >= target]
        if not reached:
            return []
        scoring = self.ruleset.scoring
        if scoring is Scoring.WINNER_TAKES:
            best = max(self.totals[seat] for seat in reached)
            self.winners = tuple(seat for seat in reached if self.totals[seat] == best)
        elif scoring is Scoring.LOWEST_WINS:
            low = min(self.totals[seat] for seat in seats)
            self.winners = tuple(seat for seat in seats if self.totals[seat] == low)
        else:
            out: list[Event] = []
            for seat in reached:
                self.eliminated.add(seat)
                out.append(ev.PlayerEliminated(seat, self.totals[seat]))
            remaining = [seat for seat in seats if seat not in self.eliminated]
            reason = ev.MatchEndReason.TARGET_SCORE
            if len(remaining) == 1:
                self.winners = (remaining[0],)
                reason = ev.MatchEndReason.LAST_SEAT_STANDING
            elif not remaining:  # the last ones all went out in the same round
                low = min(self.totals[seat] for seat in reached)
                self.winners = tuple(seat for seat in reached if self.totals[seat] == low)
            if self.winners:
                out.append(ev.MatchEnded(self.winners, tuple(self.totals), reason, tuple(sorted(self.eliminated))))
            return out
        return [ev.MatchEnded(self.winners, tuple(self.totals), eliminated=tuple(sorted(self.eliminated)))]
