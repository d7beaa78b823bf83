"""The game screen's one key map: what each key means at this moment, as a pure function.

`Controller.press(key)` reads the `GameModel` (the seat's legal actions above all) and the screen's
own `UiState` (the cursor, the marked cards, an open prompt) and returns what to do: commands to send,
a chat line, quitting or leaving. It sends nothing itself, so every key of every moment is tested
without a host: the game screen (`unonet.client.tui.screen`) hands it each key, and the live seat
(`unonet.client.tui.session`) carries out what it returns.

Keys are not case-sensitive; no key means two things at the same moment. A key that does nothing now
sets `UiState.hint` to one line saying why (and what would work), never silence.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from unonet.client import commands as cmd
from unonet.client.tui.model import CardFace, ConnectionState, GameModel, face_of
from unonet.v1 import actions_pb2, cards_pb2, rules_pb2, views_pb2

__all__ = [
    "COLOR_KEYS",
    "AddBot",
    "CloseScores",
    "Controller",
    "Effect",
    "LeaveSeat",
    "Prompt",
    "QuitApp",
    "Rematch",
    "SaveReplay",
    "SendChat",
    "SettingsChanged",
    "StartMatch",
    "UiState",
    "board_is_open",
    "help_lines",
]

COLOR_KEYS: Final[dict[str, cards_pb2.Color.ValueType]] = {
    "r": cards_pb2.COLOR_RED, "g": cards_pb2.COLOR_GREEN, "b": cards_pb2.COLOR_BLUE, "y": cards_pb2.COLOR_YELLOW,
}
_NAMES_COLOUR: Final = frozenset({
    cards_pb2.RANK_WILD, cards_pb2.RANK_WILD_DRAW_FOUR, cards_pb2.RANK_PLUS_ONE, cards_pb2.RANK_PLUS_TWO,
})


@dataclass(frozen=True, slots=True)
class SendChat:
    """Write `text` in the table chat."""

    text: str


@dataclass(frozen=True, slots=True)
class QuitApp:
    """Close the client; the seat stays this player's (its clock runs), to rejoin later."""


@dataclass(frozen=True, slots=True)
class CloseScores:
    """The player closed the scores of round `round_number`: tell the host (PlayService.CloseScores), which
    holds the next round's first turn until the players have read them."""

    round_number: int


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    """Give the seat up (LeaveTable), then close the client."""


@dataclass(frozen=True, slots=True)
class StartMatch:
    """Start the match now, bots taking the empty seats (StartTable; the table's creator only)."""


@dataclass(frozen=True, slots=True)
class AddBot:
    """Seat one bot in the lowest empty seat (AddBots; the table's creator only)."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """After the match: play again at a new table with the same settings and seats (see `rematch.py`)."""


@dataclass(frozen=True, slots=True)
class SaveReplay:
    """After the match: write the table's public log to a file `unonet replay` opens."""


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """A setting of the settings overlay (or K) changed: the owner writes the config file."""


Effect = (cmd.Command | SendChat | QuitApp | LeaveSeat | StartMatch | AddBot | Rematch | SaveReplay | SettingsChanged
          | CloseScores)

#: The overlays a key opens, by key (`render.PANELS`); Esc or the same key closes one.
PANEL_KEYS: Final = {"?": "help", "i": "rules", "d": "details", "h": "log", "o": "settings"}


@dataclass(frozen=True, slots=True)
class Prompt:
    """A question the screen asks before a key can mean its usual thing.

    kind: "color" (r/g/b/y names the colour of `cards`), "five_target" (a digit names whom to give
    `cards[0]`), "catch" (a digit names whom to catch; C challenges when `challenge`), "chat" (a line
    of text), "confirm_chat" (y sends `text` although the silence costs cards), "confirm_leave" (y
    leaves), "confirm_quit" (y quits, though the game stops with this client: `text` says what happens),
    or an overlay of `PANEL_KEYS` ("help", "rules", "details", "log", "settings": Esc or its
    own key closes it, the arrows and PgUp/PgDn scroll it, any other key closes it and does what it
    does; `under` is the question it was opened over, asked again when it closes).
    """

    kind: str
    cards: tuple[CardFace, ...] = ()
    window_id: int = 0
    call_uno: bool = False
    targets: tuple[int, ...] = ()
    challenge: bool = False
    text: str = ""
    #: For "help": the question the help was opened over, asked again when the help closes.
    under: Prompt | None = None


@dataclass(slots=True)
class UiState:
    """What the screen itself remembers: the cursor, marks, an open prompt, the last hint."""

    cursor: int = 0
    marks: list[int] = field(default_factory=list)
    prompt: Prompt | None = None
    hint: str = ""
    uno_armed: bool = False
    colour_blind: bool = False
    #: The legal-actions event number the cursor last jumped for (a new turn puts it on a playable card).
    cursor_for: int = -1
    #: Whose turn it was when the hint was given: a hint about a turn goes when the turn does.
    hint_turn: int | None = None
    #: The round whose scoreboard the player closed (any key closes a round's scores; the final stay).
    board_closed_for: int = 0
    #: Help lines for keys the screen's owner added (a replay's stepping keys).
    extra_help: list[str] = field(default_factory=list)
    #: Nothing this screen does reaches a host (a replay): the help names only the keys that work.
    read_only: bool = False
    #: This client holds the table's owner token: before the match it may start it early and add bots.
    is_owner: bool = False
    #: A command is on its way to the host and not answered yet: what the screen offers may be stale.
    pending: bool = False
    #: What quitting does to a game that ends with this client (its host runs in this process: `unonet
    #: local`, `unonet host`): Q then asks first, in these words. Empty: Q quits at once (the seat stays).
    quit_warning: str = ""
    #: What the status line says instead of the moment's words, when the screen's owner sets it (a
    #: replay's step and point of view).
    status: str = ""
    #: Where S saved this match's replay ("" before): the match's end screen shows it whole.
    saved_replay: str = ""
    #: How far the open overlay is scrolled (for the log: lines back from its end).
    panel_scroll: int = 0
    #: A bell when this seat's turn starts.
    bell: bool = True
    #: The terminal's title says "your turn — unonet" while it is.
    title: bool = True
    #: The least time between two moves of other seats as the screen shows them (seconds; 0 shows each
    #: as it comes): `unonet.client.tui.pace`.
    pace: float = 0.6


def board_is_open(model: GameModel, ui: UiState) -> bool:
    """True while the scoreboard covers the screen: a round's until a key closes it, the final one for good."""
    board = model.scoreboard
    return board is not None and (board.final or ui.board_closed_for != board.round_number)


def sorted_hand(model: GameModel) -> list[CardFace]:
    """The hand in the order the screen shows it: by colour, then rank."""
    return sorted(model.hand)


class Controller:
    """Turns key presses into effects, from the model and the screen state (no I/O)."""

    def __init__(self, model: GameModel, ui: UiState | None = None) -> None:
        self.model = model
        self.ui = ui if ui is not None else UiState()

    # ----------------------------------------------------------------------------------- entry

    def press(self, key: str) -> list[Effect]:
        """Handle one key: a printable character, or a name such as "enter", "left", "escape"."""
        key = key if len(key) != 1 else key.lower()
        self.ui.hint = ""
        self.ui.hint_turn = self.model.seat_to_act
        prompt = self.ui.prompt
        if prompt is not None:
            return self._in_prompt(prompt, key)
        board = self.model.scoreboard
        if board_is_open(self.model, self.ui) and board is not None and not board.final \
                and key not in ("q", *PANEL_KEYS):
            self.ui.board_closed_for = board.round_number
            if self.ui.read_only or self.model.is_spectator or board.final:
                return []
            return [CloseScores(board.round_number)]
        handler = _KEYS.get(key)
        if handler is None:
            if key.isdigit() and len(key) == 1:
                return self._digit(int(key))
            self.ui.hint = f"{_key_name(key)} does nothing here; ? lists the keys of this moment"
            return []
        return handler(self)

    def follow_model(self) -> None:
        """Keep the cursor in the hand, put it on a playable card when new options arrive, and let a
        hint go once the turn it was about has passed."""
        hand = sorted_hand(self.model)
        if self.ui.hint and self.ui.hint_turn != self.model.seat_to_act:
            self.ui.hint = ""
        self.ui.marks = [i for i in self.ui.marks if i < len(hand)]
        if self.model.legal_number != self.ui.cursor_for:
            if self.ui.cursor_for >= 0:
                self.ui.hint = ""  # the moment the hint was about has passed
            self.ui.cursor_for = self.model.legal_number
            playable = self.model.playable_faces()
            current = hand[self.ui.cursor] if 0 <= self.ui.cursor < len(hand) else None
            if playable and current not in playable:
                self.ui.cursor = next(i for i, face in enumerate(hand) if face in playable)
            if self.ui.prompt is not None and self.ui.prompt.kind in ("color", "five_target", "catch"):
                if not self._prompt_still_valid(self.ui.prompt):
                    self.ui.prompt = None
        self.ui.cursor = max(0, min(self.ui.cursor, len(hand) - 1))

    # ------------------------------------------------------------------------------ the keys

    def _can_act(self) -> bool:
        if self.model.is_spectator:
            self.ui.hint = "you are watching: spectators cannot play (Q quits)"
            return False
        if self.model.connection != ConnectionState.CONNECTED:
            self.ui.hint = "reconnecting to the host: wait a moment"
            return False
        if self.model.match_over:
            self.ui.hint = "the match is over: Q quits"
            return False
        return True

    def _left(self) -> list[Effect]:
        self.ui.cursor = max(0, self.ui.cursor - 1)
        return []

    def _right(self) -> list[Effect]:
        self.ui.cursor = min(max(0, len(self.model.hand) - 1), self.ui.cursor + 1)
        return []

    def _home(self) -> list[Effect]:
        self.ui.cursor = 0
        return []

    def _end(self) -> list[Effect]:
        self.ui.cursor = max(0, len(self.model.hand) - 1)
        return []

    def _mark(self) -> list[Effect]:
        ruleset = self.model.settings.ruleset
        if not (ruleset.multi_play or ruleset.runs):
            self.ui.hint = "this table plays one card at a time (no multi-play or runs): Enter plays the card"
            return []
        if not self.model.hand:
            self.ui.hint = "no cards to mark"
            return []
        if self.ui.cursor in self.ui.marks:
            self.ui.marks.remove(self.ui.cursor)
        else:
            self.ui.marks.append(self.ui.cursor)
        return []

    def _escape(self) -> list[Effect]:
        if self.ui.marks or self.ui.uno_armed:
            self.ui.marks, self.ui.uno_armed = [], False
            self.ui.hint = "marks cleared"
        return []

    def _enter(self) -> list[Effect]:
        if not self._can_act():
            return []
        legal, hand = self.model.legal, sorted_hand(self.model)
        if not hand:
            self.ui.hint = "you hold no cards"
            return []
        face = hand[min(self.ui.cursor, len(hand) - 1)]
        if legal.give_cards:
            return self._give(face, legal)
        if legal.HasField("five_swap") and legal.five_swap.target_seats:
            return self._offer(face, legal.five_swap)
        return self._play(hand)

    def _give(self, face: CardFace, legal: actions_pb2.LegalActions) -> list[Effect]:
        if face not in {face_of(c) for c in legal.give_cards}:
            self.ui.hint = "give back one of your cards: choose it with the arrows, then Enter"
            return []
        return [cmd.GiveCard(face.to_proto())]

    def _offer(self, face: CardFace, option: actions_pb2.FiveSwapOption) -> list[Effect]:
        if face not in {face_of(c) for c in option.cards}:
            self.ui.hint = "that card cannot be given in the five swap"
            return []
        self.ui.prompt = Prompt("five_target", cards=(face,), targets=tuple(option.target_seats))
        return []

    def _play(self, hand: list[CardFace]) -> list[Effect]:
        indices = self.ui.marks or [min(self.ui.cursor, len(hand) - 1)]
        chosen = tuple(hand[i] for i in indices)
        option = self._matching_option(chosen)
        if option is None:
            self.ui.hint = self._why_not_play(chosen)
            return []
        call_uno = self.ui.uno_armed and len(self.model.hand) - len(chosen) == 1
        if self._names_colour(chosen, option):
            self.ui.prompt = Prompt("color", cards=chosen, window_id=option.reaction_window_id, call_uno=call_uno)
            return []
        return [self._play_command(chosen, option.reaction_window_id, call_uno, None)]

    def _play_command(
        self, chosen: tuple[CardFace, ...], window: int, call_uno: bool, color: int | None
    ) -> cmd.Command:
        self.ui.marks, self.ui.uno_armed = [], False
        return cmd.Play(
            tuple(f.to_proto() for f in chosen), color=color,  # type: ignore[arg-type]
            call_uno=call_uno, reaction_window_id=window,
        )

    def _matching_option(self, chosen: tuple[CardFace, ...]) -> actions_pb2.PlayOption | None:
        """The legal option `chosen` is (a prefix of; for multi-play, any of the later cards in any order)."""
        multi = self.model.settings.ruleset.multi_play
        for option in self.model.legal.plays:
            listed = [face_of(c) for c in option.cards]
            if not listed or listed[0] != chosen[0] or len(chosen) > len(listed):
                continue
            if listed[: len(chosen)] == list(chosen):
                return option
            if multi and not Counter(chosen[1:]) - Counter(listed[1:]):
                return option
        return None

    def _why_not_play(self, chosen: tuple[CardFace, ...]) -> str:
        legal = self.model.legal
        if not legal.plays:
            if self.model.is_my_turn and legal.HasField("draw"):
                return "no card of yours can be played now: Space draws"
            if legal.pass_turn:
                return "the drawn card cannot be played: P keeps it and ends your turn"
            return f"not your turn: {self.model.name_of(self.model.seat_to_act)} plays now"
        if len(chosen) > 1:
            return "those marked cards cannot be played together (Esc clears the marks)"
        return "that card cannot be played now: the raised cards can"

    def _names_colour(self, chosen: tuple[CardFace, ...], option: actions_pb2.PlayOption) -> bool:
        if len(chosen) == len(option.cards):
            return option.needs_color
        last = chosen[-1]
        if last.rank == cards_pb2.RANK_BLANK:
            return self.model.settings.ruleset.blank_effect == rules_pb2.BLANK_EFFECT_WILD
        return last.rank in _NAMES_COLOUR

    def _draw(self) -> list[Effect]:
        if not self._can_act():
            return []
        if not self.model.legal.HasField("draw"):
            self.ui.hint = "you cannot draw now" + self._turn_note()
            return []
        return [cmd.Draw()]

    def _pass(self) -> list[Effect]:
        if not self._can_act():
            return []
        if not self.model.legal.pass_turn:
            self.ui.hint = "nothing to pass: P keeps a card you just drew" + self._turn_note()
            return []
        return [cmd.Pass()]

    def _uno(self) -> list[Effect]:
        if not self._can_act():
            return []
        if self.model.legal.call_uno:
            return [cmd.CallUno()]
        if self.model.is_my_turn and len(self.model.hand) == 2 and self.model.legal.plays:
            self.ui.uno_armed = not self.ui.uno_armed
            self.ui.hint = "UNO will be called with your play" if self.ui.uno_armed else "UNO call cancelled"
            return []
        self.ui.hint = "no UNO to call: you call it when one card is left (or with the play that leaves one)"
        return []

    def _react(self) -> list[Effect]:
        if not self._can_act():
            return []
        ids = list(self.model.legal.react_window_ids)
        if not ids:
            self.ui.hint = "nothing to react to: B answers a UNO slap or a Sound Wild"
            return []
        return [cmd.React(ids[0])]

    def _catch_or_challenge(self) -> list[Effect]:
        if not self._can_act():
            return []
        legal = self.model.legal
        targets = tuple(legal.catch_uno_targets)
        if legal.challenge and not targets:
            return [cmd.Challenge()]
        if len(targets) == 1 and not legal.challenge:
            return [self._catch(targets[0])]
        if targets:
            self.ui.prompt = Prompt("catch", targets=targets, challenge=legal.challenge)
            return []
        self.ui.hint = "nobody to catch and nothing to challenge now"
        return []

    def _catch(self, target: int) -> cmd.Command:
        window = next(
            (w.id for w in self.model.windows.values()
             if w.kind == views_pb2.REACTION_WINDOW_KIND_UNO_CATCH and w.subject_seat == target),
            0,
        )
        return cmd.CatchUno(target, window)

    def _digit(self, seat: int) -> list[Effect]:
        if not self._can_act():
            return []
        targets = list(self.model.legal.swap_target_seats)
        if targets:
            if seat in targets:
                return [cmd.ChooseSwapTarget(seat)]
            self.ui.hint = "swap hands with one of seats " + ", ".join(str(s) for s in targets)
            return []
        self.ui.hint = "a seat number means something only when you choose a seat"
        return []

    def _color(self, key: str) -> list[Effect]:
        if self.model.legal.choose_color and self._can_act():
            return [cmd.ChooseColor(COLOR_KEYS[key])]
        if key == "b":
            return self._react()
        self.ui.hint = f"{key.upper()} names a colour only when you must name one"
        return []

    def _chat(self) -> list[Effect]:
        if self.model.is_spectator:
            self.ui.hint = "spectators cannot write in the table chat"
            return []
        self.ui.prompt = Prompt("chat")
        return []

    def _panel(self, kind: str) -> list[Effect]:
        self._open_panel(kind)
        return []

    def asked(self) -> Prompt | None:
        """The question open now, an overlay aside (the one the overlay was opened over)."""
        prompt = self.ui.prompt
        return prompt.under if prompt is not None and prompt.kind in PANEL_KEYS.values() else prompt

    def _quit(self) -> list[Effect]:
        if self.ui.quit_warning and not self.ui.read_only:
            self.ui.prompt = Prompt("confirm_quit", text=self.ui.quit_warning)
            return []
        return [QuitApp()]

    def _leave(self) -> list[Effect]:
        if self.model.is_spectator:
            return [LeaveSeat()]
        self.ui.prompt = Prompt("confirm_leave")
        return []

    def _colour_blind(self) -> list[Effect]:
        self.ui.colour_blind = not self.ui.colour_blind
        state = "on: each card shows its colour's letter" if self.ui.colour_blind else "off"
        self.ui.hint = f"colour-blind mode {state}"
        return [SettingsChanged()]

    def _rematch(self) -> list[Effect]:
        if not self.model.match_over:
            self.ui.hint = "N offers a rematch once the match is over"
            return []
        if self.ui.read_only or self.model.is_spectator:
            self.ui.hint = "only a player of this table can ask for a rematch"
            return []
        return [Rematch()]

    def _lobby_refusal(self) -> str:
        """Why S and A (start early, add a bot) cannot be used now, or "" when they can."""
        if self.model.phase != views_pb2.PHASE_WAITING_FOR_PLAYERS or self.model.round_number:
            return "the match has started already"
        if not self.ui.is_owner:
            return "only the table's creator can start it early or add bots; it starts when every seat is taken"
        if self.model.connection != ConnectionState.CONNECTED:
            return "reconnecting to the host: wait a moment"
        return ""

    def _start(self) -> list[Effect]:
        if self.model.match_over and not self.ui.read_only:
            return [SaveReplay()]
        why = self._lobby_refusal()
        if why:
            self.ui.hint = why
            return []
        self.ui.hint = "starting: bots take the empty seats…"
        return [StartMatch()]

    def _add_bot(self) -> list[Effect]:
        why = self._lobby_refusal()
        if why:
            self.ui.hint = why
            return []
        if self.model.seats and all(seat.occupied for seat in self.model.seats):
            self.ui.hint = "every seat is taken: the match starts by itself"
            return []
        return [AddBot()]

    def _scroll(self, step: int) -> list[Effect]:
        self._open_panel("log")  # PgUp opens the whole log at its end, a page back
        self.ui.panel_scroll = max(0, step)
        return []

    def _turn_note(self) -> str:
        if self.model.seat_to_act is not None and not self.model.is_my_turn:
            return f" ({self.model.name_of(self.model.seat_to_act)} plays now)"
        return ""

    # ------------------------------------------------------------------------------- prompts

    def submit_chat(self, text: str) -> list[Effect]:
        """The chat line was entered: send it, or ask first when the silence makes it cost cards."""
        self.ui.prompt = None
        text = text.strip()
        if not text:
            return []
        if self.model.is_spectator:
            self.ui.hint = "spectators cannot write in the table chat"
            return []
        if self.model.is_silenced and self.model.silence_seat != self.model.seat:
            self.ui.prompt = Prompt("confirm_chat", text=text)
            return []
        return [SendChat(text)]

    def _in_prompt(self, prompt: Prompt, key: str) -> list[Effect]:
        if prompt.kind in PANEL_KEYS.values():
            return self._in_panel(prompt, key)
        if key in PANEL_KEYS:  # an overlay over a question: the question stays, asked again when it closes
            self._open_panel(PANEL_KEYS[key], under=prompt)
            return []
        if key == "escape":
            self.ui.prompt = None
            return []
        if prompt.kind in ("color", "five_target", "catch") and not self._can_act():
            return []  # the prompt stays open for when the host answers again
        match prompt.kind:
            case "color":
                if key in COLOR_KEYS:
                    self.ui.prompt = None
                    return [self._play_command(prompt.cards, prompt.window_id, prompt.call_uno, COLOR_KEYS[key])]
                self.ui.hint = "name a colour: R red, G green, B blue, Y yellow (Esc cancels)"
            case "five_target":
                if key.isdigit() and int(key) in prompt.targets:
                    self.ui.prompt = None
                    return [cmd.FiveSwap(int(key), prompt.cards[0].to_proto())]
                self.ui.hint = "give the card to seat " + " or ".join(str(s) for s in prompt.targets) + " (Esc cancels)"
            case "catch":
                if key.isdigit() and int(key) in prompt.targets:
                    self.ui.prompt = None
                    return [self._catch(int(key))]
                if key == "c" and prompt.challenge:
                    self.ui.prompt = None
                    return [cmd.Challenge()]
                self.ui.hint = "a seat number catches that seat" + (", C challenges" if prompt.challenge else "")
            case "confirm_chat":
                self.ui.prompt = None
                if key == "y":
                    return [SendChat(prompt.text)]
                self.ui.hint = "message not sent"
            case "confirm_leave":
                self.ui.prompt = None
                if key == "y":
                    return [LeaveSeat()]
                self.ui.hint = "you keep your seat"
            case "confirm_quit":
                self.ui.prompt = None
                if key == "y":
                    return [QuitApp()]
                self.ui.hint = "you play on"
        return []

    def _open_panel(self, kind: str, under: Prompt | None = None) -> None:
        self.ui.prompt = Prompt(kind, under=under)
        self.ui.panel_scroll = 0

    def _in_panel(self, prompt: Prompt, key: str) -> list[Effect]:
        """A key while an overlay is open: scroll it, close it, change a setting, or close it and act."""
        kind = prompt.kind
        scrolls = {"up": -1, "down": 1, "pageup": -10, "pagedown": 10}
        if key in scrolls:
            step = scrolls[key] * (-1 if kind == "log" else 1)  # the log counts back from its end
            self.ui.panel_scroll = max(0, self.ui.panel_scroll + step)
            return []
        if kind == "settings" and key in ("k", "b", "t", "left", "right"):
            return self._setting(key)
        self.ui.prompt = prompt.under
        if key == "escape" or PANEL_KEYS.get(key) == kind:
            return []
        if key in PANEL_KEYS:  # another overlay's key: that one opens instead
            self._open_panel(PANEL_KEYS[key], under=prompt.under)
            return []
        return self.press(key)  # read the help, press the key it named: it closes and does its thing

    def _setting(self, key: str) -> list[Effect]:
        ui = self.ui
        match key:
            case "k":
                ui.colour_blind = not ui.colour_blind
            case "b":
                ui.bell = not ui.bell
            case "t":
                ui.title = not ui.title
            case "left":
                ui.pace = round(max(0.0, ui.pace - 0.2), 1)
            case "right":
                ui.pace = round(min(3.0, ui.pace + 0.2), 1)
        return [SettingsChanged()]

    def _prompt_still_valid(self, prompt: Prompt) -> bool:
        legal = self.model.legal
        match prompt.kind:
            case "color":
                return self._matching_option(prompt.cards) is not None
            case "five_target":
                return legal.HasField("five_swap") and bool(legal.five_swap.target_seats)
            case "catch":
                return bool(legal.catch_uno_targets)
        return True


def _key_name(key: str) -> str:
    return key.upper() if len(key) == 1 else key.capitalize()


_KEYS: Final[dict[str, Callable[[Controller], list[Effect]]]] = {
    "left": Controller._left, "right": Controller._right, "home": Controller._home, "end": Controller._end,
    "enter": Controller._enter, " ": Controller._draw, "m": Controller._mark, "escape": Controller._escape,
    "p": Controller._pass, "u": Controller._uno, "c": Controller._catch_or_challenge,
    "r": lambda c: c._color("r"), "g": lambda c: c._color("g"), "b": lambda c: c._color("b"),
    "y": lambda c: c._color("y"), "t": Controller._chat, "q": Controller._quit,
    "l": Controller._leave, "k": Controller._colour_blind, "s": Controller._start, "a": Controller._add_bot,
    "n": Controller._rematch, "pageup": lambda c: c._scroll(10), "pagedown": lambda c: c._scroll(0),
    **{key: functools.partial(Controller._panel, kind=kind) for key, kind in PANEL_KEYS.items()},
}


#: The keys of each question the screen asks ({} is the seats it offers).
_QUESTION_KEYS: Final = {
    "color": ["  R G B Y     name the colour: red, green, blue, yellow"],
    "five_target": ["  0-9         the seat to give the card to: {}"],
    "catch": ["  0-9         the seat to catch: {}"],
    "confirm_chat": ["  Y           send it anyway (a silence is on: it costs you 2 cards)",
                     "  N           do not send it"],
    "confirm_leave": ["  Y           leave the table for good (your seat goes to a bot or is forfeited)",
                      "  N           stay"],
    "confirm_quit": ["  Y           quit: {text}",
                     "  N           play on"],
}


def help_lines(model: GameModel, ui: UiState) -> list[str]:
    """Every key of the current moment, each with what it does now (the ? overlay)."""
    legal = model.legal
    lines = ["Keys now (Esc closes this help; a key below also does what it says):"]
    asked = ui.prompt.under if ui.prompt is not None and ui.prompt.kind in PANEL_KEYS.values() else ui.prompt
    if asked is not None and asked.kind in _QUESTION_KEYS:
        targets = ", ".join(map(str, asked.targets))
        lines += [line.format(targets, text=asked.text) for line in _QUESTION_KEYS[asked.kind]]
        if asked.kind == "catch" and asked.challenge:
            lines.append("  C           challenge the Wild Draw Four instead")
        lines += ["  Esc         cancel", "  ?           this help"]
        return lines
    if ui.read_only:
        return [*lines, *ui.extra_help, "  I           the rules of this table", "  D           details: the table "
                "id, fairness checks", "  H           the whole log (PgUp too)", "  K           colour-blind mode "
                "(letters on cards)", "  ?           this help", "  Q           quit"]
    if model.is_spectator:
        lines.append("  you are watching this table as a spectator")
    if legal.plays:
        lines.append("  Left/Right  choose a card (the raised ones can be played)")
        lines.append("  Enter       play the chosen card" + (" (or the marked cards)" if ui.marks else ""))
        if legal.plays and any(p.kind != actions_pb2.PLAY_KIND_TURN for p in legal.plays):
            lines.append("  Enter       on a raised card out of turn: jump in / cut the run / escape")
        if model.settings.ruleset.multi_play or model.settings.ruleset.runs:
            lines.append("  M           mark a card for a group or a run, then Enter plays them in order")
    if legal.choose_color:
        lines.append("  R G B Y     name the colour: red, green, blue, yellow")
    if legal.HasField("draw"):
        what = f"accept the draw of {legal.draw.count}" if legal.draw.accepts_obligation else "draw a card"
        lines.append(f"  Space       {what}")
    if legal.pass_turn:
        lines.append("  P           keep the card you drew and end your turn")
    if legal.call_uno or (model.is_my_turn and len(model.hand) == 2):
        lines.append("  U           call UNO" + ("" if legal.call_uno else " with your next play"))
    if legal.catch_uno_targets:
        lines.append("  C           catch a player who did not call UNO")
    if legal.challenge:
        lines.append("  C           challenge the Wild Draw Four")
    if legal.react_window_ids:
        lines.append("  B           react! (the slowest draws 2)")
    if legal.swap_target_seats:
        lines.append("  0-9         the seat to swap hands with: " + ", ".join(map(str, legal.swap_target_seats)))
    if legal.HasField("five_swap") and legal.five_swap.target_seats:
        lines.append("  Enter       give the chosen card (then a seat number); P keeps your hand")
    if legal.give_cards:
        lines.append("  Enter       give the chosen card back")
    if not any((legal.plays, legal.choose_color, legal.HasField("draw"), legal.pass_turn, legal.call_uno,
                legal.catch_uno_targets, legal.challenge, legal.react_window_ids, legal.swap_target_seats,
                legal.give_cards)):
        waiting = model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number
        lines.append("  (nothing to play now: wait for the match to start)" if waiting
                     else "  (nothing to play now: wait for your turn)")
    if model.match_over and not model.is_spectator:
        lines.append("  N           a rematch: a new table with the same rules and seats")
        lines.append("  S           save this match's replay to a file (`unonet replay FILE`)")
    if ui.is_owner and model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number:
        lines.append("  S           start the match now: bots take the empty seats")
        lines.append("  A           seat one bot in an empty seat")
    lines += ui.extra_help
    lines += [
        "  T           write in the chat" + (" (a silence is on: it costs 2 cards)" if model.is_silenced else ""),
        "  H           the whole log (PgUp too; ↑↓ scroll it)",
        "  I           the rules of this table, in plain words",
        "  D           details: table id, fairness checks, latencies, strikes",
        "  O           settings: colour-blind, bell, title, pace",
        "  K           colour-blind mode (letters on cards)",
        "  ?           this help",
        "  Q           quit (asks first: this game stops with it)" if ui.quit_warning
        else "  Q           quit the client (your seat stays yours; rejoin later)",
        "  L           leave the table for good (asks first)",
    ]
    return lines
