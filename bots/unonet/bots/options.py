"""Every command a seat's `LegalActions` allows, one value per distinct choice.

The protocol lists each command once with its allowed cards and targets (actions.proto); a policy that
chooses among whole commands (the uniform `random` bot, a level's deliberate mistake) needs them
spelled out. A play that would leave one card comes twice, with and without calling UNO, as the rules
engine lists it; a play whose last card names a colour comes without one (the colour is the separate
ChooseColor decision that follows, as for a person).
"""

from __future__ import annotations

from unonet.bots.hand import NAMEABLE
from unonet.client import commands as cmd
from unonet.v1 import actions_pb2

__all__ = ["all_commands"]


def all_commands(legal: actions_pb2.LegalActions, hand_size: int) -> list[cmd.Command]:
    """Each command `legal` allows now, for a seat holding `hand_size` cards (never the shuffle's)."""
    out: list[cmd.Command] = []
    out.extend(cmd.React(window_id) for window_id in legal.react_window_ids)
    if legal.choose_color:
        out.extend(cmd.ChooseColor(color) for color in NAMEABLE)
    for option in legal.plays:
        cards = tuple(option.cards)
        out.append(cmd.Play(cards, reaction_window_id=option.reaction_window_id))
        if hand_size - len(cards) == 1:
            out.append(cmd.Play(cards, call_uno=True, reaction_window_id=option.reaction_window_id))
    if legal.HasField("draw"):
        out.append(cmd.Draw())
    if legal.pass_turn:
        out.append(cmd.Pass())
    if legal.challenge:
        out.append(cmd.Challenge())
    if legal.call_uno:
        out.append(cmd.CallUno())
    windows = {catch.target_seat: catch.reaction_window_id for catch in legal.catch_uno}
    out.extend(cmd.CatchUno(seat, windows.get(seat, 0)) for seat in legal.catch_uno_targets)
    out.extend(cmd.ChooseSwapTarget(seat) for seat in legal.swap_target_seats)
    if legal.HasField("five_swap"):
        out.extend(cmd.FiveSwap(seat, card) for seat in legal.five_swap.target_seats for card in legal.five_swap.cards)
    out.extend(cmd.GiveCard(card) for card in legal.give_cards)
    return out

