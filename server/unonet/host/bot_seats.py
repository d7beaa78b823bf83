"""The policies behind a host's own bot seats (`AddBots`, fills, a seat taken over after its strikes).

Each bot seat is played by the `unonet.bots` policy its kind names (`unonet.bots.kinds.make_bot`,
``greedy:2``), wrapped in a `PolicySeat`: it is fed the seat's own events as a stream would render them
(`Table.render`) and, when the seat may act, the very `SeatView` GetView returns (`Table.view`); its
command goes back through the PlayService conversion. The driver (`unonet.host.host`) records the
chosen actions as a journalled command, so a replay never runs a policy again.

Only cheap policies run here, on the host's event loop: every public kind (random, basic, greedy) takes
well under a millisecond per decision. A kind the registry marks `in_worker` (a search bot) is never
run here: `unonet.host.bot_workers` plays it in a process of its own over loopback, and only its
cheap fallback kind is played here when that worker fails (`unonet.host.bot_watch`).

At a table with a person the host's `Pace` times each decision (host/pace.py): a turn waits the pace's
turn pause and the level's own (`Bot.think_seconds`) after the event that gave it, a race answer the
bot's reaction time after its window opened. The decision is taken at once and held on the host's
clock until its moment, and dropped if anything happened at the table meanwhile (decided again then:
a race answer keeps its moment, drawn once per race). At a table of bots only nothing waits.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from unonet.bots.kinds import DEFAULT_BOT_KIND, UnknownBotKind, make_bot
from unonet.bots.policy_seat import PolicySeat
from unonet.engine import Action, CatchUno, UnoError, legal_actions
from unonet.host.pace import INSTANT, Pace, reaction_seconds
from unonet.host.seats import Seat
from unonet.host.table import Table
from unonet.v1 import actions_pb2

__all__ = ["HostBots", "bot_seed"]

log = logging.getLogger(__name__)


@dataclass
class _Held:
    """A decision waiting out its level's pause: valid only while the table is at `number`."""

    number: int
    due_ns: int
    actions: tuple[Action, ...]


@dataclass
class _BotSeat:
    kind: str
    policy: PolicySeat
    fed: int = 0  # the last event number the policy was fed
    idle_at: int = -1  # the event number at which it last chose to let an optional chance go
    held: _Held | None = None


def bot_seed(table: Table, seat: Seat) -> int:
    """The seed of a bot seat's policy, wherever the host plays it (here, or in a worker process)."""
    return table.seed * 31 + seat.index


class HostBots:
    """One policy per bot seat of every table of a host, created on first use."""

    def __init__(self) -> None:
        self._seats: dict[tuple[str, int], _BotSeat] = {}

    def forget(self, table_id: str) -> None:
        """Drop a table's policies (it was archived or closed)."""
        for key in [key for key in self._seats if key[0] == table_id]:
            del self._seats[key]

    def choose(
        self, table: Table, seat: Seat, now_ns: int, pace: Pace = INSTANT, *, kind: str | None = None
    ) -> tuple[Action, ...] | float | None:
        """What the bot at `seat` does now: the actions to record, seconds to wait, or None (nothing).
        `kind` plays it as another kind than its own (a worker seat's fallback, `bot_watch.py`).

        A required decision always gives actions (the host's default, Draw else Pass, if the policy has
        none or sends one that cannot be converted); an optional one may give None. At a table with a
        person, `pace` says how long a decision waits (the module's docstring).
        """
        assert table.match is not None
        bot = self._bot(table, seat, kind or seat.bot_kind)
        self._feed(table, bot)
        number = table.last_number
        held = bot.held
        if held is not None and held.number == number:
            if now_ns >= held.due_ns:
                bot.held = None
                return held.actions
            return (held.due_ns - now_ns) / 1e9
        bot.held = None
        game = table.match.game
        if not legal_actions(game, seat.index):
            return None
        view = table.view(seat.index)
        legal = view.legal_actions
        paced = not pace.is_instant and table.places.has_player()
        catch = self._catch_first(bot, legal, number) if paced and legal.required else None
        if catch is not None:  # a person's missing UNO: the seat to play next races to catch it too
            actions, think = catch, 0.0
        else:
            if legal.required:
                command = bot.policy.decide(view)
                think = bot.policy.bot.think_seconds(view) if paced and pace.turn_s > 0 else 0.0
            else:
                if bot.idle_at == number:
                    return None
                command = bot.policy.respond(legal)
                think = 0.0
            if command is None:
                bot.idle_at = number
                return None
            try:
                actions = bot.policy.actions(command)
            except (UnoError, TypeError):
                log.exception("bot %s at seat %d of table %s sent %r", bot.kind, seat.index, table.table_id, command)
                return None
        due_ns = self._due_ns(table, seat, actions, pace, think, now_ns) if paced else now_ns
        if due_ns > now_ns:
            bot.held = _Held(number, due_ns, actions)
            return (due_ns - now_ns) / 1e9
        return actions

    @staticmethod
    def _catch_first(bot: _BotSeat, legal: actions_pb2.LegalActions, number: int) -> tuple[Action, ...] | None:
        """At a table with a person, the seat whose turn is next may catch as well as play (a person
        who forgot UNO is caught by whoever is quickest, the next player too): the policy's reaction,
        asked once per event, when it is a catch; None lets the turn be decided."""
        if not legal.catch_uno_targets or bot.idle_at == number:
            return None
        reaction = bot.policy.respond(legal)
        try:
            actions = bot.policy.actions(reaction) if reaction is not None else ()
        except (UnoError, TypeError):
            actions = ()
        if actions and isinstance(actions[0], CatchUno):
            return actions
        bot.idle_at = number
        return None

    @staticmethod
    def _due_ns(table: Table, seat: Seat, actions: tuple[Action, ...], pace: Pace, think: float, now_ns: int) -> int:
        """When a paced decision may be recorded: a race answer at its window's opening plus the bot's
        reaction time (drawn once per race), anything else at the event that asked for it plus the
        pace's turn pause and the level's own."""
        assert table.match is not None
        race = table.races.race_for(table.match.game, seat.index, actions[0]) if actions else None
        if race is not None:
            if not pace.reactions:
                return now_ns
            reaction = reaction_seconds(table.seed, seat.index, race.window_id, seat.bot_kind)
            return race.opened_ns + int(reaction * 1e9)
        asked_ns = table.log[-1].time_ns if table.log else now_ns
        return asked_ns + int((pace.turn_s + think) * 1e9)

    def _bot(self, table: Table, seat: Seat, kind: str) -> _BotSeat:
        key = (table.table_id, seat.index)
        bot = self._seats.get(key)
        if bot is None or bot.kind != kind:
            seed = bot_seed(table, seat)
            try:
                policy = make_bot(kind or DEFAULT_BOT_KIND, seed, public_only=True)
            except UnknownBotKind:  # a kind a later host no longer has, from a restored journal
                log.warning("seat %d of table %s: no bot kind %r; playing %s", seat.index, table.table_id,
                            kind, DEFAULT_BOT_KIND)
                policy = make_bot(DEFAULT_BOT_KIND, seed)
            bot = self._seats[key] = _BotSeat(kind, PolicySeat(policy, seat.index))
        return bot

    def _feed(self, table: Table, bot: _BotSeat) -> None:
        """Every event since the last call, as this seat's stream would render it."""
        for event in table.events.rendered_since(bot.fed, bot.policy.seat):
            bot.policy.follow(event)
        bot.fed = table.last_number
