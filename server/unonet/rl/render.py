"""The table as text, for `render_mode="ansi"`: every hand shown, for people watching a learner play."""

from __future__ import annotations

from unonet.rl.actions import ACTION_NAMES
from unonet.rl.table import LearningTable

__all__ = ["render_table"]


def render_table(table: LearningTable) -> str:
    """Round, pile, colour, direction, obligation, open windows, each hand, and who is asked to do what."""
    game = table.game
    color = game.color.value if game.color is not None else "none"
    lines = [
        f"round {game.round_no}, dealer {game.dealer}, {'clockwise' if game.direction == 1 else 'counter-clockwise'}",
        f"top: {game.top}   colour: {color}   draw pile: {len(game.draw_pile)}   phase: {game.phase.value}",
    ]
    obligation = game.obligation
    if obligation is not None:
        lines.append(
            f"obligation: seat {obligation.target} owes {obligation.amount} ({obligation.kind.value}, "
            f"set by seat {obligation.setter})"
        )
    for window in game.windows.values():
        lines.append(f"window {window.id}: {window.kind.value}, open to seats {list(window.eligible)}")
    for seat, hand in enumerate(game.hands):
        marks = []
        if seat == game.current:
            marks.append("turn")
        if seat in game.catchable:
            marks.append("catchable")
        if not game.in_play[seat]:
            marks.append("out")
        suffix = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"seat {seat}{suffix}: {', '.join(str(card) for card in hand)}")
    if table.seat is None:
        if table.truncated:
            lines.append(f"cut short after {table.steps} steps")
        else:
            lines.append(f"seat {game.winner} won; rewards {table.rewards}")
    else:
        what = "decides" if table.required else "is offered a chance"
        options = "; ".join(ACTION_NAMES[index] for index in sorted(table.legal))
        lines.append(f"seat {table.seat} {what}: {options}")
    return "\n".join(lines)
