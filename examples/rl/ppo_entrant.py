"""The trained policy as a league entrant: `python = "ppo_entrant:PPOBot"` (examples/rl/league.toml).

A `unonet.bots.Bot` like any other: it follows its seat's events and decides from its `SeatView`, so it
plays at a host's table, in a league's games over the network and `--inprocess` alike. Its observation
is rebuilt from what the seat receives by `unonet.rl.seat_observer.SeatObserver`, the very vector the Gymnasium
environment gave it in training (tests/rl/test_seat_observer.py holds the two equal); the policy's
index is turned back into the command that carries it. Offered chances: it slaps and answers a Sound
Wild (a React always beats drawing two), and takes nothing else, as it never trained on them (the
standard rules heads-up offer only the UNO catches of a player who forgot to call).

The policy is the network `export_policy.py` took out of the trained MaskablePPO model (`policy.npz`
beside this file, or `UNONET_PPO_POLICY` when set), played in numpy (`numpy_policy.py`): an entrant
needs neither torch nor stable-baselines3, and a league's seats process loads it in milliseconds.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy_policy import NumpyPolicy

from unonet.bots.options import all_commands
from unonet.bots.policy import Bot, BotState
from unonet.bots.policy_seat import engine_actions
from unonet.client import commands as cmd
from unonet.engine import UnoError
from unonet.rl.actions import BASIC_ACTION_COUNT
from unonet.rl.seat_observer import SeatObserver
from unonet.v1 import actions_pb2, events_pb2, views_pb2

DEFAULT_POLICY = Path(__file__).resolve().parent / "policy.npz"


def policy_path() -> Path:
    return Path(os.environ.get("UNONET_PPO_POLICY", DEFAULT_POLICY))


_LOADED: dict[Path, NumpyPolicy] = {}


def load_policy(path: Path) -> NumpyPolicy:
    """The policy at `path`, loaded once per process: a league makes a bot per game, and a seats process
    that reloaded it for each would hold every other game's clock while it reads the file."""
    model = _LOADED.get(path)
    if model is None:
        model = _LOADED[path] = NumpyPolicy.load(path)
    return model


class PPOBot(Bot):
    """The MaskablePPO policy trained by train_maskable_ppo.py, playing deterministically (its argmax).

    At a table of another size than it trained for, or under rules that unmask actions it never saw,
    it leaves each decision to the host's default (None: draw, else pass).
    """

    kind = "ppo"

    def __init__(self, seed: int | None = None, path: Path | None = None) -> None:
        self.policy = load_policy(path or policy_path())
        self.observer: SeatObserver | None = None
        self._pending: list[events_pb2.Event] = []
        #: Decisions the network made (the others were left to the host's default).
        self.decisions = 0

    def on_event(self, event: events_pb2.Event) -> None:
        if event.WhichOneof("payload") == "round_started":  # a new round: follow it from its start
            self.observer = None
            self._pending = []
        if self.observer is None:
            self._pending.append(event)
        else:
            self.observer.follow(event)

    def decide(self, view: views_pb2.SeatView, state: BotState) -> cmd.Command | None:
        if view.settings.seat_count != self.policy.players:
            return None
        if self.observer is None:
            self.observer = SeatObserver(view.settings.seat_count)
            for event in self._pending:
                self.observer.follow(event)
            self._pending = []
        try:
            observation, _game, legal = self.observer.observe(view)
        except UnoError:
            return None  # a position the tracker cannot read: the host's default (Draw, else Pass)
        if not legal or max(legal) >= BASIC_ACTION_COUNT:
            return None  # rules it never trained on
        mask = np.zeros(BASIC_ACTION_COUNT, np.bool_)
        mask[list(legal)] = True
        wanted = legal[self.policy.act(observation, mask)]
        for command in all_commands(view.legal_actions, len(view.hand)):
            try:
                if engine_actions(view.seat, command) == (wanted,):
                    self.decisions += 1
                    return command
            except (UnoError, TypeError):
                continue
        return None

    def respond(self, legal: actions_pb2.LegalActions, state: BotState) -> cmd.Command | None:
        for window_id in legal.react_window_ids:
            if window_id not in state.answered_windows:
                return cmd.React(window_id)
        return None
