"""The game screen as a card table: a pure function from the model, the screen state and a time to a canvas.

`draw_screen(model, ui, now, width, height)` draws the whole screen (the one window the application
shows, `unonet.client.tui.screen`):

- the header: the table, the preset, what is at stake, the round; a small ``✓ fair`` (a loud line on a
  failed check) and the keys that open the rest;
- the table: the opponents placed around a ring relative to this seat, in the order of play (the next
  seat clockwise on the left, then across, then the right: RULES.md seats k+1 on seat k's left), each
  a box with its name, cards, UNO state, connection, and the turn clock of the seat to act; arrowheads
  on the ring say the direction of play. In the middle the draw pile and the top card drawn large in its
  colour (its colour and rank in words on the card, so the colour-blind mode reads it too), who played
  it, the colour in force and any open draw obligation. Banners (`banners.py`) land on the seat or at
  the pile where something just happened, and go;
- this seat's label on the ring's bottom edge, and its hand below as cards: the playable ones raised,
  the chosen one drawn heavy;
- the status line (what this moment asks, and its keys), the hint line, and a short panel of the
  latest log lines (H opens the whole log). A large terminal gives the log and chat a column of their
  own and draws everything bigger.

Overlays (help, rules, details, the log, the scores) are boxes sized to their content and the screen,
scrolled with the arrows when longer than the room, never cut; the match's end is a screen of its own.
Three sizes: compact (from 80x24), comfortable (from 96x28), large (from 140x40).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from prompt_toolkit.formatted_text import StyleAndTextTuples

from unonet.client.tui import render
from unonet.client.tui.banners import PILE
from unonet.client.tui.canvas import HEAVY, ROUNDED, Canvas
from unonet.client.tui.controller import UiState, board_is_open, sorted_hand
from unonet.client.tui.model import CardFace, ConnectionState, GameModel, RoundResult, SeatModel
from unonet.client.tui.rules_text import stakes
from unonet.v1 import views_pb2

__all__ = ["Room", "draw_screen", "opponent_places", "room_for"]


@dataclass(frozen=True, slots=True)
class Room:
    """The sizes one terminal size gets: seat boxes, the top card's art, the log's rows or column."""

    name: str
    seat_width: int
    seat_height: int
    art_height: int
    art_width: int
    log_rows: int
    side_log: int  # the width of a log column at the right (0: the log is a panel at the bottom)


COMPACT: Final = Room("compact", 16, 3, 5, 9, 2, 0)
COMFORTABLE: Final = Room("comfortable", 20, 4, 7, 11, 3, 0)
LARGE: Final = Room("large", 24, 4, 9, 15, 0, 44)

HAND_ROWS: Final = 4  # a raised row and a card's three
MAX_TABLE_ROWS: Final = 28  # the most rows the table takes; a taller screen gives the rest to the log
CARD_WIDTH: Final = 5


def room_for(width: int, height: int) -> Room:
    """The layout size a terminal of `width` x `height` gets."""
    if width >= 140 and height >= 40:
        return LARGE
    if width >= 96 and height >= 28:
        return COMFORTABLE
    return COMPACT


#: Seats on the left, across and on the right for each number of opponents (clockwise from this seat).
_SIDES: Final = {1: (0, 1, 0), 2: (0, 2, 0), 3: (1, 1, 1), 4: (1, 2, 1), 5: (1, 3, 1), 6: (2, 2, 2),
                 7: (2, 3, 2), 8: (2, 4, 2), 9: (2, 5, 2)}


def opponent_places(model: GameModel) -> tuple[int | None, list[int], list[int], list[int]]:
    """Where the seats sit: this seat (at the bottom; seat 0 for a spectator), then the seats on the left
    (bottom to top), across (left to right) and on the right (top to bottom), in the order of play."""
    count = len(model.seats)
    if count == 0:
        return None, [], [], []
    me = model.seat if model.seat is not None and model.seat < count else 0
    others = [(me + k) % count for k in range(1, count)]
    left, top, _ = _SIDES.get(len(others), (0, len(others), 0))
    return me, others[:left], others[left:left + top], others[left + top:]


def _cls(*names: str) -> str:
    return " ".join(f"class:{name}" for name in names if name)


def _clock(deadline: float | None, now: float) -> str:
    return "" if deadline is None else f"{max(0.0, deadline - now):.0f}s"


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


# ------------------------------------------------------------------------------------------- screen


def draw_screen(model: GameModel, ui: UiState, now: float, width: int, height: int,
                extra_panel: StyleAndTextTuples | None = None) -> tuple[Canvas, int]:
    """The whole game screen at `width` x `height` (see the module docstring), and the open overlay's
    scroll as far as its lines go (the screen keeps it, so scrolling back up starts from the end)."""
    canvas = Canvas(width, height)
    room = room_for(width, height)
    canvas.put_fragments(0, 0, _header(model, ui, width))
    panel_lines = _panel_lines(extra_panel, width) if extra_panel else []
    hand_rows = HAND_ROWS if not model.is_spectator else 1  # a spectator has no hand: one line says so
    log_rows = room.log_rows
    bottom = hand_rows + 2 + log_rows + len(panel_lines)
    if height - 1 - bottom < 9:  # a short terminal: the log panel goes first, the table keeps its room
        log_rows = max(0, log_rows - (9 - (height - 1 - bottom)))
        bottom = hand_rows + 2 + log_rows + len(panel_lines)
    if room.side_log and height - 1 - bottom > MAX_TABLE_ROWS:  # a tall terminal: the log gets what a table
        log_rows += height - 1 - bottom - MAX_TABLE_ROWS     # taller than a glance takes in would waste
        bottom = hand_rows + 2 + log_rows + len(panel_lines)
    table_width = width - room.side_log - 1 if room.side_log else width
    top, table_bottom = 1, max(1, height - bottom - 1)
    status_row = height - 2 - log_rows - len(panel_lines)
    if model.match_over and model.scoreboard is not None and model.scoreboard.final:
        _match_end(canvas, model, ui, top, status_row - 1, table_width)
    else:
        _table(canvas, model, ui, now, room, top, table_bottom, table_width)
        _hand(canvas, model, ui, table_bottom + 1, table_width)
    canvas.put_fragments(status_row, 0, render.render_status(model, ui, now))
    canvas.put_fragments(status_row + 1, 0, render.render_hint(model, ui))
    for i, line in enumerate(panel_lines):
        canvas.put_fragments(status_row + 2 + i, 0, line)
    if log_rows:
        _log_panel(canvas, model, ui, height - log_rows, log_rows, table_width, with_chat=not room.side_log)
    if room.side_log:
        _side_column(canvas, model, table_width, 1, height - 1, room.side_log)
    scroll = _overlays(canvas, model, ui, now, 1, status_row - 1, table_width if room.side_log else width)
    return canvas, scroll


def _panel_lines(panel: StyleAndTextTuples, width: int) -> list[StyleAndTextTuples]:
    lines: list[StyleAndTextTuples] = [[]]
    for style, text, *_ in panel:
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part:
                lines[-1].append((style, part[:width]))
    return [line for line in lines if line] if any(lines) else []


def _header(model: GameModel, ui: UiState, width: int) -> StyleAndTextTuples:
    """The first line: the link's state, the table, preset, stakes and round; fairness and keys at the right."""
    left: StyleAndTextTuples = []
    if model.connection != ConnectionState.CONNECTED:
        left.append(("class:alert", f" {model.connection.upper()}… "))
    right: StyleAndTextTuples
    if model.fairness_failure:
        right = [("class:fail", " FAIRNESS CHECK FAILED — D details ")]
    else:
        mark = " ✓ fair " if model.fairness_on else " league deal " if model.settings.league_seeded else ""
        keys = " ? keys · I rules " if not ui.read_only else " ? keys "
        right = [("class:ok.header", mark), ("class:header.dim", keys)]
    name = (model.table_name or model.table_id or "unonet")[:24]
    ruleset = model.settings.ruleset
    preset = [ruleset.preset] if ruleset.preset else []
    stakes_round = [stakes(ruleset)] if model.settings.seat_count else []
    if model.round_number:
        stakes_round.append(f"round {model.round_number}")
    state = sum(len(text) for _, text, *_ in left)
    # Narrow, the table's name gives way first, then the preset, then the keys' reminder: the stakes and
    # the round stay (and the fairness mark).
    whole = state + len(" " + " · ".join([name, *preset, *stakes_round]) + " ") + sum(len(t) for _, t, *_ in right)
    short = name[:max(4, len(name) - (whole - width) - 1)] + "…" if whole > width else name
    choices = [([name, *preset, *stakes_round], right), ([short, *preset, *stakes_round], right),
               ([short, *stakes_round], right), (stakes_round, right), (stakes_round, right[:1])]
    for parts, marks in choices:
        text = " " + " · ".join(part for part in parts if part) + " "
        if state + len(text) + sum(len(t) for _, t, *_ in marks) <= width:
            break
    right = marks
    left.append(("class:header", text))
    used = state + len(text)
    room = sum(len(t) for _, t, *_ in right)
    return [*left, ("class:header", " " * max(0, width - used - room)), *right]


# -------------------------------------------------------------------------------------------- table


def _table(canvas: Canvas, model: GameModel, ui: UiState, now: float, room: Room, top: int, bottom: int,
           width: int) -> None:
    """Seats around the ring, and the pile in the middle, between rows `top` and `bottom` (inclusive)."""
    me, left, across, right = opponent_places(model)
    box_h = room.seat_height
    side_w = min(room.seat_width, max(12, (width - 30) // 3)) if (left or right) else 0
    ring_left = side_w + 1 if side_w else 2
    ring_right = width - (side_w + 2) if side_w else width - 3
    ring_top = top + box_h if across else top
    ring_bottom = bottom
    if ring_bottom - ring_top < 4:
        ring_top = max(top, ring_bottom - 4)
    turn = model.seat_to_act
    ring_style = "class:ring"
    canvas.box(ring_top, ring_left, ring_bottom - ring_top + 1, ring_right - ring_left + 1, ring_style)
    _direction_marks(canvas, model, ring_top, ring_bottom, ring_left, ring_right)
    # Across: spread along the top, left to right.
    if across:
        slot = width // len(across)
        box_w = min(room.seat_width + (4 if len(across) <= 2 else 0), slot - 1)
        for i, seat in enumerate(across):
            col = i * slot + (slot - box_w) // 2
            _seat_box(canvas, model, model.seats[seat], now, top, col, box_h, box_w, seat == turn)
    # Left, bottom to top; right, top to bottom: spread over the ring's height.
    for column, seats, upwards in ((0, left, True), (width - side_w, right, False)):
        if not seats:
            continue
        span = ring_bottom - ring_top + 1
        step = max(box_h, span // len(seats))
        rows = [ring_top + i * step + (step - box_h) // 2 for i in range(len(seats))]
        for seat, row in zip(reversed(seats) if upwards else seats, rows, strict=True):
            _seat_box(canvas, model, model.seats[seat], now, min(row, ring_bottom - box_h + 1), column, box_h,
                      side_w, seat == turn)
    if me is not None:
        _my_label(canvas, model, model.seats[me], now, ring_bottom, ring_left, ring_right, me == turn)
    _centre(canvas, model, ui, now, room, ring_top + 1, ring_bottom - 1, ring_left + 2, ring_right - 2)


def _direction_marks(canvas: Canvas, model: GameModel, top: int, bottom: int, left: int, right: int) -> None:
    """Arrowheads along the ring in the direction of play (clockwise: along the top to the right)."""
    clockwise = model.direction != views_pb2.DIRECTION_COUNTERCLOCKWISE
    style = "class:ring.arrow"
    across, down = ("▶", "▼") if clockwise else ("◀", "▲")
    back, up = ("◀", "▲") if clockwise else ("▶", "▼")
    width = right - left
    for x in range(left + 6, right - 4, 12):
        canvas.put(top, x, across, style)
        if width > 40:
            canvas.put(bottom, x, back, style) if not (left + width // 2 - 22 < x < left + width // 2 + 22) else None
    for y in range(top + 2, bottom - 1, 4):
        canvas.put(y, right, down, style)
        canvas.put(y, left, up, style)
    word = " ↻ clockwise " if clockwise else " ↺ anticlockwise "
    if width > len(word) + 20:
        canvas.put(top, left + 2, word, "class:ring.word")


def _seat_box(canvas: Canvas, model: GameModel, seat: SeatModel, now: float, row: int, col: int, height: int,
              width: int, to_act: bool) -> None:
    """One opponent: name (and the clock when it is to act) on the top edge, cards and state inside, a
    banner on the bottom edge while one lasts."""
    style = "class:seat.turn" if to_act else "class:seat.out" if seat.eliminated else "class:seat"
    canvas.box(row, col, height, width, style, HEAVY if to_act else ROUNDED)
    inner = width - 4
    name = seat.name or ("(empty)" if not seat.occupied else f"seat {seat.seat}")
    clock = _clock(seat.deadline, now) if to_act else ""
    room = inner - (len(clock) + 2 if clock else 0)
    label = ("▶ " if to_act and len(name) + 2 < room else "") + name
    canvas.put(row, col + 2, f" {label[:max(1, room - 1)]} ", style)
    if clock:
        canvas.put(row, col + width - 4 - len(clock), f" {clock} ", "class:clock")
    line: StyleAndTextTuples = []
    if _before_the_deal(model):
        line.append(("class:dim", "seated" if seat.occupied else "free seat"))
    elif seat.occupied or seat.hand_size:
        line.append(("", _cards(seat.hand_size)))
        if seat.called_uno:
            line.append(("class:uno", " UNO!"))
    tags = []
    if seat.eliminated:
        tags.append("out")
    elif seat.taken_over:
        tags.append("bot now")
    elif not seat.connected and seat.occupied and not seat.is_bot:
        tags.append("offline")
    elif seat.is_bot:
        tags.append("bot")
    if tags:
        line.append(("class:dim", " " + " ".join(tags)))
    _put_clipped(canvas, row + 1, col + 2, line, inner)
    if height >= 4:
        more: StyleAndTextTuples = [("class:dim", f"{seat.score} pts")]
        if seat.strikes:  # the strikes say where they lead; the score gives way when both do not fit
            strikes = _strikes(model, seat.strikes)
            more = [*more, ("class:alert", " " + strikes)] if len(more[0][1]) + 1 + len(strikes) <= inner \
                else [("class:alert", strikes)]
        _put_clipped(canvas, row + 2, col + 2, more, inner)
    elif seat.strikes:
        _put_clipped(canvas, row + 1, col + width - 5, [("class:alert", f" {seat.strikes}✗")], 3)
    banner = model.banner_at(seat.seat, now)
    if banner is not None:
        text = f" {banner.text[:inner - 1]} "
        canvas.put(row + height - 1, col + max(1, (width - len(text)) // 2), text, f"class:{banner.style}")


def _before_the_deal(model: GameModel) -> bool:
    return model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number


def _strikes(model: GameModel, strikes: int) -> str:
    """A seat's strikes, where a strike leads in a few words: "2 of 3 strikes" (D explains them whole)."""
    limit = model.settings.clock.strikes_before_takeover
    return f"{strikes} of {limit} strikes" if limit else f"{strikes} strike{'s' * (strikes != 1)}"


def _put_clipped(canvas: Canvas, row: int, col: int, line: StyleAndTextTuples, room: int) -> None:
    for style, text, *_ in line:
        if room <= 0:
            return
        canvas.put(row, col, text[:room], style)
        col += min(len(text), room)
        room -= len(text)


def _my_label(canvas: Canvas, model: GameModel, seat: SeatModel, now: float, row: int, left: int, right: int,
              to_act: bool) -> None:
    """This seat on the ring's bottom edge: name, cards, UNO, score, and its clock when it is to act."""
    clock = _clock(seat.deadline, now) if to_act else ""
    cards = _cards(len(model.hand) if seat.seat == model.seat else seat.hand_size)
    room = right - left - 3
    parts: StyleAndTextTuples = []
    parts_before: StyleAndTextTuples = []
    name = seat.name or f"seat {seat.seat}"
    for keep_score, strikes_in_full, cut in ((True, True, 0), (False, True, 0), (False, False, 0),
                                             (False, False, 1)):  # the clock stays; the name goes last
        parts = [("class:seat.turn", " ▶")] if to_act else []
        who = name
        if cut:
            over = sum(len(text) for _, text, *_ in parts_before) - room
            who = name[:max(3, len(name) - over - 1)] + "…" if over > 0 else name
        parts.append(("class:you", f" {who}" + (" (you)" if seat.seat == model.seat else "")))
        if _before_the_deal(model):
            parts.append(("", " "))
            break
        parts.append(("class:ring", f" · {cards}"))
        if seat.called_uno:
            parts.append(("class:uno", " · UNO!"))
        if keep_score:
            parts.append(("class:ring", f" · {seat.score} pts"))
        if seat.strikes:
            parts.append(("class:alert", f" · {_strikes(model, seat.strikes)}" if strikes_in_full
                          else f" · {seat.strikes}✗"))
        if clock:
            parts.append(("class:clock", f" · {clock}"))
        parts.append(("", " "))
        if sum(len(text) for _, text, *_ in parts) <= room:
            break
        parts_before = parts
    length = sum(len(text) for _, text, *_ in parts)
    col = left + max(1, (right - left + 1 - length) // 2)
    canvas.put_fragments(row, col, parts)
    banner = model.banner_at(seat.seat, now)
    if banner is not None:
        text = f" {banner.text} "
        canvas.put(row - 1, left + max(1, (right - left + 1 - len(text)) // 2), text, f"class:{banner.style}")


# ------------------------------------------------------------------------------------------- centre


def _centre(canvas: Canvas, model: GameModel, ui: UiState, now: float, room: Room, top: int, bottom: int,
            left: int, right: int) -> None:
    """Inside the ring: a race's call, a banner at the pile, the draw pile and top card, what they mean."""
    width = right - left + 1
    rows = bottom - top + 1
    row = top
    windows = render.render_windows(model, now)
    if windows:
        text = "".join(t for _, t, *_ in windows).strip()
        canvas.put(row, left + max(0, (width - len(text)) // 2), text[:width], "class:window")
        row += 1
    banner = model.banner_at(PILE, now)
    if banner is not None:
        text = f" {banner.text} "
        canvas.put(row, left + max(0, (width - len(text)) // 2), text[:width], f"class:{banner.style}")
    row += 1
    if model.top_card is None and model.phase == views_pb2.PHASE_WAITING_FOR_PLAYERS and not model.round_number:
        _waiting(canvas, model, row, bottom, left, width)
        return
    art_h = min(room.art_height, max(3, rows - (row - top) - 2))
    art_w = room.art_width if art_h == room.art_height else min(room.art_width, 9)
    info = _pile_info(model, ui)
    info_w = max((sum(len(t) for _, t, *_ in line) for line in info), default=0)
    group = art_w * 2 + 2 + (2 + min(info_w, width - art_w * 2 - 4) if info_w else 0)
    col = left + max(0, (width - group) // 2)
    art_top = row + max(0, (bottom - row + 1 - art_h - 1) // 2)
    _draw_pile(canvas, model, art_top, col, art_h, art_w)
    _top_card(canvas, model, ui, art_top, col + art_w + 2, art_h, art_w)
    info_col = col + 2 * art_w + 4
    for i, line in enumerate(info[:art_h + 1]):
        _put_clipped(canvas, art_top + i, info_col, line, right - info_col + 1)
    if model.revealed is not None and model.revealed[2] <= now < model.revealed[2] + 8.0:
        seat, faces, _ = model.revealed
        shown = " ".join(render.card_label(face, letters=True) for face in faces)
        canvas.put(min(bottom, art_top + art_h + 1), left, f"{model.name_of(seat)} held: {shown}"[:width],
                   "class:race")


def _waiting(canvas: Canvas, model: GameModel, row: int, bottom: int, left: int, width: int) -> None:
    seated = sum(s.occupied for s in model.seats)
    lines = [(f"waiting for players: {seated} of {len(model.seats)} seats taken", "class:you")]
    if model.invite:  # the address friends dial: wrapped whole, never cut
        lines += [(part, "class:hint") for part in textwrap.wrap(model.invite, max(10, width - 2))]
    mid = row + max(0, (bottom - row + 1 - len(lines)) // 2)
    for i, (text, style) in enumerate(lines):
        canvas.put(mid + i, left + max(0, (width - len(text)) // 2), text[:width], style)


def _pile_info(model: GameModel, ui: UiState) -> list[StyleAndTextTuples]:
    """The lines beside the top card: the colour in force, who played it, an open obligation, a silence."""
    out: list[StyleAndTextTuples] = []
    if model.current_color:
        word = render.COLOR_WORD.get(model.current_color, "?")
        out.append([("", "colour "), (_cls(render.COLOR_STYLE.get(model.current_color, "")), f" {word} ")])
    elif model.top_card is not None:
        out.append([("class:dim", "any colour")])
    play = model.last_play
    if play is not None:
        who = "you" if play.seat == model.seat else model.name_of(play.seat)
        verb = " jumped in" if play.kind == 2 else " cut the run" if play.kind == 3 else " played"
        out.append([("class:you", who), ("", verb)])
        if len(play.cards) > 1:
            out.append([("class:dim", " ".join(render.card_label(face, letters=True) for face in play.cards))])
    elif model.top_card is not None:
        out.append([("class:dim", "turned first")])
    ob = model.obligation
    if ob is not None:
        target = "you" if ob.target_seat == model.seat else model.name_of(ob.target_seat)
        out.append([("class:alert", f"+{ob.amount} on {target}")])
        options = []
        if ob.challengeable:
            options.append("challengeable" + (" (C)" if ob.target_seat == model.seat else ""))
        if model.settings.ruleset.stacking:
            options.append("or stack")
        if options:
            out.append([("class:alert", ", ".join(options))])
    if model.is_silenced:
        out.append([("class:alert", "silence: chat costs 2")])
    return out


def _draw_pile(canvas: Canvas, model: GameModel, row: int, col: int, height: int, width: int) -> None:
    style = "class:card.back"
    canvas.box(row, col, height, width, style, fill=style)
    for y in range(row + 1, row + height - 1):
        canvas.put(y, col + 1, "░" * (width - 2), style)
    canvas.put(row + height // 2, col + (width - 5) // 2, " UNO ", "class:card.back.word")
    count = f"{model.draw_pile_size} left"
    canvas.put(row + height, col + max(0, (width - len(count)) // 2), count, "class:dim")


def _top_card(canvas: Canvas, model: GameModel, ui: UiState, row: int, col: int, height: int, width: int) -> None:
    face = model.top_card
    if face is None:
        canvas.box(row, col, height, width, "class:dim")
        canvas.put(row + height // 2, col + (width - 5) // 2, "empty", "class:dim")
        return
    style = _cls(render.COLOR_STYLE.get(face.color, "card.black"))
    canvas.box(row, col, height, width, style, fill=style)
    corner = render.card_glyph(face, letters=False)
    colour = render.COLOR_WORD.get(face.color, "")
    words = [render.rank_word(face)] + ([colour.upper()] if colour else [])
    inner = height - 2
    if inner < 2:
        words = [render.card_glyph(face, letters=True)]
    elif inner >= 5:  # room for the corners: the rank top left and bottom right, as on a real card
        canvas.put(row + 1, col + 2, corner, style)
        canvas.put(row + height - 2, col + width - 2 - len(corner), corner, style)
    first = row + 1 + max(0, (inner - len(words)) // 2)
    for i, word in enumerate(words[:inner]):
        text = word[:width - 2]
        canvas.put(first + i, col + (width - len(text)) // 2, text, style)


# --------------------------------------------------------------------------------------------- hand


def _hand(canvas: Canvas, model: GameModel, ui: UiState, row: int, width: int) -> None:
    """This seat's cards along the bottom: playable ones raised a row, the chosen one drawn heavy."""
    if model.is_spectator:
        if not ui.read_only:  # a replay's hands, when it shows them, are in its own panel
            text = "watching: no hand of your own"
            canvas.put(row, (width - len(text)) // 2, text, "class:dim")
        return
    hand = sorted_hand(model)
    if not hand:
        text = "your cards come with the deal" if _before_the_deal(model) else "no cards"
        canvas.put(row + 1, (width - len(text)) // 2, text, "class:dim")
        return
    playable = model.playable_faces() if model.connection == ConnectionState.CONNECTED else set()
    step = CARD_WIDTH + 1 if len(hand) * (CARD_WIDTH + 1) <= width - 4 else CARD_WIDTH
    fits = max(1, (width - 4) // step)
    first = 0
    if len(hand) > fits:
        first = min(max(0, ui.cursor - fits // 2), len(hand) - fits)
    shown = hand[first:first + fits]
    total = len(shown) * step
    col = max(2, (width - total) // 2)
    for i, face in enumerate(shown, start=first):
        raised = face in playable
        _hand_card(canvas, face, ui, row if raised else row + 1, col, chosen=i == ui.cursor, marked=i in ui.marks,
                   playable=raised)
        col += step
    if first:
        canvas.put(row + 2, 0, "‹", "class:dim")
    if first + fits < len(hand):
        canvas.put(row + 2, width - 1, "›", "class:dim")


def _hand_card(canvas: Canvas, face: CardFace, ui: UiState, row: int, col: int, *, chosen: bool, marked: bool,
               playable: bool) -> None:
    style = _cls(render.COLOR_STYLE.get(face.color, "card.black"), "card.chosen" if chosen else "")
    canvas.box(row, col, 3, CARD_WIDTH, style, HEAVY if chosen else ROUNDED, fill=style)
    label = render.card_glyph(face, letters=ui.colour_blind)
    canvas.put(row + 1, col + 1 + (3 - len(label)) // 2, label, style)
    if marked:
        canvas.put(row, col + 2, "•", style)
    if not playable and not chosen:
        canvas.restyle(row, col, CARD_WIDTH, style + " class:card.rest")


# ---------------------------------------------------------------------------------------------- log


def _log_panel(canvas: Canvas, model: GameModel, ui: UiState, row: int, rows: int, width: int, *,
               with_chat: bool) -> None:
    """The latest lines of the log, newest at the bottom (H opens the whole of it)."""
    lines = render.log_lines(model, with_chat=with_chat)
    for i, line in enumerate(lines[-rows:]):
        canvas.put(row + i, 1, line.text[:width - 9], f"class:{line.style}" if line.style else "class:log")
    canvas.put(row + rows - 1, width - 7, " H log", "class:dim")


def _side_column(canvas: Canvas, model: GameModel, col: int, top: int, bottom: int, width: int) -> None:
    """A large screen's right column: every seat's score, then the chat."""
    for y in range(top, bottom + 1):
        canvas.put(y, col, "│", "class:dim")
    row = top
    canvas.put(row, col + 2, "scores", "class:score")
    row += 1
    for seat in sorted(model.seats, key=lambda s: -s.score):
        name = ("you" if seat.seat == model.seat else seat.name or f"seat {seat.seat}")[:18]
        won = sum(r.winner == seat.seat for r in model.rounds)
        line = f"{name:<18}{seat.score:>6} pts" + (f"  {won} round{'s' * (won != 1)}" if won else "")
        canvas.put(row, col + 2, line[:width - 3], "class:you" if seat.seat == model.seat else "")
        row += 1
    row += 1
    canvas.put(row, col + 2, "chat · T writes", "class:score")
    rows = bottom - row
    wrapped: list[str] = []
    for said in list(model.chat)[-rows:]:
        wrapped += textwrap.wrap(said.text, width - 3) or [""]
    for i, text in enumerate(wrapped[-rows:]):
        canvas.put(row + 1 + i, col + 2, text, "class:chat")
    if not model.chat:
        canvas.put(row + 1, col + 2, "(nothing said yet)", "class:dim")


# ----------------------------------------------------------------------------------------- overlays


def _overlays(canvas: Canvas, model: GameModel, ui: UiState, now: float, top: int, bottom: int, width: int) -> int:
    prompt = ui.prompt
    kind = prompt.kind if prompt is not None else ""
    board = model.scoreboard
    if kind == "log":  # the log opens at its end: its scroll counts lines back from there
        title, lines, footer = render.panel(kind, model, ui)
        back = max(0, min(ui.panel_scroll, len(lines) - 1))
        draw_overlay(canvas, title, lines[:len(lines) - back], footer, top, bottom, width, 1 << 30)
        return back
    if kind in render.PANELS:
        title, lines, footer = render.panel(kind, model, ui)
        return draw_overlay(canvas, title, lines, footer, top, bottom, width, ui.panel_scroll)
    if board is not None and board_is_open(model, ui) and not board.final and prompt is None:
        title, lines, footer = render.scoreboard_panel(model, board)
        draw_overlay(canvas, title, lines, footer, top, bottom, width, 0)
    return 0


def draw_overlay(canvas: Canvas, title: str, lines: Sequence[StyleAndTextTuples], footer: str, top: int,
                 bottom: int, width: int, scroll: int) -> int:
    """A box of `lines` centred between rows `top` and `bottom`, wrapped to fit; when it is longer than the
    room it shows `scroll` lines down, with ↑/↓ marks on its border. Returns the scroll actually used."""
    box_w = min(width - 2, max([len(title) + 6, len(footer) + 6,
                                *(sum(len(t) for _, t, *_ in line) + 4 for line in lines)]))
    inner = box_w - 4
    rows = _wrap(lines, inner)
    room = max(1, bottom - top + 1 - 2)
    box_h = min(room, len(rows)) + 2
    scroll = max(0, min(scroll, len(rows) - (box_h - 2)))
    row = top + max(0, (bottom - top + 1 - box_h) // 2)
    col = max(0, (width - box_w) // 2)
    canvas.box(row, col, box_h, box_w, "class:overlay.edge", fill="class:overlay")
    canvas.put(row, col + 2, f" {title} "[:box_w - 4], "class:overlay.title")
    for i, line in enumerate(rows[scroll:scroll + box_h - 2]):
        canvas.put(row + 1 + i, col + 1, " " * (box_w - 2), "class:overlay")
        _put_clipped(canvas, row + 1 + i, col + 2, [(f"class:overlay {s}" if s else "class:overlay", t)
                                                    for s, t, *_ in line], inner)
    marks = []
    if scroll:
        marks.append("↑ more")
    if scroll + box_h - 2 < len(rows):
        marks.append("↓ more")
    tail = (" · ".join(marks) + (" · " if marks and footer else "") + footer)[:box_w - 4]
    if tail:
        canvas.put(row + box_h - 1, col + box_w - 3 - len(tail), f" {tail} ", "class:overlay.title")
    return scroll


def _wrap(lines: Sequence[StyleAndTextTuples], width: int) -> list[StyleAndTextTuples]:
    """Lines longer than `width` wrapped at spaces (styles kept), the rest indented under the first's."""
    out: StyleAndTextTuples = []
    rows: list[StyleAndTextTuples] = []
    for line in lines:
        cells = [(style, char) for style, text, *_ in line for char in text]
        if len(cells) <= width:
            rows.append(line)
            continue
        indent = next((i for i, (_, char) in enumerate(cells) if char != " "), 0) + 2
        first = True
        while cells:
            room = width if first else width - indent
            if len(cells) <= room:
                cut = len(cells)
            else:
                cut = next((i for i in range(room, 0, -1) if cells[i][1] == " "), room)
            out = [] if first else [("", " " * indent)]
            for style, char in cells[:cut]:
                if out and out[-1][0] == style:
                    out[-1] = (style, out[-1][1] + char)
                else:
                    out.append((style, char))
            rows.append(out)
            cells = cells[cut:]
            while cells and cells[0][1] == " ":
                cells = cells[1:]
            first = False
    return rows


# ---------------------------------------------------------------------------------------- match end


def _match_end(canvas: Canvas, model: GameModel, ui: UiState, top: int, bottom: int, width: int) -> None:
    """The match's end, a screen of its own: who won, the totals, every round's points."""
    board = model.scoreboard
    assert board is not None
    winners = " and ".join("you" if s == model.seat else model.name_of(s) for s in board.winners)
    verb = "win" if winners == "you" else "wins" if len(board.winners) == 1 else "win"
    title = f"{winners} {verb} the match".upper() if winners else "THE MATCH IS OVER"
    row = top + 1
    canvas.put(row, max(0, (width - len(title) - 4) // 2), f"★ {title} ★", "class:score.big")
    row += 1
    sub = stakes(model.settings.ruleset) + (f" · {len(model.rounds)} round{'s' * (len(model.rounds) != 1)}"
                                            if model.rounds else "")
    canvas.put(row, max(0, (width - len(sub)) // 2), sub, "class:dim")
    row += 2
    order = sorted(board.lines, key=lambda line: (line.seat not in board.winners, -line.total
                                                  if model.settings.ruleset.scoring in (0, 1) else line.total))
    rounds = model.rounds[-max(0, (width - 34) // 6):] if model.rounds else []
    head = f"{'':<3}{'player':<18}{'total':>7}" + "".join(f"{'r' + str(r.round_number):>6}" for r in rounds)
    col = max(0, (width - len(head)) // 2)
    canvas.put(row, col, head, "class:dim")
    row += 1
    for place, line in enumerate(order, start=1):
        if row > bottom:
            break
        name = ("you" if line.seat == model.seat else model.name_of(line.seat))[:17]
        points = "".join(f"{_round_points(r, line.seat):>6}" for r in rounds)
        style = "class:score" if line.seat in board.winners else "class:you" if line.seat == model.seat else ""
        text = f"{place:<3}{name:<18}{line.total:>7}{points}" + ("  out" if line.eliminated else "")
        canvas.put(row, col, text, style)
        row += 1
    saved: list[str] = []
    if ui.saved_replay:  # the whole path, wrapped: a person types it or copies it
        saved = textwrap.wrap("replay saved: " + ui.saved_replay, max(20, width - 2), break_on_hyphens=False)
        for i, part in enumerate(saved):
            canvas.put(bottom - len(saved) + 1 + i, 1, part, "class:hint")
    bottom -= len(saved)
    if rounds:
        row += 1
        for r in rounds[-max(0, bottom - row + 1):]:
            if row > bottom:
                break
            gained = _round_points(r, r.winner)
            text = f"round {r.round_number}: {model.name_of(r.winner)} went out" + (
                f" (+{gained})" if gained.isdigit() and gained != "0" else "")
            canvas.put(row, col, text[:width], "class:dim")
            row += 1


def _round_points(result: RoundResult, seat: int) -> str:
    for line in result.lines:
        if line.seat == seat:
            return str(line.round_points) if line.round_points else "·"
    return ""


#: The layout's own style classes, added to `render.STYLE` by the screen.
STYLE: Final = {
    "ring": "#6a8a6a",
    "ring.arrow": "#9fd49f bold",
    "ring.word": "#6a8a6a",
    "seat": "#a0a0a0",
    "seat.turn": "#ffcc00 bold",
    "seat.out": "#555555",
    "clock": "#ffcc00 bold",
    "banner": "bg:#444466 #ffffff bold",
    "quiet": "#c8c8e8",
    "card.back": "bg:#1a1a1a #aa3333",
    "card.back.word": "bg:#aa2222 #ffffff bold",
    "card.chosen": "bold",
    "card.rest": "",
    "fail": "bg:#cc0000 #ffffff bold",
    "ok.header": "bg:#333355 #88ff88",
    "header.dim": "bg:#333355 #aaaacc",
    "overlay.edge": "bg:#202030 #8888aa",
    "overlay.title": "bg:#202030 #ffcc66 bold",
    "score.big": "bold #ffcc00",
    "log": "#b0b0b0",
}

