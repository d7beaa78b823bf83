"""The game screen: one prompt-toolkit window that draws the table from the model, and one key map.

`GameScreen` knows nothing of the network. It owns an `Application` whose window calls the pure
layout (`unonet.client.tui.layout.draw_screen`) on every redraw, and whose key bindings hand each key to
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
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import TextArea

from unonet.client.tui import layout, render
from unonet.client.tui.controller import Controller, Effect, QuitApp, UiState
from unonet.client.tui.model import GameModel

__all__ = ["TITLE", "TURN_TITLE", "GameScreen"]

#: The terminal's title while this seat waits, and while it is its turn.
TITLE = "unonet"
TURN_TITLE = "your turn — unonet"

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
        extra_panel: lines the owner shows under the status line (a replay's open hands), or nothing;
            the table gives up the rows they need.
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
        #: Called before each key is handled (the session's catch-up of paced events), or None.
        self.before_key: Callable[[], None] | None = None
        self.chat_input = TextArea(height=1, prompt=" say: ", multiline=False, accept_handler=self._chat_entered)
        self.application: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._bindings(),
            style=Style.from_dict({**render.STYLE, **layout.STYLE}),
            full_screen=True,
            mouse_support=False,
            # Redraw as soon as the model changed, even while other work is queued: a reaction window
            # on screen 10 ms late is 10 ms lost in the race (prompt-toolkit would postpone up to 10 ms).
            max_render_postpone_time=0,
            input=input,
            output=output,
        )

    # ------------------------------------------------------------------------------- feeding

    def invalidate(self) -> None:
        """Redraw soon: call after changing the model (from the event task, a timer, a replay)."""
        self.application.invalidate()

    def press(self, key: str) -> None:
        """Handle a key as the key map would (tests and the bindings both come here). `before_key`
        runs first: a paced feeder shows what it still holds, so the key acts on the table as it is."""
        if self.before_key is not None:
            self.before_key()
        self.controller.follow_model()
        extra = self.extra_keys.get(key.lower() if len(key) == 1 else key)
        if extra is not None and (self.ui.prompt is None or self.ui.prompt.kind in render.PANELS):
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

    def _layout(self) -> Layout:
        # The whole screen is one control drawn by `layout.draw_screen` (one window to lay out per redraw):
        # the table, the hand, the status, the log and any overlay are placed on one canvas.
        # Its height is stated, not asked of the control: asking would draw the whole table twice a redraw.
        self._hand_window = Window(FormattedTextControl(self._draw, focusable=True, show_cursor=False),
                                   wrap_lines=False,
                                   height=lambda: Dimension.exact(max(1, self._height() - self._chat_open())))
        body = HSplit([self._hand_window, ConditionalContainer(self.chat_input, filter=Condition(self._chat_open))])
        return Layout(body, focused_element=self._hand_window)

    def _draw(self) -> StyleAndTextTuples:
        self.controller.follow_model()
        width, height = self._width(), self._height() - (1 if self._chat_open() else 0)
        canvas, scroll = layout.draw_screen(self.model, self.ui, self.host_clock(), width, height,
                                            self._panel() or None)
        self.ui.panel_scroll = scroll
        return canvas.fragments()

    def _panel(self) -> StyleAndTextTuples:
        return self.extra_panel() if self.extra_panel is not None else []

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

    # ------------------------------------------------------------------------------ your turn

    def announce_turn(self, mine: bool) -> None:
        """This seat's turn started (`mine`) or ended: ring the bell and set the terminal's title, as
        the settings say (`UiState.bell`, `UiState.title`)."""
        output = self.application.output
        try:
            if mine and self.ui.bell:
                output.bell()
            if self.ui.title:
                output.set_title(TURN_TITLE if mine else TITLE)
            elif mine is False:
                output.clear_title()
            output.flush()
        except Exception:  # a dummy or closed output: nothing to ring
            pass

    def clear_title(self) -> None:
        """Leave the terminal's title as the shell sets it (the screen is closing)."""
        try:
            if self.ui.title:
                self.application.output.clear_title()
                self.application.output.flush()
        except Exception:  # a dummy or closed output
            pass

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
