"""A real terminal for end-to-end tests of the client: a tmux session on a private socket, and a reader of
the game screen as a person reads it.

Each `Pane` is its own tmux server (`-L` a socket name of its own), so tests run in parallel without
sharing anything; `close()` kills it. `Table` reads one captured screen of the card table: the status
line under the hand, the hint under it, this seat's label on the ring's bottom edge, the chosen card.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

UNONET = str(Path(sys.executable).with_name("unonet"))
#: How long a wait for the screen to show something may take: generous, since each wait ends as soon as
#: its condition holds; only a client that never gets there uses it up.
DEADLINE = 60.0
#: The most a whole round or match of playing may take, for the loops that play one.
PLAY_DEADLINE = 300.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def client_env(directory: Path) -> dict[str, str]:
    """The environment of a client under test: its own state and config directories."""
    import os

    return {"XDG_STATE_HOME": str(directory / "state"), "XDG_CONFIG_HOME": str(directory / "config"),
            "TERM": "xterm-256color", "PATH": os.environ["PATH"]}


class Pane:
    """One tmux session on a private socket, running a command in a terminal of `size` (columns, rows)."""

    def __init__(self, command: list[str], env: dict[str, str], size: tuple[int, int] = (100, 30)) -> None:
        self.socket = f"unonet-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={value}" for key, value in env.items())
        shell = f"env {exports} {' '.join(command)}; echo CLIENT-EXITED; sleep 30"
        subprocess.run(["tmux", "-L", self.socket, "new-session", "-d", "-s", "t", "-x", str(size[0]),
                        "-y", str(size[1]), shell], check=True, timeout=10)

    def text(self) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "t"],
                                capture_output=True, text=True, timeout=10)
        return result.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "t", *keys], check=True, timeout=10)

    def wait_for(self, condition: Callable[[str], bool], what: str, deadline: float = DEADLINE) -> str:
        """Poll the pane until `condition` holds for its text; fail with the last screen after `deadline`."""
        end = time.monotonic() + deadline
        screen = ""
        while time.monotonic() < end:
            screen = self.text()
            if condition(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"the pane never showed {what}:\n{screen}")

    def quit_answering_yes(self, asked: str = "quit? This stops") -> None:
        """Q on a game that stops with its client (`unonet local`, `unonet host`): it asks first (`asked`
        is in the question), y quits, and the client is gone."""
        self.keys("q")
        self.wait_for(lambda s: asked in s, "Q asking first")
        self.keys("y")
        self.wait_for(lambda s: "CLIENT-EXITED" in s, "the client and its host to stop")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], timeout=10, check=False)


class Table:
    """One captured game screen, read as a player reads it."""

    def __init__(self, screen: str) -> None:
        self.screen = screen
        self.lines = screen.splitlines()
        self.me = next((i for i, line in enumerate(self.lines) if "(you)" in line and "╰" in line), -1)

    @property
    def status(self) -> str:
        """The status line: under the hand (four rows under this seat's label)."""
        if self.me >= 0 and self.me + 5 < len(self.lines):
            return self.lines[self.me + 5]
        return next((line for line in self.lines if line.startswith(" YOUR TURN")), "")

    @property
    def hint(self) -> str:
        return self.lines[self.me + 6] if self.me >= 0 and self.me + 6 < len(self.lines) else ""

    @property
    def hand_count(self) -> int:
        """The cards this seat holds, from its label ("ann (you) · 7 cards"); -1 when not shown."""
        if self.me < 0:
            return -1
        label = self.lines[self.me].split("(you)")[1]
        return int(label.split("·")[1].split()[0])

    @property
    def hand(self) -> list[str]:
        """The hand's rows (the chosen card among them)."""
        return self.lines[self.me + 1:self.me + 5] if self.me >= 0 else []

    @property
    def chosen_is_playable(self) -> bool:
        """The chosen card (drawn heavy) is raised: it can be played now."""
        return self.me >= 0 and self.me + 1 < len(self.lines) and "┏━━━┓" in self.lines[self.me + 1]

    @property
    def any_playable(self) -> bool:
        return self.me >= 0 and self.me + 1 < len(self.lines) and ("╭───╮" in self.lines[self.me + 1]
                                                                   or "┏━━━┓" in self.lines[self.me + 1])
