"""The legal actions as a numbered list of commands, whether a command is among them, and commands as JSON.

`LegalActions` says which commands a seat may send with which cards and targets; a bot in another
language that wants to answer "the third one" needs them as one flat, numbered list. `enumerate_actions`
makes that list, always in the same order, and the JSON-lines bridge (`unonet.bots.bridge`,
docs/bots.md) sends it with every decision:

- each PlayOption as given (a play that leaves one card calls UNO with it); one that `needs_color`
  once per colour, red, yellow, green, blue, with the colour named;
- ChooseColor once per colour; Draw; Pass; Challenge; CallUno;
- React for each window of `react_window_ids`; CatchUno for each `catch_uno` option (with its window);
- ChooseSwapTarget for each seat; FiveSwap for each target and card; GiveCard for each card.

Entropy commands are never listed: the runner contributes to the shuffle by itself. (This is the
bridge's published numbering; `unonet.bots.options.all_commands` spells the choices out differently,
for policies that choose uniformly among whole commands.)

`is_listed` is the check the runner applies to whatever a policy returns before it sends it: a command
the legal actions do not allow is never sent (docs/bots.md, "When a bot gets it wrong").

`command_to_json` / `command_from_json` give a command as ``{"rpc": "PlayCards", "request": {...}}``, the
request in proto3 JSON (google.protobuf.json_format) without `table_id`, `token` and `command_id`,
which the runner fills in.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from unonet.client import commands as cmd
from unonet.v1 import actions_pb2, cards_pb2, play_service_pb2

__all__ = ["COLORS", "BadCommand", "command_from_json", "command_to_json", "enumerate_actions", "is_listed"]

#: The colours a seat may name, in the order the list gives them.
COLORS = (cards_pb2.COLOR_RED, cards_pb2.COLOR_YELLOW, cards_pb2.COLOR_GREEN, cards_pb2.COLOR_BLUE)


class BadCommand(ValueError):
    """A command in JSON that names no RPC a seat may send, or whose request does not parse."""


def enumerate_actions(legal: actions_pb2.LegalActions, hand_size: int) -> list[cmd.Command]:
    """Every command `legal` allows, one entry per choice, in the documented order (see the module)."""
    actions: list[cmd.Command] = []
    for option in legal.plays:
        cards = tuple(option.cards)
        call_uno = hand_size - len(cards) == 1 and option.kind == actions_pb2.PLAY_KIND_TURN
        if option.needs_color:
            actions.extend(
                cmd.Play(cards, color=color, call_uno=call_uno, reaction_window_id=option.reaction_window_id)
                for color in COLORS
            )
        else:
            actions.append(cmd.Play(cards, call_uno=call_uno, reaction_window_id=option.reaction_window_id))
    if legal.choose_color:
        actions.extend(cmd.ChooseColor(color) for color in COLORS)
    if legal.HasField("draw"):
        actions.append(cmd.Draw())
    if legal.pass_turn:
        actions.append(cmd.Pass())
    if legal.challenge:
        actions.append(cmd.Challenge())
    if legal.call_uno:
        actions.append(cmd.CallUno())
    actions.extend(cmd.React(window_id) for window_id in legal.react_window_ids)
    if legal.catch_uno:
        actions.extend(cmd.CatchUno(c.target_seat, c.reaction_window_id) for c in legal.catch_uno)
    else:
        actions.extend(cmd.CatchUno(seat) for seat in legal.catch_uno_targets)
    actions.extend(cmd.ChooseSwapTarget(seat) for seat in legal.swap_target_seats)
    if legal.HasField("five_swap"):
        actions.extend(
            cmd.FiveSwap(seat, card) for seat in legal.five_swap.target_seats for card in legal.five_swap.cards
        )
    actions.extend(cmd.GiveCard(card) for card in legal.give_cards)
    return actions


def _face(card: cards_pb2.Card) -> tuple[int, int]:
    return card.color, card.rank


def _play_is_listed(command: cmd.Play, legal: actions_pb2.LegalActions) -> bool:
    """A listed option, or a shorter play it allows: the same first card, the rest drawn from the option's
    other cards (in order for a run, in any order for a multi-play; see PlayOption)."""
    if not command.cards:
        return False
    sent = [_face(card) for card in command.cards]
    if command.color is not None and command.color not in COLORS:
        return False
    for option in legal.plays:
        listed = [_face(card) for card in option.cards]
        if option.reaction_window_id != command.reaction_window_id or not listed or listed[0] != sent[0]:
            continue
        if sent == listed[: len(sent)]:
            return True
        if not Counter(sent[1:]) - Counter(listed[1:]) and len(sent) <= len(listed):
            return True
    return False


def is_listed(command: cmd.Command, legal: actions_pb2.LegalActions) -> bool:
    """True when `legal` allows `command` (entropy commands included, as `commit_entropy` and
    `reveal_entropy` say). A Play may leave out cards its option allows (a shorter run or multi-play)."""
    match command:
        case cmd.Play():
            return _play_is_listed(command, legal)
        case cmd.ChooseColor():
            return legal.choose_color and command.color in COLORS
        case cmd.Draw():
            return legal.HasField("draw")
        case cmd.Pass():
            return legal.pass_turn
        case cmd.CallUno():
            return legal.call_uno
        case cmd.Challenge():
            return legal.challenge
        case cmd.React():
            return command.reaction_window_id in legal.react_window_ids
        case cmd.CatchUno():
            if command.target_seat not in legal.catch_uno_targets:
                return False
            windows = {c.reaction_window_id for c in legal.catch_uno if c.target_seat == command.target_seat}
            return command.reaction_window_id == 0 or not windows or command.reaction_window_id in windows
        case cmd.ChooseSwapTarget():
            return command.target_seat in legal.swap_target_seats
        case cmd.FiveSwap():
            return (
                legal.HasField("five_swap")
                and command.target_seat in legal.five_swap.target_seats
                and _face(command.card) in {_face(card) for card in legal.five_swap.cards}
            )
        case cmd.GiveCard():
            return _face(command.card) in {_face(card) for card in legal.give_cards}
        case cmd.CommitEntropy():
            return legal.commit_entropy
        case cmd.RevealEntropy():
            return legal.reveal_entropy
    return False


def _request_of(command: cmd.Command) -> tuple[str, Message]:
    match command:
        case cmd.Play():
            request = play_service_pb2.PlayCardsRequest(
                cards=command.cards, call_uno=command.call_uno, reaction_window_id=command.reaction_window_id
            )
            if command.color is not None:
                request.color = command.color
            return "PlayCards", request
        case cmd.ChooseColor():
            return "ChooseColor", play_service_pb2.ChooseColorRequest(color=command.color)
        case cmd.Draw():
            return "Draw", play_service_pb2.DrawRequest()
        case cmd.Pass():
            return "Pass", play_service_pb2.PassRequest()
        case cmd.CallUno():
            return "CallUno", play_service_pb2.CallUnoRequest()
        case cmd.Challenge():
            return "Challenge", play_service_pb2.ChallengeRequest()
        case cmd.React():
            return "React", play_service_pb2.ReactRequest(reaction_window_id=command.reaction_window_id)
        case cmd.CatchUno():
            return "CatchUno", play_service_pb2.CatchUnoRequest(
                target_seat=command.target_seat, reaction_window_id=command.reaction_window_id
            )
        case cmd.ChooseSwapTarget():
            return "ChooseSwapTarget", play_service_pb2.ChooseSwapTargetRequest(target_seat=command.target_seat)
        case cmd.FiveSwap():
            return "FiveSwap", play_service_pb2.FiveSwapRequest(target_seat=command.target_seat, card=command.card)
        case cmd.GiveCard():
            return "GiveCard", play_service_pb2.GiveCardRequest(card=command.card)
        case cmd.CommitEntropy():
            return "CommitEntropy", play_service_pb2.CommitEntropyRequest(commitment=command.commitment)
        case cmd.RevealEntropy():
            return "RevealEntropy", play_service_pb2.RevealEntropyRequest(entropy=command.entropy)
    raise TypeError(f"not a command: {command!r}")


def command_to_json(command: cmd.Command) -> dict[str, Any]:
    """``{"rpc": NAME, "request": {...}}``: the RPC and its request in proto3 JSON (fields at their
    default left out), without the table id, token and command id."""
    rpc, request = _request_of(command)
    return {"rpc": rpc, "request": json_format.MessageToDict(request, preserving_proto_field_name=True)}


# The requests a bot may send, by RPC, and how each becomes a command. Entropy is the runner's.
_FROM_REQUEST: dict[str, tuple[type[Message], Any]] = {
    "PlayCards": (
        play_service_pb2.PlayCardsRequest,
        lambda r: cmd.Play(
            tuple(r.cards),
            color=r.color if r.HasField("color") else None,
            call_uno=r.call_uno,
            reaction_window_id=r.reaction_window_id,
        ),
    ),
    "ChooseColor": (play_service_pb2.ChooseColorRequest, lambda r: cmd.ChooseColor(r.color)),
    "Draw": (play_service_pb2.DrawRequest, lambda r: cmd.Draw()),
    "Pass": (play_service_pb2.PassRequest, lambda r: cmd.Pass()),
    "CallUno": (play_service_pb2.CallUnoRequest, lambda r: cmd.CallUno()),
    "Challenge": (play_service_pb2.ChallengeRequest, lambda r: cmd.Challenge()),
    "React": (play_service_pb2.ReactRequest, lambda r: cmd.React(r.reaction_window_id)),
    "CatchUno": (play_service_pb2.CatchUnoRequest, lambda r: cmd.CatchUno(r.target_seat, r.reaction_window_id)),
    "ChooseSwapTarget": (play_service_pb2.ChooseSwapTargetRequest, lambda r: cmd.ChooseSwapTarget(r.target_seat)),
    "FiveSwap": (play_service_pb2.FiveSwapRequest, lambda r: cmd.FiveSwap(r.target_seat, r.card)),
    "GiveCard": (play_service_pb2.GiveCardRequest, lambda r: cmd.GiveCard(r.card)),
}


def command_from_json(value: object) -> cmd.Command:
    """The command a ``{"rpc": NAME, "request": {...}}`` object names.

    Raises:
        BadCommand: not such an object, an RPC a bot may not send, or a request that does not parse
            (an unknown field, a wrong type, an enum name that does not exist).
    """
    if not isinstance(value, dict) or not isinstance(value.get("rpc"), str):
        raise BadCommand(f"expected {{'rpc': NAME, 'request': {{...}}}}, got {value!r:.200}")
    entry = _FROM_REQUEST.get(value["rpc"])
    if entry is None:
        raise BadCommand(f"{value['rpc']!r} is not a command a bot sends (one of {', '.join(_FROM_REQUEST)})")
    request_type, convert = entry
    request = request_type()
    try:
        json_format.ParseDict(value.get("request") or {}, request)
    except json_format.ParseError as error:
        raise BadCommand(f"{value['rpc']} request does not parse: {error}") from None
    command: cmd.Command = convert(request)
    return command
