"""The game screen: a prompt-toolkit layout of controls that render from the model, and one key map.

`GameScreen` knows nothing of the network. It owns an `Application` whose windows call the pure
render functions (`unonet.client.tui.render`) on every redraw, and whose key bindings hand each key to
the `Controller` and the resulting effects to `on_effect`. Whatever feeds the model (a live seat,
`unonet.client.tui.session`; a replayed log; a benchmark) calls `invalidate()` after changing it.
A screen without `on_effect` is read-only: that is how a replay can show a finished game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import TextArea

from unonet.client.tui import render
from unonet.client.tui.controller import Controller, Effect, QuitApp, UiState, board_is_open
from unonet.client.tui.model import GameModel

__all__ = ["GameScreen"]

#: The width from which the chat gets a column of its own beside the log.
WIDE: int = 110

_KEY_NAMES = {
    Keys.Left: "left", Keys.Right: "right", Keys.Up: "up", Keys.Down: "down", Keys.Home: "home",
    Keys.End: "end", Keys.Enter: "enter", Keys.ControlM: "enter", Keys.Escape: "escape",
    Keys.PageUp: "pageup", Keys.PageDown: "pagedown",
}


class GameScreen:
    """The full-screen game: layout, key map and redraws.

    Args:
        model: the view model the screen renders (changed only by its feeder).
        on_effect: called with each effect a key produced (commands, chat, quit, leave); None makes a
            read-only screen on which Q still quits.
        host_clock: the host's clock in seconds, for countdowns (default: the local clock).
        colour_blind: start with colour letters on the cards.
        extra_keys: keys (lower-case characters or names such as "left") handled before the key map,
            for a screen that drives its own model: a replay binds stepping forwards and backwards here.
        extra_help: lines the ? overlay adds for `extra_keys`.
        extra_panel: lines the owner shows between the table and the log (a replay's open hands), or
            nothing; the panel takes as many rows as they need and the log the rest.
    """

    def __init__(
        self,
        model: GameModel,
        *,
        on_effect: Callable[[Effect], None] | None = None,
        host_clock: Callable[[], float] = time.time,
        colour_blind: bool = False,
        extra_keys: Mapping[str, Callable[[], None]] | None = None,
        extra_help: Sequence[str] = (),
        extra_panel: Callable[[], StyleAndTextTuples] | None = None,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.model = model
        self.ui = UiState(colour_blind=colour_blind)
        self.controller = Controller(model, self.ui)
        self.on_effect = on_effect
        self.extra_keys = dict(extra_keys or {})
        self.ui.extra_help = list(extra_help)
        self.ui.read_only = on_effect is None
        self.extra_panel = extra_panel
        self.host_clock = host_clock
        self.chat_input = TextArea(height=1, prompt=" say: ", multiline=False, accept_handler=self._chat_entered)
        self.application: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._bindings(),
            style=Style.from_dict(render.STYLE),
            full_screen=True,
            mouse_support=False,
            # Redraw as soon as the model changed, even while other work is queued: a reaction window
            # on screen 10 ms late is 10 ms lost in the race (prompt-toolkit would postpone up to 10 ms).
            max_render_postpone_time=0,
            input=input,
            output=output,
        )
        self.application.before_render += self._place_scoreboard

    # ------------------------------------------------------------------------------- feeding

    def invalidate(self) -> None:
        """Redraw soon: call after changing the model (from the event task, a timer, a replay)."""
        self.application.invalidate()

    def press(self, key: str) -> None:
        """Handle a key as the key map would (tests and the bindings both come here)."""
        self.controller.follow_model()
        extra = self.extra_keys.get(key.lower() if len(key) == 1 else key)
        if extra is not None and (self.ui.prompt is None or self.ui.prompt.kind == "help"):
            self.ui.prompt = None  # the help named this key: it closes and the key acts
            extra()
            self.invalidate()
            return
        was_chat = self._chat_open()
        effects = self.controller.press(key)
        if self._chat_open() and not was_chat:
            self.chat_input.text = ""
            self.application.layout.focus(self.chat_input)
        for effect in effects:
            self._effect(effect)
        self.invalidate()

    def _effect(self, effect: Effect) -> None:
        if self.on_effect is not None:
            self.on_effect(effect)
        elif isinstance(effect, QuitApp):
            self.application.exit()

    def _chat_entered(self, buffer: object) -> bool:
        for effect in self.controller.submit_chat(self.chat_input.text):
            self._effect(effect)
        self.chat_input.text = ""
        self.application.layout.focus(self._hand_window)
        self.invalidate()
        return False

    def _chat_open(self) -> bool:
        return self.ui.prompt is not None and self.ui.prompt.kind == "chat"

    # -------------------------------------------------------------------------------- layout

    def _text(self, make: Callable[[], StyleAndTextTuples]) -> FormattedTextControl:
        return FormattedTextControl(make, focusable=False)

    def _layout(self) -> Layout:
        m, ui = self.model, self.ui

        def now() -> float:
            return self.host_clock()

        def before() -> StyleAndTextTuples:
            self.controller.follow_model()
            return render.render_header(m, now())

        # The table's part of the screen is one control (one window to lay out per redraw, not eight):
        # header, seats, a rule, the pile, the windows, the hand, the status and the hint, a line each.
        def table_part() -> StyleAndTextTuples:
            self.controller.follow_model()
            at, width = now(), self._width()
            lines: list[StyleAndTextTuples] = [
                render.render_header(m, at), render.render_players(m, at), [("class:dim", "─" * width)],
                render.render_table(m, ui), render.render_windows(m, at), render.render_hand(m, ui, width),
                render.render_status(m, ui, at), render.render_hint(m, ui),
            ]
            out: StyleAndTextTuples = []
            for line in lines:
                out.extend(line)
                out.append(("", "\n"))
            out.pop()
            return out

        self._hand_window = Window(
            FormattedTextControl(table_part, focusable=True, show_cursor=False),
            height=lambda: Dimension.exact(max(2, len(m.seats)) + 7), wrap_lines=False,
        )
        # The log takes whatever height is left: a preferred height given up front, so the layout never
        # renders the whole log only to ask how tall it would like to be (that was a third of a redraw).
        log = Window(self._text(lambda: render.render_log(m, self._log_height(), ui.log_scroll,
                                                          with_chat=not self._wide())),
                     wrap_lines=False, height=Dimension(min=1, preferred=1000), width=Dimension(min=20, preferred=1000))
        chat = Window(self._text(lambda: render.render_chat(m, self._log_height())), wrap_lines=True,
                      width=Dimension(preferred=40, max=50))
        # Narrow, the log is the whole width: no VSplit to share out column by column on every redraw.
        beside = VSplit([log, Window(width=1, char="│", style="class:dim"), chat])
        bottom = DynamicContainer(lambda: beside if self._wide() else log)
        panel = Window(self._text(self._panel), height=lambda: Dimension.exact(self._panel_rows()),
                       wrap_lines=True)
        body = HSplit([
            self._hand_window, ConditionalContainer(self.chat_input, filter=Condition(self._chat_open)),
            ConditionalContainer(panel, filter=Condition(lambda: self._panel_rows() > 0)),
            bottom,
        ])
        # Overlays are single windows on a background of their own, not Frames: a Frame is nine more
        # containers to lay out on every redraw while the scores stay open.
        scoreboard = Float(
            Window(self._text(lambda: render.render_scoreboard(m, m.scoreboard) if m.scoreboard else []),
                   width=Dimension(preferred=50), height=Dimension(max=14), style="class:overlay"),
            top=3,
        )

        def place_scoreboard(app: object) -> None:
            # Below the table part, so the hand, the turn and its clock stay in sight while the scores are
            # read (the next round is already dealt); higher only when the screen is too short for that.
            board_rows = len(m.seats) + 3
            scoreboard.top = max(1, min(max(2, len(m.seats)) + 7, self._height() - board_rows))

        self._place_scoreboard = place_scoreboard
        helpbox = Float(Window(self._text(lambda: render.render_help(m, ui)), width=Dimension(preferred=76),
                               style="class:overlay"), top=1)
        return Layout(
            FloatContainer(body, floats=[
                _conditional_float(scoreboard, Condition(lambda: board_is_open(m, ui) and ui.prompt is None)),
                _conditional_float(helpbox, Condition(lambda: ui.prompt is not None and ui.prompt.kind == "help")),
            ]),
            focused_element=self._hand_window,
        )

    def _panel(self) -> StyleAndTextTuples:
        return self.extra_panel() if self.extra_panel is not None else []

    def _panel_rows(self) -> int:
        """The rows the owner's panel takes, its long lines wrapped at the screen's width."""
        if self.extra_panel is None:
            return 0
        text = "".join(fragment[1] for fragment in self.extra_panel())
        if not text:
            return 0
        width = max(1, self._width())
        return sum(max(1, -(-len(line) // width)) for line in text.split("\n"))

    def _width(self) -> int:
        try:
            return self.application.output.get_size().columns
        except Exception:  # no terminal (a dummy output): the 80 columns the screen is made for
            return 80

    def _height(self) -> int:
        try:
            return self.application.output.get_size().rows
        except Exception:
            return 24

    def _wide(self) -> bool:
        return self._width() >= WIDE

    def _log_height(self) -> int:
        return max(3, self._height() - len(self.model.seats) - 8 - self._panel_rows())

    # ------------------------------------------------------------------------------ key map

    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()
        playing = Condition(lambda: not self._chat_open())

        @bindings.add(Keys.Any, filter=playing)
        def _any(event: KeyPressEvent) -> None:
            self.press(event.key_sequence[0].data)

        for key, name in _KEY_NAMES.items():
            self._bind(bindings, key, name, playing)

        @bindings.add(Keys.Escape, filter=Condition(self._chat_open))
        def _close_chat(event: KeyPressEvent) -> None:
            self.ui.prompt = None
            self.application.layout.focus(self._hand_window)

        @bindings.add(Keys.ControlC)
        def _interrupt(event: KeyPressEvent) -> None:
            self.press("q")

        return bindings

    def _bind(self, bindings: KeyBindings, key: Keys, name: str, active: Condition) -> None:
        @bindings.add(key, filter=active)
        def _named(event: KeyPressEvent) -> None:
            self.press(name)


def _conditional_float(float_: Float, condition: Condition) -> Float:
    float_.content = ConditionalContainer(float_.content, filter=condition)
    return float_
