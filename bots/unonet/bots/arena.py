"""An in-process table for measuring policies: whole rounds on the engine, each seat fed what the host
would send it, with no network, clocks or journal.

`play_round` deals one round of a `Match` and plays it to its end with one `unonet.bots` policy per
seat, on the one in-process play loop (`unonet.bots.engine_table.EngineTable`, which the league's
`--inprocess` path plays on too). Every policy sees exactly what a networked seat sees, built by the
host's converter: the protobuf events as that seat may see them (`convert.event_to_pb`), and a
`SeatView` with its legal actions (`convert.view_to_pb`) at every decision; its command goes back
through the PlayService conversion (`policy_seat.engine_actions`). Only what a real table adds on top
is left out: event numbers, clocks, fair-shuffle commitments, latency forgiveness.

How a table's races come out here (`engine_table.SweepRaces`): after every decision, every seat with
an optional action (a catch, a jump-in, an early UNO call) is asked once, in turn order from the seat
after the one that acted, and every command the rules take is applied (the first such wins a race, as
if each seat answered at once and the nearest was fastest). A blocking window (UNO slap, Sound Wild, a
run's cut) is answered by every eligible seat that wants to, in a seeded random order, and then closed,
as a host rules it at its deadline.

A policy that sees every hand (`OmniscientBot`, the oracle) is shown the true round before each of its
calls; only this in-process table can do that, which is why the oracle exists nowhere else.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from unonet.bots import Bot
from unonet.bots.engine_table import EngineTable, OmniscientBot, SweepRaces
from unonet.engine import Match, Ruleset
from unonet.engine.draws import SeatDraws
from unonet.v1 import table_pb2
from unonet.wire import convert

__all__ = ["OmniscientBot", "RoundResult", "RoundTooLong", "play_round"]

#: Past this many steps (decisions, with their reactions) a round is taken to loop (a policy, or the
#: rules, going round in circles).
MAX_COMMANDS = 20_000


class RoundTooLong(RuntimeError):
    """A round ran past MAX_COMMANDS steps."""


@dataclass
class RoundResult:
    """One round's outcome.

    Attributes:
        winner: the seat that went out.
        points: what each seat scored this round (P2: the winner scores the others' cards).
        decision_ns: for each seat, how long each of its policy's calls took, in nanoseconds (wall clock).
        decision_cpu_ns: the same calls' CPU time in this thread, which a machine busy with other work
            does not inflate (its wall time includes the moments the process was not running).
        commands: how many commands the seats sent.
        refused: how many of them the rules refused (a refused decision is asked again, then given the
            default action, as a `BotRunner` does).
    """

    winner: int
    points: tuple[int, ...]
    decision_ns: list[list[int]] = field(default_factory=list)
    decision_cpu_ns: list[list[int]] = field(default_factory=list)
    commands: int = 0
    refused: int = 0


def play_round(
    ruleset: Ruleset,
    bots: Sequence[Bot],
    seed: int,
    *,
    dealer: int | None = 0,
    draws: SeatDraws | None = None,
    clock_ns: Callable[[], int] = time.perf_counter_ns,
) -> RoundResult:
    """Deal one round from `seed` (the same seed and dealer deal the same cards) and play it out.

    `bots[i]` plays seat i. `dealer` None has the dealer drawn for, and `draws` (per-seat draw streams,
    `SeatDraws(seed)`) picks the cards drawn, as a league-seeded host table with `league_seat_draws`
    deals from the same seed: the same deal a host plays (bench/bots.py --host, tests of a kind seated
    by a host). Raises RoundTooLong when the round runs past MAX_COMMANDS steps.
    """
    players = len(bots)
    match = Match(ruleset, players, random.Random(seed), dealer=dealer, auto_deal=False, draws=draws)
    table = EngineTable(
        match, bots, SweepRaces(seed),
        settings=table_pb2.TableSettings(ruleset=convert.ruleset_to_pb(ruleset), seat_count=players),
        seat_states=[
            table_pb2.SeatState(seat=seat, occupied=True, is_bot=True, bot_kind=bot.kind, connected=True)
            for seat, bot in enumerate(bots)
        ],
        table_id="arena", max_steps=MAX_COMMANDS, clock_ns=clock_ns,
    )
    table.feed(match.start() + match.deal())
    table.play()
    if table.stalled:
        raise RoundTooLong(f"a round of {players} ran past {MAX_COMMANDS} steps")
    ended = table.round_ended
    assert ended is not None, "a finished round has its RoundEnded"
    return RoundResult(
        winner=ended.winner, points=ended.points, decision_ns=table.decision_ns,
        decision_cpu_ns=table.decision_cpu_ns, commands=table.commands, refused=table.refused,
    )
