"""`FieldsSuite`: every documented field is filled and every documented event is sent, by any host.

Long seeded games over the wire, across every preset and the options that make rare events happen (some
options conflict, so there are several tables), with host bots and stub clients (`players`) so every
seat's copy of every event, every response and every refusal is observed. Then, from the generated
descriptors (`coverage`), never from a list written here:

- every field of every message the host sends (each RPC's response, the events, the ErrorDetail, and
  every message inside them) was set to a non-default value at least once, except the fields in
  `MAY_STAY_DEFAULT`, each beside the words of its proto comment that say when it is zero, which the
  test checks are still in that comment;
- every kind of event (each field of `Event.payload`) was sent.

The games run once per suite class, in the first test that needs them (each test has its own event
loop and its own `serve`, so what they observed is kept as plain data); they take about 30 to 50
seconds. `UNONET_FIELDS_GAME_TIMEOUT` (seconds, default 90) bounds how long a stub client may go
without an event; a game may take four times that in all.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from google.protobuf import duration_pb2

from unonet.client.conformance.case import HostCase
from unonet.client.conformance.coverage import FieldCoverage, proto_comments, universe
from unonet.client.conformance.players import Player, observed
from unonet.client.conformance.remote import Remote
from unonet.v1 import events_pb2, lobby_service_pb2, rules_pb2, table_pb2

__all__ = ["GAMES", "MAY_STAY_DEFAULT", "FieldsSuite", "Game", "observe_games"]

GAME_TIMEOUT = float(os.environ.get("UNONET_FIELDS_GAME_TIMEOUT", "90"))
#: A game may take this many times GAME_TIMEOUT in all, as long as every client keeps receiving events.
GAME_LIMIT_FACTOR = 4
#: How often a running game's clients are checked for progress.
PROGRESS_CHECK_S = 2.0

# Fields a host may leave at their default in every game, each with the words of its proto comment
# that say when it is zero (or unset, or false); `test_exemptions_quote_their_proto_comment` keeps the
# two together.
MAY_STAY_DEFAULT: dict[str, str] = {
    # Only once every card is in a hand: chance, and no client can arrange it.
    "unonet.v1.CardsDrawn.forgiven": "could not draw because even a rebuilt draw pile ran out",
    # Only when the seats tied for the highest card: chance, and no client can arrange it.
    "unonet.v1.DealerDraw.pass": "0 for the first, then one more for each redraw among tied seats",
    # Only for an answer that arrives after the window's time but before its ruling: on a host without
    # measurable latency (loopback) the ruling follows the deadline at once, so a slow answer loses the
    # race instead (RaceLost).
    "unonet.v1.Reaction.late": "True for an answer whose reaction time exceeded the window's duration",
    # The fields of an event a sound store never causes (below).
    "unonet.v1.Event.events_lost": "Sent only after a damaged store",
    "unonet.v1.EventsLost.first_number": "Sent only after a damaged store",
    "unonet.v1.EventsLost.last_number": "only after a damaged store",
    # The fields of an event only a failing host bot worker causes (docs/bots.md).
    "unonet.v1.Event.bot_fallback": "Sent only when a worker fails",
    "unonet.v1.BotFallback.seat": "Sent only when a worker fails",
    "unonet.v1.BotFallback.bot_kind": "Sent only when a worker fails",
    "unonet.v1.BotFallback.fallback_kind": "only when a worker fails",
    "unonet.v1.BotFallback.reason": "Sent only when a worker fails",
    "unonet.v1.BotFallback.allowed": "Zero when the fallback takes the seat over between its decisions",
    "unonet.v1.BotFallback.rest_of_match": "True when the worker failed too many times in a row",
}


@dataclass
class Game:
    """One table of the run: a preset, the options changed, who sits where, and its clock."""

    name: str
    preset: str
    seats: int
    players: Sequence[str]  # the stub clients' styles, seats 0.. ; host bots take the other seats
    overrides: dict[str, Any] = field(default_factory=dict)
    turn_time_s: float = 30.0
    time_bank_s: float = 0.0
    strikes: int = 0
    forfeit: bool = False
    spectator_delay_s: float = 0.0
    league_seed: int | None = None  # a league-seeded table (CreateTableRequest.league_seed)
    league_seat_draws: bool = False  # its draws from per-seat streams (CreateTableRequest.league_seat_draws)
    # The hold of each round's first turn while people read the scores (ClockSettings.round_start_hold):
    # none here, or None for the host's default. A hold waits for every connected player's CloseScores,
    # up to 10 s a round by default: an idle stub (connected, so a person to the host) never sends it,
    # and a long match of such rounds ran past GAME_TIMEOUT. Three games of active players keep the
    # default, so the hold and its release are seen (a match can end in its first round: no hold).
    round_start_hold_s: float | None = 0.0


GAMES = [
    # Ten seats: ties when choosing the dealer, reshuffled piles, long rounds.
    Game("ten", "standard", 10, ["careful", "careless"], {"target_score": 300, "bluff_penalty": 3}),
    Game("house", "house", 4, ["careful", "careless"], {"target_score": 300, "jump_in_penalty": 2,
                                                         "uno_slap": True, "bluff_penalty": 3}),
    # Careless jumpers, so wrong jump-ins (H6) are met under both penalties, points and cards.
    Game("jumps", "house", 3, ["careless", "careless"], {"target_score": 150, "jump_in_penalty": 1}),
    Game("jumps-cards", "house", 3, ["careless", "careless"], {"target_score": 150, "jump_in_penalty": 2}),
    Game("serbian", "serbian", 4, ["careful", "careless", "careful"], {"target_score": 150},
         spectator_delay_s=0.05, round_start_hold_s=None),
    # Blanks draw 2 here, not 10: hands that only grow make a round without end.
    Game("russian", "russian", 4, ["careful", "careless", "careful"],
         {"target_score": 25, "bluff_penalty": 3, "blank_draw": 2}),
    Game("french", "french", 3, ["careful", "careless"], {"target_score": 150}, round_start_hold_s=None),
    Game("polish", "polish", 4, ["careful", "careless"], {"target_score": 150}, round_start_hold_s=None),
    Game("blanks", "standard", 5, ["careful", "careless", "careful"],
         {"target_score": 150, "blank_cards": True, "h2o_wilds": True, "stacking": True, "stacking_mixed": True,
          "stacking_cumulative": False, "draw_penalty_skips_turn": False, "bluff_penalty": 2,
          "false_call_penalty": True,
          "five_swap": True, "seven_o": True, "jump_in": True, "jump_in_wilds": True, "skip_escape": True,
          "silent_two": True}),
    # Clocks: an idle seat times out into a bot's hands; time banks run down.
    Game("clock", "standard", 3, ["careful", "idle"], {"target_score": 100},
         turn_time_s=0.25, time_bank_s=0.2, strikes=2),
    # Many quick rounds between two bots, with every card that a first turn returns to the pile (S4).
    Game("marathon", "standard", 2, [], {"target_score": 2500, "blank_cards": True, "sound_wilds": True,
                                          "h2o_wilds": True, "first_wild": 2}),
    # Players leaving a running match forfeit; the last seat standing wins.
    Game("forfeit", "standard", 3, ["leaver", "leaver", "careful"], {"target_score": 500}, forfeit=True),
    # A league-seeded table: dealt from the league's seed, no fair shuffle (TableSettings.league_seeded),
    # each seat drawing from its own stream (TableSettings.league_seat_draws).
    Game("league", "standard", 3, ["careful", "careless"], {"target_score": 30}, league_seed=2026,
         league_seat_draws=True),
]


def _ruleset(overrides: dict[str, Any]) -> rules_pb2.Ruleset:
    ruleset = rules_pb2.Ruleset()
    for name, value in overrides.items():
        setattr(ruleset, name, value)
    return ruleset


def _duration(seconds: float) -> duration_pb2.Duration:
    value = duration_pb2.Duration()
    value.FromNanoseconds(int(seconds * 1e9))
    return value


async def play_game(remote: Remote, game: Game, seed: int, coverage: FieldCoverage) -> None:
    """Create, fill and start one table, play it to its end with stub clients and host bots, a
    spectator watching, then look it up in the lobby."""
    rng = random.Random(seed)
    lobby = remote.lobby
    clock = table_pb2.ClockSettings(
        turn_time=_duration(game.turn_time_s), time_bank=_duration(game.time_bank_s),
        strikes_before_takeover=game.strikes, reaction_time=_duration(0.3),
        takeover_policy=table_pb2.TAKEOVER_POLICY_FORFEIT if game.forfeit else table_pb2.TAKEOVER_POLICY_BOT)
    if game.round_start_hold_s is not None:
        clock.round_start_hold.CopyFrom(_duration(game.round_start_hold_s))
    created = await observed(coverage, lobby.CreateTable(lobby_service_pb2.CreateTableRequest(
        name=game.name, preset=game.preset, seat_count=game.seats, overrides=_ruleset(game.overrides),
        clock=clock, spectator_delay=_duration(game.spectator_delay_s), manual_start=True,
        league_seed=game.league_seed, league_seat_draws=game.league_seat_draws)))
    if created is None:
        raise AssertionError(f"{game.name}: CreateTable refused")
    table_id, owner = created.table.table_id, created.owner_token
    # Someone sits down and leaves again before the match (PlayerLeft before it starts).
    early = await observed(coverage, lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="early", role=lobby_service_pb2.JOIN_ROLE_PLAYER, seat=game.seats - 1)))
    await observed(coverage, lobby.LeaveTable(lobby_service_pb2.LeaveTableRequest(
        table_id=table_id, token=early.token)))
    players = []
    for seat, style in enumerate(game.players):
        joined = await observed(coverage, lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
            table_id=table_id, name=f"{style}-{seat}", role=lobby_service_pb2.JOIN_ROLE_PLAYER, seat=seat)))
        players.append(Player(remote, table_id, joined.token, joined.seat, random.Random(rng.random()), coverage,
                              style=style, batch=8 if seat % 2 else 0))
    spectator = await observed(coverage, lobby.JoinTable(lobby_service_pb2.JoinTableRequest(
        table_id=table_id, name="eve", role=lobby_service_pb2.JOIN_ROLE_SPECTATOR)))
    watcher = Player(remote, table_id, spectator.token, 0, random.Random(seed), coverage, style="idle", batch=4)
    await observed(coverage, lobby.AddBots(lobby_service_pb2.AddBotsRequest(
        table_id=table_id, owner_token=owner, count=1)))
    tasks = [asyncio.ensure_future(player.run()) for player in [*players, watcher]]
    # Every stream is open before the deal, so every player's seat is asked for shuffle entropy.
    await asyncio.wait_for(asyncio.gather(*(player.streaming.wait() for player in players)), GAME_TIMEOUT)
    await observed(coverage, lobby.StartTable(lobby_service_pb2.StartTableRequest(
        table_id=table_id, owner_token=owner, fill_with_bots=True)))
    try:
        await play_out(game, [*players, watcher], tasks)
    finally:
        for task in tasks:
            task.cancel()
    await observed(coverage, lobby.GetTable(lobby_service_pb2.GetTableRequest(table_id=table_id)))


async def play_out(game: Game, clients: list[Player], tasks: list[asyncio.Task[None]]) -> None:
    """Wait for every stub client to see the match end. A client that receives nothing for GAME_TIMEOUT
    seconds while it plays on fails the game (a table's clock moves every seat's stream at least once a
    turn time, 30 s at most here), as does a game past GAME_LIMIT_FACTOR times that in all: a loaded
    machine slows every game of the run at once (they share one process with the host here), which a
    bound on progress tolerates and a bound on the whole game did not."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    last_progress = {id(client): (client.last_number, started) for client in clients}
    pending: set[asyncio.Task[None]] = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, timeout=PROGRESS_CHECK_S)
        for client, task in zip(clients, tasks, strict=True):
            failed = task.exception() if task in done else None
            if failed is not None:  # a client's failure is the game's, said with who failed
                raise AssertionError(f"{game.name}: the {client.style} client of seat {client.seat} failed at event "
                                     f"{client.last_number}: {failed!r}") from failed
        now = loop.time()
        silent = []
        for client, task in zip(clients, tasks, strict=True):
            number, since = last_progress[id(client)]
            if client.last_number != number:
                last_progress[id(client)] = (client.last_number, now)
            elif not task.done() and now - since > GAME_TIMEOUT:
                silent.append(client)
        if silent or (pending and now - started > GAME_LIMIT_FACTOR * GAME_TIMEOUT):
            why = (f"{len(silent)} client(s) received nothing for {GAME_TIMEOUT:g} s" if silent
                   else f"no match end in {GAME_LIMIT_FACTOR * GAME_TIMEOUT:g} s")
            stuck = [(c.seat, c.style, c.last_number, c.over, c.gone, str(c.legal).replace("\n", " ")[:200],
                      _awaiting(t)) for c, t in zip(clients, tasks, strict=True)]
            raise AssertionError(f"{game.name}: {why}: {stuck}")


def _awaiting(task: asyncio.Task[Any]) -> str:
    """Where a stub client's task waits: the chain of coroutines it awaits, innermost last, so a game
    that never ends says whether a player waits on its stream or on a call."""
    names: list[str] = []
    awaited: Any = task.get_coro()
    while awaited is not None and len(names) < 12:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "ag_frame", None)
        if frame is None:
            names.append(type(awaited).__name__)
            break
        names.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "ag_await", None)
    return " > ".join(names) if not task.done() else "done"


async def look_around(remote: Remote, coverage: FieldCoverage) -> None:
    """The lobby's lists: presets, bot kinds, and the tables a page at a time."""
    await observed(coverage, remote.lobby.ListPresets(lobby_service_pb2.ListPresetsRequest()))
    await observed(coverage, remote.lobby.ListBotKinds(lobby_service_pb2.ListBotKindsRequest()))
    token = ""
    for _ in range(3):
        page = await observed(coverage, remote.lobby.ListTables(lobby_service_pb2.ListTablesRequest(
            page_size=2, page_token=token, statuses=[table_pb2.TABLE_STATUS_FINISHED])))
        token = page.next_page_token
        if not token:
            break


#: While a documented field or event is still unseen, every game is played again with fresh seeds, at
#: most `RACE_RETRIES` more times: some fields only a race lost or won late fills (a wrong jump-in and
#: its penalty, a late reaction, which a loaded machine's timing decides), and some events only a deal
#: gives (a Wild Draw Four turned up first: FirstCardReturned, about one round in 27).
RACE_RETRIES = 2


def unseen(seen: FieldCoverage) -> set[str]:
    """The documented fields and events the games have not shown yet."""
    kinds = {f.full_name for f in events_pb2.Event.DESCRIPTOR.oneofs_by_name["payload"].fields}
    return (universe() | kinds) - seen.fields - set(MAY_STAY_DEFAULT)  # what the two tests below ask


async def observe_games(remote: Remote) -> FieldCoverage:
    """Play every game once (seeded) against the host behind `remote`, then look around the lobby.

    The games are played again (new seeds) while something is still unseen, so a field a lost race
    fills, or an event a rare deal gives, is not missed by chance; the tests still fail if it never
    comes."""
    seen = FieldCoverage()
    await asyncio.gather(*(play_game(remote, game, seed, seen) for seed, game in enumerate(GAMES)))
    await look_around(remote, seen)
    for attempt in range(1, RACE_RETRIES + 1):
        if not unseen(seen):
            break
        await asyncio.gather(*(play_game(remote, game, 1000 * attempt + seed, seen) for seed, game in enumerate(GAMES)))
    return seen


class FieldsSuite(HostCase):
    """The host fills every documented field and sends every documented event. Subclass it and
    implement `serve` (see `HostCase`); the host must also serve ChatService and TimeService."""

    __test__: ClassVar[bool] = False
    _observed: ClassVar[FieldCoverage | None] = None

    async def coverage(self) -> FieldCoverage:
        """What the games observed: played by the first test of this class that asks."""
        cls = type(self)
        if cls._observed is None:
            cls._observed = await observe_games(self.remote)
        return cls._observed

    async def test_exemptions_quote_their_proto_comment(self) -> None:
        comments = proto_comments()
        for name, words in MAY_STAY_DEFAULT.items():
            self.assertIn(name, comments, f"{name} is not a field of the protos any more")
            self.assertIn(words, comments[name], f"{name}: its comment no longer says {words!r}: {comments[name]!r}")
        self.assertLessEqual(set(MAY_STAY_DEFAULT), universe())

    async def test_every_documented_field_is_filled(self) -> None:
        missing = sorted(universe() - (await self.coverage()).fields - set(MAY_STAY_DEFAULT))
        self.assertFalse(missing, f"never set to a non-default value in {len(GAMES)} games: {missing}")

    async def test_every_documented_event_is_sent(self) -> None:
        kinds = {f.full_name for f in events_pb2.Event.DESCRIPTOR.oneofs_by_name["payload"].fields}
        missing = kinds - (await self.coverage()).fields - set(MAY_STAY_DEFAULT)
        self.assertFalse(sorted(missing), "these events were never sent")
