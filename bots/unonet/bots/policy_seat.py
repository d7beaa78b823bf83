"""`PolicySeat`: a `unonet.bots` policy playing one seat inside the host's process, fed what a networked
seat would be fed.

The host's own bot seats (`AddBots`, a seat taken over after its strikes) and the in-process arena
that `bench/bots.py` plays on run the very policies a `BotRunner` plays over the network: each gets
the protobuf `SeatView` and events this module is handed (the host's converter builds them), and its
command goes back through the same conversion a PlayService request takes (`convert.action_from_request`).
So a policy behaves the same at a real table, at a host bot seat and in a benchmark.

Nothing here sleeps or does I/O: a level's thinking time (`Bot.think_seconds`) is the caller's to
honour or skip.
"""

from __future__ import annotations

from google.protobuf.message import Message

from unonet.bots.policy import Bot, BotState, default_command
from unonet.client import commands as cmd
from unonet.engine import Action
from unonet.v1 import actions_pb2, events_pb2, play_service_pb2, views_pb2
from unonet.wire import convert

__all__ = ["PolicySeat", "engine_actions", "request_for"]


class PolicySeat:
    """One policy at one seat: the `BotState` a runner would keep, and the policy's calls.

    Args:
        bot: the policy.
        seat: the seat it plays.
    """

    def __init__(self, bot: Bot, seat: int) -> None:
        self.bot = bot
        self.seat = seat
        self.state = BotState(seat=seat)

    def follow(self, event: events_pb2.Event) -> None:
        """One event as this seat received it: the state first, then the policy (as `BotRunner` does)."""
        self.state.update(event)
        self.bot.on_event(event)

    def decide(self, view: views_pb2.SeatView) -> cmd.Command | None:
        """The policy's command for a required decision, or the host's default (Draw, else Pass)."""
        self.state.update_from_view(view)
        command = self.bot.decide(view, self.state)
        return command if command is not None else default_command(view.legal_actions)

    def respond(self, legal: actions_pb2.LegalActions) -> cmd.Command | None:
        """The policy's optional reaction to `legal`, or None; a window is answered at most once."""
        command = self.bot.respond(legal, self.state)
        if isinstance(command, cmd.React | cmd.CatchUno) and command.reaction_window_id:
            if command.reaction_window_id in self.state.answered_windows:
                return None
            self.state.answered_windows.add(command.reaction_window_id)
        return command

    def actions(self, command: cmd.Command) -> tuple[Action, ...]:
        """`command` as the engine actions the host applies for this seat (`engine_actions`)."""
        return engine_actions(self.seat, command)


def request_for(command: cmd.Command) -> Message:
    """The PlayService request that carries `command` (what `TableClient.send` sends, without ids).

    Raises TypeError for the shuffle's commands (CommitEntropy, RevealEntropy): they are the host's.
    """
    pb = play_service_pb2
    match command:
        case cmd.Play():
            request = pb.PlayCardsRequest(
                cards=list(command.cards), call_uno=command.call_uno, reaction_window_id=command.reaction_window_id
            )
            if command.color is not None:
                request.color = command.color
            return request
        case cmd.ChooseColor():
            return pb.ChooseColorRequest(color=command.color)
        case cmd.Draw():
            return pb.DrawRequest()
        case cmd.Pass():
            return pb.PassRequest()
        case cmd.CallUno():
            return pb.CallUnoRequest()
        case cmd.CatchUno():
            return pb.CatchUnoRequest(target_seat=command.target_seat, reaction_window_id=command.reaction_window_id)
        case cmd.Challenge():
            return pb.ChallengeRequest()
        case cmd.React():
            return pb.ReactRequest(reaction_window_id=command.reaction_window_id)
        case cmd.ChooseSwapTarget():
            return pb.ChooseSwapTargetRequest(target_seat=command.target_seat)
        case cmd.FiveSwap():
            return pb.FiveSwapRequest(target_seat=command.target_seat, card=command.card)
        case cmd.GiveCard():
            return pb.GiveCardRequest(card=command.card)
    raise TypeError(f"not a PlayService command a policy may send: {command!r}")


def engine_actions(seat: int, command: cmd.Command) -> tuple[Action, ...]:
    """The engine actions `command` from `seat` asks for (`convert.action_from_request` on its request).

    Raises MalformedAction or IllegalAction as that conversion does, TypeError as `request_for` does.
    """
    return convert.action_from_request(seat, request_for(command))
