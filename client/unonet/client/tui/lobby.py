"""The lobby screen of `unonet play`: the tables of one or more hosts, a form to create one, join or watch.

The lobby takes a list of host addresses: the one typed on the command line today, or whatever LAN
discovery found (any `Sequence[str]` of ``HOST:PORT``). `A` adds a typed address at any time, Tab
moves between hosts. Choosing a table returns a `LobbyChoice`, and `run_lobby` opens the game screen
on it (`unonet.client.tui.play.play_table`), then comes back to the lobby when the player quits it.

`LobbyState` holds what the screen shows and reacts to keys without I/O (tested alone); the
application around it fetches tables and creates them through the `TableClient` SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import TextArea

from unonet.client.bot_kinds import by_strength
from unonet.client.discovery import HostBrowser
from unonet.client.errors import UnonetError
from unonet.client.table_client import TableClient
from unonet.client.tui import config
from unonet.client.tui.render import STYLE
from unonet.client.tui.rules_text import clock_lines, rules_lines, stakes
from unonet.client.tui.seats import SeatStore
from unonet.client.tui.table_form import NewTable, render_form
from unonet.v1 import rules_pb2, table_pb2

__all__ = ["LobbyChoice", "LobbyState", "NewTable", "run_lobby"]

_STATUS: Final = {table_pb2.TABLE_STATUS_WAITING: "waiting", table_pb2.TABLE_STATUS_PLAYING: "playing",
                  table_pb2.TABLE_STATUS_FINISHED: "finished"}


@dataclass(frozen=True, slots=True)
class LobbyChoice:
    """Where the player chose to go: a table of a host, to play (or rejoin) or to watch."""

    address: str
    table_id: str
    watch: bool = False
    #: The owner token of a table this player just created ("" otherwise).
    owner_token: str = ""


@dataclass(slots=True)
class LobbyState:
    """What the lobby shows: hosts, their tables, the selection, the form, one message line."""

    hosts: list[str]
    host: int = 0
    tables: list[table_pb2.TableInfo] = field(default_factory=list)
    selected: int = 0
    presets: list[rules_pb2.RulesetPreset] = field(default_factory=list)
    bot_kinds: list[str] = field(default_factory=list)
    form: NewTable | None = None
    message: str = ""
    mine: set[str] = field(default_factory=set)
    #: I shows the selected table's details and rules (scrolled by `details_scroll` lines).
    details: bool = False
    details_scroll: int = 0
    #: The last new-table form's values, from the config file (`NewTable.restore`).
    last_form: dict[str, object] = field(default_factory=dict)

    @property
    def address(self) -> str:
        return self.hosts[self.host] if self.hosts else ""

    def table(self) -> table_pb2.TableInfo | None:
        return self.tables[self.selected] if 0 <= self.selected < len(self.tables) else None

    def move(self, step: int) -> None:
        if self.form is not None:
            self.form.move(step)
        elif self.details:
            self.details_scroll = max(0, self.details_scroll + step)
        else:
            self.selected = max(0, min(len(self.tables) - 1, self.selected + step))

    def choose(self, watch: bool) -> LobbyChoice | None:
        """Enter (play, or rejoin the saved seat) or W (watch) on the selected table."""
        table = self.table()
        if table is None:
            self.message = "no table here: N creates one, R refreshes"
            return None
        if not watch and table.table_id not in self.mine and table.status != table_pb2.TABLE_STATUS_WAITING:
            self.message = "that match has started: W watches it (players join before the start)"
            return None
        if not watch and table.table_id not in self.mine and all(s.occupied for s in table.seats):
            self.message = "that table is full: W watches it"
            return None
        return LobbyChoice(self.address, table.table_id, watch)


def render_lobby(state: LobbyState, height: int = 24) -> StyleAndTextTuples:
    """The lobby as text in `height` lines: the hosts, then the table list or the form, then the keys."""
    hosts = "  ".join(f"[{h}]" if i == state.host else h for i, h in enumerate(state.hosts)) or "(none: A adds one)"
    out: StyleAndTextTuples = [("class:header", f" unonet lobby · host {hosts} \n")]
    if state.form is not None:
        out += render_form(state.form, height - 1 - (2 if state.message else 0))
    elif state.details and state.table() is not None:
        out += render_details(state, height - 1 - (2 if state.message else 0))
    else:
        out += _render_tables(state)
    if state.message:
        out.append(("class:hint", "\n " + state.message))
    return out


def render_details(state: LobbyState, height: int) -> StyleAndTextTuples:
    """The selected table in full: its seats, status, id, what is at stake, its clock and every rule in
    plain words (the same words as the game screen's I), scrolled to fit `height` lines."""
    table = state.table()
    assert table is not None
    settings = table.settings
    lines: list[StyleAndTextTuples] = [
        [("class:score", f" {settings.name or table.table_id}")],
        [("", f"  {_STATUS.get(table.status, '?')} · round {table.round_number} · {stakes(settings.ruleset)} · "
              f"preset {settings.ruleset.preset or 'standard'}")],
        [("class:dim", f"  table id {table.table_id}")],
        [("", "  seats: " + ", ".join(f"{s.seat} {s.name or '(empty)'}" + (" (bot)" if s.is_bot else "")
                                      for s in table.seats))],
    ]
    lines += [[("class:dim", "  clock: " + line)] for line in clock_lines(settings.clock)]
    lines.append([])
    lines += [[("", " "), *line] for line in rules_lines(settings.ruleset)]
    room = max(1, height - 2)
    state.details_scroll = min(state.details_scroll, max(0, len(lines) - room))
    out: StyleAndTextTuples = []
    for line in lines[state.details_scroll:state.details_scroll + room]:
        out += [*line, ("", "\n")]
    more = " · ↓ more" if state.details_scroll + room < len(lines) else ""
    out.append(("class:dim", f" ↑↓ scroll{more} · Enter join · W watch · I or Esc back to the list"))
    return out


def _render_tables(state: LobbyState) -> StyleAndTextTuples:
    out: StyleAndTextTuples = [("class:dim", f"   {'table':<22}{'status':<10}{'seats':<8}{'round':<7}rules\n")]
    if not state.tables:
        out.append(("class:dim", "   (no tables yet)\n"))
    for i, table in enumerate(state.tables):
        taken = sum(s.occupied for s in table.seats)
        mark = "▶" if i == state.selected else " "
        mine = " ← your seat" if table.table_id in state.mine else ""
        name = (table.settings.name or table.table_id)[:21]
        status = _STATUS.get(table.status, "?")
        line = f" {mark} {name:<22}{status:<10}{taken}/{len(table.seats):<6}{table.round_number:<7}"
        out.append(("class:turn" if i == state.selected else "", line + table.settings.ruleset.preset + mine + "\n"))
    out.append(("class:dim", "\n ↑↓ choose · Enter join (or rejoin your seat) · W watch · I rules and details · "
                             "N new table · R refresh · Tab next host · A add a host · Q quit"))
    return out


class _LobbyApp:
    """The lobby application: `LobbyState` on screen, the SDK behind it."""

    def __init__(self, state: LobbyState, *, name: str, tls: bool, store: SeatStore,
                 on_form: Callable[[dict[str, object]], None] | None = None) -> None:
        self.state, self.name, self.tls, self.store = state, name, tls, store
        self.on_form = on_form
        self.choice: LobbyChoice | None = None
        self.address_input = TextArea(height=1, prompt=" host:port ", multiline=False, accept_handler=self._added)
        self.typing = False
        bindings = KeyBindings()
        idle = Condition(lambda: not self.typing)
        for key, action in {
            Keys.Up: lambda: state.move(-1), Keys.Down: lambda: state.move(1),
            Keys.Left: lambda: self._change(-1), Keys.Right: lambda: self._change(1),
        }.items():
            bindings.add(key, filter=idle)(lambda event, action=action: self._do(action))
        bindings.add(Keys.Enter, filter=idle)(lambda event: self._enter())
        bindings.add(Keys.Escape, eager=True)(lambda event: self._escape())
        bindings.add(Keys.Tab, filter=idle)(lambda event: self._next_host())
        bindings.add(Keys.ControlC)(lambda event: self.app.exit())
        bindings.add(Keys.Any, filter=idle)(self._letter)
        self.app: Application[None] = Application(
            layout=Layout(HSplit([
                Window(FormattedTextControl(lambda: render_lobby(self.state, self._rows()))),
                ConditionalContainer(self.address_input, filter=Condition(lambda: self.typing)),
            ])),
            key_bindings=bindings, style=Style.from_dict(STYLE), full_screen=True,
        )

    def _rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:  # no terminal (a dummy output): the 24 rows the screen is made for
            return 24

    def _do(self, action: Callable[[], None]) -> None:
        action()
        self.app.invalidate()

    def _change(self, step: int) -> None:
        if self.state.form is not None:
            self.state.form.change(step)

    def _letter(self, event: KeyPressEvent) -> None:
        key = event.key_sequence[0].data.lower()
        state = self.state
        if state.form is not None:
            if key == " ":
                state.form.toggle()
            elif key == "q":
                state.form = None
        elif key == "q":
            self.app.exit()
        elif key == "r":
            self._spawn(self.refresh())
        elif key == "n":
            state.form, state.message = NewTable(presets=list(state.presets), bot_kinds=list(state.bot_kinds)), ""
            state.form.restore(state.last_form)
        elif key == "i":
            state.details, state.details_scroll = not state.details, 0
        elif key == "w":
            self._go(state.choose(watch=True))
        elif key == "a":
            self.typing = True
            self.app.layout.focus(self.address_input)
        else:
            state.message = f"{key.upper()} does nothing here: the keys are listed below"
        self.app.invalidate()

    def _enter(self) -> None:
        if self.state.form is not None:
            self._spawn(self.create())
        else:
            self._go(self.state.choose(watch=False))

    def _escape(self) -> None:
        self.typing, self.state.form, self.state.details = False, None, False
        self.app.invalidate()

    def _next_host(self) -> None:
        if self.state.hosts:
            self.state.host = (self.state.host + 1) % len(self.state.hosts)
            self._spawn(self.refresh())

    def _added(self, buffer: object) -> bool:
        address = self.address_input.text.strip()
        self.typing = False
        if address:
            if address not in self.state.hosts:
                self.state.hosts.append(address)
            self.state.host = self.state.hosts.index(address)
            self._spawn(self.refresh())
        return False

    def _go(self, choice: LobbyChoice | None) -> None:
        if choice is not None:
            self.choice = choice
            self.app.exit()
        self.app.invalidate()

    def begin_refresh(self) -> None:
        """Fetch the current host's tables in the background (a host just appeared)."""
        self._spawn(self.refresh())

    def _spawn(self, job: object) -> None:
        task = asyncio.ensure_future(job)  # type: ignore[call-overload]
        task.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def _client(self) -> TableClient:
        return await TableClient.connect(self.state.address, tls=self.tls, connect_timeout=3.0)

    async def refresh(self) -> None:
        """Fetch the current host's tables and presets."""
        state = self.state
        if not state.address:
            state.message = "no host: A adds one (HOST:PORT)"
            self.app.invalidate()
            return
        state.message = f"asking {state.address}…"
        self.app.invalidate()
        try:
            async with await self._client() as client:
                state.tables = await client.list_tables(page_size=50)
                state.presets = await client.list_presets()
                state.bot_kinds = [kind.name for kind in by_strength(await client.list_bot_kinds())]
            state.mine = self.store.tables(state.address)
            state.selected = min(state.selected, max(0, len(state.tables) - 1))
            state.message = f"{len(state.tables)} table(s) on {state.address}"
        except UnonetError as error:
            state.tables, state.message = [], f"{state.address} does not answer: {error}"
        self.app.invalidate()

    async def create(self) -> None:
        """Create the form's table, seat its bots, and go and sit at it."""
        state, form = self.state, self.state.form
        assert form is not None
        try:
            async with await self._client() as client:
                created = await client.create_table(form.preset_name, form.ruleset(), form.seats, clock=form.clock(),
                                                    name=f"{self.name}'s table"[:64], manual_start=form.manual_start,
                                                    spectator_delay=form.spectator_delay)
                if form.bots:
                    await client.add_bots(form.bots, form.kind, table_id=created.table_id)
        except UnonetError as error:
            state.message = f"the host refused the table: {error}"
            self.app.invalidate()
            return
        state.last_form = form.remember()
        if self.on_form is not None:
            self.on_form(state.last_form)
        state.form = None
        self._go(LobbyChoice(state.address, created.table_id, owner_token=created.owner_token))


async def run_lobby(hosts: Sequence[str], *, name: str, tls: bool = False, colour_blind: bool = False,
                    store: SeatStore | None = None, browse: bool = False,
                    session_args: dict[str, Any] | None = None, config_path: Path | None = None) -> None:
    """Show the lobby of `hosts`; play each table chosen, back to the lobby after; return on Q.

    With `browse`, the hosts announced on the LAN join the list as they are found (zeroconf).
    `session_args` go to each game screen (the player's settings); the new-table form starts from the
    last one created, kept in the config file (`config_path`, default the user's).
    """
    store = store if store is not None else SeatStore()
    state = LobbyState(list(hosts), last_form=dict(config.load(config_path).new_table))
    session_args = {"colour_blind": colour_blind, **(session_args or {})}

    def keep_form(values: dict[str, object]) -> None:
        kept = config.load(config_path)
        kept.new_table = values
        with contextlib.suppress(OSError):
            config.save(kept, config_path)

    on_form = keep_form
    if not browse:
        await _lobby_loop(state, name=name, tls=tls, store=store, session_args=session_args, on_form=on_form)
        return
    state.message = "looking for unonet hosts on the LAN… (A adds an address)"
    current: list[_LobbyApp] = []

    def found() -> None:
        for host in browser.hosts:
            if host.target not in state.hosts:
                state.hosts.append(host.target)
                if len(state.hosts) == 1 and current:
                    current[-1].begin_refresh()
        if current:
            current[-1].app.invalidate()

    try:
        browser = HostBrowser(on_change=found)
        async with browser:
            await _lobby_loop(state, name=name, tls=tls, store=store, session_args=session_args, on_form=on_form,
                              current=current)
    except OSError as error:  # no interface to browse on: typed addresses still work
        state.message = f"LAN discovery is not available ({error}): A adds an address"
        await _lobby_loop(state, name=name, tls=tls, store=store, session_args=session_args, on_form=on_form)


async def _lobby_loop(state: LobbyState, *, name: str, tls: bool, store: SeatStore, session_args: dict[str, Any],
                      on_form: Callable[[dict[str, object]], None] | None = None,
                      current: list[_LobbyApp] | None = None) -> None:
    from unonet.client.tui.play import play_table

    while True:
        lobby = _LobbyApp(state, name=name, tls=tls, store=store, on_form=on_form)
        if current is not None:
            current.append(lobby)
        refresh = asyncio.ensure_future(lobby.refresh() if state.hosts else asyncio.sleep(0))
        await lobby.app.run_async()
        refresh.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await refresh
        if lobby.choice is None:
            return
        try:
            await play_table(lobby.choice.address, lobby.choice.table_id, name=name, watch=lobby.choice.watch,
                             tls=tls, store=store, owner_token=lobby.choice.owner_token, **session_args)
            state.message = "back in the lobby"
        except UnonetError as error:
            state.message = f"could not sit there: {error}"
