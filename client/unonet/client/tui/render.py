"""The words of the game screen, as pure functions of the model, the screen state and a time.

The layout (`unonet.client.tui.layout`) places them: the status line (what this moment asks, and the
keys that answer it), the hint line, a race's call, the log's lines, and the overlays (help, rules,
details, the log, the settings, a round's scores), each as prompt-toolkit formatted text (``(style,
text)`` pairs), so a test reads what the screen would say without a terminal and a replayed model
renders exactly as a live one. `now` is the host's clock in seconds (the local clock corrected by the
offset the client's pings measured): every countdown is the host's deadline minus it.

A card's words: `card_glyph` (at most three columns, for a card in the hand: ``5``, ``⊘`` a Skip,
``⇄`` a Reverse, ``+2``, ``W``, ``+4``; with the colour-blind mode, its colour's letter first,
``R5``), `card_label` (the log's and the open hands' ``R5``, ``Skip``), `rank_word` (the top card's
``SKIP``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from prompt_toolkit.formatted_text import StyleAndTextTuples

from unonet.client.tui.controller import UiState, board_is_open, help_lines
from unonet.client.tui.model import CardFace, ConnectionState, GameModel, LogLine, Scoreboard, window_words
from unonet.client.tui.rules_text import clock_lines, rules_lines, stakes, strikes_words
from unonet.v1 import cards_pb2, views_pb2

__all__ = [
    "COLOR_STYLE",
    "COLOR_WORD",
    "PANELS",
    "STYLE",
    "card_glyph",
    "card_label",
    "details_lines",
    "log_lines",
    "panel",
    "rank_word",
    "render_card",
    "render_hint",
    "render_status",
    "render_windows",
    "scoreboard_panel",
]

STYLE: Final = {
    "card.red": "bg:#cc2222 #ffffff",
    "card.yellow": "bg:#d4b000 #000000",
    "card.green": "bg:#1f8f3a #ffffff",
    "card.blue": "bg:#2255cc #ffffff",
    "card.black": "bg:#222222 #ffffff",
    "card.legal": "bold underline",
    "card.dead": "",
    "cursor": "reverse bold",
    "header": "bg:#333355 #ffffff",
    "turn": "bold #ffcc00",
    "you": "bold",
    "uno": "bold #ff5555",
    "alert": "bold #ff5555",
    "race": "#ffaa00",
    "window": "bg:#aa0000 #ffffff bold",
    "score": "bold #88ff88",
    "dim": "#888888",
    "hint": "#ffcc66",
    "ok": "#88ff88",
    "chat": "#88ccff",
    "overlay": "bg:#202030 #ffffff",
}

COLOR_STYLE: Final[dict[int, str]] = {
    cards_pb2.COLOR_RED: "card.red", cards_pb2.COLOR_YELLOW: "card.yellow", cards_pb2.COLOR_GREEN: "card.green",
    cards_pb2.COLOR_BLUE: "card.blue", cards_pb2.COLOR_BLACK: "card.black",
}
_COLOR_LETTER: Final[dict[int, str]] = {
    cards_pb2.COLOR_RED: "R", cards_pb2.COLOR_YELLOW: "Y", cards_pb2.COLOR_GREEN: "G", cards_pb2.COLOR_BLUE: "B",
}
COLOR_WORD: Final[dict[int, str]] = {
    cards_pb2.COLOR_RED: "red", cards_pb2.COLOR_YELLOW: "yellow", cards_pb2.COLOR_GREEN: "green",
    cards_pb2.COLOR_BLUE: "blue",
}
_RANK_LABEL: Final[dict[int, str]] = {
    cards_pb2.RANK_SKIP: "Skip", cards_pb2.RANK_REVERSE: "Rev", cards_pb2.RANK_DRAW_TWO: "+2",
    cards_pb2.RANK_WILD: "Wild", cards_pb2.RANK_WILD_DRAW_FOUR: "W+4", cards_pb2.RANK_BLANK: "Blank",
    cards_pb2.RANK_SOUND_WILD: "Sound", cards_pb2.RANK_PLUS_ONE: "W+1", cards_pb2.RANK_PLUS_TWO: "W+2",
}


_GLYPH: Final[dict[int, str]] = {
    cards_pb2.RANK_SKIP: "⊘", cards_pb2.RANK_REVERSE: "⇄", cards_pb2.RANK_DRAW_TWO: "+2",
    cards_pb2.RANK_WILD: "W", cards_pb2.RANK_WILD_DRAW_FOUR: "+4", cards_pb2.RANK_BLANK: "□",
    cards_pb2.RANK_SOUND_WILD: "♪", cards_pb2.RANK_PLUS_ONE: "W+1", cards_pb2.RANK_PLUS_TWO: "W+2",
}
_RANK_WORD: Final[dict[int, str]] = {
    cards_pb2.RANK_SKIP: "SKIP", cards_pb2.RANK_REVERSE: "REVERSE", cards_pb2.RANK_DRAW_TWO: "DRAW 2",
    cards_pb2.RANK_WILD: "WILD", cards_pb2.RANK_WILD_DRAW_FOUR: "WILD +4", cards_pb2.RANK_BLANK: "BLANK",
    cards_pb2.RANK_SOUND_WILD: "SOUND", cards_pb2.RANK_PLUS_ONE: "WILD +1", cards_pb2.RANK_PLUS_TWO: "WILD +2",
}


def card_glyph(face: CardFace, *, letters: bool) -> str:
    """A card in at most three columns, for a card drawn in the hand: ``5``, ``⊘``, ``+2``, ``W``; with
    `letters`, its colour's letter first (``R5``, ``R+2``; a black card has none)."""
    rank = str(face.rank - 1) if face.rank <= cards_pb2.RANK_NINE else _GLYPH.get(face.rank, "?")
    return (_COLOR_LETTER.get(face.color, "") + rank)[:3] if letters else rank


def rank_word(face: CardFace) -> str:
    """The rank as the top card spells it: ``5``, ``SKIP``, ``WILD +4``."""
    return str(face.rank - 1) if face.rank <= cards_pb2.RANK_NINE else _RANK_WORD.get(face.rank, "?")


def card_label(face: CardFace, *, letters: bool) -> str:
    """A card's short text: ``5``, ``Skip``, ``W+4``; with `letters`, its colour's letter first (``R5``)."""
    rank = str(face.rank - 1) if face.rank <= cards_pb2.RANK_NINE else _RANK_LABEL.get(face.rank, "?")
    return _COLOR_LETTER.get(face.color, "") + rank if letters else rank


def render_card(face: CardFace, ui: UiState) -> StyleAndTextTuples:
    """One card as a chip of fixed width in its colour (a replay's open hands, aligned in columns)."""
    style = COLOR_STYLE.get(face.color, "")
    return [(f"class:{style}" if style else "", f"{card_label(face, letters=True):^5}"), ("", " ")]


def render_windows(model: GameModel, now: float) -> StyleAndTextTuples:
    """Every open reaction window, loud, with its countdown and this seat's key (nothing while the link
    is down: what a window offers may be stale)."""
    out: StyleAndTextTuples = []
    if model.connection != ConnectionState.CONNECTED:
        return out
    for window in model.windows.values():
        about = model.name_of(window.subject_seat) if window.HasField("subject_seat") else ""
        left = ""
        if window.HasField("deadline"):
            left = f" {max(0.0, window.deadline.seconds + window.deadline.nanos / 1e9 - now):.1f}s"
        action = _window_key(model, window)
        out.append(("class:window", f" {window_words(window.kind).upper()} {about}{left} {action} "))
        out.append(("", " "))
    return out


def _window_key(model: GameModel, window: views_pb2.ReactionWindow) -> str:
    if model.seat is None or model.seat not in window.eligible_seats:
        return ""
    kind = window.kind
    if kind in (views_pb2.REACTION_WINDOW_KIND_UNO_SLAP, views_pb2.REACTION_WINDOW_KIND_SOUND_WILD):
        return "— press B!"
    if kind == views_pb2.REACTION_WINDOW_KIND_UNO_CATCH:
        return "— U to call!" if window.subject_seat == model.seat else "— C to catch!"
    return "— Enter on a raised card"


_QUESTIONS: Final = {
    "color": "name the colour: R red, G green, B blue, Y yellow (Esc cancels)",
    "confirm_chat": "a silence is on: writing now costs you 2 cards. Send anyway? y/n",
    "confirm_leave": "leave the table for good? Your seat goes to a bot or is forfeited. y/n",
    "chat": "chat: type, Enter sends, Esc cancels",
}


def render_status(model: GameModel, ui: UiState, now: float) -> StyleAndTextTuples:
    """One line saying what this moment (or the open question) asks of the player, and its keys."""
    if ui.status:  # the screen's owner says what the line is for (a replay's step)
        return [("class:you", " " + ui.status)]
    prompt = ui.prompt.under if ui.prompt is not None and ui.prompt.kind in PANELS else ui.prompt
    asks = prompt is not None and prompt.kind in ("chat", "confirm_quit")  # typing, or about to quit: shown
    if model.connection != ConnectionState.CONNECTED and not asks:
        return [("class:alert", " " + _moment(model, ui, now))]  # what the link's state allows comes first
    if prompt is not None:
        text = _QUESTIONS.get(prompt.kind, "")
        if prompt.kind == "five_target":
            text = "give it to which seat? " + _seats(model, prompt.targets) + " (Esc cancels)"
        elif prompt.kind == "confirm_quit":
            text = f"quit? {prompt.text} y/n"
        elif prompt.kind == "catch":
            text = "catch which seat? " + _seats(model, prompt.targets) + (" — or C to challenge" if prompt.challenge
                                                                            else "")
        if text:
            return [("class:turn", " " + text)]
    if ui.pending:  # the options on screen may be the ones the command just used up
        return [("class:dim", " sent — waiting for the host's answer…")]
    return [("class:turn" if model.is_my_turn else "", " " + _moment(model, ui, now))]


def _seats(model: GameModel, seats: Sequence[int]) -> str:
    return ", ".join(f"{seat} ({model.name_of(seat)})" for seat in seats)


def render_hint(model: GameModel, ui: UiState) -> StyleAndTextTuples:
    """One line: the hint or refusal the last key got, else what the screen must say loudly (a notice,
    why the link is down)."""
    if ui.hint:
        return [("class:hint", " " + ui.hint)]
    if model.notice:
        return [("class:alert", " " + model.notice)]
    if model.connection != ConnectionState.CONNECTED and model.connection_note:
        return [("class:alert", " " + model.connection_note)]
    return []


def _my_clock(model: GameModel, ui: UiState, now: float) -> str:
    """The turn clock, on the status line only while the scores cover this seat's own (one clock on screen)."""
    if not board_is_open(model, ui) or model.seat is None or model.seat >= len(model.seats):
        return ""
    deadline = model.seats[model.seat].deadline
    return "" if deadline is None else f" ({max(0.0, deadline - now):.0f}s)"


def _moment(model: GameModel, ui: UiState, now: float) -> str:
    legal = model.legal
    if model.connection == ConnectionState.GONE:
        return "no connection to this table any more — Q quits"
    if model.connection != ConnectionState.CONNECTED:
        return "reconnecting to the host… nothing can be played until it answers"
    if model.match_over:
        if model.is_spectator or ui.read_only:
            return "the match is over — Q quits"
        if model.rematch is not None and model.rematch[0] != model.seat:
            return f"{model.name_of(model.rematch[0])} invites you to a rematch: N joins · S saves the replay · Q quits"
        return "N rematch · S saves the replay · Q quits"
    if model.is_spectator:
        return f"watching — {model.name_of(model.seat_to_act)} to play" if model.seat_to_act is not None \
            else "watching · ? keys"
    if legal.choose_color:
        return "name the colour: R red, G green, B blue, Y yellow"
    if legal.swap_target_seats:
        return "swap hands with which seat? " + _seats(model, legal.swap_target_seats)
    if legal.give_cards:
        return "five swap: choose a card to give back, Enter gives it"
    if legal.HasField("five_swap") and legal.five_swap.target_seats:
        return "five swap: choose a card to give, Enter, then the seat (P declines)"
    if legal.react_window_ids:
        return "REACT NOW: press B (the slowest draws 2)"
    if legal.catch_uno_targets and not model.is_my_turn:
        who = " and ".join(model.name_of(s) for s in legal.catch_uno_targets)
        return f"{who} did not call UNO: C catches!"
    clock = _my_clock(model, ui, now)
    if model.is_my_turn and not (legal.plays or legal.HasField("draw") or legal.pass_turn):
        # The turn is ours but nothing is offered yet: a race blocks play, or the options are on their way.
        if any(window.blocks_play for window in model.windows.values()):
            return "your turn comes once the race in the middle is decided"
        return "your turn: waiting for the host's options…"
    if model.is_my_turn:
        if legal.pass_turn:
            return f"YOUR TURN{clock}: Enter plays the drawn card, P keeps it"
        if legal.HasField("draw") and legal.draw.accepts_obligation:
            extra = ", C challenges" if legal.challenge else ""
            plays = ", Enter answers with a card" if legal.plays else ""
            return f"YOUR TURN{clock}: Space takes the {legal.draw.count} cards{plays}{extra}"
        text = f"YOUR TURN{clock}: Enter plays, Space draws"
        if legal.call_uno:
            return text + " · 1 card: U calls UNO now"
        if len(model.hand) == 2 and legal.plays:
            return text + (" · UNO goes with your play (U cancels)" if ui.uno_armed
                           else " · 2 cards: U calls UNO with your play")
        if legal.catch_uno_targets:
            return text + " · C catches " + " and ".join(model.name_of(s) for s in legal.catch_uno_targets)
        return text + " · ? keys"
    if legal.call_uno:
        return "1 card: U calls UNO before someone catches you!"
    if model.phase == views_pb2.PHASE_SHUFFLE:
        return "shuffling (your share of the shuffle is sent for you)…"
    if model.phase == views_pb2.PHASE_ROUND_OVER:
        return "round over — the next one starts shortly"
    if model.seat_to_act is not None:
        return f"{model.name_of(model.seat_to_act)} to play · ? keys"
    if model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number and model.seats:
        seated = f"waiting for players ({sum(s.occupied for s in model.seats)}/{len(model.seats)})"
        if ui.is_owner:
            return f"{seated} · S starts now with bots · A adds a bot"
        return f"{seated}: the match starts when every seat is taken · ? keys"
    return "waiting · ? keys"


# ------------------------------------------------------------------------------------------ the log


def log_lines(model: GameModel, *, with_chat: bool) -> list[LogLine]:
    """The log's lines, oldest first (the chat's mixed in by event number when `with_chat`)."""
    lines = list(model.log)
    if with_chat and model.chat:
        lines = sorted(lines + list(model.chat), key=lambda line: line.number)
    return lines


# ----------------------------------------------------------------------------------------- overlays

#: The overlays a key opens (their question, if any, stays under them): ? help, I rules, D details,
#: H the whole log, O settings.
PANELS: Final = ("help", "rules", "details", "log", "settings")

Lines = list[StyleAndTextTuples]


def panel(kind: str, model: GameModel, ui: UiState) -> tuple[str, Lines, str]:
    """An overlay's title, lines and footer."""
    if kind == "rules":
        return "RULES OF THIS TABLE", rules_panel(model), "↑↓ scroll · Esc or I closes"
    if kind == "details":
        return "DETAILS", details_lines(model), "Esc or D closes"
    if kind == "log":
        lines: Lines = [[(f"class:{line.style}" if line.style else "", line.text)]
                        for line in log_lines(model, with_chat=True)]
        return "LOG", lines or [[("class:dim", "(nothing yet)")]], "↑↓ PgUp PgDn scroll · Esc or H closes"
    if kind == "settings":
        return "SETTINGS", settings_lines(ui), "Esc or O closes (kept in the config file)"
    return "KEYS", [[("", line)] for line in help_lines(model, ui)], "Esc or ? closes"


def rules_panel(model: GameModel) -> Lines:
    """The rules overlay: the preset, the clock in words, then every option."""
    ruleset = model.settings.ruleset
    out: Lines = [[("class:you", f"preset: {ruleset.preset or 'standard'} · {stakes(ruleset)}")]]
    out += [[("class:dim", "clock: " + line)] for line in clock_lines(model.settings.clock)]
    out.append([])
    return out + rules_lines(ruleset)


def details_lines(model: GameModel) -> Lines:
    """What a calm screen keeps behind D: the table id, the fairness checks, latencies, the log head."""
    out: Lines = [[("", f"table id: {model.table_id or '?'}")]]
    where = "watching" if model.seat is None else f"seat {model.seat}"
    out.append([("", f"you: {where}" + (f" · round trip {model.round_trip * 1000:.0f} ms"
                                         if model.round_trip is not None else ""))])
    if model.fairness_failure:
        out.append([("class:fail", f"FAIRNESS CHECK FAILED: {model.fairness_failure}")])
    elif model.fairness_on:
        out.append([("class:ok", f"fair: {model.fairness_checks} checks passed (every commitment, opening, "
                                 "pile and seed so far)")])
        if model.shuffle_contributors:
            out.append([("class:dim", "  this round's shuffle mixed in the entropy of seats "
                                      + ", ".join(map(str, model.shuffle_contributors)))])
    elif model.settings.league_seeded:
        out.append([("class:dim", "dealt from a league's seed on purpose: nothing to verify")])
    else:
        out.append([("class:dim", "this table's shuffle is not verifiable (a plain seeded shuffle)")])
    if model.log_head:  # docs/fairness.md 8.2: the same head at the same number means the same history
        number, _, head = model.log_head.partition(":")
        out.append([("", f"log head at event {number}:")])
        out.append([("class:dim", f"  {head}")])
        out.append([("class:dim", "  (the same at the same event as another player's means you both saw the same "
                                  "game; `unonet verify --expect-head` checks it)")])
    out.append([])
    out.append([("class:you", "seats")])
    for seat in model.seats:
        state = "bot" if seat.is_bot else ("offline" if not seat.connected and seat.occupied else "")
        latency = f"{seat.latency_ms} ms" if seat.latency_ms else "-"
        line: StyleAndTextTuples = [("", f"  {seat.seat:>2} {(seat.name or '(empty)')[:16]:<16} {latency:>7}  "
                                         f"{seat.score:>5} pts  {state}")]
        if seat.strikes:
            line.append(("class:alert", "  " + strikes_words(seat.strikes, model.settings.clock)))
        out.append(line)
    return out


def settings_lines(ui: UiState) -> Lines:
    """The settings overlay: each setting, its key and its value."""
    def on(value: bool) -> str:
        return "on" if value else "off"

    return [
        [("", "K  colour-blind mode (letters on cards)  "), ("class:you", on(ui.colour_blind))],
        [("", "B  a bell when your turn starts          "), ("class:you", on(ui.bell))],
        [("", "T  the terminal's title says your turn   "), ("class:you", on(ui.title))],
        [("", "←→ the pace others' moves are shown at    "), ("class:you", f"{ui.pace:.1f} s a move")],
    ]


def scoreboard_panel(model: GameModel, board: Scoreboard) -> tuple[str, Lines, str]:
    """A round's scores: who went out, every seat's hand, round and total points, and each hand's cards
    where the room allows (the layout wraps nothing here: a hand too long is cut with …)."""
    winners = " and ".join(model.name_of(s) for s in board.winners)
    lines: Lines = [[("class:score", f"{winners} went out")],
                    [("class:dim", f"{'seat':<18}{'hand':>6}{'round':>7}{'total':>7}")]]
    hands = dict(board.hands)
    for line in board.lines:
        name = f"{line.seat} {model.name_of(line.seat)}"[:17]
        row: StyleAndTextTuples = [("class:you" if line.seat == model.seat else "",
                                    f"{name:<18}{line.hand_points:>6}{line.round_points:>7}{line.total:>7}"
                                    + ("  out" if line.eliminated else ""))]
        cards = hands.get(line.seat, ())
        if cards:
            shown = " ".join(card_label(face, letters=True) for face in cards)
            row.append(("class:dim", "  " + (shown if len(shown) <= 30 else shown[:29] + "…")))
        lines.append(row)
    lines.append([("class:dim", stakes(model.settings.ruleset))])
    return f"SCORES AFTER ROUND {board.round_number}", lines, "Space closes the scores"
