"""What each part of the game screen shows, as pure functions of the model, the screen state and a time.

Each function returns prompt-toolkit formatted text (a list of ``(style, text)`` pairs) for one region
of the layout (`unonet.client.tui.app`), so a test reads what the screen would say without a
terminal, and a replayed model renders exactly as a live one. `now` is the host's clock in seconds
(the local clock corrected by the offset the client's pings measured): every countdown is the host's
deadline minus it.

Cards are drawn as ``[R5]``: brackets mark a card that can be played now, ``>`` and ``<`` the chosen
one, ``*`` a marked one; the colour is the card's background, and with the colour-blind mode on (or
no colour at all) a letter R, G, B or Y says it too.
"""

from __future__ import annotations

from typing import Final

from prompt_toolkit.formatted_text import StyleAndTextTuples

from unonet.client.tui.controller import UiState, help_lines, sorted_hand
from unonet.client.tui.model import CardFace, ConnectionState, GameModel, Scoreboard, race_words, window_words
from unonet.v1 import cards_pb2, views_pb2

__all__ = [
    "STYLE",
    "card_label",
    "render_card",
    "render_hand",
    "render_header",
    "render_help",
    "render_hint",
    "render_log",
    "render_players",
    "render_scoreboard",
    "render_status",
    "render_table",
    "render_windows",
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

_COLOR_STYLE: Final[dict[int, str]] = {
    cards_pb2.COLOR_RED: "card.red", cards_pb2.COLOR_YELLOW: "card.yellow", cards_pb2.COLOR_GREEN: "card.green",
    cards_pb2.COLOR_BLUE: "card.blue", cards_pb2.COLOR_BLACK: "card.black",
}
_COLOR_LETTER: Final[dict[int, str]] = {
    cards_pb2.COLOR_RED: "R", cards_pb2.COLOR_YELLOW: "Y", cards_pb2.COLOR_GREEN: "G", cards_pb2.COLOR_BLUE: "B",
}
_COLOR_WORD: Final[dict[int, str]] = {
    cards_pb2.COLOR_RED: "red", cards_pb2.COLOR_YELLOW: "yellow", cards_pb2.COLOR_GREEN: "green",
    cards_pb2.COLOR_BLUE: "blue",
}
_RANK_LABEL: Final[dict[int, str]] = {
    cards_pb2.RANK_SKIP: "Skip", cards_pb2.RANK_REVERSE: "Rev", cards_pb2.RANK_DRAW_TWO: "+2",
    cards_pb2.RANK_WILD: "Wild", cards_pb2.RANK_WILD_DRAW_FOUR: "W+4", cards_pb2.RANK_BLANK: "Blank",
    cards_pb2.RANK_SOUND_WILD: "Sound", cards_pb2.RANK_PLUS_ONE: "W+1", cards_pb2.RANK_PLUS_TWO: "W+2",
}


def card_label(face: CardFace, *, letters: bool) -> str:
    """A card's short text: ``5``, ``Skip``, ``W+4``; with `letters`, its colour's letter first (``R5``)."""
    rank = str(face.rank - 1) if face.rank <= cards_pb2.RANK_NINE else _RANK_LABEL.get(face.rank, "?")
    return _COLOR_LETTER.get(face.color, "") + rank if letters else rank


def _card(face: CardFace, ui: UiState, *, legal: bool = False, chosen: bool = False,
          marked: bool = False) -> StyleAndTextTuples:
    label = card_label(face, letters=ui.colour_blind)
    body = f"[{label}]" if legal else f" {label} "
    style = _COLOR_STYLE.get(face.color, "")
    if legal:
        style += " class:card.legal"
    left, right = (">", "<") if chosen else ("*" if marked else " ", " ")
    return [("class:cursor" if chosen else "", left), (f"class:{style}" if style else "", body),
            ("class:cursor" if chosen else "", right)]


def render_card(face: CardFace, ui: UiState) -> StyleAndTextTuples:
    """One card as the hand draws an unplayable one (a replay's open hands use it)."""
    return _card(face, ui)


def _seconds_left(deadline: float | None, now: float) -> str:
    if deadline is None:
        return ""
    return f"{max(0.0, deadline - now):4.0f}s"


def render_header(model: GameModel, now: float) -> StyleAndTextTuples:
    """One line: the connection (first, so no width hides it), table, round, direction, seat, fairness."""
    parts: StyleAndTextTuples = []
    if model.connection != ConnectionState.CONNECTED:
        parts.append(("class:alert", f" {model.connection.upper()}… "))
    arrow = "↺ anticlockwise" if model.direction == views_pb2.DIRECTION_COUNTERCLOCKWISE else "↻ clockwise"
    who = "watching" if model.is_spectator else f"seat {model.seat}"
    parts.append(("class:header", f" {(model.table_name or model.table_id)[:16]} · round {model.round_number} · "
                                  f"{arrow} · {who} "))
    if model.fairness_failure:
        parts.append(("class:alert", f" FAIRNESS CHECK FAILED: {model.fairness_failure} "))
    elif model.fairness_on:
        parts.append(("class:ok", f" fair ✓{model.fairness_checks} "))
    elif model.settings.league_seeded:  # dealt from a league's seed, on purpose: nothing to verify
        parts.append(("class:dim", " league-seeded deal "))
    elif model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number:
        parts.append(("class:dim", " not started "))  # whether the deal will be verifiable is not known yet
    else:
        parts.append(("class:dim", " shuffle not verifiable "))
    if model.connection == ConnectionState.CONNECTED and model.round_trip is not None:
        parts.append(("class:dim", f" {model.round_trip * 1000:.0f} ms "))
    return parts


def render_players(model: GameModel, now: float) -> StyleAndTextTuples:
    """One line per seat: turn marker, name, cards, UNO, score, latency, clock, state."""
    out: StyleAndTextTuples = []
    for seat in model.seats:
        to_act = seat.seat == model.seat_to_act
        mark = "▶" if to_act else " "
        name = (seat.name or "(empty)")[:14]
        tags = []
        if seat.is_bot:
            tags.append("bot")
        if not seat.connected and not seat.is_bot and seat.occupied:
            tags.append("offline")
        if seat.taken_over:
            tags.append("taken over")
        if seat.eliminated:
            tags.append("out")
        if seat.time_bank >= 1 and to_act:
            tags.append(f"bank {seat.time_bank:.0f}s")
        if seat.strikes:
            tags.append(f"{seat.strikes} strike{'s' if seat.strikes > 1 else ''}")
        style = "class:turn" if to_act else ("class:you" if seat.seat == model.seat else "")
        out.append((style, f"{mark}{seat.seat:>2} {name:<14} {seat.hand_size:>3} cards "))
        out.append(("class:uno" if seat.called_uno else "", "UNO " if seat.called_uno else "    "))
        out.append(("", f"{seat.score:>5} pts "))
        out.append(("class:dim", f"{seat.latency_ms:>4}ms " if seat.latency_ms else "   -   "))
        out.append(("class:turn" if to_act else "", f"{_seconds_left(seat.deadline, now):>5} "))
        out.append(("class:dim", " ".join(tags)))
        out.append(("", "\n"))
    if out:
        out.pop()
    return out


def render_table(model: GameModel, ui: UiState) -> StyleAndTextTuples:
    """The top card, the colour in force, the piles and the open draw obligation."""
    out: StyleAndTextTuples = [("", " top: ")]
    if model.top_card is None:
        out.append(("class:dim", "(none yet)"))
    else:
        out += _card(model.top_card, ui)
    colour = _COLOR_WORD.get(model.current_color, "none")
    colour_style = _COLOR_STYLE.get(model.current_color, "")
    out += [("", "  colour: "), (f"class:{colour_style}" if colour_style else "", f" {colour} "),
            ("", f"  draw pile: {model.draw_pile_size}")]
    if model.obligation is not None:
        ob = model.obligation
        out.append(("class:alert", f"   {model.name_of(ob.target_seat)} must draw {ob.amount}"
                    + (" (or stack)" if model.settings.ruleset.stacking else "")
                    + (" — challengeable" if ob.challengeable else "")))
    if model.is_silenced:
        out.append(("class:alert", f"   SILENCE ({model.name_of(model.silence_seat)}'s 2): chat costs 2 cards"))
    return out


def render_windows(model: GameModel, now: float) -> StyleAndTextTuples:
    """Every open reaction window, loud, with its countdown; else the last race's result."""
    out: StyleAndTextTuples = []
    if model.connection != ConnectionState.CONNECTED:
        return out
    for window in model.windows.values():
        about = model.name_of(window.subject_seat) if window.HasField("subject_seat") else ""
        left = ""
        if window.HasField("deadline"):
            left = f" {max(0.0, window.deadline.seconds + window.deadline.nanos / 1e9 - now):.1f}s"
        action = _window_key(model, window)
        out.append(("class:window", f" ⚡ {window_words(window.kind).upper()} {about}{left} {action} "))
        out.append(("", " "))
    if not out and model.last_race is not None:
        out.append(("class:race", " last race: " + race_words(model, model.last_race)))
    return out


def _window_key(model: GameModel, window: views_pb2.ReactionWindow) -> str:
    if model.seat is None or model.seat not in window.eligible_seats:
        return ""
    kind = window.kind
    if kind in (views_pb2.REACTION_WINDOW_KIND_UNO_SLAP, views_pb2.REACTION_WINDOW_KIND_SOUND_WILD):
        return "— press B!"
    if kind == views_pb2.REACTION_WINDOW_KIND_UNO_CATCH:
        return "— U to call!" if window.subject_seat == model.seat else "— C to catch!"
    return "— Enter on a [card] to play it"


def render_hand(model: GameModel, ui: UiState, width: int) -> StyleAndTextTuples:
    """The seat's hand, scrolled to keep the chosen card in view (``‹``/``›`` say more cards hide)."""
    if model.is_spectator:
        return [("class:dim", " (watching: no hand)")]
    hand = sorted_hand(model)
    if not hand:
        return [("class:dim", " (no cards)")]
    # While the host is out of reach nothing is offered as playable: the options may be stale.
    playable = model.playable_faces() if model.connection == ConnectionState.CONNECTED else set()
    cells = [_card(face, ui, legal=face in playable, chosen=i == ui.cursor, marked=i in ui.marks)
             for i, face in enumerate(hand)]
    widths = [sum(len(text) for _, text, *_ in cell) for cell in cells]
    first, room = 0, max(10, width - 12)
    while sum(widths[first:ui.cursor + 1]) > room and first < ui.cursor:
        first += 1
    last = first
    while last < len(cells) and sum(widths[first:last + 1]) <= room:
        last += 1
    out: StyleAndTextTuples = [("class:dim", f" hand {len(hand):>2}:" + (" " if first == 0 else "‹"))]
    for cell in cells[first:last]:
        out += cell
    if last < len(cells):
        out.append(("class:dim", " ›"))
    return out


def render_status(model: GameModel, ui: UiState, now: float) -> StyleAndTextTuples:
    """One line saying what this moment (or the open prompt) asks of the player."""
    prompt = ui.prompt.under if ui.prompt is not None and ui.prompt.kind == "help" else ui.prompt
    asks = prompt is not None and prompt.kind in ("chat", "confirm_quit")  # typing, or about to quit: shown
    if model.connection != ConnectionState.CONNECTED and not asks:
        return [("class:alert", " " + _moment(model, ui, now))]  # what the link's state allows comes first
    if prompt is not None:
        text = {
            "color": "name the colour: R red, G green, B blue, Y yellow (Esc cancels)",
            "five_target": "give it to which seat? " + ", ".join(map(str, prompt.targets)) + " (Esc cancels)",
            "catch": "catch which seat? " + ", ".join(map(str, prompt.targets))
                     + (" — or C to challenge" if prompt.challenge else ""),
            "confirm_chat": "a silence is on: writing now costs you 2 cards. Send anyway? y/n",
            "confirm_leave": "leave the table for good? Your seat goes to a bot or is forfeited. y/n",
            "confirm_quit": f"quit? {prompt.text} y/n",
            "chat": "chat: type, Enter sends, Esc cancels",
        }.get(prompt.kind, "")
        if text:
            return [("class:turn", " " + text)]
    if ui.pending:  # the options on screen may be the ones the command just used up
        return [("class:dim", " sent — waiting for the host's answer…")]
    return [("class:turn" if model.is_my_turn else "", " " + _moment(model, ui, now))]


def render_hint(model: GameModel, ui: UiState) -> StyleAndTextTuples:
    """One line: the hint or refusal the last key got, else what the screen must say loudly."""
    if ui.hint:
        return [("class:hint", " " + ui.hint)]
    if model.notice:
        return [("class:alert", " " + model.notice)]
    return []


def _moment(model: GameModel, ui: UiState, now: float) -> str:
    legal = model.legal
    if model.connection == ConnectionState.GONE:
        return "no connection to this table any more — Q quits"
    if model.connection != ConnectionState.CONNECTED:
        return "reconnecting to the host… nothing can be played until it answers"
    if model.is_spectator:
        return f"watching — {model.name_of(model.seat_to_act)} to play"
    if model.match_over:
        return "the match is over — Q quits"
    if legal.choose_color:
        return "name the colour: R red, G green, B blue, Y yellow"
    if legal.swap_target_seats:
        return "swap hands with which seat? " + ", ".join(map(str, legal.swap_target_seats))
    if legal.give_cards:
        return "five swap: choose a card to give back, Enter gives it"
    if legal.HasField("five_swap") and legal.five_swap.target_seats:
        return "five swap: choose a card to give, Enter, then the seat (P declines)"
    if legal.react_window_ids:
        return "REACT NOW: press B (the slowest draws 2)"
    if legal.catch_uno_targets and not model.is_my_turn:
        who = " and ".join(model.name_of(s) for s in legal.catch_uno_targets)
        return f"{who} did not call UNO: C catches!"
    if model.is_my_turn and not (legal.plays or legal.HasField("draw") or legal.pass_turn):
        # The turn is ours but nothing is offered yet: a race blocks play, or the options are on their way.
        if any(window.blocks_play for window in model.windows.values()):
            return "your turn comes once the race above is decided"
        return "your turn: waiting for the host's options…"
    if model.is_my_turn:
        left = ""
        if legal.HasField("deadline"):
            left = f" ({max(0.0, legal.deadline.seconds + legal.deadline.nanos / 1e9 - now):.0f}s)"
        if legal.pass_turn:
            return f"YOUR TURN{left}: Enter plays the drawn card, P keeps it"
        if legal.HasField("draw") and legal.draw.accepts_obligation:
            extra = ", C challenges" if legal.challenge else ""
            plays = ", Enter answers with a card" if legal.plays else ""
            return f"YOUR TURN{left}: Space takes the {legal.draw.count} cards{plays}{extra}"
        uno = " · UNO armed" if ui.uno_armed else ""
        return f"YOUR TURN{left}: Enter plays, Space draws, ? help{uno}"
    if legal.call_uno:
        return "one card left: U calls UNO before someone catches you!"
    if model.phase == views_pb2.PHASE_SHUFFLE:
        return "shuffling (your share of the shuffle is sent for you)…"
    if model.phase == views_pb2.PHASE_ROUND_OVER:
        return "round over — the next one starts shortly"
    if model.seat_to_act is not None:
        return f"{model.name_of(model.seat_to_act)} to play · ? help"
    if model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number and model.seats:
        seated = f"waiting for players ({sum(s.occupied for s in model.seats)}/{len(model.seats)})"
        if ui.is_owner:
            return f"{seated} · S starts now with bots · A adds a bot"
        return f"{seated}: the match starts when every seat is taken · ? help"
    return "waiting · ? help"


def render_log(model: GameModel, height: int, scroll: int, *, with_chat: bool) -> StyleAndTextTuples:
    """The last `height` lines of the log (chat mixed in when `with_chat`), `scroll` lines back."""
    lines = list(model.log)
    if with_chat:
        lines = sorted(lines + list(model.chat), key=lambda line: line.number)
    end = max(0, len(lines) - scroll)
    shown = lines[max(0, end - height):end]
    out: StyleAndTextTuples = []
    for line in shown:
        out.append((f"class:{line.style}" if line.style else "", line.text + "\n"))
    return out


def render_chat(model: GameModel, height: int) -> StyleAndTextTuples:
    """The last `height` chat lines."""
    return [("class:chat", line.text + "\n") for line in list(model.chat)[-height:]]


def render_scoreboard(model: GameModel, board: Scoreboard) -> StyleAndTextTuples:
    """The scores after a round, or the final ones."""
    title = "FINAL SCORES" if board.final else f"SCORES AFTER ROUND {board.round_number}"
    winners = " and ".join(model.name_of(s) for s in board.winners)
    verb = "won the match" if board.final else "went out"
    out: StyleAndTextTuples = [("class:score", f" {title} — {winners} {verb}\n")]
    out.append(("", f" {'seat':<18}{'hand':>6}{'round':>7}{'total':>7}\n"))
    for line in board.lines:
        name = f"{line.seat} {model.name_of(line.seat)}"
        out.append(("class:you" if line.seat == model.seat else "",
                    f" {name:<18}{line.hand_points:>6}{line.round_points:>7}{line.total:>7}"
                    f"{'  out' if line.eliminated else ''}\n"))
    out.append(("class:dim", " Q quits" if board.final else " any key closes the scores (the next round goes on)"))
    return out


def render_help(model: GameModel, ui: UiState) -> StyleAndTextTuples:
    """The ? overlay: every key of this moment."""
    out: StyleAndTextTuples = [("class:score", " HELP\n")]
    out.extend(("", line + "\n") for line in help_lines(model, ui))
    if model.log_head:  # docs/fairness.md 8.2: the same head at the same number means the same history
        out.append(("class:dim", f" log head at event {model.log_head.replace(':', ': ', 1)}\n"
                                 " (compare it with the other players': a different one at the same event means "
                                 "the host showed you different games)\n"))
    return out
